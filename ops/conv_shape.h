// ops/conv_shape.h — the output size of a 2-D sliding window (conv2d, max_pool2d, avg_pool2d and their
// inference variants, the profiler's conv flops): PyTorch's formula, written once, with its checks.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "core/shape.h"

namespace tl {

/// The span a dilated kernel covers: dilation * (kernel - 1) + 1.
inline int64_t dilated_extent(int64_t kernel, int64_t dilation) { return dilation * (kernel - 1) + 1; }

/// Throws unless both (H, W) values are > 0 (>= 0 when `allow_zero`):
/// "conv2d: stride must be positive, got [0, 1]", "avg_pool2d: padding must be non-negative, got [-1, 0]".
void check_positive(std::string_view op, std::string_view name, std::array<int64_t, 2> values,
                    bool allow_zero = false);

/// (H_out, W_out) of `op` over `input`, whose dims 2 and 3 are H and W ((N, C, H, W), or oneDNN's
/// blocked (N, C / 16, H, W, 16)); kernel, stride, padding (on both sides) and dilation are (H, W)
/// pairs. Per axis, as the Conv2d and MaxPool2d docs give it:
///   out = floor((in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1)
/// with ceil instead of floor when `ceil_mode` (pools), where, as in PyTorch, a last window that would
/// start beyond the input and its left padding is dropped. Throws tl::Error when kernel, stride or
/// dilation is < 1 or padding < 0 (see check_positive), or when an output size would be <= 0:
/// "max_pool2d: input [1, 1, 2, 2] is too small for kernel_size [3, 3] (stride [3, 3], padding [0, 0],
/// dilation [1, 1]): output size would be [0, 0]".
std::array<int64_t, 2> conv_output_size(std::string_view op, const Shape& input, std::array<int64_t, 2> kernel,
                                        std::array<int64_t, 2> stride, std::array<int64_t, 2> padding,
                                        std::array<int64_t, 2> dilation, bool ceil_mode = false);

}  // namespace tl
