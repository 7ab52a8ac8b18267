// tests/ops/test_conv_backward.cpp — convolution_backward against naive float64 loops of conv2d's
// analytic gradients over the conv sweep (nn_references.h), the loops themselves against central
// differences of the float64 forward; output_mask; and its errors, which leave the operands as they were.
#include <doctest/doctest.h>

#include <array>
#include <limits>

#include "core/generator.h"
#include "core/op_kind.h"
#include "ops/ops.h"
#include "tests/ops/nn_references.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::ConvCase;
using testing::weight_shape;
constexpr const auto& kCases = testing::kConvCases;
constexpr std::array<bool, 3> kAll{true, true, true};

struct ConvGradients {
  Tensor input, weight, bias;
};

/// Direct loops in double: every product input * weight of the forward sends grad_output back to both.
ConvGradients reference_conv2d_backward(const Tensor& grad, const Tensor& x, const Tensor& w, const ConvCase& c) {
  const std::vector<double> g = testing::to_doubles(grad), in = testing::to_doubles(x), wt = testing::to_doubles(w);
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), Cg = w.size(1), KH = w.size(2), KW = w.size(3), Og = O / c.groups;
  const int64_t OH = grad.size(2), OW = grad.size(3);
  std::vector<double> gi(in.size(), 0.0), gw(wt.size(), 0.0), gb(static_cast<size_t>(O), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          const double dy = g[((n * O + o) * OH + i) * OW + j];
          gb[o] += dy;
          for (int64_t cl = 0; cl < Cg; ++cl)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t h = i * c.stride[0] - c.padding[0] + kh * c.dilation[0];
                const int64_t v = j * c.stride[1] - c.padding[1] + kw * c.dilation[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                const int64_t xi = ((n * C + (o / Og) * Cg + cl) * H + h) * W + v, wi = ((o * Cg + cl) * KH + kh) * KW + kw;
                gi[xi] += dy * wt[wi];
                gw[wi] += dy * in[xi];
              }
        }
  return {testing::from_doubles(gi, x.shape()), testing::from_doubles(gw, w.shape()), testing::from_doubles(gb, {O})};
}

Shape output_shape(const ConvCase& c) {
  const Shape w = weight_shape(c);
  return {c.input[0], c.out_channels, (c.input[2] + 2 * c.padding[0] - c.dilation[0] * (w[2] - 1) - 1) / c.stride[0] + 1,
          (c.input[3] + 2 * c.padding[1] - c.dilation[1] * (w[3] - 1) - 1) / c.stride[1] + 1};
}

ConvGradients run(const Tensor& grad, const Tensor& x, const Tensor& w, const ConvCase& c, std::array<bool, 3> mask = kAll) {
  const auto [gi, gw, gb] = convolution_backward(grad, x, w, Shape{c.out_channels}, c.stride, c.padding, c.dilation,
                                                 false, {0, 0}, c.groups, mask);
  return {gi, gw, gb};
}

/// The gradients are `want`'s, laid out as ATen's: grad_input channels-last for a channels-last input (the
/// weight contiguous), else contiguous; grad_weight contiguous.
void check_close(const ConvGradients& got, const ConvGradients& want, double rtol, double atol,
                 bool channels_last = false) {
  CHECK(got.input.strides() ==
        (channels_last ? testing::channels_last_strides(got.input.shape()) : got.input.contiguous().strides()));
  CHECK(got.weight.is_contiguous());
  CHECK_TENSOR_CLOSE(got.input, want.input, rtol, atol);
  CHECK_TENSOR_CLOSE(got.weight, want.weight, rtol, atol);
  CHECK_TENSOR_CLOSE(got.bias, want.bias, rtol, atol);
}

TEST_CASE("convolution_backward: the reference loops agree with central differences of the float64 forward") {
  manual_seed(11);
  for (const ConvCase& c : {kCases[2], kCases[5], kCases[7]}) {
    INFO("input ", c.input, ", weight ", weight_shape(c), ", groups ", c.groups);
    const Tensor x = randn(c.input, DType::Float64), w = randn(weight_shape(c), DType::Float64);
    const Tensor b = randn({c.out_channels}, DType::Float64), grad = randn(output_shape(c), DType::Float64);
    const ConvGradients want = reference_conv2d_backward(grad, x, w, c);
    // L = sum(grad * conv2d(x, w, b)); dL/dt at a few elements of each operand, step h.
    const auto loss = [&] { return (grad * conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups)).sum().item<double>(); };
    const double h = 1e-3;
    const std::pair<Tensor, Tensor> operands[] = {{x, want.input}, {w, want.weight}, {b, want.bias}};
    for (const auto& operand : operands) {
      const Tensor& t = operand.first;
      for (int64_t k : {int64_t{0}, t.numel() / 2, t.numel() - 1}) {
        double* p = t.data<double>() + k;
        const double saved = *p;
        *p = saved + h;
        const double up = loss();
        *p = saved - h;
        const double down = loss();
        *p = saved;
        // L is linear in each operand: the difference quotient is exact up to rounding in L.
        CHECK((up - down) / (2 * h) == doctest::Approx(operand.second.data<double>()[k]).epsilon(1e-8));
      }
    }
  }
}

TEST_CASE("convolution_backward: float32 (oneDNN) and float64 against the float64 loops over the conv sweep") {
  manual_seed(12);
  for (const ConvCase& c : kCases)
    for (testing::NchwLayout layout : testing::kNchwLayouts) {
      INFO("input ", c.input, " ", testing::layout_name(layout), ", weight ", weight_shape(c), ", stride ", c.stride,
           ", padding ", c.padding, ", dilation ", c.dilation, ", groups ", c.groups);
      const Tensor x = testing::random_nchw(c.input, layout), w = randn(weight_shape(c));
      const Tensor grad = testing::random_nchw(output_shape(c), layout);
      const ConvGradients want = reference_conv2d_backward(grad, x, w, c);
      // float32 sums of up to a few thousand unit-variance products: rounding stays below 1e-4 of them.
      const bool channels_last = layout == testing::NchwLayout::ChannelsLast;
      check_close(run(grad, x, w, c), want, 1e-4, 1e-4, channels_last);
      // to() gives contiguous copies: lay the float64 operands out as the float32 ones.
      const auto as_layout = [&](const Tensor& t) {
        return channels_last ? t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}) : t;
      };
      const ConvGradients f64 = run(as_layout(grad.to(DType::Float64)), as_layout(x.to(DType::Float64)),
                                    w.to(DType::Float64), c);
      CHECK(f64.input.dtype() == DType::Float64);
      check_close(f64, want, 1e-12, 1e-12, channels_last);  // the same sums in double, in another order
    }
}

/// A transposed convolution of x (N, C_in, H, W) by w (C_in, C_out / groups, kH, kW), and the 2-d convolution
/// it is the input gradient of: `conv` maps the transposed one's output back to its input.
struct TransposedCase {
  Shape input;
  int64_t out_channels;
  Shape kernel, stride, padding, output_padding, dilation;
  int64_t groups;
  Shape output() const {
    Shape out{input[0], out_channels, 0, 0};
    for (int d = 0; d < 2; ++d)
      out[2 + d] = (input[2 + d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (kernel[d] - 1) + output_padding[d] + 1;
    return out;
  }
  ConvCase conv() const { return {output(), input[1], kernel, stride, padding, dilation, groups, true}; }
};

/// Every conv sweep case seen from its output (the output_padding that gives back its input), and output
/// paddings at or above the stride where the dilation allows them.
std::vector<TransposedCase> transposed_cases() {
  std::vector<TransposedCase> out;
  for (const ConvCase& c : kCases) {
    Shape op{0, 0};
    for (int d = 0; d < 2; ++d)
      op[d] = (c.input[2 + d] + 2 * c.padding[d] - c.dilation[d] * (c.kernel[d] - 1) - 1) % c.stride[d];
    out.push_back({output_shape(c), c.input[1], c.kernel, c.stride, c.padding, op, c.dilation, c.groups});
  }
  out.push_back({{2, 6, 5, 6}, 6, {3, 3}, {1, 2}, {0, 1}, {1, 1}, {2, 2}, 3});
  out.push_back({{1, 4, 4, 3}, 2, {2, 3}, {1, 1}, {2, 0}, {1, 2}, {2, 3}, 2});
  return out;
}

TEST_CASE("conv_transpose2d and convolution_backward(transposed): float32 (oneDNN) and float64 against the loops") {
  manual_seed(13);
  for (const TransposedCase& t : transposed_cases())
    for (DType dtype : {DType::Float32, DType::Float64}) {
      INFO("input ", t.input, ", out_channels ", t.out_channels, ", kernel ", t.kernel, ", stride ", t.stride,
           ", padding ", t.padding, ", output_padding ", t.output_padding, ", dilation ", t.dilation, ", groups ",
           t.groups, ", ", dtype);
      const ConvCase c = t.conv();
      const Tensor x = randn(t.input, dtype), w = randn(weight_shape(c), dtype), b = randn({t.out_channels}, dtype);
      const Tensor grad = randn(t.output(), dtype);
      const double tol = dtype == DType::Float64 ? 1e-10 : 1e-4;
      // The forward: conv2d's input gradient for grad_output x, plus the bias.
      const Tensor want = reference_conv2d_backward(x, zeros(t.output(), dtype), w, c).input +
                          b.to(DType::Float64).view({1, t.out_channels, 1, 1});
      const Tensor out = conv_transpose2d(x, w, b, t.stride, t.padding, t.output_padding, t.groups, t.dilation);
      CHECK(out.is_contiguous());
      CHECK_TENSOR_CLOSE(out, want, tol, tol);
      // Its gradients: conv2d of grad (cut to x's size), conv2d's weight gradient with grad as the input.
      const auto [gi, gw, gb] = convolution_backward(grad, x, w, Shape{t.out_channels}, t.stride, t.padding,
                                                     t.dilation, true, t.output_padding, t.groups, kAll);
      const Tensor conv = testing::reference_conv2d(grad, w, Tensor(), t.stride, t.padding, t.dilation, t.groups);
      CHECK_TENSOR_CLOSE(gi, conv.slice(2, 0, t.input[2]).slice(3, 0, t.input[3]), tol, tol);
      CHECK_TENSOR_CLOSE(gw, reference_conv2d_backward(x, grad, w, c).weight, tol, tol);
      CHECK_TENSOR_CLOSE(gb, grad.to(DType::Float64).sum({0, 2, 3}), tol, tol);
    }
}

TEST_CASE("convolution_backward: bfloat16 operands") {
  manual_seed(13);
  for (const ConvCase& c : {kCases[1], kCases[3], kCases[9]}) {
    INFO("input ", c.input, ", weight ", weight_shape(c), ", groups ", c.groups);
    const Tensor x = randn(c.input, DType::BFloat16), w = randn(weight_shape(c), DType::BFloat16);
    const Tensor grad = randn(output_shape(c), DType::BFloat16);
    const ConvGradients got = run(grad, x, w, c);
    CHECK(got.input.dtype() == DType::BFloat16);
    CHECK(got.weight.dtype() == DType::BFloat16);
    // Exact products of bfloat16 values summed in float32, each result rounded to bfloat16 (8 bits).
    check_close(got, reference_conv2d_backward(grad, x, w, c), 1e-2, 5e-2);
  }
}

/// t's values laid out channels-last, as t.contiguous(memory_format=torch.channels_last).
Tensor channels_last(const Tensor& t) { return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); }

TEST_CASE("convolution_backward: a channels-last weight gives channels-last gradients for a contiguous input") {
  manual_seed(15);
  // Weights with more than one input channel per group and a kernel over 1x1: else their layout is ambiguous, and
  // ATen's (and ours) contiguous.
  for (const ConvCase& c : {kCases[1], kCases[2], kCases[5], kCases[9]}) {
    INFO("input ", c.input, ", weight ", weight_shape(c), ", groups ", c.groups);
    const Tensor x = randn(c.input), w = channels_last(randn(weight_shape(c))), grad = randn(output_shape(c));
    const ConvGradients got = run(grad, x, w, c);
    const ConvGradients want = reference_conv2d_backward(grad, x, w, c);
    CHECK(got.input.strides() == testing::channels_last_strides(got.input.shape()));
    CHECK(got.weight.strides() == w.strides());  // as the weight: AccumulateGrad keeps it as it is
    CHECK_TENSOR_CLOSE(got.input, want.input, 1e-4, 1e-4);
    CHECK_TENSOR_CLOSE(got.weight, want.weight, 1e-4, 1e-4);
    CHECK_TENSOR_CLOSE(got.bias, want.bias, 1e-4, 1e-4);
  }
}

TEST_CASE("convolution_backward: channels-last operands give the contiguous ones' NaN from padding taps") {
  // An inf in grad_output times a padding zero: the contiguous path's NaN are PyTorch's (special values).
  manual_seed(16);
  for (const ConvCase& c : {kCases[1], kCases[5], kCases[9]}) {
    INFO("input ", c.input, ", weight ", weight_shape(c), ", groups ", c.groups);
    const Tensor x = randn(c.input), w = randn(weight_shape(c));
    Tensor grad = randn(output_shape(c));
    grad.data<float>()[0] = std::numeric_limits<float>::infinity();
    const ConvGradients plain = run(grad, x, w, c);
    const ConvGradients got = run(channels_last(grad), channels_last(x), w, c);
    CHECK(got.input.strides() == testing::channels_last_strides(got.input.shape()));
    CHECK(plain.weight.isnan().any().item<bool>());
    CHECK_TENSOR_CLOSE(got.input, plain.input, 1e-5, 1e-5);
    CHECK_TENSOR_CLOSE(got.weight, plain.weight, 1e-5, 1e-5);
    CHECK_TENSOR_CLOSE(got.bias, plain.bias, 1e-5, 1e-5);
  }
}

TEST_CASE("convolution_backward: output_mask leaves the unwanted gradients undefined") {
  manual_seed(14);
  const ConvCase& c = kCases[2];
  const Tensor x = randn(c.input), w = randn(weight_shape(c)), grad = randn(output_shape(c));
  const ConvGradients want = reference_conv2d_backward(grad, x, w, c);
  const ConvGradients input_only = run(grad, x, w, c, {true, false, false});
  CHECK_TENSOR_CLOSE(input_only.input, want.input, 1e-4, 1e-4);
  CHECK_FALSE(input_only.weight.defined());
  CHECK_FALSE(input_only.bias.defined());
  const ConvGradients weight_bias = run(grad, x, w, c, {false, true, true});
  CHECK_FALSE(weight_bias.input.defined());
  CHECK_TENSOR_CLOSE(weight_bias.weight, want.weight, 1e-4, 1e-4);
  CHECK_TENSOR_CLOSE(weight_bias.bias, want.bias, 1e-4, 1e-4);
  // No output positions (a zero batch): zero gradients of the right shapes.
  const ConvCase no_batch{{0, 4, 8, 5}, 6, {2, 3}, {1, 2}, {1, 0}, {1, 1}, 2, true};
  const ConvGradients empty = run(zeros(output_shape(no_batch)), zeros(no_batch.input), w, no_batch);
  CHECK(empty.input.shape() == Shape{0, 4, 8, 5});
  CHECK_TENSOR_CLOSE(empty.weight, zeros(weight_shape(c)), 0, 0);
  CHECK_TENSOR_CLOSE(empty.bias, zeros({6}), 0, 0);
}

TEST_CASE("convolution_backward: rejects bad input with the values involved, changing nothing") {
  const ConvCase& c = kCases[0];  // input (1, 3, 7, 7), weight (4, 3, 3, 3) -> (1, 4, 5, 5)
  const Tensor x = randn(c.input), w = randn(weight_shape(c)), grad = randn({1, 4, 5, 5});
  const Tensor x0 = x.clone(), w0 = w.clone(), grad0 = grad.clone();
  CHECK_THROWS_WITH_AS(run(randn({1, 4, 4, 5}), x, w, c),
                       "convolution_backward: grad_output [1, 4, 4, 5] differs from the forward's output [1, 4, 5, 5] "
                       "for input [1, 3, 7, 7] and weight [4, 3, 3, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(run(grad.to(DType::Float64), x, w, c),
                       "convolution_backward: grad_output dtype torch.float64 differs from input dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(run(grad, x, w.to(DType::Float64), c),
                       "convolution_backward: weight dtype torch.float64 differs from input dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(run(grad, randn({1, 2, 7, 7}), w, c),
                       "convolution_backward: input [1, 2, 7, 7] has 2 channels but weight [4, 3, 3, 3] with groups=1 "
                       "expects 3",
                       Error);
  CHECK_THROWS_WITH_AS(convolution_backward(grad, x, w, Shape{3}, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1, kAll),
                       "convolution_backward: bias_sizes [3] differs from [4], weight [4, 3, 3, 3]'s output channels",
                       Error);
  CHECK_THROWS_WITH_AS(convolution_backward(grad, x, w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, true, {1, 1}, 1, kAll),
                       "convolution_backward: output padding must be smaller than either stride or dilation, but got "
                       "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
                       "dilation_height: 1 dilation_width: 1", Error);
  CHECK_THROWS_WITH_AS(convolution_backward(grad, x, w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, true, {0, 0}, 1, kAll),
                       "convolution_backward: input [1, 3, 7, 7] has 3 channels but weight [4, 3, 3, 3] expects 4", Error);
  const Tensor in[] = {grad, x, w};
  const auto call_with_mask = [&](const Shape& mask) {
    return dispatch::call(OpKind::ConvolutionBackward, in,
                          {{"bias_sizes", AttrValue{}}, {"stride", Shape{1, 1}}, {"padding", Shape{0, 0}},
                           {"dilation", Shape{1, 1}}, {"transposed", false}, {"output_padding", Shape{0, 0}},
                           {"groups", int64_t{1}}, {"output_mask", mask}});
  };
  CHECK_THROWS_WITH_AS(call_with_mask({1, 1}),
                       "convolution_backward: expected output_mask to have 3 values (0 or 1), got [1, 1]", Error);
  CHECK_THROWS_WITH_AS(call_with_mask({1, 2, 0}),
                       "convolution_backward: expected output_mask to have 3 values (0 or 1), got [1, 2, 0]", Error);
  CHECK(call_with_mask({1, 0, 1}).at(1).defined() == false);
  CHECK_TENSOR_CLOSE(x, x0, 0, 0);
  CHECK_TENSOR_CLOSE(w, w0, 0, 0);
  CHECK_TENSOR_CLOSE(grad, grad0, 0, 0);
}

}  // namespace
}  // namespace tl
