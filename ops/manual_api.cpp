// ops/manual_api.cpp — the C++ API of the op rows marked "manual" in core/native_functions.toml, whose overloads
// differ from their schema or that may return their input without running the op (the rest is generated
// by core/gen_ops.py), and scalar_tensor.
#include "core/op_args.h"
#include "ops/ops.h"

namespace tl {
namespace {

template <OpKind Op, class Result>
Result values_indices(const Tensor& x, int64_t dim, bool keepdim, CallStyle style) {
  auto [values, indices] = dispatch::call<Op>({x}, {.dim = dim, .keepdim = keepdim}, style);
  return {std::move(values), std::move(indices)};
}

// max() and min() without a dim: the whole tensor's extreme, the one output the kernel returns then.
template <OpKind Op>
Tensor extreme(const Tensor& x, CallStyle style) {
  const ArgsOf<Op> args;
  return dispatch::call_typed(Op, std::span<const Tensor>(&x, 1), &args, style).at(0);
}

}  // namespace

Tensor arange(const Scalar& end) { return arange(0, end, 1); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step) {
  const bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  return arange(start, end, step, floating ? DType::Float32 : DType::Int64);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype) {
  return dispatch::call<OpKind::Arange>({}, {.start = start, .end = end, .step = step, .dtype = dtype});
}

Tensor randint(int64_t high, const Shape& size, DType dtype) { return randint(0, high, size, dtype); }
Tensor randint(int64_t low, int64_t high, const Shape& size, DType dtype) {
  return dispatch::call<OpKind::Randint>({}, {.low = low, .high = high, .size = size, .dtype = dtype});
}
Tensor randint(int64_t high, const Shape& size, std::optional<Generator> generator, DType dtype) {
  return randint(0, high, size, std::move(generator), dtype);
}
Tensor randint(int64_t low, int64_t high, const Shape& size, std::optional<Generator> generator, DType dtype) {
  return dispatch::call<OpKind::Randint>(
      {}, {.low = low, .high = high, .size = size, .dtype = dtype, .generator = std::move(generator)});
}
Tensor randint_like(const Tensor& self, int64_t high, std::optional<DType> dtype) {
  return randint_like(self, 0, high, dtype);
}
Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<DType> dtype) {
  return dispatch::call<OpKind::RandintLike>({self}, {.low = low, .high = high, .dtype = dtype});
}

Tensor scalar_tensor(const Scalar& value, DType dtype) { return full({}, value, dtype); }


Tensor max(const Tensor& x) { return extreme<OpKind::Max>(x, CallStyle::Function); }
return_types::max max(const Tensor& x, int64_t dim, bool keepdim) {
  return values_indices<OpKind::Max, return_types::max>(x, dim, keepdim, CallStyle::Function);
}
Tensor min(const Tensor& x) { return extreme<OpKind::Min>(x, CallStyle::Function); }
return_types::min min(const Tensor& x, int64_t dim, bool keepdim) {
  return values_indices<OpKind::Min, return_types::min>(x, dim, keepdim, CallStyle::Function);
}
Tensor Tensor::max() const { return extreme<OpKind::Max>(*this, CallStyle::Method); }
return_types::max Tensor::max(int64_t dim, bool keepdim) const {
  return values_indices<OpKind::Max, return_types::max>(*this, dim, keepdim, CallStyle::Method);
}
Tensor Tensor::min() const { return extreme<OpKind::Min>(*this, CallStyle::Method); }
return_types::min Tensor::min(int64_t dim, bool keepdim) const {
  return values_indices<OpKind::Min, return_types::min>(*this, dim, keepdim, CallStyle::Method);
}

Tensor nonzero(const Tensor& x) { return dispatch::call<OpKind::Nonzero>({x}, {.as_tuple = false})[0]; }
Tensor Tensor::nonzero() const {
  return dispatch::call<OpKind::Nonzero>({*this}, {.as_tuple = false}, CallStyle::Method)[0];
}
std::vector<Tensor> nonzero_tuple(const Tensor& x) { return dispatch::call<OpKind::Nonzero>({x}, {.as_tuple = true}); }

Tensor Tensor::contiguous() const {
  if (!is_proxy() && is_contiguous()) return *this;
  return dispatch::call<OpKind::Contiguous>({*this}, {}, CallStyle::Method);
}

}  // namespace tl
