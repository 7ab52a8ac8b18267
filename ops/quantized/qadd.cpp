// ops/quantized/qadd.cpp — quantized::add / add_relu of two quint8 tensors of one shape, computed as ATen's
// qadd_kernel does (each operand dequantized with one fused multiply-add, the sum requantized with the output's
// inverse scale), so the integers equal PyTorch's. The result takes the first operand's layout when it is dense.
#include <algorithm>
#include <cmath>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

Tensor run_qadd(const char* op, const Tensor& qa, const Tensor& qb, bool relu, double scale, int64_t zero_point) {
  TL_CHECK(qa.defined() && qb.defined() && qa.dtype() == qb.dtype(), op, ": Add operands should have same data type, got ",
           qa.defined() ? qa.dtype() : DType::Float32, " and ", qb.defined() ? qb.dtype() : DType::Float32);
  int8::check_quint8(op, "self", qa);
  int8::check_quint8(op, "other", qb);
  TL_CHECK(qa.shape() == qb.shape(), op, ": expected operands of one shape, got ", qa.shape(), " and ", qb.shape());
  auto quantizer = Quantizer::per_tensor_affine(DType::QUInt8, scale, zero_point);
  // Both operands and the result in one dense layout, so one flat loop covers them.
  const Tensor a = int8::is_dense(qa) ? qa : qa.contiguous();
  Tensor out = int8::empty_like_dense(a, quantizer);
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

}  // namespace

// qa, qb: quint8 per tensor, one shape, any layout. Result: quint8 (scale, zero_point), in qa's layout when dense.
Tensor quantized_add(const Tensor& qa, const Tensor& qb, const QuantizedAddArgs& args) {
  return run_qadd("quantized::add", qa, qb, false, args.scale, args.zero_point);
}

Tensor quantized_add_relu(const Tensor& qa, const Tensor& qb, const QuantizedAddReluArgs& args) {
  return run_qadd("quantized::add_relu", qa, qb, true, args.scale, args.zero_point);
}

// The overloads a converted graph calls: scale and zero_point one element each (its get_attr buffers).
Tensor quantized_add_tensor_qparams(const Tensor& qa, const Tensor& qb, const Tensor& scale, const Tensor& zero_point) {
  int8::check_qparam_tensors("quantized::add", scale, zero_point);
  return run_qadd("quantized::add", qa, qb, false, scale.item<double>(), zero_point.item<int64_t>());
}

Tensor quantized_add_relu_tensor_qparams(const Tensor& qa, const Tensor& qb, const Tensor& scale,
                                         const Tensor& zero_point) {
  int8::check_qparam_tensors("quantized::add_relu", scale, zero_point);
  return run_qadd("quantized::add_relu", qa, qb, true, scale.item<double>(), zero_point.item<int64_t>());
}

}  // namespace tl::kernels
