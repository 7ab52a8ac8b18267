// ops/onednn/window.h — sliding windows shared by conv2d and the 2-D pools: (H, W) pairs, a pool's
// checked window, and the right padding oneDNN needs to reproduce PyTorch's output sizes (ops/conv_shape.h).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "core/boxing.h"
#include "core/error.h"
#include "core/tensor.h"
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

/// A 1-d pool's int[1] argument `name`; throws unless it holds one int.
inline int64_t pool1d_value(const char* op, const IntList& value, const char* name) {
  TL_CHECK(value.values.size() == 1, op, ": argument '", name, "' should contain one int, got ", value.values);
  return value.values[0];
}

/// A 1-d pool's window as the 2-d pool's over (N, C, 1, L) (stride none given, []: the kernel), checked.
inline PoolParams pool1d_params(const char* op, const IntList& kernel_size, const IntList& stride,
                                const IntList& padding, const IntList& dilation, bool ceil_mode) {
  const int64_t k = pool1d_value(op, kernel_size, "kernel_size");
  const int64_t s = stride.values.empty() ? k : pool1d_value(op, stride, "stride");
  const int64_t p = pool1d_value(op, padding, "padding"), d = pool1d_value(op, dilation, "dilation");
  TL_CHECK(k > 0, op, ": kernel_size must be positive, got ", k);
  TL_CHECK(s > 0, op, ": stride must be positive, got ", s);
  TL_CHECK(p >= 0, op, ": padding must be non-negative, got ", p);
  TL_CHECK(d > 0, op, ": dilation must be positive, got ", d);
  TL_CHECK(p <= k / 2, op, ": padding ", p, " should be at most half of kernel_size ", k);
  return pool_params(op, {1, k}, Pair{1, s}, {0, p}, {1, d}, ceil_mode);
}

/// Throws unless x is a 1-d pool's (C, L) or (N, C, L) input.
inline void check_pool1d_input(const char* op, const Tensor& x) {
  TL_CHECK(x.dim() == 2 || x.dim() == 3, op, ": expected 2-D (C, L) or 3-D (N, C, L) input, got ", x.shape());
}

/// oneDNN's right padding that yields exactly `out` windows: the left padding, or more when
/// ceil_mode added a window that overhangs the input.
inline int64_t right_padding(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
                             int64_t dilation) {
  const int64_t needed = (out - 1) * stride + dilated_extent(kernel, dilation) - in - padding;
  return needed > padding ? needed : padding;
}

}  // namespace tl::onednn
