// ops/inference_pool.cpp — pooling on the inference layouts: mkldnn_max_pool2d through a cached oneDNN
// pooling primitive, mkldnn_adaptive_avg_pool2d as a plain loop over channel vectors. Results keep the
// input's layout (blocked stays blocked, 4-D input gives NHWC); padded channels stay zero.
#include <algorithm>
#include <vector>

#include "core/dispatch.h"
#include "core/parallel.h"
#include "ops/inference_layout.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/onednn/window.h"

namespace tl::kernels {
namespace {

using onednn::Pair;

struct PoolPlan : onednn::CachedPlan {
  onednn::Primitive pool;
  dnnl::memory::desc src, dst;
};

/// An activation seen as P planes of (H, W) positions, each holding a vector of V channels.
struct VectorPlanes {
  int64_t planes, h, w, v;
  int64_t plane_stride, h_stride, w_stride, v_stride;
};

VectorPlanes vector_planes(const Tensor& t) {
  if (inference::is_blocked(t))
    return {t.size(0) * t.size(1), t.size(2), t.size(3), inference::kBlock, t.stride(1), t.stride(2), t.stride(3), 1};
  return {t.size(0), t.size(2), t.size(3), t.size(1), t.stride(0), t.stride(2), t.stride(3), t.stride(1)};
}

/// Averages the windows [floor(o * in / out), ceil((o + 1) * in / out)) in float.
template <typename T>
void adaptive_average(const Tensor& x, const Tensor& y) {
  const VectorPlanes in = vector_planes(x), out = vector_planes(y);
  const T* src = x.data<T>();
  T* dst = y.data<T>();
  const int64_t work = in.h * in.w * in.v;
  parallel_for(0, out.planes * out.h, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t b, int64_t e) {
    std::vector<float> acc(static_cast<size_t>(in.v));
    for (int64_t i = b; i < e; ++i) {
      const int64_t p = i / out.h, oh = i % out.h;
      const int64_t h0 = oh * in.h / out.h, h1 = ((oh + 1) * in.h + out.h - 1) / out.h;
      for (int64_t ow = 0; ow < out.w; ++ow) {
        const int64_t w0 = ow * in.w / out.w, w1 = ((ow + 1) * in.w + out.w - 1) / out.w;
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) {
            const T* v = src + p * in.plane_stride + h * in.h_stride + w * in.w_stride;
            for (int64_t c = 0; c < in.v; ++c) acc[static_cast<size_t>(c)] += static_cast<float>(v[c * in.v_stride]);
          }
        const float scale = 1.0f / static_cast<float>((h1 - h0) * (w1 - w0));
        T* o = dst + p * out.plane_stride + oh * out.h_stride + ow * out.w_stride;
        for (int64_t c = 0; c < out.v; ++c) o[c * out.v_stride] = static_cast<T>(acc[static_cast<size_t>(c)] * scale);
      }
    }
  });
}

PoolPlan make_max_pool_plan(const Tensor& x, const Tensor& y, int64_t channels, const onednn::PoolParams& p) {
  PoolPlan plan;
  plan.src = inference::activation_desc(x, channels);
  plan.dst = inference::activation_desc(y, channels);
  Pair pad_r;
  for (int d = 0; d < 2; ++d)
    pad_r[d] = onednn::right_padding(x.size(2 + d), y.size(2 + d), p.kernel[d], p.stride[d], p.padding[d], p.dilation[d]);
  using Pool = dnnl::pooling_v2_forward;
  const Pool::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, plan.src, plan.dst,
                        {p.stride[0], p.stride[1]}, {p.kernel[0], p.kernel[1]}, {p.dilation[0] - 1, p.dilation[1] - 1},
                        {p.padding[0], p.padding[1]}, {pad_r[0], pad_r[1]});
  plan.pool = onednn::Primitive(Pool::primitive_desc(desc, onednn::default_attr(), onednn::engine()));
  return plan;
}

}  // namespace

// self: blocked (N, C / 16, H, W, 16) or 4-D (N, C, H, W) -> the same layout (4-D gives NHWC), pooled
// as max_pool2d does (padding never wins, ceil_mode as in PyTorch).
TensorList mkldnn_max_pool2d(std::span<const Tensor> inputs, const Attrs& attrs) {
  constexpr const char* op = "mkldnn_max_pool2d";
  const Tensor& x = inputs[0];
  const Tensor& out = inputs.size() > 1 ? inputs[1] : Tensor();
  inference::check_activation(op, "input", x);
  const onednn::PoolParams p = onednn::parse_pool_params(attrs, "mkldnn_max_pool2d", /*has_dilation=*/true);
  const Shape in = inference::logical_shape(x);
  Shape o{in[0], in[1], 0, 0};
  for (int d = 0; d < 2; ++d)
    o[2 + d] = onednn::window_count(in[2 + d], p.kernel[d], p.stride[d], p.padding[d], p.dilation[d], p.ceil_mode);
  TL_CHECK(o[2] > 0 && o[3] > 0, op, ": input ", x.shape(), " is too small for kernel_size ", onednn::to_shape(p.kernel),
           " (stride ", onednn::to_shape(p.stride), ", padding ", onednn::to_shape(p.padding), ", dilation ",
           onednn::to_shape(p.dilation), ")");
  Tensor y = inference::activation_out(op, inference::is_blocked(x), x.dtype(), o, out);
  if (y.numel() == 0) return {y};
  auto context = [&] { return detail::str_cat("input ", x.shape(), ", kernel_size ", onednn::to_shape(p.kernel)); };
  onednn::guarded(op, context, [&] {
    onednn::PrimitiveKey key("mkldnn_max_pool2d");
    key.add(x).add(y).add(onednn::to_shape(p.kernel)).add(onednn::to_shape(p.stride));
    key.add(onednn::to_shape(p.padding)).add(onednn::to_shape(p.dilation));
    auto plan = onednn::primitive_cache().get_or_create<PoolPlan>(key, [&] { return make_max_pool_plan(x, y, in[1], p); });
    plan->pool.execute({{DNNL_ARG_SRC, onednn::memory_of(x, plan->src)}, {DNNL_ARG_DST, onednn::memory_of(y, plan->dst)}});
  });
  return {y};
}

// self: blocked (N, C / 16, H, W, 16) or 4-D (N, C, H, W) -> the same layout (4-D gives NHWC) with
// spatial size output_size, each output the mean of PyTorch's adaptive window.
TensorList mkldnn_adaptive_avg_pool2d(std::span<const Tensor> inputs, const Attrs& attrs) {
  constexpr const char* op = "mkldnn_adaptive_avg_pool2d";
  const Tensor& x = inputs[0];
  const Tensor& out = inputs.size() > 1 ? inputs[1] : Tensor();
  inference::check_activation(op, "input", x);
  const Pair size = onednn::pair_attr(attrs, "output_size", op);
  onednn::check_positive(op, "output_size", size);
  const Shape in = inference::logical_shape(x);
  TL_CHECK(in[2] > 0 && in[3] > 0, op, ": input ", x.shape(), " has an empty spatial dimension");
  Tensor y = inference::activation_out(op, inference::is_blocked(x), x.dtype(), {in[0], in[1], size[0], size[1]}, out);
  if (y.numel() == 0) return {y};
  if (x.dtype() == DType::Float32) adaptive_average<float>(x, y);
  else adaptive_average<BFloat16>(x, y);
  return {y};
}

}  // namespace tl::kernels
