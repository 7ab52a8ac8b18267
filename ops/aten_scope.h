// ops/aten_scope.h — (internal) the ATen ops a kernel's work stands for, opened as profiler scopes
// (core/record_function.h), so that a profile nests as PyTorch 1.13's does on CPU
// (tests/profiler/test_op_tree.cpp). Unobserved, a scope costs one thread-local read; its argument
// list is built only when observed.
#pragma once

#include <string_view>
#include <utility>

#include "core/record_function.h"

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

/// What ATen's Tensor::to records converting `from` to `dtype`: to, and when the dtype differs its
/// _to_copy -> copy_ (the copy is the caller's work, done as it reads `from`).
inline void to_scopes(const TensorType& from, DType dtype) {
  RecordFunction to("aten::to", [&] {
    return ScopeArgs{from, AttrValue(dtype), AttrValue(false), AttrValue(false), AttrValue{}};
  });
  if (from.dtype == dtype) return;
  RecordFunction to_copy("aten::_to_copy", [&] {
    return ScopeArgs{from, AttrValue(dtype), AttrValue{}, AttrValue{}, AttrValue{}, AttrValue(false), AttrValue{}};
  });
  instant_scope("aten::copy_", [&] { return ScopeArgs{TensorType{from.sizes, dtype}, from, AttrValue(false)}; });
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

/// What ATen's sum records inside itself before it reduces `x` into a result of type `out` through a
/// keepdim-shaped view (`filled` sizes): as_strided (that view, when not keepdim), the `to` of an input
/// whose dtype is not the result's (to_scopes) and fill_ (the zeroed accumulator). Then runs `reduce`.
template <typename Reduce>
void sum_scopes(const TensorType& x, const TensorType& out, bool keepdim, const Shape& filled, Reduce&& reduce) {
  if (!keepdim) as_strided_scope(out);
  if (x.dtype != out.dtype) to_scopes(x, out.dtype);
  instant_scope("aten::fill_", [&] { return ScopeArgs{TensorType{filled, out.dtype}, AttrValue(int64_t{0})}; });
  std::forward<Reduce>(reduce)();
}

/// What ATen's in-place division of `self` by a number records: div_.Scalar wraps the number in a 0-d tensor
/// for div_.Tensor, which converts that tensor (int64 or float64) to self's dtype where they differ
/// (to_scopes). The division itself is the caller's work, done with another op's.
inline void scalar_div_scopes(const TensorType& self, const AttrValue& divisor) {
  RecordFunction div("aten::div_", [&] { return ScopeArgs{self, divisor}; });
  RecordFunction div_tensor("aten::div_", [&] { return ScopeArgs{self, divisor}; });
  const DType number = std::holds_alternative<int64_t>(divisor) ? DType::Int64 : DType::Float64;
  if (number != self.dtype) to_scopes(TensorType{{}, number}, self.dtype);
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
