// ops/quantized/activation.cpp — activations of quint8 tensors as ATen's quantized CPU kernels compute them (its
// vectorised path: dequantize by one fused multiply-add, the function in float, requantize with the inverse output
// scale), so the integers equal PyTorch's: relu, hardtanh, hardsigmoid, sigmoid (activation.h) and the
// quantized::hardswish op. Results keep the input's layout when it is dense.
#include "ops/quantized/activation.h"

#include <algorithm>
#include <cmath>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace int8 {
namespace {

/// Applies f to every integer of qx into a result of (scale, zero_point) — fresh and laid out as qx when dense, or
/// `out` when given, or qx itself when `inplace` (its qparams kept).
template <typename F>
Tensor map_integers(const char* op, const Tensor& qx, bool inplace, const Tensor& out, double scale, int64_t zero_point,
                    const F& f) {
  check_quint8(op, "input", qx);
  const Tensor x = is_dense(qx) ? qx : qx.contiguous();
  Tensor y = inplace ? x : result_or_out(op, out, x.shape(), x.strides(), scale, zero_point);
  const auto* px = static_cast<const uint8_t*>(x.raw_data());
  auto* py = static_cast<uint8_t*>(y.raw_data());
  parallel_for(0, y.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) py[i] = f(px[i]);
  });
  if (inplace && !x.is_same(qx)) detail::copy_elements(integers_of(qx), integers_of(x));
  return inplace ? qx : y;
}

/// ATen's vectorised dequantize: fma(scale, q, scale * -zero_point) in float.
struct Dequantize {
  float scale, premul;
  explicit Dequantize(const Tensor& q)
      : scale(static_cast<float>(q.q_scale())), premul(scale * -static_cast<float>(q.q_zero_point())) {}
  float operator()(uint8_t q) const { return std::fma(scale, static_cast<float>(q), premul); }
};

constexpr double kFixedScale = 0.00390625;  // 1 / 256: the fixed qparams of hardsigmoid and sigmoid on quint8

}  // namespace

Tensor relu(const char* op, const Tensor& qx, bool inplace) {
  check_quint8(op, "input", qx);
  const auto zero_point = static_cast<uint8_t>(qx.q_zero_point());
  return map_integers(op, qx, inplace, {}, qx.q_scale(), qx.q_zero_point(),
                      [zero_point](uint8_t q) { return std::max(q, zero_point); });
}

// ATen's quantized_clamp_impl: the bounds quantized as quantize_val does them.
Tensor hardtanh(const char* op, const Tensor& qx, double min_val, double max_val, bool inplace) {
  check_quint8(op, "input", qx);
  const float inverse = 1.0f / static_cast<float>(qx.q_scale());
  const uint8_t low = quantize_value<uint8_t>(static_cast<float>(min_val), inverse, qx.q_zero_point());
  const uint8_t high = quantize_value<uint8_t>(static_cast<float>(max_val), inverse, qx.q_zero_point());
  return map_integers(op, qx, inplace, {}, qx.q_scale(), qx.q_zero_point(),
                      [low, high](uint8_t q) { return std::min(std::max(q, low), high); });
}

// min(max(x + 3, 0), 6) / 6.
Tensor hardsigmoid(const Tensor& qx) {
  check_quint8("hardsigmoid", "input", qx);
  const Dequantize dq(qx);
  return map_integers("hardsigmoid", qx, false, {}, kFixedScale, 0, [dq](uint8_t q) {
    const float y = std::min(std::max(dq(q) + 3.0f, 0.0f), 6.0f) / 6.0f;
    return quantize_value<uint8_t>(y, 256.0f, 0);
  });
}

// 1 / (1 + exp(-x)).
Tensor sigmoid(const Tensor& qx) {
  check_quint8("sigmoid", "input", qx);
  const Dequantize dq(qx);
  return map_integers("sigmoid", qx, false, {}, kFixedScale, 0, [dq](uint8_t q) {
    const float y = 1.0f / (1.0f + std::exp(-dq(q)));
    return quantize_value<uint8_t>(y, 256.0f, 0);
  });
}

}  // namespace int8

// qx: quint8 per tensor, any shape. x * min(max(x + 3, 0), 6) / 6 requantized to (output_scale,
// output_zero_point) with ATen's inverse float(1.0 / output_scale); written into `out` when given.
Tensor quantized_hardswish(const Tensor& qx, const Tensor& out, const QuantizedHardswishArgs& args) {
  constexpr const char* op = "quantized::hardswish";
  int8::check_quint8(op, "input", qx);
  const int8::Dequantize dq(qx);
  const auto inverse = static_cast<float>(1.0 / args.output_scale);
  const int64_t zero_point = args.output_zero_point;
  return int8::map_integers(op, qx, false, out, args.output_scale, zero_point, [dq, inverse, zero_point](uint8_t q) {
    const float x = dq(q);
    return quantize_value<uint8_t>(x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f, inverse, zero_point);
  });
}

}  // namespace tl::kernels
