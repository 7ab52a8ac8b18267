// ops/inference_pool.cpp — pooling on the inference layouts: mkldnn_max_pool2d and
// mkldnn_adaptive_avg_pool2d as plain loops over channel vectors, with eager's NaN rules. Results keep
// the input's layout (blocked stays blocked, 4-D input gives NHWC); padded channels stay zero.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/inference_layout.h"
#include "ops/onednn/window.h"

namespace tl::kernels {
namespace {

using onednn::Pair;

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

/// Calls tap(offset) with the element offset of every in-bounds input position of the window of output
/// (plane, oh, ow); padding positions are skipped.
template <typename Tap>
inline void for_each_tap(const VectorPlanes& in, const onednn::PoolParams& p, int64_t plane, int64_t oh, int64_t ow,
                         Tap&& tap) {
  for (int64_t kh = 0; kh < p.kernel[0]; ++kh) {
    const int64_t h = oh * p.stride[0] - p.padding[0] + kh * p.dilation[0];
    if (h < 0 || h >= in.h) continue;
    for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
      const int64_t w = ow * p.stride[1] - p.padding[1] + kw * p.dilation[1];
      if (w >= 0 && w < in.w) tap(plane * in.plane_stride + h * in.h_stride + w * in.w_stride);
    }
  }
}

/// Max over each dilated window, a channel vector at a time. A NaN wins and an all -inf window gives
/// -inf, as in eager and PyTorch; oneDNN's pooling_max skips NaN and starts from -FLT_MAX.
template <typename T>
void window_max(const Tensor& x, const Tensor& y, const onednn::PoolParams& p) {
  const VectorPlanes in = vector_planes(x), out = vector_planes(y);
  const int64_t v_len = in.v, in_vs = in.v_stride, out_vs = out.v_stride;
  const T* src = x.data<T>();
  T* dst = y.data<T>();
  const int64_t work = out.w * p.kernel[0] * p.kernel[1] * v_len;
  parallel_for(0, out.planes * out.h, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t b, int64_t e) {
    std::vector<float> best(static_cast<size_t>(v_len));
    float* __restrict m = best.data();
    for (int64_t i = b; i < e; ++i) {
      const int64_t plane = i / out.h, oh = i % out.h;
      for (int64_t ow = 0; ow < out.w; ++ow) {
        for (int64_t c = 0; c < v_len; ++c) m[c] = -INFINITY;
        for_each_tap(in, p, plane, oh, ow, [&](int64_t offset) {
          const T* v = src + offset;
          for (int64_t c = 0; c < v_len; ++c) {
            const float a = static_cast<float>(v[c * in_vs]);
            m[c] = ((a > m[c]) | (a != a)) ? a : m[c];  // `|`, not `||`: a blend, not a branch
          }
        });
        T* o = dst + plane * out.plane_stride + oh * out.h_stride + ow * out.w_stride;
        for (int64_t c = 0; c < out.v; ++c) o[c * out_vs] = static_cast<T>(m[c]);
      }
    }
  });
}

/// window_max for the blocked fp32 layout: each 16-channel block as four 4-float vectors (GCC / Clang
/// vector extensions), so the NaN-aware compare-and-blend runs on whole vectors for the baseline ISA.
void window_max_blocked(const Tensor& x, const Tensor& y, const onednn::PoolParams& p) {
  using V4 = float __attribute__((vector_size(16)));
  constexpr int kParts = inference::kBlock / 4;
  const VectorPlanes in = vector_planes(x), out = vector_planes(y);
  const float* src = x.data<float>();
  float* dst = y.data<float>();
  const int64_t work = out.w * p.kernel[0] * p.kernel[1] * inference::kBlock;
  parallel_for(0, out.planes * out.h, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t plane = i / out.h, oh = i % out.h;
      for (int64_t ow = 0; ow < out.w; ++ow) {
        V4 m[kParts];
        for (V4& v : m) v = V4{} - INFINITY;
        for_each_tap(in, p, plane, oh, ow, [&](int64_t offset) {
          for (int k = 0; k < kParts; ++k) {
            V4 a;
            std::memcpy(&a, src + offset + 4 * k, sizeof a);
            m[k] = ((a > m[k]) | (a != a)) ? a : m[k];
          }
        });
        std::memcpy(dst + plane * out.plane_stride + oh * out.h_stride + ow * out.w_stride, m, sizeof m);
      }
    }
  });
}

}  // namespace

// self: blocked (N, C / 16, H, W, 16) or 4-D (N, C, H, W) -> the same layout (4-D gives NHWC), pooled
// as max_pool2d does (padding never wins, ceil_mode as in PyTorch).
Tensor mkldnn_max_pool2d(const Tensor& self, const Tensor& out, const MkldnnMaxPool2dArgs& args) {
  constexpr const char* op = "mkldnn_max_pool2d";
  const Tensor& x = self;
  inference::check_activation(op, "input", x);
  const onednn::PoolParams p =
      onednn::pool_params(op, args.kernel_size, args.stride, args.padding, args.dilation, args.ceil_mode);
  const Shape in = inference::logical_shape(x);
  const Pair hw = conv_output_size(op, in, p.kernel, p.stride, p.padding, p.dilation, p.ceil_mode);
  const Shape o{in[0], in[1], hw[0], hw[1]};
  Tensor y = inference::activation_out(op, inference::is_blocked(x), x.dtype(), o, out);
  if (y.numel() == 0) return y;
  if (x.dtype() == DType::Float32 && inference::is_blocked(x)) window_max_blocked(x, y, p);
  else if (x.dtype() == DType::Float32) window_max<float>(x, y, p);
  else window_max<BFloat16>(x, y, p);
  return y;
}

// self: blocked (N, C / 16, H, W, 16) or 4-D (N, C, H, W) -> the same layout (4-D gives NHWC) with
// spatial size output_size, each output the mean of PyTorch's adaptive window.
Tensor mkldnn_adaptive_avg_pool2d(const Tensor& self, const Tensor& out, const MkldnnAdaptiveAvgPool2dArgs& args) {
  constexpr const char* op = "mkldnn_adaptive_avg_pool2d";
  const Tensor& x = self;
  inference::check_activation(op, "input", x);
  const Pair& size = args.output_size;
  check_positive(op, "output_size", size);
  const Shape in = inference::logical_shape(x);
  TL_CHECK(in[2] > 0 && in[3] > 0, op, ": input ", x.shape(), " has an empty spatial dimension");
  Tensor y = inference::activation_out(op, inference::is_blocked(x), x.dtype(), {in[0], in[1], size[0], size[1]}, out);
  if (y.numel() == 0) return y;
  if (x.dtype() == DType::Float32) adaptive_average<float>(x, y);
  else adaptive_average<BFloat16>(x, y);
  return y;
}

}  // namespace tl::kernels
