// tests/ops/test_dropout.cpp — dropout: identity outside training, zero-or-scaled elements in
// training at the requested rate, reproducible under tl::manual_seed, strided input, p = 0 / 1, errors.
#include <doctest/doctest.h>

#include <cmath>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::to_doubles;

/// Checks every output is 0 or input / (1 - p); returns the fraction of zeros.
double check_dropped(const Tensor& in, const Tensor& out, double p) {
  REQUIRE(out.shape() == in.shape());
  const std::vector<double> x = to_doubles(in), y = to_doubles(out);
  int64_t zeros = 0, bad = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (y[i] == 0.0) {
      ++zeros;
      continue;
    }
    const double expected = x[i] / (1.0 - p);
    if (std::fabs(y[i] - expected) > 1e-5 * (1.0 + std::fabs(expected))) ++bad;
  }
  CHECK_MESSAGE(bad == 0, bad, " elements are neither zero nor input / (1 - p)");
  return static_cast<double>(zeros) / static_cast<double>(x.size());
}

TEST_CASE("dropout: outside training, or with p = 0, returns the input itself") {
  const Tensor x = randn({4, 5});
  CHECK(dropout(x, 0.5, false).is_same(x));
  CHECK(dropout(x, 0.0, true).is_same(x));
  CHECK(dropout(x, 1.0, false).is_same(x));
}

TEST_CASE("dropout: training zeroes elements at rate p and scales the rest by 1 / (1 - p)") {
  manual_seed(30);
  for (double p : {0.1, 0.3, 0.5, 0.9})
    for (DType dtype : {DType::Float32, DType::Float64}) {
      INFO("p ", p, ", ", dtype);
      const Tensor x = randn({100, 101}, dtype);
      const Tensor out = dropout(x, p, true);
      CHECK(out.dtype() == dtype);
      // 10100 Bernoulli(p) draws: the rate is within 0.03 of p with overwhelming probability.
      const double rate = check_dropped(x, out, p);
      CHECK(std::fabs(rate - p) < 0.03);
    }
}

TEST_CASE("dropout: strided input keeps its logical order; bfloat16") {
  manual_seed(31);
  const Tensor x = randn({40, 30}).t().slice(1, 1, 40, 3);
  const double rate = check_dropped(x, dropout(x, 0.25, true), 0.25);
  CHECK(rate > 0.1);
  CHECK(rate < 0.4);
  const Tensor h = randn({64, 64}, DType::BFloat16);
  const std::vector<double> in = to_doubles(h), out = to_doubles(dropout(h, 0.5, true));
  for (size_t i = 0; i < in.size(); ++i)
    if (out[i] != 0.0) REQUIRE(out[i] == doctest::Approx(2.0 * in[i]).epsilon(1e-2));
}

TEST_CASE("dropout: reproducible under manual_seed, different without it") {
  const Tensor x = ones({50, 50});
  manual_seed(7);
  const Tensor a = dropout(x, 0.5, true), b = dropout(x, 0.5, true);
  manual_seed(7);
  const Tensor c = dropout(x, 0.5, true);
  CHECK(equal(a, c));
  CHECK_FALSE(equal(a, b));
}

TEST_CASE("dropout: p = 1 gives zeros; empty input") {
  const Tensor x = randn({3, 7});
  CHECK(equal(dropout(x, 1.0, true), zeros({3, 7})));
  CHECK(dropout(randn({0, 4}), 0.5, true).shape() == Shape{0, 4});
}

TEST_CASE("dropout: rejects a probability outside [0, 1] and integer input") {
  const Tensor x = randn({2, 2});
  CHECK_THROWS_WITH_AS(dropout(x, 1.5, true), "dropout: probability has to be between 0 and 1, got 1.5", Error);
  CHECK_THROWS_WITH_AS(dropout(x, -0.1, false), "dropout: probability has to be between 0 and 1, got -0.1", Error);
  CHECK_THROWS_WITH_AS(dropout(ones({2, 2}, DType::Int64), 0.5, true), "dropout: expected a floating point input, got torch.int64",
                       Error);
}

}  // namespace
}  // namespace tl
