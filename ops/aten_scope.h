// ops/aten_scope.h — (internal) the ATen ops a kernel's work stands for, opened as profiler scopes
// (core/record_function.h), so that a profile nests as PyTorch 1.13's does on CPU
// (tests/profiler/test_op_tree.cpp). Unobserved, a scope costs one thread-local read; its argument
// list is built only when observed.
#pragma once

#include <string_view>
#include <utility>

#include "core/record_function.h"

namespace tl::detail {

/// The attribute `name` as a scope argument; None when absent.
inline ScopeArg attr_arg(const Attrs& attrs, std::string_view name) {
  const AttrValue* v = attrs.find(name);
  return v ? *v : AttrValue{};
}

/// A scope with nothing inside: an ATen op whose work torchless does elsewhere or not at all
/// (a view's as_strided, resolve_conj of a real tensor).
template <typename InputsFn>
void instant_scope(std::string_view name, const InputsFn& inputs) {
  RecordFunction scope(name, inputs);
}

/// What ATen's sum records inside itself before it reduces into a result of type `out` through a
/// keepdim-shaped view (`filled` sizes): as_strided (that view, when not keepdim) and fill_ (the zeroed
/// accumulator). Then runs `reduce`.
template <typename Reduce>
void sum_scopes(const TensorType& out, bool keepdim, const Shape& filled, Reduce&& reduce) {
  if (!keepdim)
    instant_scope("aten::as_strided", [&] { return ScopeArgs{out, AttrValue{}, AttrValue{}, AttrValue{}}; });
  instant_scope("aten::fill_", [&] { return ScopeArgs{TensorType{filled, out.dtype}, AttrValue(int64_t{0})}; });
  std::forward<Reduce>(reduce)();
}

/// What ATen records converting a number it wrapped in a 0-d tensor to an op's result type:
/// to -> _to_copy -> copy_, all of a 0-d tensor.
inline void to_copy_scopes() {
  RecordFunction to("aten::to", [&] { return ScopeArgs(5, AttrValue{}); });
  RecordFunction to_copy("aten::_to_copy", [&] { return ScopeArgs(7, AttrValue{}); });
  instant_scope("aten::copy_", [&] { return ScopeArgs(3, AttrValue{}); });
}

/// What ATen's in-place division of `self` by a number records: div_.Scalar wraps the number in a 0-d tensor
/// for div_.Tensor, which converts it to self's dtype (to_copy_scopes). The division itself is the
/// caller's work, done with another op's.
inline void scalar_div_scopes(const TensorType& self, const AttrValue& divisor) {
  RecordFunction div("aten::div_", [&] { return ScopeArgs{self, divisor}; });
  RecordFunction div_tensor("aten::div_", [&] { return ScopeArgs{self, divisor}; });
  to_copy_scopes();
}

/// ATen's mean.dim of x over `dim` into a result of type `out` (`filled`: its keepdim sizes): sum into
/// the result (sum.IntList_out, with sum_scopes' children and `reduce` inside), then an in-place
/// division by the element count `n` (scalar_div_scopes). torchless divides inside the reduction.
template <typename Reduce>
void mean_scopes(const Tensor& x, const ScopeArg& dim, bool keepdim, const TensorType& out, const Shape& filled,
                 int64_t n, Reduce&& reduce) {
  {
    RecordFunction sum("aten::sum", [&] { return ScopeArgs{x, dim, AttrValue(keepdim), AttrValue{}, out}; });
    sum_scopes(out, keepdim, filled, std::forward<Reduce>(reduce));
  }
  scalar_div_scopes(out, AttrValue(n));
}

}  // namespace tl::detail
