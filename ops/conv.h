// ops/conv.h — (internal to ops/) the 2-D convolution and its gradients as the other convolutions run
// them: a 1-d convolution is the 2-d one over (N, C, 1, L); a transposed convolution is the 2-d one's
// input gradient, and its gradients are the 2-d forward and weight gradient with the roles swapped.
#pragma once

#include <cstdint>

#include "core/boxing.h"
#include "core/tensor.h"
#include "ops/onednn/window.h"

namespace tl::kernels {

/// A 2-D convolution's window. `padding_end` pads after the last row and column: `padding` for a
/// convolution, padding - output_padding where the convolution stands for a transposed one (whose
/// output_padding adds rows and columns that no window of the convolution reaches).
struct ConvWindow {
  onednn::Pair stride, padding, dilation;
  int64_t groups = 1;
  onednn::Pair padding_end;
};

/// Whether ATen's _convolution lays the result of a 2-d convolution of x (N, C_in, H, W) by w out channels-last:
/// when either suggests channels-last (its mkldnn and slow paths alike, float64 too), so a channels-last activation
/// (ConvNeXt's, after a permuted LayerNorm) stays channels-last.
bool conv_channels_last(const Tensor& x, const Tensor& w);

/// conv2d of x (N, C_in, H, W) and w (C_out, C_in / groups, kH, kW), b (C_out) or undefined, with the
/// window's symmetric padding (padding_end is not read): checks the operands against each other (the
/// window must be checked already) and returns (N, C_out, H_out, W_out), channels-last when `channels_last`
/// (and not empty), else contiguous. `op` names the caller in errors.
Tensor conv2d_nchw(const char* op, const Tensor& x, const Tensor& w, const Tensor& b, const ConvWindow& window,
                   bool channels_last = false);

/// The gradients of conv2d(x, w) for grad (N, C_out, H_out, W_out), contiguous, where H_out is the
/// convolution's over H with the window's padding before and padding_end after: grad_input like x and
/// grad_weight like w, contiguous and preallocated, each undefined when not wanted. x is read only
/// for its shape when grad_weight is undefined (it may then be grad_input itself). Operands must be
/// checked and non-empty; float32, bfloat16 (oneDNN) or float64.
void conv2d_gradients(const Tensor& grad, const Tensor& x, const Tensor& w, const ConvWindow& window,
                      const Tensor& grad_input, const Tensor& grad_weight);

/// A 1-d convolution's int[1] argument `name` as the W value of the 2-d one's (H, W) pair, whose H is `h`;
/// throws unless it holds one value.
onednn::Pair conv1d_pair(const char* op, const IntList& value, const char* name, int64_t h);

/// Adds b[c] (undefined: nothing) to every element of channel c of out (N, C, H, W), contiguous.
void add_channel_bias(const Tensor& out, const Tensor& b);

/// Throws unless a transposed convolution's window is valid: stride, dilation and groups positive,
/// padding and output_padding non-negative, output_padding smaller than stride or dilation (per axis).
void check_transposed_window(const char* op, const ConvWindow& window, const onednn::Pair& output_padding);

/// (N, C_out, H_out, W_out) of a transposed convolution of x (N, C_in, H, W) by w (C_in, C_out / groups,
/// kH, kW): H_out = (H - 1) * stride - 2 * padding + dilation * (kH - 1) + output_padding + 1. Checks
/// the operands (dtypes, channels, groups) and throws when an output size would be <= 0.
Shape conv_transpose_output_shape(const char* op, const Tensor& x, const Tensor& w, const ConvWindow& window,
                                  const onednn::Pair& output_padding);

}  // namespace tl::kernels
