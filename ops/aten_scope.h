// ops/aten_scope.h — (internal) the ATen ops a kernel's work stands for, opened by the kernel itself as
// profiler scopes (core/record_function.h): the old way, for the ops ops/aten_tree.cpp's table does not
// cover yet. Unobserved, a scope costs one thread-local read; its argument list is built only when observed.
#pragma once

#include <string_view>
#include <utility>

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

/// What ATen's Tensor::to records converting `from` to `dtype` (to_children); the copy is the caller's work.
inline void to_scopes(const TensorType& from, DType dtype) {
  if (ScopeObserver* observer = scope_observer()) {
    AtenTree t(*observer);
    to_children(t, from, dtype);
  }
}

/// ATen's reshape of `t` to `size` (reshape_children); the caller reads `t` through its strides.
inline void reshape_scopes(const TensorType& t, const Shape& size, bool view) {
  if (ScopeObserver* observer = scope_observer()) {
    AtenTree tree(*observer);
    reshape_children(tree, t, size, view);
  }
}

/// ATen's sum's children (sum_children) of a reduction of `x` into `out`, then `reduce`.
template <typename Reduce>
void sum_scopes(const TensorType& x, const TensorType& out, bool keepdim, const Shape& filled, Reduce&& reduce) {
  if (ScopeObserver* observer = scope_observer()) {
    AtenTree t(*observer);
    sum_children(t, x, out, keepdim, filled);
  }
  std::forward<Reduce>(reduce)();
}

/// ATen's in-place division of `self` by a number (scalar_div_children); the division is the caller's work.
inline void scalar_div_scopes(const TensorType& self, const AttrValue& divisor) {
  if (ScopeObserver* observer = scope_observer()) {
    AtenTree t(*observer);
    scalar_div_children(t, self, divisor);
  }
}

/// ATen's mean.dim of x over `dim` into a result of type `out` (`filled`: its keepdim sizes): runs `reduce`,
/// then records mean_children. torchless divides inside the reduction.
template <typename Reduce>
void mean_scopes(const Tensor& x, const AttrValue& dim, bool keepdim, const TensorType& out, const Shape& filled,
                 int64_t n, Reduce&& reduce) {
  std::forward<Reduce>(reduce)();
  if (ScopeObserver* observer = scope_observer()) {
    AtenTree t(*observer);
    mean_children(t, TensorType{x.shape(), x.dtype()}, dim, keepdim, out, filled, n);
  }
}

}  // namespace tl::detail
