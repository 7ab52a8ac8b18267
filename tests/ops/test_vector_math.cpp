// tests/ops/test_vector_math.cpp — ops/vector_math.h's float exp, log, log1p, erf, sin and cos against <cmath> in
// double over their ranges, step by step or bit pattern by bit pattern, and at the special values (NaN, infinities,
// zeros, denormals); fmod against std::fmod.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <random>

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

// The largest |got - want| in units of the last place of float at want, over x = from, from * (1 + step) + tiny,
// ... below to, and at the float neighbours of the multiples of pi / 4 (where sin or cos is nearly zero).
template <typename Got, typename Want>
double worst_ulp_error(float from, float to, float step, const Got& got, const Want& want) {
  double worst = 0;
  const auto check = [&](float x) {
    const double w = want(static_cast<double>(x));
    const double ulp = std::nextafter(static_cast<float>(std::fabs(w)), INFINITY) - static_cast<float>(std::fabs(w));
    worst = std::max(worst, std::fabs(static_cast<double>(got(x)) - w) / ulp);
  };
  for (float x = from; x < to; x += step * std::fabs(x) + 1e-6f) check(x);
  for (double k = 1; k * M_PI_4 < to; k = std::ceil(k * 1.01)) {
    const auto near = static_cast<float>(k * M_PI_4);
    for (float x : {near, std::nextafter(near, 0.0f), std::nextafter(near, INFINITY)}) {
      check(x);
      check(-x);
    }
  }
  return worst;
}

TEST_CASE("vector_math: sin and cos are within 1 ulp over |x| <= 2^20, <cmath>'s beyond") {
  const auto sin = [](float x) { return detail::vector_sin_cos<false>(x); };
  const auto cos = [](float x) { return detail::vector_sin_cos<true>(x); };
  const float top = detail::kTrigMax;
  CHECK(worst_ulp_error(-top, top, 3e-5f, sin, [](double x) { return std::sin(x); }) < 1.0);
  CHECK(worst_ulp_error(-top, top, 3e-5f, cos, [](double x) { return std::cos(x); }) < 1.0);
  CHECK(detail::trig_in_range(top));
  CHECK(!detail::trig_in_range(std::nextafter(top, INFINITY)));
  CHECK(!detail::trig_in_range(std::numeric_limits<float>::quiet_NaN()));
  CHECK(!detail::trig_in_range(-std::numeric_limits<float>::infinity()));
  CHECK(std::signbit(sin(-0.0f)));
  CHECK(sin(-0.0f) == 0.0f);
  CHECK(cos(-0.0f) == 1.0f);
  CHECK(sin(1e-40f) == 1e-40f);  // a denormal is its own sine
}

// The float results of f that differ from <cmath>'s double result rounded to float, and by how many ulp at most,
// over every 97th float bit pattern (positive and negative, special values included: NaN must stay NaN).
struct RoundingCount {
  int64_t differ = 0;
  int64_t worst_ulp = 0;
  int64_t nan_mismatch = 0;
};
template <typename Got, typename Want>
RoundingCount against_rounded(const Got& got, const Want& want) {
  RoundingCount count;
  for (uint64_t b = 0; b < (uint64_t{1} << 32); b += 97) {
    const float x = std::bit_cast<float>(static_cast<uint32_t>(b));
    const float g = got(x), w = static_cast<float>(want(static_cast<double>(x)));
    if (std::isnan(g) || std::isnan(w)) {
      count.nan_mismatch += std::isnan(g) != std::isnan(w);
      continue;
    }
    if (std::bit_cast<uint32_t>(g) == std::bit_cast<uint32_t>(w)) continue;
    ++count.differ;
    const auto ordered = [](float v) {  // float bits as a monotone integer (-0.0 and 0.0 one apart)
      const auto i = static_cast<int64_t>(std::bit_cast<int32_t>(v));
      return i < 0 ? -(i & 0x7fffffff) - 1 : i;
    };
    count.worst_ulp = std::max(count.worst_ulp, std::abs(ordered(g) - ordered(w)));
  }
  return count;
}

TEST_CASE("vector_math: log and log1p round to float's nearest but for rare 1-ulp ties, special values as <cmath>") {
  const RoundingCount log = against_rounded([](float x) { return detail::vector_log(x); },
                                           [](double x) { return std::log(x); });
  const RoundingCount log1p = against_rounded([](float x) { return detail::vector_log1p(x); },
                                             [](double x) { return std::log1p(x); });
  for (const RoundingCount& c : {log, log1p}) {
    CHECK(c.nan_mismatch == 0);
    CHECK(c.worst_ulp <= 1);
    CHECK(c.differ < 100);  // of 44 million: the double result sits within 2^-34 of a half-way point
  }
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(detail::vector_log(0.0f) == -inf);
  CHECK(detail::vector_log(-0.0f) == -inf);
  CHECK(std::isnan(detail::vector_log(-1e-40f)));
  CHECK(detail::vector_log(inf) == inf);
  CHECK(detail::vector_log(1.0f) == 0.0f);
  CHECK(detail::vector_log(std::numeric_limits<float>::denorm_min()) == static_cast<float>(std::log(0x1p-149)));
  CHECK(detail::vector_log1p(-1.0f) == -inf);
  CHECK(std::isnan(detail::vector_log1p(-1.5f)));
  CHECK(detail::vector_log1p(inf) == inf);
  CHECK(std::signbit(detail::vector_log1p(-0.0f)));
  CHECK(detail::vector_log1p(1e-40f) == 1e-40f);
  const float top = std::numeric_limits<float>::max();
  CHECK(detail::vector_log1p(top) == static_cast<float>(std::log1p(static_cast<double>(top))));
  CHECK(detail::vector_log(2.0) == std::log(2.0));  // double goes to <cmath>
}

TEST_CASE("vector_math: erf rounds to float's nearest but for rare 1-ulp ties, special values as <cmath>") {
  const RoundingCount erf = against_rounded([](float x) { return detail::vector_erf(x); },
                                           [](double x) { return std::erf(x); });
  CHECK(erf.nan_mismatch == 0);
  CHECK(erf.worst_ulp <= 1);
  CHECK(erf.differ < 10000);  // of 44 million: the fits' 1e-10 moves a result near a half-way point
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(detail::vector_erf(inf) == 1.0f);
  CHECK(detail::vector_erf(-inf) == -1.0f);
  CHECK(std::signbit(detail::vector_erf(-0.0f)));
  CHECK(detail::vector_erf(3.95f) == 1.0f);
  CHECK(detail::vector_erf(0.75f) == static_cast<float>(std::erf(0.75)));
  CHECK(detail::vector_erf(-2.0f) == static_cast<float>(std::erf(-2.0)));
  CHECK(detail::vector_erf(0.5) == std::erf(0.5));  // double goes to <cmath>
}

// fmod's exactness argument (a / b in double cannot round across an integer below 2^23) checked where it is
// tightest: quotients just below integers up to 2^23, and random pairs over many binades.
TEST_CASE("vector_math: fmod is std::fmod's bits wherever div_floor_in_range holds") {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-30, 30);
  int checked = 0, differ = 0;
  const auto check = [&](float a, float b) {
    if (!detail::div_floor_in_range(a, b)) return;
    ++checked;
    const float got = detail::vector_fmod(a, b), want = std::fmod(a, b);
    if (std::bit_cast<uint32_t>(got) != std::bit_cast<uint32_t>(want)) ++differ;
  };
  for (int i = 0; i < 200000; ++i) {
    const float a = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
    const float b = std::ldexp(mantissa(rng), exponent(rng)) * (i % 3 ? 1.0f : -1.0f);
    check(a, b);
    // a just below k b: the quotient's neighbours of an integer
    const float k = std::floor(std::ldexp(mantissa(rng), i % 23));
    const float near = k * b;
    check(std::nextafter(near, 0.0f), b);
    check(std::nextafter(near, INFINITY), b);
  }
  CHECK(checked > 300000);
  CHECK(differ == 0);
}

}  // namespace
}  // namespace tl
