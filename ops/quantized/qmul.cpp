// ops/quantized/qmul.cpp — quantized::mul / mul_relu of two quint8 tensors, broadcasting (squeeze-excitation's
// (N, C, 1, 1) scale times its (N, C, H, W) input), and of a tensor and a number, computed as ATen's qmul_kernel and
// _mul_scalar_out do, so the integers equal PyTorch's.
#include <algorithm>
#include <cmath>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

/// A dense tensor of `like`'s geometry holding `q`'s integers broadcast to it: `q` itself when it already is one.
Tensor integers_as(const Tensor& q, const Tensor& like) {
  const Tensor ints = int8::integers_of(q);
  if (q.shape() == like.shape() && q.strides() == like.strides()) return ints;
  Tensor out = Tensor::make(Tensor::allocate({like.numel()}, DType::UInt8).storage(), like.shape(), like.strides(), 0,
                            DType::UInt8);
  detail::copy_elements(out, ints.expand(like.shape()));
  return out;
}

// (qa - za) * (qb - zb) in int32, requantized by float(sa) * float(sb) * (1 / float(scale)) and rounded to nearest
// even (ATen's requantize_from_int); ReLU clamps at the result's zero point.
Tensor run_qmul(const char* op, const Tensor& qa, const Tensor& qb, const Tensor& result, bool relu, double scale,
                int64_t zero_point) {
  TL_CHECK(qa.defined() && qb.defined() && qa.dtype() == qb.dtype(), op, ": Mul operands should have same data type, got ",
           qa.defined() ? qa.dtype() : DType::Float32, " and ", qb.defined() ? qb.dtype() : DType::Float32);
  int8::check_quint8(op, "self", qa);
  int8::check_quint8(op, "other", qb);
  const Shape shape = broadcast_shapes(qa.shape(), qb.shape(), op);
  // The result's layout: the first operand of the result's shape that is dense, else contiguous.
  const Tensor& like = qa.shape() == shape && int8::is_dense(qa) ? qa : qb.shape() == shape && int8::is_dense(qb) ? qb : Tensor();
  const Strides strides = like.defined() && !like.is_contiguous() ? like.strides() : contiguous_strides(shape);
  Tensor out = int8::result_or_out(op, result, shape, strides, scale, zero_point);
  if (out.numel() == 0) return out;
  const Tensor a = integers_as(qa, out), b = integers_as(qb, out);
  const int32_t za = static_cast<int32_t>(qa.q_zero_point()), zb = static_cast<int32_t>(qb.q_zero_point());
  const float multiplier =
      static_cast<float>(qa.q_scale()) * static_cast<float>(qb.q_scale()) * (1.0f / static_cast<float>(scale));
  const auto* pa = static_cast<const uint8_t*>(a.raw_data());
  const auto* pb = static_cast<const uint8_t*>(b.raw_data());
  auto* po = static_cast<uint8_t*>(out.raw_data());
  const int64_t floor = relu ? zero_point : 0;
  parallel_for(0, out.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int32_t c = (static_cast<int32_t>(pa[i]) - za) * (static_cast<int32_t>(pb[i]) - zb);
      const int64_t q = zero_point + static_cast<int64_t>(std::nearbyint(static_cast<float>(c) * multiplier));
      po[i] = static_cast<uint8_t>(std::clamp<int64_t>(q, floor, 255));
    }
  });
  return out;
}

// A positive number keeps the integers (ReLU: clamped at the zero point) under scale * b; zero gives zeros under
// scale 1, zero point 0; a negative one mirrors them (255 - q) under scale * |b|, zero point 255 - z.
Tensor run_qmul_scalar(const char* op, const Tensor& qa, const Scalar& b, bool relu) {
  int8::check_quint8(op, "self", qa);
  const double c = b.to<double>();
  TL_CHECK(std::isfinite(c), op, ": expected a finite number, got ", c);
  const double scale = c == 0.0 ? 1.0 : std::abs(c) * qa.q_scale();
  const int64_t z = qa.q_zero_point(), zero_point = c > 0.0 ? z : c == 0.0 ? 0 : 255 - z;
  const Tensor a = int8::is_dense(qa) ? qa : qa.contiguous();
  Tensor out = int8::empty_like_dense(a, Quantizer::per_tensor_affine(DType::QUInt8, scale, zero_point));
  const auto* pa = static_cast<const uint8_t*>(a.raw_data());
  auto* po = static_cast<uint8_t*>(out.raw_data());
  const int64_t floor = relu ? zero_point : 0;
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int64_t q = c > 0.0 ? pa[i] : c == 0.0 ? 0 : 255 - pa[i];
    po[i] = static_cast<uint8_t>(std::max(q, floor));
  }
  return out;
}

}  // namespace

// qa, qb: quint8 per tensor, broadcastable. Result: quint8 (scale, zero_point) of the broadcast shape, laid out as
// an operand of that shape when it is dense; written into `out` when given.
Tensor quantized_mul(const Tensor& qa, const Tensor& qb, const Tensor& out, const QuantizedMulArgs& args) {
  return run_qmul("quantized::mul", qa, qb, out, false, args.scale, args.zero_point);
}

Tensor quantized_mul_relu(const Tensor& qa, const Tensor& qb, const Tensor& out, const QuantizedMulReluArgs& args) {
  return run_qmul("quantized::mul_relu", qa, qb, out, true, args.scale, args.zero_point);
}

// The overloads a converted graph calls: scale and zero_point one element each (its get_attr buffers).
Tensor quantized_mul_tensor_qparams(const Tensor& qa, const Tensor& qb, const Tensor& scale, const Tensor& zero_point,
                                    const Tensor& out) {
  int8::check_qparam_tensors("quantized::mul", scale, zero_point);
  return run_qmul("quantized::mul", qa, qb, out, false, scale.item<double>(), zero_point.item<int64_t>());
}

Tensor quantized_mul_relu_tensor_qparams(const Tensor& qa, const Tensor& qb, const Tensor& scale,
                                         const Tensor& zero_point, const Tensor& out) {
  int8::check_qparam_tensors("quantized::mul_relu", scale, zero_point);
  return run_qmul("quantized::mul_relu", qa, qb, out, true, scale.item<double>(), zero_point.item<int64_t>());
}

Tensor quantized_mul_scalar(const Tensor& qa, const QuantizedMulScalarArgs& args) {
  return run_qmul_scalar("quantized::mul", qa, args.b, false);
}

Tensor quantized_mul_relu_scalar(const Tensor& qa, const QuantizedMulReluScalarArgs& args) {
  return run_qmul_scalar("quantized::mul_relu", qa, args.b, true);
}

}  // namespace tl::kernels
