// tests/ops/test_vector_math.cpp — ops/vector_math.h's float exp against <cmath> in double over float's range,
// step by step, and at the special values (NaN, infinities, zeros, denormals).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ops/vector_math.h"

namespace tl {
namespace {

// The largest |got - want| / |want| over the normal results of x = from, from * (1 + step) + tiny, ... below to.
template <typename Got, typename Want>
double worst_relative_error(float from, float to, float step, const Got& got, const Want& want) {
  double worst = 0;
  for (float x = from; x < to; x += step * std::fabs(x) + 1e-6f) {
    const double w = want(static_cast<double>(x));
    if (std::fabs(w) < std::numeric_limits<float>::min() || std::fabs(w) > std::numeric_limits<float>::max()) continue;
    worst = std::max(worst, std::fabs(static_cast<double>(got(x)) - w) / std::fabs(w));
  }
  return worst;
}

TEST_CASE("vector_math: exp is within 2 ulp of e^x over float's range") {
  CHECK(worst_relative_error(-104.0f, 89.0f, 1e-5f, [](float x) { return detail::vector_exp(x); },
                             [](double x) { return std::exp(x); }) < 1.2e-7);
  CHECK(std::isnan(detail::vector_exp(std::numeric_limits<float>::quiet_NaN())));
  CHECK(detail::vector_exp(std::numeric_limits<float>::infinity()) == std::numeric_limits<float>::infinity());
  CHECK(detail::vector_exp(88.73f) == std::numeric_limits<float>::infinity());
  CHECK(detail::vector_exp(-std::numeric_limits<float>::infinity()) == 0.0f);
  CHECK(detail::vector_exp(-0.0f) == 1.0f);
  CHECK(detail::vector_exp(1e-40f) == 1.0f);
  // A subnormal result is rounded once: e^-100 to float's nearest.
  CHECK(detail::vector_exp(-100.0f) == static_cast<float>(std::exp(-100.0)));
  CHECK(detail::vector_exp(2.0) == std::exp(2.0));  // double goes to <cmath>
}

}  // namespace
}  // namespace tl
