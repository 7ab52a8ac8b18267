// tests/ops/test_softmax.cpp — _softmax, _log_softmax, their backward kernels and the composites
// softmax / log_softmax: PyTorch 1.13's values (loss_cases.json), central finite differences of the
// float64 forward for the backward kernels, large inputs, and each misuse's error and unchanged input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/ops/loss_cases.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::element_at;

/// The gradient of sum(g * f(x)) with respect to x by central differences, float64.
Tensor numeric_gradient(Tensor (*f)(const Tensor&, int64_t, bool), const Tensor& x, const Tensor& g, int64_t dim) {
  return testing::numeric_gradient([&](const Tensor& at) { return sum(f(at, dim, false) * g).item<double>(); }, x);
}

TEST_CASE("softmax: every softmax case matches PyTorch 1.13") {
  CHECK(testing::check_loss_cases(/*softmax=*/true) == 102);
}

TEST_CASE("softmax: the backward kernels are the derivatives of the float64 forward") {
  manual_seed(3);
  const Tensor x = randn({3, 4, 5}, DType::Float64), g = randn({3, 4, 5}, DType::Float64);
  for (int64_t dim : {0, 1, -1}) {
    CAPTURE(dim);
    const Tensor y = _softmax(x, dim, false), ly = _log_softmax(x, dim, false);
    CHECK_TENSOR_CLOSE(_softmax_backward_data(g, y, dim, DType::Float64), numeric_gradient(_softmax, x, g, dim), 1e-6,
                       1e-8);
    CHECK_TENSOR_CLOSE(_log_softmax_backward_data(g, ly, dim, DType::Float64),
                       numeric_gradient(_log_softmax, x, g, dim), 1e-6, 1e-8);
  }
}

TEST_CASE("softmax: rows split over threads equal a naive float64 reference, along an inner dim too") {
  manual_seed(4);
  const Tensor x = randn({64, 33, 40}, DType::Float32);  // 84480 elements: more than one chunk of rows
  for (int64_t dim : {1, 2}) {
    CAPTURE(dim);
    const int64_t n = x.size(dim), inner = dim == 1 ? 40 : 1, outer = dim == 1 ? 64 : 64 * 33;
    const Tensor x64 = x.to(DType::Float64);
    const double* in = x64.data<double>();
    Tensor expected = empty(x.shape(), DType::Float64);
    double* out = expected.data<double>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        double max = in[base], total = 0;
        for (int64_t j = 0; j < n; ++j) max = std::max(max, in[base + j * inner]);
        for (int64_t j = 0; j < n; ++j) total += std::exp(in[base + j * inner] - max);
        for (int64_t j = 0; j < n; ++j) out[base + j * inner] = in[base + j * inner] - max - std::log(total);
      }
    CHECK_TENSOR_CLOSE(_log_softmax(x, dim, false), expected.to(DType::Float32), 1e-5, 1e-6);
    CHECK_TENSOR_CLOSE(_softmax(x, dim, false), exp(expected).to(DType::Float32), 1e-5, 1e-7);
  }
}

TEST_CASE("softmax: bfloat16 rows are the float32 result of their values, rounded once") {
  const Tensor x = (randn({5, 37}) * 4).to(DType::BFloat16);
  const Tensor x32 = x.to(DType::Float32);
  CHECK_TENSOR_CLOSE(log_softmax(x, 1).to(DType::Float32), log_softmax(x32, 1).to(DType::BFloat16).to(DType::Float32),
                     0, 0);
  CHECK_TENSOR_CLOSE(softmax(x, 0).to(DType::Float32), softmax(x32, 0).to(DType::BFloat16).to(DType::Float32), 0, 0);
  const Tensor g = randn({5, 37}).to(DType::BFloat16), y = log_softmax(x, 1);
  CHECK_TENSOR_CLOSE(_log_softmax_backward_data(g, y, 1, DType::BFloat16).to(DType::Float32),
                     _log_softmax_backward_data(g.to(DType::Float32), y.to(DType::Float32), 1, DType::Float32)
                         .to(DType::BFloat16)
                         .to(DType::Float32),
                     0, 0);
}

TEST_CASE("softmax: large logits stay finite (the row max is subtracted)") {
  const Tensor x = from_vector<float>({1000.f, 999.f, -1000.f, 88.f, 89.f, 90.f}, {2, 3});
  const Tensor s = softmax(x, 1), ls = log_softmax(x, 1);
  for (int64_t i = 0; i < 6; ++i) {
    CHECK(std::isfinite(element_at(s, i)));
    CHECK(std::isfinite(element_at(ls, i)));
  }
  CHECK(element_at(s, 2) == 0.0);  // exp(-2000) underflows; its log-probability does not
  CHECK(element_at(ls, 2) == doctest::Approx(-2000 - std::log(1 + std::exp(-1.0))));
  CHECK(element_at(s, 0) == doctest::Approx(1 / (1 + std::exp(-1.0))));
  CHECK(element_at(ls, 5) == doctest::Approx(-std::log(1 + std::exp(-1.0) + std::exp(-2.0))));
}

TEST_CASE("softmax: a NaN, an inf or only -inf in a contiguous row makes that row NaN, as in PyTorch; others stay (log_softmax too)") {
  // Rows of 29: the vectorised float path's 16-wide step, its 8-wide step and its tail.
  constexpr int64_t n = 29;
  for (int64_t at : {0, 9, 20, 28}) {
    CAPTURE(at);
    std::vector<float> v(5 * n);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7) - 3.0f;
    v[static_cast<size_t>(at)] = NAN;
    v[static_cast<size_t>(n + at)] = INFINITY;
    std::fill(v.begin() + 2 * n, v.begin() + 3 * n, -INFINITY);
    v[static_cast<size_t>(3 * n + at)] = -INFINITY;  // one -inf: probability 0
    const Tensor s = softmax(from_vector<float>(v, {5, n}), 1), ls = log_softmax(from_vector<float>(v, {5, n}), 1);
    for (int64_t i = 0; i < 3 * n; ++i) {
      CHECK(std::isnan(element_at(s, i)));
      CHECK(std::isnan(element_at(ls, i)));
    }
    CHECK(element_at(s, 3 * n + at) == 0.0);
    CHECK(element_at(ls, 3 * n + at) == -INFINITY);
    for (int64_t row : {3, 4}) {
      double total = 0;
      for (int64_t j = 0; j < n; ++j) total += element_at(s, row * n + j);
      CHECK(total == doctest::Approx(1.0).epsilon(1e-6));
    }
  }
  // Rows of no element: nothing to compute, an empty result of the input's shape.
  const Tensor none = softmax(empty({3, 0}), 1);
  CHECK(none.shape() == Shape{3, 0});
}

TEST_CASE("softmax: misuse throws tl::Error naming the values and leaves the input as it was") {
  const Tensor x = from_vector<float>({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  const Tensor before = x.clone();
  CHECK_THROWS_WITH_AS(_softmax(x, 2, false), "_softmax: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       Error);
  CHECK_THROWS_WITH_AS(log_softmax(x, -3),
                       "_log_softmax: dimension out of range (expected to be in range of [-2, 1], but got -3)", Error);
  CHECK_THROWS_WITH_AS(_softmax(x, 1, true), "_softmax: half to float conversion is not supported on CPU", Error);
  CHECK_THROWS_WITH_AS(_log_softmax(arange(3), 0, false), "_log_softmax: expected input of dtype float32, float64 or bfloat16, got torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(softmax(arange(3), 0), "_softmax: expected input of dtype float32, float64 or bfloat16, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(_softmax_backward_data(x, x.reshape({3, 2}), 1, DType::Float32),
                       "_softmax_backward_data: grad_output [2, 3] torch.float32 and output [3, 2] torch.float32 must have the "
                       "same shape and dtype",
                       Error);
  CHECK_THROWS_WITH_AS(_log_softmax_backward_data(x, x, 1, DType::Float64),
                       "_log_softmax_backward_data: input_dtype torch.float64 differs from grad_output's torch.float32 (half to "
                       "float conversion is not supported on CPU)",
                       Error);
  CHECK(equal(x, before));
}

TEST_CASE("softmax: a 0-dim tensor is its own single row; dtype converts before the primitive") {
  const Tensor s = _softmax(scalar_tensor(3.5, DType::Float32), 0, false);
  CHECK(s.dim() == 0);
  CHECK(s.item<float>() == 1.0f);
  CHECK(log_softmax(scalar_tensor(-2.0, DType::Float64), -1).item<double>() == 0.0);
  const Tensor x = from_vector<float>({0.1f, 0.7f}, {2});
  const Tensor s64 = softmax(x, 0, DType::Float64);
  CHECK(s64.dtype() == DType::Float64);
  CHECK(equal(s64, _softmax(x.to(DType::Float64), 0, false)));
}

}  // namespace
}  // namespace tl
