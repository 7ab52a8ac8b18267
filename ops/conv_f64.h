// ops/conv_f64.h — float64 conv2d and its gradients (internal to ops/): oneDNN has no f64 CPU kernels,
// so conv.cpp / conv_backward.cpp validate the arguments and size the results exactly as for float32,
// then hand float64 here.
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

/// The gradients of conv2d for float64 grad (N, C_out, H_out, W_out), contiguous: grad_input
/// (N, C_in, H, W) and grad_weight (C_out, C_in / groups, kH, kW), contiguous and preallocated, each
/// undefined when not wanted. x and w may have any strides. Arguments must already be validated
/// (shapes, dtypes, every size > 0); throws tl::Error only when out of memory.
void conv2d_backward_f64(const Tensor& grad, const Tensor& x, const Tensor& w, const onednn::Pair& stride,
                         const onednn::Pair& padding, const onednn::Pair& dilation, int64_t groups,
                         const Tensor& grad_input, const Tensor& grad_weight);

}  // namespace tl::kernels
