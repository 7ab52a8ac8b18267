// ops/quantized/average.cpp — avg_pool2d and mean of quint8 tensors with the integers of ATen's QuantizedCPU kernels
// (q_avgpool.cpp and ReduceOps.cpp, onednn engine): the pool sums integers and requantizes each window in float, the
// mean takes its integer fast path where ATen does and otherwise ATen's dequantize, float mean, quantize.
#include "ops/quantized/average.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/parallel.h"
#include "ops/conv_shape.h"
#include "ops/memory_format.h"
#include "ops/onednn/window.h"
#include "ops/ops.h"
#include "ops/pool_windows.h"
#include "ops/quantized/int8.h"
#include "ops/reduce_plan.h"

namespace tl::kernels::int8 {
namespace {

/// Element strides of a 4-D (N, C, H, W) geometry.
struct Strides4 {
  int64_t n, c, h, w;
  explicit Strides4(const Tensor& t) : n(t.stride(0)), c(t.stride(1)), h(t.stride(2)), w(t.stride(3)) {}
};

/// A 3-D (C, H, W) quantized tensor seen as (1, C, H, W), sharing its storage; a 4-D one as it is.
Tensor batched(const Tensor& q) {
  if (q.dim() == 4) return q;
  Shape sizes = q.shape();
  Strides strides = q.strides();
  sizes.insert(0, 1);
  strides.insert(0, q.numel());
  return Tensor::make(q.storage(), sizes, strides, q.storage_offset(), q.dtype(), q.quantizer());
}

/// The windows' integer sums of x (N, C, H, W, any strides) into y, requantized per window: `channels_last` picks
/// ATen's NHWC kernel's rounding (zero_point + nearbyint(sum * multiplier)), otherwise its NCHW frame's
/// (nearbyint(sum * multiplier + zero_point)).
void pool_windows(const Tensor& x, const Tensor& y, const AxisWindows& rows, const AxisWindows& cols,
                  int64_t divisor_override, bool channels_last) {
  const int64_t channels = x.size(1), out_h = y.size(2), out_w = y.size(3), zero_point = x.q_zero_point();
  const Strides4 in(x), out(y);
  const auto* src = static_cast<const uint8_t*>(x.raw_data());
  auto* dst = static_cast<uint8_t*>(y.raw_data());
  const auto zero = static_cast<float>(zero_point);
  parallel_for(0, y.size(0) * out_h * out_w, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(channels, 1) / 8),
               [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t n = i / (out_h * out_w), oh = (i / out_w) % out_h, ow = i % out_w;
      const int64_t h0 = rows.begin[oh], h1 = rows.end[oh], w0 = cols.begin[ow], w1 = cols.end[ow];
      const int64_t covered = (h1 - h0) * (w1 - w0);
      const int64_t divisor = divisor_override != 0 ? divisor_override : rows.divisor[oh] * cols.divisor[ow];
      const float multiplier = 1.0f / static_cast<float>(divisor);  // input and output scales are equal
      for (int64_t c = 0; c < channels; ++c) {
        int32_t sum = static_cast<int32_t>(-zero_point * covered);
        const uint8_t* plane = src + n * in.n + c * in.c;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) sum += plane[h * in.h + w * in.w];
        const float scaled = static_cast<float>(sum) * multiplier;
        const float rounded = channels_last ? zero + std::nearbyint(scaled) : std::nearbyint(scaled + zero);
        dst[n * out.n + c * out.c + oh * out.h + ow * out.w] =
            static_cast<uint8_t>(std::clamp(rounded, 0.0f, 255.0f));
      }
    }
  });
}

// ATen's is_innnermost_dim: the reduced dims are the last ones, consecutive.
bool innermost(const std::vector<bool>& reduce) {
  size_t last = reduce.size();
  while (last > 0 && reduce[last - 1]) --last;
  return std::none_of(reduce.begin(), reduce.begin() + static_cast<std::ptrdiff_t>(last), [](bool r) { return r; });
}

// `qx` dequantized into a float tensor laid out as ATen's dequantize lays it out (channels-last when qx suggests it).
Tensor dequantized_as_aten(const Tensor& qx) {
  if (!detail::suggests_channels_last(qx)) return tl::dequantize(qx);
  return tl::dequantize(qx.permute({0, 2, 3, 1})).permute({0, 3, 1, 2});
}

}  // namespace

// qx: quint8 per tensor (N, C, H, W) or (C, H, W) -> (N, C, H_out, W_out) or (C, H_out, W_out), qx's qparams.
Tensor avg_pool2d(const Tensor& qx, const AvgPool2dArgs& args) {
  constexpr const char* op = "avg_pool2d";
  check_quint8(op, "input", qx);
  TL_CHECK(qx.dim() == 3 || qx.dim() == 4, op, ": expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got ", qx.shape());
  const onednn::PoolParams p =
      onednn::pool_params(op, args.kernel_size, args.stride, args.padding, {1, 1}, args.ceil_mode);
  TL_CHECK(!args.divisor_override || *args.divisor_override != 0, op, ": divisor must be not zero");
  const Tensor x = batched(qx);
  const onednn::Pair hw = conv_output_size(op, x.shape(), p.kernel, p.stride, p.padding, p.dilation, p.ceil_mode);
  const Shape out_shape{x.size(0), x.size(1), hw[0], hw[1]};
  // ATen takes its NHWC kernel for a channels-last dense input, its result laid out as the input suggests; its
  // NCHW frame's result is contiguous.
  const bool nhwc = detail::is_channels_last_contiguous(x);
  Tensor y = nhwc && detail::suggests_channels_last(x) ? allocate_nhwc(out_shape, x.q_scale(), x.q_zero_point())
                                                       : Tensor::allocate(out_shape, DType::QUInt8, x.quantizer());
  if (y.numel() > 0) {
    const AxisWindows rows = avg_axis(x.size(2), hw[0], p.kernel[0], p.stride[0], p.padding[0], args.count_include_pad);
    const AxisWindows cols = avg_axis(x.size(3), hw[1], p.kernel[1], p.stride[1], p.padding[1], args.count_include_pad);
    pool_windows(x, y, rows, cols, args.divisor_override.value_or(0), nhwc);
  }
  if (qx.dim() == 4) return y;
  return Tensor::make(y.storage(), {y.size(1), y.size(2), y.size(3)}, {y.stride(1), y.stride(2), y.stride(3)}, 0,
                      y.dtype(), y.quantizer());
}

// qx: quint8 per tensor, any shape; dim as mean's (none or empty: every dim).
Tensor mean(const Tensor& qx, const MeanArgs& args) {
  constexpr const char* op = "mean";
  check_quint8(op, "input", qx);
  TL_CHECK(!args.dtype || *args.dtype == qx.dtype(), op, ": the mean of a ", qx.dtype(), " tensor is ", qx.dtype(),
           ", got dtype=", *args.dtype);
  const std::vector<bool> reduce = detail::reduced_dims(qx, args.dim, op);
  if (!qx.is_contiguous() || !innermost(reduce)) {
    Shape dims;
    for (size_t d = 0; d < reduce.size(); ++d)
      if (reduce[d]) dims.push_back(static_cast<int64_t>(d));
    const Tensor average = tl::mean(dequantized_as_aten(qx), dims, args.keepdim);
    return tl::quantize_per_tensor(average, qx.q_scale(), qx.q_zero_point(), qx.dtype());
  }
  // The fast path: groups of `count` consecutive integers, each averaged as nearbyint(float(sum) / count).
  Tensor y = Tensor::allocate(detail::reduced_shape(qx.shape(), reduce, args.keepdim), DType::QUInt8, qx.quantizer());
  const int64_t groups = y.numel(), count = groups > 0 ? qx.numel() / groups : 0;
  TL_CHECK(groups == 0 || count > 0, op, ": cannot average over an empty dimension of a quantized tensor of shape ",
           qx.shape());
  const auto* src = static_cast<const uint8_t*>(qx.raw_data());
  auto* dst = static_cast<uint8_t*>(y.raw_data());
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(count, 1));
  parallel_for(0, groups, grain, [&](int64_t begin, int64_t end) {
    for (int64_t g = begin; g < end; ++g) {
      int64_t sum = 0;
      for (int64_t k = 0; k < count; ++k) sum += src[g * count + k];
      dst[g] = static_cast<uint8_t>(std::nearbyint(static_cast<float>(sum) / static_cast<float>(count)));
    }
  });
  return y;
}

}  // namespace tl::kernels::int8
