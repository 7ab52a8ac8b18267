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

/// ATen's reshape of `t` to `size`: _reshape_alias where a view does (`view`), else a clone (its copy_)
/// viewed through _unsafe_view. Scopes only: the caller reads `t` through its strides.
inline void reshape_scopes(const TensorType& t, const Shape& size, bool view) {
  RecordFunction reshape("aten::reshape", [&] { return ScopeArgs{t, AttrValue(size)}; });
  if (view) {
    instant_scope("aten::_reshape_alias", [&] { return ScopeArgs{t, AttrValue(size), AttrValue{}}; });
    return;
  }
  {
    RecordFunction clone("aten::clone", [&] { return ScopeArgs{t, AttrValue{}}; });
    instant_scope("aten::copy_", [&] { return ScopeArgs{t, t, AttrValue(false)}; });
  }
  instant_scope("aten::_unsafe_view", [&] { return ScopeArgs{t, AttrValue(size)}; });
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

/// ATen's mean.dim of x over `dim` into a result of type `out` (`filled`: its keepdim sizes): sum into
/// the result (sum.IntList_out, with sum_scopes' children and `reduce` inside), then an in-place
/// division by the element count `n` (scalar_div_scopes). torchless divides inside the reduction.
template <typename Reduce>
void mean_scopes(const Tensor& x, const ScopeArg& dim, bool keepdim, const TensorType& out, const Shape& filled,
                 int64_t n, Reduce&& reduce) {
  {
    RecordFunction sum("aten::sum", [&] { return ScopeArgs{x, dim, AttrValue(keepdim), AttrValue{}, out}; });
    sum_scopes(TensorType{x.shape(), x.dtype()}, out, keepdim, filled, std::forward<Reduce>(reduce));
  }
  scalar_div_scopes(out, AttrValue(n));
}

}  // namespace tl::detail
