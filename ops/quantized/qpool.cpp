// ops/quantized/qpool.cpp — max_pool2d and adaptive_avg_pool2d of quint8 tensors, on channels-last integers as
// ATen's NHWC kernels compute them: the maximum of the integers in the window (oneDNN's u8 max pooling; padding
// never wins), and the integer sum of the window requantized as ATen's qadaptive_avg_pool kernel does. Results are
// channels-last, with the input's qparams.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/ops.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/onednn/window.h"
#include "ops/pool_windows.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

/// Calls f(n, oh, ow, out) for every output pixel of y (channels-last, (N, C, OH, OW)) in parallel; `out` points
/// at its C channels.
template <typename F>
void for_each_pixel(const Tensor& y, const F& f) {
  const int64_t n = y.size(0), oh = y.size(2), ow = y.size(3), c = y.size(1);
  auto* out = static_cast<uint8_t*>(y.raw_data());
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(c, 1) / 8);
  parallel_for(0, n * oh * ow, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(i / (oh * ow), (i / ow) % oh, i % ow, out + i * c);
  });
}

struct MaxPoolPlan : onednn::CachedPlan {
  onednn::Primitive pool;
  dnnl::memory::desc src, dst;
};

/// oneDNN's max pooling of u8 channels-last x (N, C, H, W) into y (N, C, OH, OW), the window `p`; a maximum
/// is exact, and oneDNN never lets padding win.
MaxPoolPlan max_pool_plan(const Tensor& x, const Tensor& y, const onednn::PoolParams& p) {
  using dnnl::memory;
  MaxPoolPlan plan;
  plan.src = memory::desc(onednn::dims(x.shape()), memory::data_type::u8, memory::format_tag::nhwc);
  plan.dst = memory::desc(onednn::dims(y.shape()), memory::data_type::u8, memory::format_tag::nhwc);
  memory::dims right(2);
  for (int d = 0; d < 2; ++d)
    right[d] = onednn::right_padding(x.size(2 + d), y.size(2 + d), p.kernel[d], p.stride[d], p.padding[d], p.dilation[d]);
  using Pool = dnnl::pooling_v2_forward;
  const Pool::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, plan.src, plan.dst,
                        {p.stride[0], p.stride[1]}, {p.kernel[0], p.kernel[1]}, {p.dilation[0] - 1, p.dilation[1] - 1},
                        {p.padding[0], p.padding[1]}, right);
  plan.pool = onednn::Primitive(Pool::primitive_desc(desc, onednn::default_attr(), onednn::engine()));
  return plan;
}

void check_input(const char* op, const Tensor& x) {
  int8::check_quint8(op, "input", x);
  TL_CHECK(x.dim() == 4, op, ": expected a 4-D input (N, C, H, W), got ", x.shape());
}

}  // namespace

// self: quint8 (N, C, H, W) per tensor. As max_pool2d's arguments (stride [] is the kernel).
Tensor quantized_max_pool2d(const Tensor& self, const QuantizedMaxPool2dArgs& args) {
  constexpr const char* op = "quantized_max_pool2d";
  check_input(op, self);
  const onednn::PoolParams p =
      onednn::pool_params(op, args.kernel_size, args.stride, args.padding, args.dilation, args.ceil_mode);
  const onednn::Pair hw = conv_output_size(op, self.shape(), p.kernel, p.stride, p.padding, p.dilation, p.ceil_mode);
  Tensor y = int8::allocate_nhwc({self.size(0), self.size(1), hw[0], hw[1]}, self.q_scale(), self.q_zero_point());
  if (y.numel() == 0) return y;
  const Tensor x = int8::to_nhwc(self);
  auto context = [&] { return detail::str_cat("input ", x.shape(), ", kernel_size ", onednn::to_shape(p.kernel)); };
  onednn::guarded(op, context, [&] {
    onednn::PrimitiveKey key("quantized_max_pool2d");
    key.add(x.shape()).add(y.shape()).add(onednn::to_shape(p.kernel)).add(onednn::to_shape(p.stride));
    key.add(onednn::to_shape(p.padding)).add(onednn::to_shape(p.dilation));
    auto plan = onednn::primitive_cache().get_or_create<MaxPoolPlan>(key, [&] { return max_pool_plan(x, y, p); });
    plan->pool.execute({{DNNL_ARG_SRC, onednn::memory_of(x, plan->src)}, {DNNL_ARG_DST, onednn::memory_of(y, plan->dst)}});
  });
  return y;
}

// self: quint8 (N, C, H, W) per tensor. Windows as adaptive_avg_pool2d's; each result is
// zero_point + nearbyint((sum - zero_point * size) * (1 / (1 / (1 / size)))) in float, clamped (ATen's
// multiplier in_scale / out_scale / size, with equal scales).
Tensor quantized_adaptive_avg_pool2d(const Tensor& self, const QuantizedAdaptiveAvgPool2dArgs& args) {
  constexpr const char* op = "quantized::adaptive_avg_pool2d";
  check_input(op, self);
  const onednn::Pair size = args.output_size;
  TL_CHECK(size[0] > 0 && size[1] > 0, op, ": output_size must be positive, got ", onednn::to_shape(size));
  TL_CHECK(self.size(2) > 0 && self.size(3) > 0, op, ": expected non-empty spatial dimensions, got input ", self.shape());
  Tensor y = int8::allocate_nhwc({self.size(0), self.size(1), size[0], size[1]}, self.q_scale(), self.q_zero_point());
  if (y.numel() == 0) return y;
  const Tensor x = int8::to_nhwc(self);
  const int64_t c = x.size(1), h = x.size(2), w = x.size(3), zero_point = x.q_zero_point();
  const AxisWindows rows = adaptive_axis(h, size[0]), cols = adaptive_axis(w, size[1]);
  const float scale = static_cast<float>(x.q_scale());
  const auto* in = static_cast<const uint8_t*>(x.raw_data());
  for_each_pixel(y, [&](int64_t n, int64_t oh, int64_t ow, uint8_t* out) {
    const int64_t count = rows.divisor[oh] * cols.divisor[ow];
    const float multiplier = scale / scale / static_cast<float>(count);
    const float inverse = 1.0f / (1.0f / multiplier);
    std::vector<int32_t> acc(static_cast<size_t>(c), static_cast<int32_t>(-zero_point * count));
    for (int64_t ih = rows.begin[oh]; ih < rows.end[oh]; ++ih) {
      for (int64_t iw = cols.begin[ow]; iw < cols.end[ow]; ++iw) {
        const uint8_t* row = in + ((n * h + ih) * w + iw) * c;
        for (int64_t k = 0; k < c; ++k) acc[k] += row[k];
      }
    }
    for (int64_t k = 0; k < c; ++k) out[k] = quantize_value<uint8_t>(static_cast<float>(acc[k]), inverse, zero_point);
  });
  return y;
}

}  // namespace tl::kernels
