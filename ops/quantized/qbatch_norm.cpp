// ops/quantized/qbatch_norm.cpp — quantized::batch_norm2d(_relu): batch norm of a quint8 (N, C, H, W) tensor with
// the integers of ATen's qbatch_norm (onednn engine): per channel, alpha and beta folded once from the statistics and
// both scales as its compute_fused_params folds them, then each integer is one fused multiply-add (ATen's AVX2 /
// AVX-512 kernels, -mfma) rounded to the output's zero point. The result is channels-last.
#include <cmath>
#include <vector>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/ops.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

/// A per-channel float32 argument's values: defined, float32, `channels` elements; throws naming it otherwise.
std::vector<float> channel_values(const char* op, const char* what, const Tensor& t, int64_t channels) {
  TL_CHECK(t.defined(), op, ": expected ", what, " to be a tensor of ", channels, " channels, got None");
  TL_CHECK(!t.is_quantized() && t.dtype() == DType::Float32, op, ": expected ", what,
           " to be a torch.float32 tensor, got ", t.dtype());
  TL_CHECK(t.numel() == channels, op, ": expected ", what, " of ", channels, " elements (the input's channels), got ",
           t.shape());
  const Tensor c = t.contiguous();
  return std::vector<float>(c.data<float>(), c.data<float>() + channels);
}

// qx: quint8 (N, C, H, W) per tensor; weight, bias, mean, var: float32 (C). ATen's q_batch_norm2d_impl.
Tensor batch_norm2d(const char* op, const Tensor& qx, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                    const Tensor& var, double eps, double output_scale, int64_t output_zero_point, bool relu) {
  int8::check_quint8(op, "input", qx);
  if (qx.numel() == 0) return qx.clone();  // ATen's: before any other check, the input's qparams kept
  TL_CHECK(qx.dim() == 4, op, ": expected a 4-D input (N, C, H, W), got ", qx.shape());
  const int64_t channels = qx.size(1);
  const std::vector<float> w = channel_values(op, "weight", weight, channels);
  const std::vector<float> b = channel_values(op, "bias", bias, channels);
  const std::vector<float> m = channel_values(op, "mean", mean, channels);
  const std::vector<float> v = channel_values(op, "var", var, channels);
  Tensor y = int8::allocate_nhwc(qx.shape(), output_scale, output_zero_point);
  // compute_fused_params: inv_sigma in float, the scale ratio in double, each result rounded to float.
  const double input_scale = qx.q_scale();
  std::vector<float> alpha(static_cast<size_t>(channels)), beta(static_cast<size_t>(channels));
  for (size_t c = 0; c < alpha.size(); ++c) {
    const auto inv_sigma = static_cast<float>(1.0 / std::sqrt(v[c] + static_cast<float>(eps)));
    alpha[c] = static_cast<float>(inv_sigma * w[c] * (input_scale / output_scale));
    beta[c] = static_cast<float>((b[c] - m[c] * inv_sigma * w[c]) / output_scale);
  }
  const Tensor x = int8::to_nhwc(qx);
  const auto* src = static_cast<const uint8_t*>(x.raw_data());
  auto* dst = static_cast<uint8_t*>(y.raw_data());
  const auto in_zero_point = static_cast<int32_t>(qx.q_zero_point());
  const auto lowest = static_cast<uint8_t>(relu ? output_zero_point : 0);  // ReLU: the zero point
  const int64_t pixels = x.numel() / channels;
  parallel_for(0, pixels, std::max<int64_t>(1, kGrainSize / channels), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const uint8_t* in = src + i * channels;
      uint8_t* out = dst + i * channels;
      for (int64_t c = 0; c < channels; ++c) {
        const float value = std::fma(alpha[c], static_cast<float>(in[c] - in_zero_point), beta[c]);
        out[c] = std::max(quantize_value<uint8_t>(value, 1.0f, output_zero_point), lowest);
      }
    }
  });
  return y;
}

}  // namespace

Tensor quantized_batch_norm2d(const Tensor& qx, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                              const Tensor& var, const QuantizedBatchNorm2dArgs& args) {
  return batch_norm2d("quantized::batch_norm2d", qx, weight, bias, mean, var, args.eps, args.output_scale,
                      args.output_zero_point, false);
}

Tensor quantized_batch_norm2d_relu(const Tensor& qx, const Tensor& weight, const Tensor& bias, const Tensor& mean,
                                   const Tensor& var, const QuantizedBatchNorm2dReluArgs& args) {
  return batch_norm2d("quantized::batch_norm2d_relu", qx, weight, bias, mean, var, args.eps, args.output_scale,
                      args.output_zero_point, true);
}

}  // namespace tl::kernels
