// ops/manual_api.cpp — the C++ API of the op rows marked "manual" in core/op_list.h, whose overloads
// differ from their schema or that may return their input without running the op (the rest is generated
// by core/gen_op_api.py), and scalar_tensor.
#include "core/op_kind.h"
#include "ops/attr_util.h"
#include "ops/ops.h"

namespace tl {
namespace {

Attrs whole_reduction() { return {{"dim", AttrValue{}}, {"keepdim", false}}; }

template <class Result>
Result values_indices(OpKind op, const Tensor& x, int64_t dim, bool keepdim, CallStyle style) {
  auto [values, indices] = detail::unpack<std::pair<Tensor, Tensor>>(
      dispatch::call(op, detail::inputs({x}), {{"dim", dim}, {"keepdim", keepdim}}, style));
  return {std::move(values), std::move(indices)};
}

}  // namespace

Tensor arange(const Scalar& end) { return arange(0, end, 1); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step) {
  const bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  return arange(start, end, step, floating ? DType::Float32 : DType::Int64);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype) {
  return dispatch::call1(OpKind::Arange, {},
                         {{"start", detail::attr(start)}, {"end", detail::attr(end)}, {"step", detail::attr(step)},
                          {"dtype", dtype}});
}

Tensor scalar_tensor(const Scalar& value, DType dtype) { return full({}, value, dtype); }

Tensor max(const Tensor& x) { return dispatch::call1(OpKind::Max, {x}, whole_reduction()); }
return_types::max max(const Tensor& x, int64_t dim, bool keepdim) {
  return values_indices<return_types::max>(OpKind::Max, x, dim, keepdim, CallStyle::Function);
}
Tensor min(const Tensor& x) { return dispatch::call1(OpKind::Min, {x}, whole_reduction()); }
return_types::min min(const Tensor& x, int64_t dim, bool keepdim) {
  return values_indices<return_types::min>(OpKind::Min, x, dim, keepdim, CallStyle::Function);
}
Tensor Tensor::max() const { return dispatch::call1(OpKind::Max, {*this}, whole_reduction(), CallStyle::Method); }
return_types::max Tensor::max(int64_t dim, bool keepdim) const {
  return values_indices<return_types::max>(OpKind::Max, *this, dim, keepdim, CallStyle::Method);
}
Tensor Tensor::min() const { return dispatch::call1(OpKind::Min, {*this}, whole_reduction(), CallStyle::Method); }
return_types::min Tensor::min(int64_t dim, bool keepdim) const {
  return values_indices<return_types::min>(OpKind::Min, *this, dim, keepdim, CallStyle::Method);
}

Tensor nonzero(const Tensor& x) { return dispatch::call1(OpKind::Nonzero, {x}, {{"as_tuple", false}}); }
Tensor Tensor::nonzero() const {
  return dispatch::call1(OpKind::Nonzero, {*this}, {{"as_tuple", false}}, CallStyle::Method);
}
std::vector<Tensor> nonzero_tuple(const Tensor& x) {
  return dispatch::call(OpKind::Nonzero, detail::inputs({x}), {{"as_tuple", true}});
}

Tensor Tensor::contiguous() const {
  if (!is_proxy() && is_contiguous()) return *this;
  return dispatch::call1(OpKind::Contiguous, {*this}, {}, CallStyle::Method);
}

}  // namespace tl
