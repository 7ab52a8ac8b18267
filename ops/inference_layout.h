// ops/inference_layout.h — the activation layouts of the inference-optimized kernels (private to ops/):
// fp32/bf16 nChw16c as a contiguous 5-D tensor (N, ceil(C / 16), H, W, 16) whose padded channels are
// zero, and NHWC as a 4-D (N, C, H, W) tensor with channels-last strides. Both are ordinary tensors.
#pragma once

#include <cstdint>
#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"
#include "ops/onednn/memory.h"

namespace tl::inference {

inline constexpr int64_t kBlock = 16;

inline int64_t blocks_of(int64_t channels) { return (channels + kBlock - 1) / kBlock; }

/// A 5-D tensor whose last dimension is the 16-channel block: nChw16c.
inline bool is_blocked(const Tensor& t) { return t.dim() == 5 && t.size(4) == kBlock; }

/// (N, ceil(C / 16), H, W, 16) for logical (N, C, H, W).
inline Shape blocked_shape(int64_t n, int64_t c, int64_t h, int64_t w) { return {n, blocks_of(c), h, w, kBlock}; }

/// Channels-last strides of a logical (N, C, H, W) tensor.
inline Strides nhwc_strides(int64_t c, int64_t h, int64_t w) { return {h * w * c, 1, w * c, c}; }

/// A fresh (N, C, H, W) tensor with NHWC strides (uninitialised).
inline Tensor allocate_nhwc(int64_t n, int64_t c, int64_t h, int64_t w, DType dtype) {
  return Tensor::allocate({n, h, w, c}, dtype).permute({0, 3, 1, 2});
}

/// Logical (N, C, H, W) of an activation: a blocked tensor counts its padded channels.
inline Shape logical_shape(const Tensor& t) {
  if (is_blocked(t)) return {t.size(0), t.size(1) * kBlock, t.size(2), t.size(3)};
  return t.shape();
}

/// The oneDNN view of an activation with `channels` logical channels: nChw16c for a blocked tensor
/// (padded dims follow from `channels`), the tensor's own strides otherwise.
inline dnnl::memory::desc activation_desc(const Tensor& t, int64_t channels) {
  if (!is_blocked(t)) return onednn::strided_desc(t);
  return dnnl::memory::desc({t.size(0), channels, t.size(2), t.size(3)}, onednn::data_type(t.dtype()),
                            dnnl::memory::format_tag::nChw16c);
}

/// A result with logical sizes `nchw` (N, C, H, W): blocked or NHWC. `out`, when defined, is checked
/// to have exactly that layout and returned; otherwise a fresh tensor is allocated.
Tensor activation_out(const char* op, bool blocked, DType dtype, const Shape& nchw, const Tensor& out);

/// Throws unless `out` has `sizes`, `strides` and `dtype` (an `out` argument must be exact).
void check_out(const char* op, const Tensor& out, const Shape& sizes, const Strides& strides, DType dtype);

/// Throws unless `t` is an activation the inference kernels take: a contiguous blocked tensor
/// (float32 or bfloat16), or a 4-D float32 / bfloat16 tensor.
void check_activation(const char* op, const char* what, const Tensor& t);

}  // namespace tl::inference
