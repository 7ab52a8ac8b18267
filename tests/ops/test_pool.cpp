// tests/ops/test_pool.cpp — max_pool2d, avg_pool2d and adaptive_avg_pool2d against naive
// double-precision references over kernel / stride / padding / dilation, ceil_mode,
// count_include_pad, non-divisible adaptive sizes, input layouts and dtypes (the oneDNN path for
// float32 / bfloat16, the plain kernel for float64); output sizes checked against PyTorch's; oneDNN's
// max pooling pinned to the plain kernel on ties, ±0, -inf windows and extreme values; adaptive_max_pool2d
// against a row-major walk on ties, NaN and -inf windows; errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "core/generator.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/ops.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::from_doubles;
using testing::to_doubles;

struct PoolCase {
  Shape input, kernel, stride, padding, dilation;
  bool ceil_mode;
  Shape torch_output;  ///< (H_out, W_out) that PyTorch 1.13 gives (max_pool2d)
};

const PoolCase kCases[] = {
    {{1, 2, 5, 5}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true, {3, 3}},
    {{2, 3, 6, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true, {4, 4}},
    {{1, 2, 7, 6}, {3, 2}, {2, 3}, {1, 0}, {1, 1}, true, {4, 2}},
    {{1, 2, 9, 8}, {3, 3}, {2, 2}, {1, 1}, {2, 2}, true, {4, 4}},
    {{3, 2, 8, 8}, {2, 2}, {3, 3}, {1, 1}, {1, 1}, true, {3, 3}},  // a ceil window that would start in the padding
    {{1, 2, 5, 5}, {3, 3}, {3, 3}, {1, 1}, {1, 1}, true, {2, 2}},
    {{1, 2, 10, 11}, {4, 3}, {3, 2}, {2, 1}, {1, 2}, false, {4, 5}},
    {{2, 16, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, {5, 5}},  // ResNet's max pool, scaled down
};

/// PyTorch's pooling_output_shape, written out.
int64_t output_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t out = (in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0)) / s + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

/// Calls f(n, c, i, j, h0, w0) per output element; (h0, w0) is the window's top-left input position.
template <typename F>
Tensor pool_reference(const Tensor& x, const PoolCase& c, const F& f) {
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t OH = output_size(x.size(2), c.kernel[0], c.stride[0], c.padding[0], c.dilation[0], c.ceil_mode);
  const int64_t OW = output_size(x.size(3), c.kernel[1], c.stride[1], c.padding[1], c.dilation[1], c.ceil_mode);
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j)
          out.push_back(f(n, ch, i * c.stride[0] - c.padding[0], j * c.stride[1] - c.padding[1]));
  return from_doubles(out, {N, C, OH, OW});
}

Tensor reference_max_pool(const Tensor& x, const PoolCase& c) {
  const std::vector<double> in = to_doubles(x);
  const int64_t C = x.size(1), H = x.size(2), W = x.size(3);
  return pool_reference(x, c, [&](int64_t n, int64_t ch, int64_t h0, int64_t w0) {
    double best = -std::numeric_limits<double>::infinity();
    for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
      for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
        const int64_t h = h0 + kh * c.dilation[0], w = w0 + kw * c.dilation[1];
        if (h >= 0 && h < H && w >= 0 && w < W) best = std::max(best, in[((n * C + ch) * H + h) * W + w]);
      }
    return best;
  });
}

/// PyTorch's rule: the window is clipped to [.., size + padding) for the divisor with
/// count_include_pad, and to the input itself for the sum (and the divisor without it).
// divisor_override: the divisor of every window when not 0.
Tensor reference_avg_pool(const Tensor& x, const PoolCase& c, bool count_include_pad, int64_t divisor_override = 0) {
  const std::vector<double> in = to_doubles(x);
  const int64_t C = x.size(1), H = x.size(2), W = x.size(3);
  return pool_reference(x, c, [&](int64_t n, int64_t ch, int64_t h0, int64_t w0) {
    const int64_t h1 = std::min(h0 + c.kernel[0], H + c.padding[0]), w1 = std::min(w0 + c.kernel[1], W + c.padding[1]);
    const int64_t padded_count = (h1 - h0) * (w1 - w0);
    double sum = 0;
    int64_t count = 0;
    for (int64_t h = std::max<int64_t>(h0, 0); h < std::min(h1, H); ++h)
      for (int64_t w = std::max<int64_t>(w0, 0); w < std::min(w1, W); ++w, ++count) sum += in[((n * C + ch) * H + h) * W + w];
    return sum / static_cast<double>(divisor_override != 0 ? divisor_override : count_include_pad ? padded_count : count);
  });
}

Tensor reference_adaptive_avg_pool(const Tensor& x, int64_t OH, int64_t OW) {
  const std::vector<double> in = to_doubles(x);
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t ch = 0; ch < C; ++ch)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          const auto h0 = static_cast<int64_t>(std::floor(static_cast<double>(i * H) / OH));
          const auto h1 = static_cast<int64_t>(std::ceil(static_cast<double>((i + 1) * H) / OH));
          const auto w0 = static_cast<int64_t>(std::floor(static_cast<double>(j * W) / OW));
          const auto w1 = static_cast<int64_t>(std::ceil(static_cast<double>((j + 1) * W) / OW));
          double sum = 0;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) sum += in[((n * C + ch) * H + h) * W + w];
          out.push_back(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
        }
  return from_doubles(out, {N, C, OH, OW});
}

double tolerance(DType dtype) { return dtype == DType::BFloat16 ? 1e-2 : 1e-5; }

TEST_CASE("max_pool2d: matches the naive reference and PyTorch's output sizes") {
  manual_seed(20);
  for (const PoolCase& c : kCases)
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
        INFO("input ", c.input, " ", testing::layout_name(layout), " ", dtype, ", kernel ", c.kernel, ", stride ", c.stride,
             ", padding ", c.padding, ", dilation ", c.dilation, ", ceil_mode ", c.ceil_mode);
        const Tensor x = testing::random_nchw(c.input, layout, dtype);
        const Tensor out = max_pool2d(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
        CHECK(out.shape() == Shape{c.input[0], c.input[1], c.torch_output[0], c.torch_output[1]});
        CHECK(out.dtype() == dtype);
        CHECK_TENSOR_CLOSE(out, reference_max_pool(x, c), 0, 0);
      }
}

TEST_CASE("avg_pool2d: matches the naive reference with and without count_include_pad") {
  manual_seed(21);
  for (const PoolCase& c : kCases) {
    if (c.dilation != Shape{1, 1}) continue;
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16})
        for (bool include_pad : {true, false}) {
          INFO("input ", c.input, " ", testing::layout_name(layout), " ", dtype, ", kernel ", c.kernel, ", stride ",
               c.stride, ", padding ", c.padding, ", ceil_mode ", c.ceil_mode, ", count_include_pad ", include_pad);
          const Tensor x = testing::random_nchw(c.input, layout, dtype);
          const Tensor out = avg_pool2d(x, c.kernel, c.stride, c.padding, c.ceil_mode, include_pad);
          CHECK(out.shape() == Shape{c.input[0], c.input[1], c.torch_output[0], c.torch_output[1]});
          CHECK_TENSOR_CLOSE(out, reference_avg_pool(x, c, include_pad), tolerance(dtype), tolerance(dtype));
        }
  }
}

TEST_CASE("avg_pool2d: divisor_override divides every window's sum by it; zero is refused") {
  manual_seed(23);
  for (const PoolCase& c : kCases) {
    if (c.dilation != Shape{1, 1}) continue;
    for (DType dtype : {DType::Float32, DType::Float64})
      for (bool include_pad : {true, false}) {
        INFO("input ", c.input, " ", dtype, ", kernel ", c.kernel, ", stride ", c.stride, ", padding ", c.padding,
             ", ceil_mode ", c.ceil_mode, ", count_include_pad ", include_pad);
        const Tensor x = testing::random_nchw(c.input, testing::kNchwLayouts[0], dtype);
        const Tensor out = avg_pool2d(x, c.kernel, c.stride, c.padding, c.ceil_mode, include_pad, 3);
        CHECK_TENSOR_CLOSE(out, reference_avg_pool(x, c, include_pad, 3), tolerance(dtype), tolerance(dtype));
      }
  }
  CHECK_THROWS_WITH_AS(avg_pool2d(randn({1, 1, 4, 4}), {2, 2}, {}, {0, 0}, false, true, 0),
                       "avg_pool2d: divisor must be not zero", Error);
}

TEST_CASE("max_pool2d / avg_pool2d: default stride, single values, unbatched and empty input") {
  manual_seed(22);
  const Tensor x = randn({3, 7, 8});
  const PoolCase c{{1, 3, 7, 8}, {2, 2}, {2, 2}, {1, 1}, {1, 1}, false, {}};
  CHECK_TENSOR_CLOSE(max_pool2d(x, {2}, {}, {1}), reference_max_pool(x.unsqueeze(0), c).squeeze(0), 0, 0);
  CHECK_TENSOR_CLOSE(avg_pool2d(x, {2}, {}, {1}), reference_avg_pool(x.unsqueeze(0), c, true).squeeze(0), 1e-6, 1e-6);
  CHECK(max_pool2d(randn({0, 3, 8, 8}), {2, 2}).shape() == Shape{0, 3, 4, 4});
  CHECK(avg_pool2d(randn({2, 0, 8, 8}), {2, 2}).shape() == Shape{2, 0, 4, 4});
}

TEST_CASE("adaptive_avg_pool2d: divisible, overlapping and non-divisible windows") {
  manual_seed(23);
  const Shape sizes[][2] = {{{7, 7}, {1, 1}}, {{8, 6}, {4, 3}}, {{5, 7}, {3, 4}}, {{4, 4}, {3, 3}},
                            {{3, 5}, {5, 7}}, {{9, 10}, {2, 10}}};
  for (const auto& [in, out] : sizes)
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
        const Shape &in_size = in, &out_size = out;  // clang 14 cannot capture a structured binding in INFO
        INFO("input ", in_size, " -> ", out_size, " ", testing::layout_name(layout), " ", dtype);
        const Tensor x = testing::random_nchw({2, 3, in[0], in[1]}, layout, dtype);
        CHECK_TENSOR_CLOSE(adaptive_avg_pool2d(x, out), reference_adaptive_avg_pool(x, out[0], out[1]), tolerance(dtype),
                           tolerance(dtype));
      }
  const Tensor x = randn({3, 5, 6});
  CHECK_TENSOR_CLOSE(adaptive_avg_pool2d(x, {2}), reference_adaptive_avg_pool(x.unsqueeze(0), 2, 2).squeeze(0), 1e-6, 1e-6);
  CHECK(adaptive_avg_pool2d(randn({2, 3, 4, 4}), {0, 3}).shape() == Shape{2, 3, 0, 3});
}

int64_t onednn_lookups() {
  const onednn::PrimitiveCacheStats s = onednn::primitive_cache().stats();
  return s.hits + s.misses;
}

/// Values equal bit for bit as float64 (so -0.0 is not 0.0) and indices equal.
void check_same_max(const std::tuple<Tensor, Tensor>& got, const std::tuple<Tensor, Tensor>& want) {
  const std::vector<double> a = to_doubles(std::get<0>(got)), b = to_doubles(std::get<0>(want));
  REQUIRE(a.size() == b.size());
  int64_t differing = 0, first = -1;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(double)) != 0 && !(std::isnan(a[i]) && std::isnan(b[i])))
      first = first < 0 ? static_cast<int64_t>(i) : first, ++differing;
  INFO("first differing value at ", first, " of ", differing);
  CHECK(differing == 0);
  CHECK_TENSOR_CLOSE(std::get<1>(got), std::get<1>(want), 0, 0);
}

// The plain kernel (run on float64, where oneDNN has no pooling) is the reference: it follows PyTorch's
// CPU kernel, and tests/ops/test_special_values.cpp compares both paths with PyTorch's own results.
TEST_CASE("max_pool2d (with indices): oneDNN's path equals the plain kernel on ties, -0.0, -inf windows and extremes") {
  manual_seed(24);
  const double inf = std::numeric_limits<double>::infinity(), big = std::numeric_limits<float>::max();
  const PoolCase cases[] = {
      {{2, 16, 9, 9}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, {}},     // ResNet's stem, scaled down
      {{2, 5, 8, 8}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, {}},      // 5 channels: no jit kernel, the loop
      {{1, 16, 7, 10}, {3, 2}, {1, 3}, {1, 1}, {1, 1}, true, {}},     // ceil_mode: a window over the edge
      {{1, 16, 6, 7}, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true, {}},
      {{1, 32, 6, 6}, {5, 5}, {1, 1}, {2, 2}, {1, 1}, false, {}},     // windows mostly padding
      {{1, 16, 20, 19}, {17, 17}, {1, 2}, {8, 8}, {1, 1}, false, {}},  // 289 positions: an s32 workspace
  };
  // Planted into every other plane; all reach oneDNN but a bfloat16 subnormal, which the scan turns away.
  const double specials[] = {-inf, inf, -big, big, -0.0, 1e-40};
  for (const PoolCase& c : cases)
    for (DType dtype : {DType::Float32, DType::BFloat16})
      for (int variant = -1; variant < 6; ++variant) {
        INFO("input ", c.input, " ", dtype, ", kernel ", c.kernel, ", stride ", c.stride, ", padding ", c.padding,
             ", ceil ", c.ceil_mode, ", special ", variant < 0 ? 0.0 : specials[variant]);
        // After a ReLU: most windows hold several equal zeros, some -0.0; a few larger ties.
        Tensor x64 = (randn(c.input, DType::Float64) * 1.5).to(DType::Int64).to(DType::Float64);
        double* v = x64.data<double>();
        for (int64_t e = 0; e < x64.numel(); ++e) v[e] = v[e] < 0 ? (v[e] == -1 ? -0.0 : 0.0) : v[e];
        if (variant >= 0) {
          const int64_t plane = c.input[2] * c.input[3];
          for (int64_t q = 0; q < x64.numel() / plane; q += 2)
            for (int64_t e = 0; e < plane; ++e)  // whole rows, so some windows hold nothing else
              if ((e / c.input[3]) % 3 != 2 || q % 4 == 0) v[q * plane + e] = specials[variant];
        }
        const Tensor x = x64.to(dtype);
        const int64_t before = onednn_lookups();
        const auto got = max_pool2d_with_indices(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
        CHECK((onednn_lookups() > before) == !(variant == 5 && dtype == DType::BFloat16));
        const auto want = max_pool2d_with_indices(x.to(DType::Float64), c.kernel, c.stride, c.padding, c.dilation,
                                                  c.ceil_mode);
        check_same_max(got, want);
        const Tensor values = max_pool2d(x, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode);
        check_same_max({values, std::get<1>(got)}, want);
      }
}

TEST_CASE("max_pool2d_with_indices: the first of equal maxima wins, an all -inf window gives -inf at its first element") {
  // 4x4 zeros, 3x3 windows at stride 2 with padding 1: each window's first in-bounds element.
  const auto [zeros_v, zeros_i] = max_pool2d_with_indices(zeros({1, 16, 4, 4}), {3, 3}, {2, 2}, {1, 1});
  CHECK_TENSOR_CLOSE(zeros_i.slice(1, 3, 4), from_vector<int64_t>({0, 1, 4, 5}, {1, 1, 2, 2}), 0, 0);
  const Tensor all_inf = full({1, 16, 4, 4}, -std::numeric_limits<double>::infinity(), DType::BFloat16);
  const auto [inf_v, inf_i] = max_pool2d_with_indices(all_inf, {3, 3}, {2, 2}, {1, 1});
  CHECK(std::isinf(inf_v.to(DType::Float32).data<float>()[0]));
  CHECK_TENSOR_CLOSE(inf_i.slice(1, 5, 6), from_vector<int64_t>({0, 1, 4, 5}, {1, 1, 2, 2}), 0, 0);
  // -FLT_MAX is oneDNN's start value: a window whose maximum it is still points at that element.
  Tensor lowest = full({1, 16, 3, 3}, -std::numeric_limits<double>::infinity());
  lowest.data<float>()[5] = -std::numeric_limits<float>::max();
  const auto [low_v, low_i] = max_pool2d_with_indices(lowest, {3, 3});
  CHECK(low_v.data<float>()[0] == -std::numeric_limits<float>::max());
  CHECK(low_i.data<int64_t>()[0] == 5);
}

/// adaptive_max_pool2d as ATen's CPU kernel walks a window, row-major: a greater value or any NaN takes over.
std::tuple<Tensor, Tensor> reference_adaptive_max_pool(const Tensor& x, int64_t OH, int64_t OW) {
  const std::vector<double> in = to_doubles(x);
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  std::vector<double> values;
  std::vector<int64_t> indices;
  for (int64_t plane = 0; plane < N * C; ++plane)
    for (int64_t i = 0; i < OH; ++i)
      for (int64_t j = 0; j < OW; ++j) {
        const int64_t h0 = i * H / OH, h1 = ((i + 1) * H + OH - 1) / OH;
        const int64_t w0 = j * W / OW, w1 = ((j + 1) * W + OW - 1) / OW;
        double best = -std::numeric_limits<double>::infinity();
        int64_t at = h0 * W + w0;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w)
            if (const double v = in[(plane * H + h) * W + w]; v > best || std::isnan(v)) best = v, at = h * W + w;
        values.push_back(best);
        indices.push_back(at);
      }
  return {from_doubles(values, {N, C, OH, OW}), from_vector<int64_t>(indices, {N, C, OH, OW})};
}

TEST_CASE("adaptive_max_pool2d: the first of equal maxima (-0.0 before 0.0), the last NaN, over layouts and dtypes") {
  manual_seed(25);
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // Overlapping and disjoint windows, rows wider than a vector and narrower, a plane of one window.
  const Shape sizes[][2] = {{{25, 25}, {7, 7}}, {{9, 40}, {4, 3}}, {{13, 5}, {13, 2}}, {{6, 35}, {1, 1}}};
  for (const auto& [in, out] : sizes)
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16})
        for (int variant = 0; variant < 3; ++variant) {
          const Shape &in_size = in, &out_size = out;  // clang 14 cannot capture a structured binding in INFO
          INFO("input ", in_size, " -> ", out_size, " ", testing::layout_name(layout), " ", dtype, " variant ",
               variant);
          // Small integers after a ReLU: ties everywhere, some -0.0; then NaNs (variant 1) or -inf rows (variant 2).
          Tensor v = (randn({2, 3, in[0], in[1]}, DType::Float64) * 1.5).to(DType::Int64).to(DType::Float64);
          double* p = v.data<double>();
          for (int64_t e = 0; e < v.numel(); ++e) {
            p[e] = p[e] < 0 ? (p[e] == -1 ? -0.0 : 0.0) : p[e];
            if (variant == 1 && e % 7 == 3) p[e] = e % 2 == 0 ? nan : -nan;
            if (variant == 2 && (e / in[1]) % 3 != 1) p[e] = -inf;
          }
          Tensor x = testing::random_nchw({2, 3, in[0], in[1]}, layout, dtype);
          x.copy_(v);
          check_same_max(adaptive_max_pool2d(x, out), reference_adaptive_max_pool(x, out[0], out[1]));
        }
}

TEST_CASE("pools: reject bad input with the values involved") {
  const Tensor x = randn({1, 2, 6, 6});
  CHECK_THROWS_WITH_AS(max_pool2d(x, {3, 3}, {}, {2, 2}),
                       "max_pool2d: padding [2, 2] should be at most half of kernel_size [3, 3]", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d(x, {3, 2}, {}, {1, 2}),
                       "avg_pool2d: padding [1, 2] should be at most half of kernel_size [3, 2]", Error);
  CHECK_THROWS_WITH_AS(max_pool2d(randn({1, 1, 2, 2}), {3, 3}),
                       "max_pool2d: input [1, 1, 2, 2] is too small for kernel_size [3, 3] (stride [3, 3], padding [0, 0], "
                       "dilation [1, 1]): output size would be [0, 0]",
                       Error);
  CHECK_THROWS_WITH_AS(max_pool2d(x, {3, 3}, {1, 1}, {0, 0}, {3, 3}),
                       doctest::Contains("max_pool2d: input [1, 2, 6, 6] is too small for kernel_size [3, 3]"), Error);
  CHECK_THROWS_WITH_AS(avg_pool2d(randn({1, 1, 2, 5}), {3, 3}), doctest::Contains("output size would be [0, 1]"), Error);
  CHECK_THROWS_WITH_AS(max_pool2d(x, {2, 2}, {0, 1}), "max_pool2d: stride must be positive, got [0, 1]", Error);
  CHECK_THROWS_WITH_AS(max_pool2d(x, {2, 2}, {}, {0, 0}, {0, 1}), "max_pool2d: dilation must be positive, got [0, 1]", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d(x, {2, 2}, {}, {-1, 0}), "avg_pool2d: padding must be non-negative, got [-1, 0]", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d(x, {0, 2}), "avg_pool2d: kernel_size must be positive, got [0, 2]", Error);
  CHECK_THROWS_WITH_AS(max_pool2d(x, {2, 2, 2}), "max_pool2d: expected kernel_size to have 1 or 2 values, got [2, 2, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(max_pool2d(randn({6, 6}), {2, 2}),
                       "max_pool2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got [6, 6]", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d(ones({1, 1, 4, 4}, DType::Int64), {2, 2}),
                       "avg_pool2d: expected a floating point input, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(adaptive_avg_pool2d(x, {-1, 2}), "adaptive_avg_pool2d: output_size must be non-negative, got [-1, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(adaptive_avg_pool2d(randn({1, 2, 0, 4}), {2, 2}),
                       "adaptive_avg_pool2d: expected non-empty spatial dimensions, got input [1, 2, 0, 4]", Error);
  CHECK_THROWS_WITH_AS(adaptive_avg_pool2d(randn({1, 2, 3, 4, 5}), {2, 2}),
                       "adaptive_avg_pool2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got [1, 2, 3, 4, 5]", Error);
}

}  // namespace
}  // namespace tl
