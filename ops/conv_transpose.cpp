// ops/conv_transpose.cpp — conv_transpose2d and conv_transpose1d: the input gradient of conv2d (oneDNN's
// convolution_backward_data, float64 by ops/conv_f64.cpp; ops/conv_backward.cpp) plus the bias, as
// oneDNN's own CPU deconvolution runs it. A 1-d one is the 2-d one over (N, C, 1, L).
#include <algorithm>
#include <type_traits>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/conv.h"
#include "ops/onednn/memory.h"

namespace tl::kernels {
namespace {

using onednn::Pair;

Tensor conv_transpose_nchw(const char* op, const Tensor& x, const Tensor& w, const Tensor& b, const ConvWindow& window,
                           const Pair& output_padding) {
  const Shape out_shape = conv_transpose_output_shape(op, x, w, window, output_padding);
  if (b.defined()) {
    TL_CHECK(b.dim() == 1 && b.size(0) == out_shape[1], op, ": expected bias of shape [", out_shape[1], "], got ",
             b.shape());
    TL_CHECK(b.dtype() == x.dtype(), op, ": bias dtype ", b.dtype(), " differs from input dtype ", x.dtype());
  }
  Tensor out = Tensor::allocate(out_shape, x.dtype());
  if (out.numel() == 0) return out;
  if (x.numel() == 0) {  // no input channels (or no input rows): every output is the bias (or zero)
    std::fill_n(static_cast<char*>(out.raw_data()), out.nbytes(), 0);
  } else {
    ConvWindow conv = window;
    for (int d = 0; d < 2; ++d) conv.padding_end[d] = window.padding[d] - output_padding[d];
    conv2d_gradients(onednn::to_contiguous(x, op), out, w, conv, out, Tensor());
  }
  add_channel_bias(out, b);
  return out;
}

}  // namespace

Pair conv1d_pair(const char* op, const IntList& value, const char* name, int64_t h) {
  TL_CHECK(value.values.size() == 1, op, ": expected ", name, " to be a single integer value or a list of 1 values "
           "to match the convolution dimensions, but got ", name, "=", value.values);
  return {h, value.values[0]};
}

void add_channel_bias(const Tensor& out, const Tensor& b) {
  if (!b.defined()) return;
  const int64_t channels = out.size(1), plane = out.size(2) * out.size(3);
  TL_DISPATCH_FLOATING_TYPES(out.dtype(), "add_channel_bias", [&] {
    using A = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;  // bfloat16 adds in float
    scalar_t* o = out.data<scalar_t>();
    const scalar_t* bias = b.data<scalar_t>();
    parallel_for(0, out.size(0) * channels, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane)),
                 [&](int64_t begin, int64_t end) {
                   for (int64_t nc = begin; nc < end; ++nc) {
                     const A v = static_cast<A>(bias[nc % channels * b.stride(0)]);
                     scalar_t* row = o + nc * plane;
                     for (int64_t i = 0; i < plane; ++i) row[i] = static_cast<scalar_t>(static_cast<A>(row[i]) + v);
                   }
                 });
  });
}

void check_transposed_window(const char* op, const ConvWindow& p, const Pair& output_padding) {
  check_positive(op, "stride", p.stride);
  check_positive(op, "padding", p.padding, /*allow_zero=*/true);
  check_positive(op, "dilation", p.dilation);
  check_positive(op, "output_padding", output_padding, /*allow_zero=*/true);
  TL_CHECK(p.groups > 0, op, ": groups must be positive, got ", p.groups);
  // PyTorch's text (slow_conv_transpose2d's check, which its 1-d form reaches as a 2-d one of height 1).
  TL_CHECK((output_padding[0] < p.stride[0] || output_padding[0] < p.dilation[0]) &&
               (output_padding[1] < p.stride[1] || output_padding[1] < p.dilation[1]),
           op, ": output padding must be smaller than either stride or dilation, but got output_padding_height: ",
           output_padding[0], " output_padding_width: ", output_padding[1], " stride_height: ", p.stride[0],
           " stride_width: ", p.stride[1], " dilation_height: ", p.dilation[0], " dilation_width: ", p.dilation[1]);
}

Shape conv_transpose_output_shape(const char* op, const Tensor& x, const Tensor& w, const ConvWindow& p,
                                  const Pair& output_padding) {
  TL_CHECK(w.dim() == 4, op, ": expected 4-D weight (C_in, C_out / groups, kH, kW), got ", w.shape());
  TL_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::BFloat16, op,
           ": expected input to be float32, float64 or bfloat16, got ", x.dtype());
  TL_CHECK(w.dtype() == x.dtype(), op, ": weight dtype ", w.dtype(), " differs from input dtype ", x.dtype());
  TL_CHECK(x.size(1) == w.size(0), op, ": input ", x.shape(), " has ", x.size(1), " channels but weight ", w.shape(),
           " expects ", w.size(0));
  TL_CHECK(w.size(0) % p.groups == 0, op, ": weight ", w.shape(), " has ", w.size(0),
           " input channels, not divisible by groups=", p.groups);
  TL_CHECK(w.size(2) > 0 && w.size(3) > 0, op, ": weight ", w.shape(), " has an empty kernel");
  Shape out{x.size(0), w.size(1) * p.groups, 0, 0};
  for (int d = 0; d < 2; ++d)
    out[2 + d] = (x.size(2 + d) - 1) * p.stride[d] - 2 * p.padding[d] + dilated_extent(w.size(2 + d), p.dilation[d]) +
                 output_padding[d];
  TL_CHECK(out[2] > 0 && out[3] > 0, op, ": input ", x.shape(), " is too small for weight ", w.shape(), " (stride ",
           onednn::to_shape(p.stride), ", padding ", onednn::to_shape(p.padding), ", dilation ",
           onednn::to_shape(p.dilation), ", output_padding ", onednn::to_shape(output_padding),
           "): output size would be ", Shape{out[2], out[3]});
  return out;
}

// input (N, C_in, H, W) or (C_in, H, W); weight (C_in, C_out / groups, kH, kW); bias (C_out) or None
// -> (N, C_out, H_out, W_out).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const ConvTranspose2dArgs& args) {
  const char* op = "conv_transpose2d";
  const ConvWindow window{args.stride, args.padding, args.dilation, args.groups, args.padding};
  check_transposed_window(op, window, args.output_padding);
  TL_CHECK(input.dim() == 3 || input.dim() == 4, op, ": expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got ",
           input.shape());
  if (input.dim() == 4) return conv_transpose_nchw(op, input, weight, bias, window, args.output_padding);
  return onednn::drop_batch_dim(
      conv_transpose_nchw(op, onednn::add_batch_dim(input), weight, bias, window, args.output_padding));
}

// input (N, C_in, L) or (C_in, L); weight (C_in, C_out / groups, k); bias (C_out) or None -> (N, C_out, L_out).
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias,
                        const ConvTranspose1dArgs& args) {
  const char* op = "conv_transpose1d";
  const Pair padding = conv1d_pair(op, args.padding, "padding", 0);
  const ConvWindow window{conv1d_pair(op, args.stride, "stride", 1), padding,
                          conv1d_pair(op, args.dilation, "dilation", 1), args.groups, padding};
  const Pair output_padding = conv1d_pair(op, args.output_padding, "output_padding", 0);
  check_transposed_window(op, window, output_padding);
  TL_CHECK(input.dim() == 2 || input.dim() == 3, op, ": expected 2-D (C, L) or 3-D (N, C, L) input, got ",
           input.shape());
  TL_CHECK(weight.dim() == 3, op, ": expected 3-D weight (C_in, C_out / groups, k), got ", weight.shape());
  const Tensor x = input.dim() == 3 ? input : onednn::add_batch_dim(input);
  const Tensor out = onednn::drop_unit_dim(conv_transpose_nchw(op, onednn::add_unit_dim(x, 2),
                                                               onednn::add_unit_dim(weight, 2), bias, window,
                                                               output_padding),
                                           2);
  return input.dim() == 3 ? out : onednn::drop_batch_dim(out);
}

}  // namespace tl::kernels
