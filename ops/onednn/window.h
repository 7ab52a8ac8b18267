// ops/onednn/window.h — sliding windows shared by conv2d and the 2-D pools: (H, W) pairs, a pool's
// checked window, and the right padding oneDNN needs to reproduce PyTorch's output sizes (ops/conv_shape.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/error.h"
#include "ops/conv_shape.h"

namespace tl::onednn {

using Pair = std::array<int64_t, 2>;

inline Shape to_shape(const Pair& p) { return Shape{p[0], p[1]}; }

/// A 2-D pooling window as max_pool2d / avg_pool2d take it.
struct PoolParams {
  Pair kernel, stride, padding, dilation;
  bool ceil_mode = false;
};

/// The window of `op` from its arguments' fields (stride none given: the kernel; dilation {1, 1} for an
/// op that has none), checked with PyTorch's error messages: kernel_size, stride and dilation positive,
/// padding at most half the kernel.
inline PoolParams pool_params(const char* op, const Pair& kernel_size, const std::optional<Pair>& stride,
                              const Pair& padding, const Pair& dilation, bool ceil_mode) {
  const PoolParams p{kernel_size, stride.value_or(kernel_size), padding, dilation, ceil_mode};
  check_positive(op, "kernel_size", p.kernel);
  check_positive(op, "stride", p.stride);
  check_positive(op, "padding", p.padding, /*allow_zero=*/true);
  check_positive(op, "dilation", p.dilation);
  TL_CHECK(p.padding[0] <= p.kernel[0] / 2 && p.padding[1] <= p.kernel[1] / 2, op, ": padding ", to_shape(p.padding),
           " should be at most half of kernel_size ", to_shape(p.kernel));
  return p;
}

/// oneDNN's right padding that yields exactly `out` windows: the left padding, or more when
/// ceil_mode added a window that overhangs the input.
inline int64_t right_padding(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
                             int64_t dilation) {
  const int64_t needed = (out - 1) * stride + dilated_extent(kernel, dilation) - in - padding;
  return needed > padding ? needed : padding;
}

}  // namespace tl::onednn
