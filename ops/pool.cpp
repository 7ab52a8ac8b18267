// ops/pool.cpp — max_pool2d (also with indices), avg_pool2d, adaptive_avg_pool2d and adaptive_max_pool2d with
// PyTorch's window rules, and max_pool1d as max_pool2d over (N, C, 1, L).
// float32 / bfloat16 pools run through oneDNN when its result is provably PyTorch's (averages whose windows
// match, maxima of NaN-free plain NCHW input); float64 and everything else run a plain parallel kernel,
// which is also the reference the oneDNN path is tested against. Output is contiguous NCHW, except
// max_pool2d_with_indices (training's max pool), channels-last for a channels-last input as ATen's.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/memory_format.h"
#include "ops/ops.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/onednn/window.h"
#include "ops/pool_windows.h"
#include "ops/quantized/average.h"
#include "ops/vector_kernels.h"

namespace tl::kernels {
namespace {

using onednn::Pair;
using onednn::check_pool1d_input;
using onednn::pool1d_params;
using onednn::PoolParams;

struct PoolPlan : onednn::CachedPlan {
  onednn::Primitive pool;
  dnnl::memory::desc src, dst, workspace;  ///< workspace: empty unless forward_training pooling_max
  bool jit = false;  ///< a jit kernel; else simple_nchw or ref, up to 20x slower than the plain max kernel
};

template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

bool onednn_dtype(DType dtype) { return dtype == DType::Float32 || dtype == DType::BFloat16; }

void check_input(const Tensor& x, const char* op) {
  TL_CHECK(x.dim() == 4, op, ": expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got ", x.shape());
  TL_CHECK(is_floating_point(x.dtype()), op, ": expected a floating point input, got ", x.dtype());
}

Shape pooled_shape(const Tensor& x, const PoolParams& p, const char* op) {
  check_input(x, op);
  const Pair hw = conv_output_size(op, x.shape(), p.kernel, p.stride, p.padding, p.dilation, p.ceil_mode);
  return {x.size(0), x.size(1), hw[0], hw[1]};
}

// ---- oneDNN path ----

Pair right_padding(const Tensor& x, const Shape& out, const PoolParams& p) {
  Pair r;
  for (int d = 0; d < 2; ++d)
    r[d] = onednn::right_padding(x.size(2 + d), out[2 + d], p.kernel[d], p.stride[d], p.padding[d], p.dilation[d]);
  return r;
}

PoolPlan make_plan(const Tensor& src, const Shape& out_shape, dnnl::prop_kind prop, dnnl::algorithm algorithm,
                   const PoolParams& p) {
  PoolPlan plan;
  plan.src = onednn::plain_desc(src.sizes(), src.dtype());
  plan.dst = onednn::plain_desc(out_shape, src.dtype());
  const Pair pad_r = right_padding(src, out_shape, p);
  using Pool = dnnl::pooling_v2_forward;
  const Pool::desc desc(prop, algorithm, plan.src, plan.dst, {p.stride[0], p.stride[1]},
                        {p.kernel[0], p.kernel[1]}, {p.dilation[0] - 1, p.dilation[1] - 1}, {p.padding[0], p.padding[1]},
                        {pad_r[0], pad_r[1]});
  const Pool::primitive_desc pd(desc, onednn::default_attr(), onednn::engine());
  plan.pool = onednn::Primitive(pd);
  plan.workspace = pd.workspace_desc();
  plan.jit = std::string_view(pd.impl_info_str()).substr(0, 3) == "jit";
  return plan;
}

/// pooling_max's per-output position kh * kW + kw of the maximum within its window (padding included):
/// this thread's Dst staging buffer, valid until its next oneDNN call that stages a Dst, or memory
/// owned by `keep` when too large for it.
struct Workspace {
  dnnl::memory memory;
  std::shared_ptr<Storage> keep;
};

/// oneDNN's pooling `algorithm` of x into a new contiguous tensor of out_shape. With `workspace`
/// (pooling_max only) it runs forward_training and fills *workspace. With `jit_only`, nothing when
/// oneDNN has no jit kernel for the case (e.g. plain NCHW with 3 channels: simple_nchw).
std::optional<Tensor> onednn_pool(const char* op, dnnl::algorithm algorithm, const Tensor& x, const Shape& out_shape,
                                  const PoolParams& p, Workspace* workspace = nullptr, bool jit_only = false) {
  Tensor out = Tensor::allocate(out_shape, x.dtype());
  bool skipped = false;
  const auto prop = workspace ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  auto context = [&] {
    return detail::str_cat("input ", x.shape(), ", kernel_size ", onednn::to_shape(p.kernel), ", stride ",
                           onednn::to_shape(p.stride), ", padding ", onednn::to_shape(p.padding));
  };
  onednn::guarded(op, context, [&] {
    const Tensor src = onednn::to_contiguous(x, op);
    onednn::PrimitiveKey key("pool2d");
    key.add(src).add(static_cast<int64_t>(algorithm)).add(static_cast<int64_t>(prop)).add(out_shape);
    key.add(onednn::to_shape(p.kernel)).add(onednn::to_shape(p.stride)).add(onednn::to_shape(p.padding));
    key.add(onednn::to_shape(p.dilation));
    auto plan = onednn::primitive_cache().get_or_create<PoolPlan>(
        key, [&] { return make_plan(src, out_shape, prop, algorithm, p); });
    if (jit_only && !plan->jit) {
      skipped = true;
      return;
    }
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, onednn::memory_of(src, plan->src)},
                                               {DNNL_ARG_DST, onednn::memory_of(out, plan->dst)}};
    if (workspace) {
      workspace->memory = onednn::staging_memory(onednn::Staging::Dst, plan->workspace, workspace->keep);
      args.emplace(DNNL_ARG_WORKSPACE, workspace->memory);
    }
    plan->pool.execute(std::move(args));
  });
  if (skipped) return std::nullopt;
  return out;
}

// ---- oneDNN's pooling_max where it equals the plain kernel ----
//
// oneDNN's max starts from -FLT_MAX and takes an element only when it is strictly greater (tested in
// tests/ops/test_pool.cpp): ties keep the first maximum in (kh, kw) order as PyTorch does, but NaN is
// skipped, an all -inf window gives -FLT_MAX (bfloat16: -inf), a window whose maximum ties the start
// value reports position 0, which may lie in the padding, and bfloat16 subnormals count as zero. So
// input free of NaN (and bfloat16 subnormals) only, and a result holding such a maximum is dropped for
// the plain kernel.

/// The most negative finite bfloat16 (above -FLT_MAX): a maximum at or below it may tie or lose to
/// oneDNN's start value in either dtype, so its value or position cannot be trusted.
constexpr float kUntrustedMax = -3.38953139e38f;

/// Whether pooling_max may run: float32 / bfloat16 (else no kernel), contiguous (the plain kernel reads
/// any strides without a copy), no dilation (oneDNN has only its slow reference kernel for it), no NaN,
/// and for bfloat16 no subnormal (its kernel reads them as zero: a subnormal maximum came out 0).
bool onednn_max_applies(const Tensor& x, const PoolParams& p) {
  if (!onednn_dtype(x.dtype()) || !x.is_contiguous() || p.dilation != Pair{1, 1}) return false;
  return x.dtype() == DType::BFloat16 ? !has_nan_or_subnormal(x) : !has_nan(x);
}

/// False when some value of `out` is at or below kUntrustedMax. With `indices`, also turns
/// workspace positions (Ws: uint8_t or int32_t, oneDNN's choice by kernel size) into PyTorch's flat
/// h * W + w: the window of output (i, j) starts at (i * sH - pH, j * sW - pW).
template <typename T, typename Ws>
bool trusted_max(const Tensor& x, const Tensor& out, const PoolParams& p, const Ws* ws, int64_t* indices) {
  const int64_t W = x.size(3), oh = out.size(2), ow = out.size(3), plane = oh * ow, planes = out.numel() / plane;
  std::vector<int64_t> offset(static_cast<size_t>(p.kernel[0] * p.kernel[1]));  // position -> kh * W + kw
  for (int64_t kh = 0; kh < p.kernel[0]; ++kh)
    for (int64_t kw = 0; kw < p.kernel[1]; ++kw) offset[static_cast<size_t>(kh * p.kernel[1] + kw)] = kh * W + kw;
  std::atomic<bool> untrusted{false};
  const T* values = out.data<T>();
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / plane), [&](int64_t begin, int64_t end) {
    bool low = false;
    for (int64_t n = begin * plane; n < end * plane; ++n) low |= static_cast<float>(values[n]) <= kUntrustedMax;
    if (low) untrusted.store(true, std::memory_order_relaxed);
    if (low || !indices) return;
    const int64_t* __restrict off = offset.data();
    const int64_t stride_w = p.stride[1];
    for (int64_t q = begin; q < end; ++q)
      for (int64_t i = 0; i < oh; ++i) {
        const int64_t row = (i * p.stride[0] - p.padding[0]) * W - p.padding[1];
        const Ws* __restrict w = ws + q * plane + i * ow;
        int64_t* __restrict idx = indices + q * plane + i * ow;
        for (int64_t j = 0; j < ow; ++j) idx[j] = row + j * stride_w + off[w[j]];
      }
  });
  return !untrusted.load();
}

/// max_pool2d (with `indices`, contiguous int64 of out's shape: also its indices) through oneDNN, or
/// nothing when the result would differ from max_planes'. x: contiguous (N, C, H, W) float32 / bfloat16.
std::optional<Tensor> onednn_max_pool(const char* op, const Tensor& x, const Shape& out_shape, const PoolParams& p,
                                      int64_t* indices) {
  Workspace ws;
  std::optional<Tensor> pooled =
      onednn_pool(op, dnnl::algorithm::pooling_max, x, out_shape, p, indices ? &ws : nullptr, /*jit_only=*/true);
  if (!pooled) return std::nullopt;
  const Tensor& out = *pooled;
  const dnnl::memory& workspace = ws.memory;
  bool trusted = false;
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] {
    if constexpr (!std::is_same_v<scalar_t, double>) {
      if (!indices) {
        trusted = trusted_max<scalar_t, uint8_t>(x, out, p, nullptr, nullptr);
      } else if (workspace.get_desc().data_type() == dnnl::memory::data_type::u8) {
        trusted = trusted_max<scalar_t>(x, out, p, static_cast<const uint8_t*>(workspace.get_data_handle()), indices);
      } else {
        TL_INTERNAL_ASSERT(workspace.get_desc().data_type() == dnnl::memory::data_type::s32, op,
                           ": unexpected oneDNN workspace data type");
        trusted = trusted_max<scalar_t>(x, out, p, static_cast<const int32_t*>(workspace.get_data_handle()), indices);
      }
    }
  });
  if (!trusted) return std::nullopt;
  return pooled;
}

// ---- plain kernels (any strides) ----

/// Calls f(in, out) for every (n, c) plane in parallel: `in` points at the input plane (read it
/// through x's strides), `out` at the contiguous output plane.
template <typename T, typename F>
void for_each_plane(const Tensor& x, const Tensor& out, int64_t work_per_plane, const F& f) {
  const int64_t channels = x.size(1), planes = x.size(0) * channels, plane_out = out.size(2) * out.size(3);
  const int64_t stride_n = x.stride(0), stride_c = x.stride(1);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work_per_plane));
  parallel_for(0, planes, grain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) f(in + (i / channels) * stride_n + (i % channels) * stride_c, o + i * plane_out);
  });
}

// Each window's sum over its divisor, or over `divisor_override` when not 0.
template <typename T>
void average_planes(const Tensor& x, const Tensor& out, const AxisWindows& rows, const AxisWindows& cols,
                    int64_t divisor_override) {
  const int64_t oh = out.size(2), ow = out.size(3), sh = x.stride(2), sw = x.stride(3);
  for_each_plane<T>(x, out, x.size(2) * x.size(3) + oh * ow, [&](const T* in, T* o) {
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        acc_t<T> sum = 0;
        for (int64_t h = rows.begin[i]; h < rows.end[i]; ++h)
          for (int64_t w = cols.begin[j]; w < cols.end[j]; ++w) sum += static_cast<acc_t<T>>(in[h * sh + w * sw]);
        const int64_t divisor = divisor_override != 0 ? divisor_override : rows.divisor[i] * cols.divisor[j];
        o[i * ow + j] = static_cast<T>(sum / static_cast<acc_t<T>>(divisor));
      }
  });
}

/// Max over a dilated window; NaN wins, as in PyTorch. Padding never contributes. With `indices`
/// (contiguous, out's shape) also the flat h * W + w of the maximum within its plane, chosen as
/// PyTorch's CPU kernel does: the first maximum, the last NaN, the window's first in-bounds element
/// when all are -inf. max_pool2d passes none and pays for no index bookkeeping.
template <typename T, bool kWithIndices>
void max_planes(const Tensor& x, const Tensor& out, const PoolParams& p, int64_t* indices) {
  const int64_t H = x.size(2), W = x.size(3), oh = out.size(2), ow = out.size(3), sh = x.stride(2), sw = x.stride(3);
  const int64_t stride_w = p.stride[1], dil_w = p.dilation[1];
  // For each kernel column kw, the output columns [lo, hi) whose window column
  // w = j * stride - padding + kw * dilation lies inside the row: the inner loop then runs over output
  // columns without bounds checks, visiting each window's elements in (kh, kw) order as before.
  std::vector<std::pair<int64_t, int64_t>> cols(static_cast<size_t>(p.kernel[1]));
  for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
    const int64_t off = kw * dil_w - p.padding[1];
    const int64_t lo = off >= 0 ? 0 : (-off + stride_w - 1) / stride_w;
    const int64_t hi = W - 1 - off < 0 ? 0 : std::min(ow, (W - 1 - off) / stride_w + 1);
    cols[kw] = {lo, std::max(lo, hi)};
  }
  // The window's first in-bounds column, the index of an all -inf window.
  std::vector<int64_t> first_w(kWithIndices ? static_cast<size_t>(ow) : 0);
  if constexpr (kWithIndices)
    for (int64_t j = 0; j < ow; ++j) {
      int64_t w = j * stride_w - p.padding[1];
      while (w < 0) w += dil_w;
      first_w[j] = w;
    }
  const T* out_base = out.data<T>();
  for_each_plane<T>(x, out, oh * ow * p.kernel[0] * p.kernel[1], [&](const T* in, T* o) {
    [[maybe_unused]] int64_t* idx = kWithIndices ? indices + (o - out_base) : nullptr;
    std::vector<acc_t<T>> best(static_cast<size_t>(ow));
    std::vector<int64_t> best_index(kWithIndices ? static_cast<size_t>(ow) : 0);
    for (int64_t i = 0; i < oh; ++i) {
      const int64_t h0 = i * p.stride[0] - p.padding[0];
      std::fill(best.begin(), best.end(), -INFINITY);
      if constexpr (kWithIndices) {
        int64_t first_h = h0;
        while (first_h < 0) first_h += p.dilation[0];
        for (int64_t j = 0; j < ow; ++j) best_index[j] = first_h * W + first_w[j];
      }
      for (int64_t kh = 0; kh < p.kernel[0]; ++kh) {
        const int64_t h = h0 + kh * p.dilation[0];
        if (h < 0 || h >= H) continue;
        for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
          // Everything the inner loop reads is a local: the stores to best / best_index could alias the
          // captured sizes, which would otherwise be reloaded on every element.
          const int64_t off = kw * dil_w - p.padding[1], step = stride_w * sw, lo = cols[kw].first,
                        hi = cols[kw].second;
          const T* __restrict src = in + h * sh + off * sw;
          acc_t<T>* __restrict b = best.data();
          [[maybe_unused]] int64_t* __restrict bi = best_index.data();
          [[maybe_unused]] const int64_t flat0 = h * W + off;  // + j * stride_w: the element's flat index
          for (int64_t j = lo; j < hi; ++j) {
            const auto v = static_cast<acc_t<T>>(src[j * step]);
            const bool take = v > b[j] || v != v;  // NaN wins
            b[j] = take ? v : b[j];
            if constexpr (kWithIndices) bi[j] = take ? flat0 + j * stride_w : bi[j];
          }
        }
      }
      for (int64_t j = 0; j < ow; ++j) {
        o[i * ow + j] = static_cast<T>(best[j]);
        if constexpr (kWithIndices) idx[i * ow + j] = best_index[j];
      }
    }
  });
}

/// max_planes<T, true> for channels-last dense x into channels-last out and indices (N, C, OH, OW): the same
/// windows, order and choices, each output position's channels at once (vectorised across C).
template <typename T>
void max_channels_last(const Tensor& x, const Tensor& out, const PoolParams& p, int64_t* indices) {
  const int64_t C = x.size(1), H = x.size(2), W = x.size(3), oh = out.size(2), ow = out.size(3);
  const int64_t rows = x.size(0) * oh, window = p.kernel[0] * p.kernel[1];
  const T* const in = x.data<T>();
  T* const o = out.data<T>();
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, ow * C * window)),
               [&](int64_t begin, int64_t end) {
    std::vector<acc_t<T>> best(static_cast<size_t>(C));
    for (int64_t row = begin; row < end; ++row) {
      const int64_t n = row / oh, h0 = (row % oh) * p.stride[0] - p.padding[0];
      int64_t first_h = h0;
      while (first_h < 0) first_h += p.dilation[0];
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t w0 = j * p.stride[1] - p.padding[1];
        int64_t first_w = w0;
        while (first_w < 0) first_w += p.dilation[1];
        acc_t<T>* __restrict b = best.data();
        int64_t* __restrict bi = indices + (row * ow + j) * C;
        const int64_t first = first_h * W + first_w;  // an all -inf window's index
        for (int64_t c = 0; c < C; ++c) b[c] = -INFINITY, bi[c] = first;
        for (int64_t kh = 0; kh < p.kernel[0]; ++kh) {
          const int64_t h = h0 + kh * p.dilation[0];
          if (h < 0 || h >= H) continue;
          for (int64_t kw = 0; kw < p.kernel[1]; ++kw) {
            const int64_t w = w0 + kw * p.dilation[1];
            if (w < 0 || w >= W) continue;
            const T* __restrict src = in + ((n * H + h) * W + w) * C;
            const int64_t flat = h * W + w;
#pragma omp simd
            for (int64_t c = 0; c < C; ++c) {
              const auto v = static_cast<acc_t<T>>(src[c]);
              const bool take = v > b[c] || v != v;  // NaN wins
              b[c] = take ? v : b[c];
              bi[c] = take ? flat : bi[c];
            }
          }
        }
        T* __restrict dst = o + (row * ow + j) * C;
        for (int64_t c = 0; c < C; ++c) dst[c] = static_cast<T>(b[c]);
      }
    }
  });
}

/// Max over each adaptive window with the flat h * W + w of its maximum (contiguous `indices`, out's shape),
/// as ATen's CPU kernel chooses it: the first maximum, the last NaN, the window's first element when all
/// are -inf. For each row of windows, a pass down the rows (vectorised along the contiguous w) keeps every
/// column's maximum and the row it came from (the first, or the last NaN); each window then picks among its
/// columns, which equals the row-major walk: the earliest row of equal maxima, the latest of NaNs.
template <typename T>
void adaptive_max_planes(const Tensor& x, const Tensor& out, const AxisWindows& rows, const AxisWindows& cols,
                         int64_t* indices) {
  using A = acc_t<T>;
  const int64_t W = x.size(3), oh = out.size(2), ow = out.size(3), sh = x.stride(2), sw = x.stride(3);
  const T* out_base = out.data<T>();
  const auto plane = [&](const T* in, T* o, A* __restrict column_max, int64_t* __restrict column_row, auto step) {
    int64_t* idx = indices + (o - out_base);
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t w = 0; w < W; ++w) {
        column_max[w] = static_cast<A>(in[rows.begin[i] * sh + w * step]);
        column_row[w] = rows.begin[i];
      }
      for (int64_t h = rows.begin[i] + 1; h < rows.end[i]; ++h) {
        const T* __restrict row = in + h * sh;
        for (int64_t w = 0; w < W; ++w) {
          const A v = static_cast<A>(row[w * step]);
          const bool take = (v > column_max[w]) | (v != v);
          column_max[w] = take ? v : column_max[w];
          column_row[w] = take ? h : column_row[w];
        }
      }
      for (int64_t j = 0; j < ow; ++j) {
        A best = column_max[cols.begin[j]];
        int64_t best_row = column_row[cols.begin[j]], best_w = cols.begin[j];
        for (int64_t w = best_w + 1; w < cols.end[j]; ++w) {
          const A v = column_max[w];
          const int64_t h = column_row[w];
          const bool take = v != v ? best == best || h >= best_row
                                   : best == best && (v > best || (v == best && h < best_row));
          if (take) best = v, best_row = h, best_w = w;
        }
        o[i * ow + j] = static_cast<T>(best);
        idx[i * ow + j] = best_row * W + best_w;
      }
    }
  };
  for_each_plane<T>(x, out, x.size(2) * x.size(3) + oh * ow, [&](const T* in, T* o) {
    // The columns' buffers once per thread, not per plane: a global pooling of many small planes (N, 512, 7, 7)
    // would allocate twice per plane for a few dozen comparisons.
    thread_local std::vector<A> column_max;
    thread_local std::vector<int64_t> column_row;
    column_max.resize(static_cast<size_t>(W));
    column_row.resize(static_cast<size_t>(W));
    detail::at_vector_width([&] {
      if (sw == 1) plane(in, o, column_max.data(), column_row.data(), std::integral_constant<int64_t, 1>{});
      else plane(in, o, column_max.data(), column_row.data(), sw);
    });
  });
}

/// True (with kernel and stride filled in) when every window has the same size and the windows
/// start at a constant stride, so an ordinary pooling reproduces them.
bool uniform_windows(const AxisWindows& a, int64_t& kernel, int64_t& stride) {
  const size_t n = a.begin.size();
  kernel = a.end[0] - a.begin[0];
  stride = n > 1 ? a.begin[1] - a.begin[0] : kernel;
  for (size_t o = 0; o < n; ++o)
    if (a.end[o] - a.begin[o] != kernel || a.begin[o] != static_cast<int64_t>(o) * stride) return false;
  return stride > 0;
}

Tensor plain_average(const Tensor& x, const Shape& out_shape, const AxisWindows& rows, const AxisWindows& cols,
                     int64_t divisor_override = 0) {
  Tensor out = Tensor::allocate(out_shape, x.dtype());
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "avg_pool2d",
                             [&] { average_planes<scalar_t>(x, out, rows, cols, divisor_override); });
  return out;
}

/// Adaptive average pooling of a 4-D x into out_shape (N, C, size): oneDNN where every window has
/// the same size, else the plain kernel.
Tensor adaptive_average(const Tensor& x, const Shape& out_shape, const Pair& size) {
  const AxisWindows rows = adaptive_axis(x.size(2), size[0]), cols = adaptive_axis(x.size(3), size[1]);
  PoolParams p{{0, 0}, {0, 0}, {0, 0}, {1, 1}, false};
  if (onednn_dtype(x.dtype()) && uniform_windows(rows, p.kernel[0], p.stride[0]) &&
      uniform_windows(cols, p.kernel[1], p.stride[1]))
    return *onednn_pool("adaptive_avg_pool2d", dnnl::algorithm::pooling_avg_exclude_padding, x, out_shape, p);
  return plain_average(x, out_shape, rows, cols);
}

/// Runs `pool` on a 4-D input, or on a 3-D (C, H, W) input seen as a batch of one.
template <typename Pool>
Tensor with_batch(const Tensor& x, const Pool& pool) {
  if (x.dim() != 3) return pool(x);
  return onednn::drop_batch_dim(pool(onednn::add_batch_dim(x)));
}

/// The maxima of x (N, C, H, W) over the windows p, without indices.
Tensor max_values(const char* op, const Tensor& x, const PoolParams& p) {
  const Shape out_shape = pooled_shape(x, p, op);
  if (numel_of(out_shape) == 0) return Tensor::allocate(out_shape, x.dtype());
  if (onednn_max_applies(x, p))
    if (std::optional<Tensor> out = onednn_max_pool(op, x, out_shape, p, nullptr)) return *out;
  Tensor out = Tensor::allocate(out_shape, x.dtype());
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] { max_planes<scalar_t, false>(x, out, p, nullptr); });
  return out;
}

}  // namespace

// input (N, C, H, W) or (C, H, W) -> (N, C, H_out, W_out).
// A quantized input runs quantized_max_pool2d, as ATen's max_pool2d does (its profile nests that op).
Tensor max_pool2d(const Tensor& self, const MaxPool2dArgs& args) {
  if (self.is_quantized())
    return dispatch::call<OpKind::QuantizedMaxPool2d>({self}, {.kernel_size = args.kernel_size, .stride = args.stride,
                                                              .padding = args.padding, .dilation = args.dilation,
                                                              .ceil_mode = args.ceil_mode});
  const PoolParams p =
      onednn::pool_params("max_pool2d", args.kernel_size, args.stride, args.padding, args.dilation, args.ceil_mode);
  return with_batch(self, [&](const Tensor& x) { return max_values("max_pool2d", x, p); });
}

// input (N, C, L) or (C, L) -> (N, C, L_out): max_pool2d's kernel over (N, C, 1, L), as ATen's own CPU
// max_pool1d (which autograd does not use: in grad mode max_pool1d is max_pool1d_with_indices).
Tensor max_pool1d(const Tensor& self, const MaxPool1dArgs& args) {
  const char* op = "max_pool1d";
  const PoolParams p = pool1d_params(op, args.kernel_size, args.stride, args.padding, args.dilation, args.ceil_mode);
  check_pool1d_input(op, self);
  const Tensor x = self.dim() == 3 ? self : onednn::add_batch_dim(self);
  const Tensor out = onednn::drop_unit_dim(max_values(op, onednn::add_unit_dim(x, 2), p), 2);
  return self.dim() == 3 ? out : onednn::drop_batch_dim(out);
}

// input (N, C, H, W) or (C, H, W) -> (values, indices), both (N, C, H_out, W_out); indices int64.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, const MaxPool2dWithIndicesArgs& args) {
  const PoolParams p = onednn::pool_params("max_pool2d_with_indices", args.kernel_size, args.stride, args.padding,
                                           args.dilation, args.ceil_mode);
  const Tensor x = self.dim() == 3 ? onednn::add_batch_dim(self) : self;
  const Shape out_shape = pooled_shape(x, p, "max_pool2d_with_indices");
  if (self.dim() == 4 && detail::suggests_channels_last(x) && numel_of(out_shape) > 0) {  // as ATen's: channels-last
    const Tensor src = detail::channels_last_dense(x);
    Tensor out = detail::allocate_channels_last(out_shape, x.dtype());
    Tensor indices = detail::allocate_channels_last(out_shape, DType::Int64);
    TL_DISPATCH_FLOATING_TYPES(x.dtype(), "max_pool2d_with_indices", [&] {
      max_channels_last<scalar_t>(src, out, p, indices.data<int64_t>());
    });
    return {out, indices};
  }
  Tensor out, indices = Tensor::allocate(out_shape, DType::Int64);
  std::optional<Tensor> fast;
  if (numel_of(out_shape) > 0 && onednn_max_applies(x, p))
    fast = onednn_max_pool("max_pool2d_with_indices", x, out_shape, p, indices.data<int64_t>());
  if (fast) {
    out = *fast;
  } else {
    out = Tensor::allocate(out_shape, x.dtype());
    if (numel_of(out_shape) > 0)
      TL_DISPATCH_FLOATING_TYPES(x.dtype(), "max_pool2d_with_indices", [&] {
        max_planes<scalar_t, true>(x, out, p, indices.data<int64_t>());
      });
  }
  if (self.dim() == 3) return {onednn::drop_batch_dim(out), onednn::drop_batch_dim(indices)};
  return {out, indices};
}

// A quantized input runs ATen's QuantizedCPU avg_pool2d (ops/quantized/average.h).
Tensor avg_pool2d(const Tensor& self, const AvgPool2dArgs& args) {
  if (self.is_quantized()) return int8::avg_pool2d(self, args);
  const PoolParams p = onednn::pool_params("avg_pool2d", args.kernel_size, args.stride, args.padding, {1, 1},
                                           args.ceil_mode);
  const bool include_pad = args.count_include_pad;
  const int64_t divisor = args.divisor_override.value_or(0);
  TL_CHECK(!args.divisor_override || divisor != 0, "avg_pool2d: divisor must be not zero");
  return with_batch(self, [&](const Tensor& x) {
    const Shape out_shape = pooled_shape(x, p, "avg_pool2d");
    if (numel_of(out_shape) == 0) return Tensor::allocate(out_shape, x.dtype());
    // oneDNN divides by the whole kernel where PyTorch stops counting at the right padding, and knows
    // no divisor_override.
    const Pair pad_r = right_padding(x, out_shape, p);
    const bool overhang = pad_r[0] > p.padding[0] || pad_r[1] > p.padding[1];
    if (onednn_dtype(x.dtype()) && !(include_pad && overhang) && divisor == 0) {
      const auto algorithm =
          include_pad ? dnnl::algorithm::pooling_avg_include_padding : dnnl::algorithm::pooling_avg_exclude_padding;
      return *onednn_pool("avg_pool2d", algorithm, x, out_shape, p);
    }
    return plain_average(x, out_shape,
                         avg_axis(x.size(2), out_shape[2], p.kernel[0], p.stride[0], p.padding[0], include_pad),
                         avg_axis(x.size(3), out_shape[3], p.kernel[1], p.stride[1], p.padding[1], include_pad),
                         divisor);
  });
}

// A quantized input runs quantized_adaptive_avg_pool2d (ATen's _adaptive_avg_pool2d on QuantizedCPU).
Tensor adaptive_avg_pool2d(const Tensor& self, const AdaptiveAvgPool2dArgs& args) {
  if (self.is_quantized())
    return dispatch::call<OpKind::QuantizedAdaptiveAvgPool2d>({self}, {.output_size = args.output_size});
  const Pair& size = args.output_size;
  check_positive("adaptive_avg_pool2d", "output_size", size, /*allow_zero=*/true);
  return with_batch(self, [&](const Tensor& x) {
    check_input(x, "adaptive_avg_pool2d");
    TL_CHECK(x.size(2) > 0 && x.size(3) > 0, "adaptive_avg_pool2d: expected non-empty spatial dimensions, got input ",
             x.shape());
    const Shape out_shape{x.size(0), x.size(1), size[0], size[1]};
    if (numel_of(out_shape) == 0) return Tensor::allocate(out_shape, x.dtype());
    return adaptive_average(x, out_shape, size);
  });
}

// input (N, C, H, W) or (C, H, W) -> (values, indices), both (N, C, output_size); indices int64.
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, const AdaptiveMaxPool2dArgs& args) {
  const char* op = "adaptive_max_pool2d";
  const Pair& size = args.output_size;
  check_positive(op, "output_size", size, /*allow_zero=*/true);
  TL_CHECK(self.dim() == 3 || self.dim() == 4, op, ": expected 3D or 4D tensor, but got: ", self.shape());
  for (int64_t d = 1; d < self.dim(); ++d)
    TL_CHECK(self.size(d) > 0, op, ": expected input to have non-zero size for non-batch dimensions, but input has "
             "sizes ", self.shape(), " with dimension ", d, " being empty");
  TL_CHECK(is_floating_point(self.dtype()), op, ": expected a floating point input, got ", self.dtype());
  const Tensor x = self.dim() == 3 ? onednn::add_batch_dim(self) : self;
  const Shape out_shape{x.size(0), x.size(1), size[0], size[1]};
  Tensor out = Tensor::allocate(out_shape, x.dtype()), indices = Tensor::allocate(out_shape, DType::Int64);
  if (numel_of(out_shape) > 0) {
    const AxisWindows rows = adaptive_axis(x.size(2), size[0]), cols = adaptive_axis(x.size(3), size[1]);
    TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] {
      adaptive_max_planes<scalar_t>(x, out, rows, cols, indices.data<int64_t>());
    });
  }
  if (self.dim() == 3) return {onednn::drop_batch_dim(out), onednn::drop_batch_dim(indices)};
  return {out, indices};
}

}  // namespace tl::kernels
