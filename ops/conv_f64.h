// ops/conv_f64.h — float64 conv2d (internal to ops/): oneDNN has no f64 CPU kernels, so conv.cpp
// validates the arguments and sizes the output exactly as for float32, then hands float64 here.
#pragma once

#include <cstdint>

#include "core/tensor.h"
#include "ops/onednn/window.h"

namespace tl::kernels {

/// out (N, C_out, H_out, W_out), contiguous, preallocated = conv2d(x, w, b) for float64 tensors:
/// x (N, C_in, H, W) and w (C_out, C_in / groups, kH, kW) with any strides, b (C_out) or None.
/// Arguments must already be validated (shapes, dtypes, output size, C_in > 0, C_out > 0).
/// Runs im2col + GEMM per (image, group), in parallel over them when there are enough; throws
/// tl::Error only when out of memory.
void conv2d_f64(const Tensor& x, const Tensor& w, const Tensor& b, const onednn::Pair& stride,
                const onednn::Pair& padding, const onednn::Pair& dilation, int64_t groups, const Tensor& out);

}  // namespace tl::kernels
