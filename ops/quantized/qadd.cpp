// ops/quantized/qadd.cpp — quantized::add / add_relu of two quint8 tensors of one shape, computed as ATen's
// qadd_kernel does (each operand dequantized with one fused multiply-add, the sum requantized with the output's
// inverse scale), so the integers equal PyTorch's. The result takes the first operand's layout when it is dense.
// Also add(_relu).Scalar, a tensor plus a number, as ATen's qadd_scalar: its qparams shifted, not its integers.
#include <algorithm>
#include <cmath>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

Tensor run_qadd(const char* op, const Tensor& qa, const Tensor& qb, const Tensor& result, bool relu, double scale,
                int64_t zero_point) {
  TL_CHECK(qa.defined() && qb.defined() && qa.dtype() == qb.dtype(), op, ": Add operands should have same data type, got ",
           qa.defined() ? qa.dtype() : DType::Float32, " and ", qb.defined() ? qb.dtype() : DType::Float32);
  int8::check_quint8(op, "self", qa);
  int8::check_quint8(op, "other", qb);
  TL_CHECK(qa.shape() == qb.shape(), op, ": expected operands of one shape, got ", qa.shape(), " and ", qb.shape());
  // Both operands and the result in one dense layout, so one flat loop covers them.
  const Tensor a = int8::is_dense(qa) ? qa : qa.contiguous();
  Tensor out = int8::result_or_out(op, result, a.shape(), a.strides(), scale, zero_point);
  Tensor b = qb;
  if (b.strides() != a.strides() || !int8::is_dense(b)) {
    b = int8::empty_like_dense(a, qb.quantizer());
    detail::copy_elements(int8::integers_of(b), int8::integers_of(qb));
  }
  const float a_scale = static_cast<float>(a.q_scale()), b_scale = static_cast<float>(b.q_scale());
  const float a_premul = a_scale * -static_cast<float>(a.q_zero_point());
  const float b_premul = b_scale * -static_cast<float>(b.q_zero_point());
  const float inverse = 1.0f / static_cast<float>(scale);
  const auto* pa = static_cast<const uint8_t*>(a.raw_data());
  const auto* pb = static_cast<const uint8_t*>(b.raw_data());
  auto* po = static_cast<uint8_t*>(out.raw_data());
  parallel_for(0, out.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float c = std::fma(a_scale, static_cast<float>(pa[i]), a_premul) +
                std::fma(b_scale, static_cast<float>(pb[i]), b_premul);
      if (relu) c = std::max(c, 0.0f);
      po[i] = quantize_value<uint8_t>(c, inverse, zero_point);
    }
  });
  return out;
}

Tensor run_qadd_scalar(const char* op, const Tensor& qa, const Scalar& b, bool relu) {
  int8::check_quint8(op, "self", qa);
  constexpr int64_t kMin = 0, kMax = 255;
  const double s = qa.q_scale(), c = b.to<double>();
  const int64_t z = qa.q_zero_point();
  TL_CHECK(std::isfinite(c / s) && std::abs(c / s) < 1e15, op, ": the number ", c, " is not finite in units of the scale ",
           s);
  const auto c_q = static_cast<int64_t>(std::nearbyint(c / s));
  const int64_t shifted = z - c_q;
  const Tensor a = int8::is_dense(qa) ? qa : qa.contiguous();
  if (shifted >= kMin && shifted <= kMax) {
    Tensor out = int8::empty_like_dense(a, Quantizer::per_tensor_affine(DType::QUInt8, s, shifted));
    const auto* pa = static_cast<const uint8_t*>(a.raw_data());
    auto* po = static_cast<uint8_t*>(out.raw_data());
    const auto floor = static_cast<uint8_t>(relu ? shifted : kMin);
    for (int64_t i = 0; i < out.numel(); ++i) po[i] = std::max(pa[i], floor);
    return out;
  }
  const double s_prime = shifted < kMin ? (static_cast<double>(kMax) - static_cast<double>(shifted)) / (kMax - kMin) * s
                                        : (static_cast<double>(shifted) - kMin) / (kMax - kMin) * s;
  const int64_t z_prime = shifted < kMin ? kMin : kMax;
  Tensor out = int8::empty_like_dense(a, Quantizer::per_tensor_affine(DType::QUInt8, s_prime, z_prime));
  // ATen's qadd_scalar_kernel: (q - z + c_q) requantized by float(s) * (1 / float(s')), rounded to nearest even.
  const float multiplier = static_cast<float>(s) * (1.0f / static_cast<float>(s_prime));
  const auto* pa = static_cast<const uint8_t*>(a.raw_data());
  auto* po = static_cast<uint8_t*>(out.raw_data());
  parallel_for(0, out.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const auto v = static_cast<int32_t>(pa[i]) - static_cast<int32_t>(z) + static_cast<int32_t>(c_q);
      int64_t q = z_prime + static_cast<int64_t>(std::nearbyint(static_cast<float>(v) * multiplier));
      q = std::clamp<int64_t>(q, kMin, kMax);
      if (relu) q = std::max<int64_t>(q, z_prime);
      po[i] = static_cast<uint8_t>(q);
    }
  });
  return out;
}

}  // namespace

// qa, qb: quint8 per tensor, one shape, any layout. Result: quint8 (scale, zero_point), in qa's layout when dense.
// Written into `out` when given (of that shape and layout, quantized with scale and zero_point).
Tensor quantized_add(const Tensor& qa, const Tensor& qb, const Tensor& out, const QuantizedAddArgs& args) {
  return run_qadd("quantized::add", qa, qb, out, false, args.scale, args.zero_point);
}

Tensor quantized_add_relu(const Tensor& qa, const Tensor& qb, const Tensor& out, const QuantizedAddReluArgs& args) {
  return run_qadd("quantized::add_relu", qa, qb, out, true, args.scale, args.zero_point);
}

// The overloads a converted graph calls: scale and zero_point one element each (its get_attr buffers).
Tensor quantized_add_tensor_qparams(const Tensor& qa, const Tensor& qb, const Tensor& scale, const Tensor& zero_point,
                                    const Tensor& out) {
  int8::check_qparam_tensors("quantized::add", scale, zero_point);
  return run_qadd("quantized::add", qa, qb, out, false, scale.item<double>(), zero_point.item<int64_t>());
}

Tensor quantized_add_relu_tensor_qparams(const Tensor& qa, const Tensor& qb, const Tensor& scale,
                                         const Tensor& zero_point, const Tensor& out) {
  int8::check_qparam_tensors("quantized::add_relu", scale, zero_point);
  return run_qadd("quantized::add_relu", qa, qb, out, true, scale.item<double>(), zero_point.item<int64_t>());
}

// qa: quint8 per tensor, any layout. With s, z its qparams and c_q = nearbyint(b / s): while z - c_q is a quint8
// the integers stay and the zero point becomes z - c_q; otherwise the range is widened to keep 0 or 255 at z - c_q
// and every integer requantized (ATen's _add_scalar_out). With ReLU the result is clamped at its zero point.
Tensor quantized_add_scalar(const Tensor& qa, const QuantizedAddScalarArgs& args) {
  return run_qadd_scalar("quantized::add", qa, args.b, false);
}

Tensor quantized_add_relu_scalar(const Tensor& qa, const QuantizedAddReluScalarArgs& args) {
  return run_qadd_scalar("quantized::add_relu", qa, args.b, true);
}

}  // namespace tl::kernels
