// ops/aten_scope.h — (internal) the ATen ops a kernel's work stands for, opened by the kernel itself as
// profiler scopes (core/record_function.h): the old way, left only for the ops ops/aten_tree.cpp's table does
// not cover yet (linalg.cpp's matmul / mm / addmm / bmm). Unobserved, a scope costs one
// thread-local read; its argument list is built only when observed.
#pragma once

#include <string_view>

#include "core/record_function.h"
#include "ops/aten_tree.h"

namespace tl::detail {

/// A scope with nothing inside: an ATen op whose work torchless does elsewhere or not at all
/// (a view's as_strided, resolve_conj of a real tensor).
template <typename InputsFn>
void instant_scope(std::string_view name, const InputsFn& inputs) {
  RecordFunction scope(name, inputs);
}

/// ATen's as_strided of `t` (a Tensor or a TensorType): the view each of its view ops (unsqueeze, select,
/// expand, ...) makes inside itself.
template <typename T>
void as_strided_scope(const T& t) {
  instant_scope("aten::as_strided", [&] { return ScopeArgs{t, AttrValue{}, AttrValue{}, AttrValue{}}; });
}

/// ATen's reshape of `t` to `size` (reshape_children); the caller reads `t` through its strides.
inline void reshape_scopes(const TensorType& t, const Shape& size, bool view) {
  if (ScopeObserver* observer = scope_observer()) {
    AtenTree tree(*observer);
    reshape_children(tree, t, size, view);
  }
}

}  // namespace tl::detail
