// tests/ops/test_pool_backward.cpp — max_pool2d_with_indices and the pools' backward kernels against
// float64 loops (argmax windows, averaging windows with PyTorch's divisors), the averaging ones also
// against central differences of the float64 forwards; NaN and -inf windows; and their errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

struct PoolCase {
  Shape input, kernel, stride, padding, dilation;
  bool ceil_mode;
};

const PoolCase kPoolCases[] = {
    {{2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false},
    {{1, 2, 9, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false},  // overlapping windows, padding
    {{2, 2, 7, 10}, {3, 2}, {2, 3}, {1, 1}, {1, 1}, true},  // ceil_mode with a last window over the edge
    {{1, 3, 11, 9}, {3, 3}, {1, 2}, {1, 0}, {2, 2}, false}, // dilated (max only)
    {{3, 1, 5, 5}, {5, 5}, {1, 1}, {2, 2}, {1, 1}, false},  // windows larger than most of the input
};

int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1;
  int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

Shape pooled(const PoolCase& c, bool dilated) {
  const int64_t dh = dilated ? c.dilation[0] : 1, dw = dilated ? c.dilation[1] : 1;
  return {c.input[0], c.input[1], out_size(c.input[2], c.kernel[0], c.stride[0], c.padding[0], dh, c.ceil_mode),
          out_size(c.input[3], c.kernel[1], c.stride[1], c.padding[1], dw, c.ceil_mode)};
}

/// Direct loops in double: the first maximum of each dilated window (NaN wins) and its h * W + w.
std::tuple<Tensor, Tensor> reference_max_with_indices(const Tensor& x, const PoolCase& c) {
  const std::vector<double> in = testing::to_doubles(x);
  const Shape out = pooled(c, true);
  const int64_t H = x.size(2), W = x.size(3);
  std::vector<double> values;
  std::vector<int64_t> indices;
  for (int64_t plane = 0; plane < out[0] * out[1]; ++plane)
    for (int64_t i = 0; i < out[2]; ++i)
      for (int64_t j = 0; j < out[3]; ++j) {
        double best = -std::numeric_limits<double>::infinity();
        int64_t at = -1;
        for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
          for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
            const int64_t h = i * c.stride[0] - c.padding[0] + kh * c.dilation[0];
            const int64_t w = j * c.stride[1] - c.padding[1] + kw * c.dilation[1];
            if (h < 0 || h >= H || w < 0 || w >= W) continue;
            const double v = in[plane * H * W + h * W + w];
            if (at < 0) at = h * W + w;  // an all -inf window points at its first element
            if (v > best || std::isnan(v)) {
              best = v;
              at = h * W + w;
            }
          }
        values.push_back(best);
        indices.push_back(at);
      }
  return {testing::from_doubles(values, out), from_vector<int64_t>(indices, out)};
}

/// Each gradient to its window's maximum.
Tensor reference_max_backward(const Tensor& grad, const Tensor& x, const Tensor& indices) {
  const std::vector<double> g = testing::to_doubles(grad);
  std::vector<double> out(static_cast<size_t>(x.numel()), 0.0);
  const int64_t plane_in = x.size(2) * x.size(3), plane_out = grad.size(2) * grad.size(3);
  for (int64_t k = 0; k < grad.numel(); ++k)
    out[(k / plane_out) * plane_in + static_cast<int64_t>(testing::element_at(indices, k))] += g[k];
  return testing::from_doubles(out, x.shape());
}

/// Each gradient spread over its window: avg_pool2d's windows (count_include_pad counts padding but
/// not a ceil_mode overhang) when `c` is given, adaptive windows otherwise.
Tensor reference_average_backward(const Tensor& grad, const Tensor& x, const std::optional<PoolCase>& c,
                                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  const std::vector<double> g = testing::to_doubles(grad);
  const int64_t H = x.size(2), W = x.size(3), OH = grad.size(2), OW = grad.size(3);
  std::vector<double> out(static_cast<size_t>(x.numel()), 0.0);
  for (int64_t plane = 0; plane < x.size(0) * x.size(1); ++plane)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        int64_t h0, h1, w0, w1, divisor;
        if (c) {
          h0 = i * c->stride[0] - c->padding[0], w0 = j * c->stride[1] - c->padding[1];
          h1 = std::min(h0 + c->kernel[0], H + c->padding[0]), w1 = std::min(w0 + c->kernel[1], W + c->padding[1]);
          const int64_t padded = (h1 - h0) * (w1 - w0);
          h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0), h1 = std::min(h1, H), w1 = std::min(w1, W);
          divisor = count_include_pad ? padded : (h1 - h0) * (w1 - w0);
        } else {
          h0 = i * H / OH, h1 = ((i + 1) * H + OH - 1) / OH, w0 = j * W / OW, w1 = ((j + 1) * W + OW - 1) / OW;
          divisor = (h1 - h0) * (w1 - w0);
        }
        if (divisor_override) divisor = *divisor_override;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w)
            out[plane * H * W + h * W + w] += g[(plane * OH + i) * OW + j] / static_cast<double>(divisor);
      }
  return testing::from_doubles(out, x.shape());
}

double tolerance(DType dtype) { return dtype == DType::Float64 ? 1e-12 : dtype == DType::Float32 ? 1e-5 : 2e-2; }

TEST_CASE("max_pool2d_with_indices: values equal max_pool2d, indices the first maximum of each window") {
  manual_seed(31);
  for (const PoolCase& c : kPoolCases)
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
        INFO("input ", c.input, " ", testing::layout_name(layout), " ", dtype, ", kernel ", c.kernel, ", stride ",
             c.stride, ", padding ", c.padding, ", dilation ", c.dilation, ", ceil ", c.ceil_mode);
        // Rounded to quarters: ties, whose first element must win. to() copies contiguously: channels-last again.
        const Tensor rounded = (testing::random_nchw(c.input, layout, DType::Float64) * 4.0).to(DType::Int64).to(dtype) * 0.25;
        const bool channels_last = layout == testing::NchwLayout::ChannelsLast;
        const Tensor x = channels_last ? rounded.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}) : rounded;
        const auto [values, indices] = max_pool2d_with_indices(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
        // As ATen's: channels-last values, indices and gradient for a channels-last input (one channel: contiguous).
        const auto laid_out = [&](const Tensor& t) {
          const bool want = channels_last && t.size(1) > 1;
          return t.strides() == (want ? testing::channels_last_strides(t.shape()) : t.contiguous().strides());
        };
        CHECK(laid_out(values));
        CHECK(laid_out(indices));
        const auto want = reference_max_with_indices(x, c);
        CHECK(indices.dtype() == DType::Int64);
        CHECK_TENSOR_CLOSE(values, max_pool2d(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode), 0, 0);
        CHECK_TENSOR_CLOSE(values, std::get<0>(want), 0, 0);
        CHECK_TENSOR_CLOSE(indices, std::get<1>(want), 0, 0);
        const Tensor grad = randn(values.shape(), dtype);
        const Tensor got = max_pool2d_with_indices_backward(grad, x, c.kernel, c.stride, c.padding, c.dilation,
                                                             c.ceil_mode, indices);
        CHECK(laid_out(got));
        CHECK_TENSOR_CLOSE(got, reference_max_backward(grad, x, indices), tolerance(dtype), tolerance(dtype));
      }
}

TEST_CASE("max_pool2d_with_indices: NaN wins (the last one), an all -inf window points at its first element") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const float fnan = static_cast<float>(nan);
  // Window 0 reads 1, NaN, NaN, 0 (row-major): the second NaN. Window 1 reads 3, 1, 2, 3: the first 3.
  const Tensor x = from_vector<float>({1, fnan, 3, 1, fnan, 0, 2, 3}, {1, 1, 2, 4});
  const auto [values, indices] = max_pool2d_with_indices(x, {2, 2});
  CHECK(std::isnan(values.data<float>()[0]));
  CHECK(values.data<float>()[1] == 3);
  CHECK_TENSOR_CLOSE(indices, from_vector<int64_t>({4, 2}, {1, 1, 1, 2}), 0, 0);
  const Tensor all_inf = full({1, 1, 2, 2}, -inf);
  CHECK(std::get<1>(max_pool2d_with_indices(all_inf, {2, 2}, {2, 2}, {1, 1})).data<int64_t>()[3] == 3);
  const Tensor two_nans = from_vector<float>({static_cast<float>(nan), 0, 1, static_cast<float>(nan)}, {1, 1, 2, 2});
  CHECK(std::get<1>(max_pool2d_with_indices(two_nans, {2, 2})).item<int64_t>() == 3);
  // The channels-last kernel chooses alike: x's windows in two channels, and all -inf windows.
  for (const Tensor& t : {x, all_inf}) {
    const Tensor two = t.expand({1, 2, t.size(2), t.size(3)});
    const Tensor cl = two.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
    const auto [v, i] = max_pool2d_with_indices(cl, {2, 2}, {2, 2}, t.is_same(x) ? Shape{0, 0} : Shape{1, 1});
    const auto [v_plain, i_plain] = max_pool2d_with_indices(two.contiguous(), {2, 2}, {2, 2},
                                                            t.is_same(x) ? Shape{0, 0} : Shape{1, 1});
    CHECK(i.strides() == testing::channels_last_strides(i.shape()));
    CHECK_TENSOR_CLOSE(v, v_plain, 0, 0);
    CHECK_TENSOR_CLOSE(i, i_plain, 0, 0);
  }
  // Unbatched (C, H, W) input.
  const auto [v3, i3] = max_pool2d_with_indices(x.squeeze(0), {2, 2});
  CHECK(i3.shape() == Shape{1, 1, 2});
  CHECK(max_pool2d_with_indices_backward(ones({1, 1, 2}), x.squeeze(0), {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, i3)
            .shape() == Shape{1, 2, 4});
}

TEST_CASE("avg_pool2d_backward: against the float64 windows over the sweep, count_include_pad and divisor_override") {
  manual_seed(32);
  for (const PoolCase& c : kPoolCases) {
    if (c.dilation != Shape{1, 1}) continue;  // avg_pool2d has no dilation
    for (bool include_pad : {true, false})
      for (std::optional<int64_t> divisor : {std::optional<int64_t>{}, std::optional<int64_t>{3}})
        for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
          INFO("input ", c.input, " ", dtype, ", kernel ", c.kernel, ", stride ", c.stride, ", padding ", c.padding,
               ", ceil ", c.ceil_mode, ", count_include_pad ", include_pad, ", divisor ", divisor.value_or(0));
          const Tensor x = randn(c.input, dtype);
          const Tensor grad = testing::random_nchw(pooled(c, false), testing::NchwLayout::Sliced, dtype);
          const Tensor got = avg_pool2d_backward(grad, x, c.kernel, c.stride, c.padding, c.ceil_mode, include_pad, divisor);
          CHECK(got.dtype() == dtype);
          CHECK_TENSOR_CLOSE(got, reference_average_backward(grad, x, c, include_pad, divisor), tolerance(dtype),
                             tolerance(dtype));
        }
  }
}

TEST_CASE("_adaptive_avg_pool2d_backward: against the float64 adaptive windows") {
  manual_seed(33);
  const std::pair<Shape, Shape> cases[] = {{{7, 9}, {3, 4}}, {{8, 8}, {2, 2}}, {{5, 6}, {5, 6}}, {{4, 5}, {7, 3}}, {{6, 6}, {1, 1}}};
  for (const auto& size : cases)
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
      const Shape &in = size.first, &out = size.second;
      INFO("input ", in, " -> ", out, " ", dtype);
      const Tensor x = testing::random_nchw({2, 3, in[0], in[1]}, testing::NchwLayout::ChannelsLast, dtype);
      const Tensor grad = randn({2, 3, out[0], out[1]}, dtype);
      CHECK_TENSOR_CLOSE(_adaptive_avg_pool2d_backward(grad, x), reference_average_backward(grad, x, std::nullopt, false, {}),
                         tolerance(dtype), tolerance(dtype));
    }
}

TEST_CASE("pool backward: the averaging loops agree with central differences of the float64 forwards") {
  manual_seed(34);
  const PoolCase& c = kPoolCases[2];
  const Tensor x = randn(c.input, DType::Float64), grad = randn(pooled(c, false), DType::Float64);
  const Tensor adaptive_grad = randn({2, 2, 3, 4}, DType::Float64);
  const Tensor avg = reference_average_backward(grad, x, c, false, {});
  const Tensor adaptive = reference_average_backward(adaptive_grad, x, std::nullopt, false, {});
  const double h = 1e-3;
  for (int64_t k = 0; k < x.numel(); k += 7) {
    double* p = x.data<double>() + k;
    const double saved = *p;
    double up[2], down[2];
    for (double* side : {up, down}) {
      *p = saved + (side == up ? h : -h);
      side[0] = (grad * avg_pool2d(x, c.kernel, c.stride, c.padding, c.ceil_mode, false)).sum().item<double>();
      side[1] = (adaptive_grad * adaptive_avg_pool2d(x, {3, 4})).sum().item<double>();
    }
    *p = saved;
    // Both forwards are linear in x: the difference quotient is exact up to rounding.
    CHECK((up[0] - down[0]) / (2 * h) == doctest::Approx(avg.data<double>()[k]).epsilon(1e-9));
    CHECK((up[1] - down[1]) / (2 * h) == doctest::Approx(adaptive.data<double>()[k]).epsilon(1e-9));
  }
}

TEST_CASE("pool backward: rejects bad input with the values involved, changing nothing") {
  const Tensor x = randn({1, 2, 6, 6}), grad = randn({1, 2, 3, 3});
  const auto [values, indices] = max_pool2d_with_indices(x, {2, 2});
  const Tensor x0 = x.clone(), grad0 = grad.clone(), indices0 = indices.clone();
  CHECK_THROWS_WITH_AS(max_pool2d_with_indices_backward(randn({1, 2, 3, 2}), x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false,
                                                        indices),
                       "max_pool2d_with_indices_backward: grad_output [1, 2, 3, 2] differs from the forward's output "
                       "[1, 2, 3, 3] for self [1, 2, 6, 6]",
                       Error);
  CHECK_THROWS_WITH_AS(max_pool2d_with_indices_backward(grad, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, values),
                       "max_pool2d_with_indices_backward: expected int64 indices, got torch.float32", Error);
  const std::string outside = "max_pool2d_with_indices_backward: index " + std::to_string(indices.data<int64_t>()[0] + 40) +
                              " at position 0 is outside its input plane of 36 elements (self [1, 2, 6, 6])";
  CHECK_THROWS_WITH_AS(max_pool2d_with_indices_backward(grad, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, indices + 40),
                       outside.c_str(), Error);
  CHECK_THROWS_WITH_AS(max_pool2d_with_indices_backward(grad, x, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false,
                                                        indices.slice(3, 0, 2)),
                       "max_pool2d_with_indices_backward: indices [1, 2, 3, 2] differ from grad_output [1, 2, 3, 3]", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d_backward(grad.to(DType::Float64), x, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt),
                       "avg_pool2d_backward: grad_output dtype torch.float64 differs from self dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d_backward(grad, x, {2, 2}, {2, 2}, {0, 0}, false, true, 0),
                       "avg_pool2d_backward: divisor_override must be non-zero, got 0", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d_backward(grad, x, {3, 3}, {2, 2}, {2, 2}, false, true, std::nullopt),
                       "avg_pool2d_backward: padding [2, 2] should be at most half of kernel_size [3, 3]", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d_backward(grad.squeeze(0), x, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt),
                       "avg_pool2d_backward: grad_output [2, 3, 3] and self [1, 2, 6, 6] differ in their number of "
                       "dimensions",
                       Error);
  CHECK_THROWS_WITH_AS(_adaptive_avg_pool2d_backward(randn({1, 3, 2, 2}), x),
                       "_adaptive_avg_pool2d_backward: grad_output [1, 3, 2, 2] and self [1, 2, 6, 6] differ in batch or "
                       "channels",
                       Error);
  CHECK_THROWS_WITH_AS(_adaptive_avg_pool2d_backward(randn({2, 2}), randn({2, 2})),
                       "_adaptive_avg_pool2d_backward: expected 3-D (C, H, W) or 4-D (N, C, H, W) self, got [2, 2]", Error);
  CHECK_TENSOR_CLOSE(x, x0, 0, 0);
  CHECK_TENSOR_CLOSE(grad, grad0, 0, 0);
  CHECK_TENSOR_CLOSE(indices, indices0, 0, 0);
}

}  // namespace
}  // namespace tl
