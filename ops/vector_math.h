// ops/vector_math.h — e^x, log1p and erf for float in arithmetic, bit operations and selects only, so that the
// elementwise loops calling them vectorise (std::exp and friends are one libm call per element); internal to ops/.
// Each is within a few float ulp of the exact result, NaN stays NaN, and other types go to <cmath>. The loops
// vectorise only where GCC may evaluate both arms of a select, which ops/meson.build allows (-fno-trapping-math).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace tl::detail {

// always_inline: a call the inliner declines to inline keeps its loop scalar.

/// e^x, within 2 ulp for float: a subnormal result is rounded once, above ~88.72 the result is inf, below
/// ~-103.9 zero.
template <typename A>
[[gnu::always_inline]] inline A vector_exp(A x) {
  if constexpr (!std::is_same_v<A, float>) {
    return std::exp(x);
  } else {
    // x = n ln2 + r, |r| <= ln2 / 2, with ln2 in two parts so that n ln2 is exact; e^r by Cephes' expf
    // polynomial; 2^n as two powers of two, so that n from -150 (a subnormal result) to 128 (inf) scales exactly.
    constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
    constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding and subtracting it rounds to an integer
    const bool nan = x != x;
    float clamped = x < -104.0f ? -104.0f : x;
    clamped = x > 89.0f ? 89.0f : clamped;
    clamped = nan ? 0.0f : clamped;  // keeps the integer conversion below defined
    const float n = (clamped * kLog2e + kRound) - kRound;
    const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
    const float p = (((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
                      1.6666665459e-1f) * r + 5.0000001201e-1f) * r * r + r + 1.0f;
    const int32_t k = static_cast<int32_t>(n), half = k / 2;
    const float y = p * std::bit_cast<float>((half + 127) << 23) * std::bit_cast<float>((k - half + 127) << 23);
    return nan ? x : y;
  }
}

/// log(1 + x) for x >= 0 (and inf, NaN), within 2 ulp for float: what softplus and mish take of e^x.
template <typename A>
[[gnu::always_inline]] inline A vector_log1p_nonnegative(A x) {
  if constexpr (!std::is_same_v<A, float>) {
    return std::log1p(x);
  } else {
    // u = 1 + x = m 2^e with m in [sqrt(1/2), sqrt(2)); log(m) by Cephes' logf polynomial in m - 1; then
    // log(u) (x / (u - 1)) corrects the rounding of 1 + x (Goldberg), and x itself where 1 + x rounds to 1.
    const float u = 1.0f + x;
    const int32_t bits = std::bit_cast<int32_t>(u < std::numeric_limits<float>::max() ? u : 1.0f);
    const int32_t shifted = bits - std::bit_cast<int32_t>(0.70710678f);  // exponent of u / sqrt(1/2)
    const int32_t e = shifted >> 23;
    const float m = std::bit_cast<float>(bits - (e << 23)) - 1.0f;
    const float z = m * m;
    const float p = ((((((((7.0376836292e-2f * m - 1.1514610310e-1f) * m + 1.1676998740e-1f) * m - 1.2420140846e-1f) * m +
                          1.4249322787e-1f) * m - 1.6668057665e-1f) * m + 2.0000714765e-1f) * m - 2.4999993993e-1f) * m +
                     3.3333331174e-1f);
    const float fe = static_cast<float>(e);
    const float log_u = ((m * z * p + fe * -2.12194440e-4f) - 0.5f * z + m) + fe * 0.693359375f;
    const float d = u - 1.0f;
    const float corrected = d == 0.0f ? x : log_u * (x / d);
    return u < std::numeric_limits<float>::max() ? corrected : u;  // inf and NaN stay
  }
}

/// erf(x), within 1e-6 relative for float (-0.0 and subnormal x exact, as std::erf).
template <typename A>
[[gnu::always_inline]] inline A vector_erf(A x) {
  if constexpr (!std::is_same_v<A, float>) {
    return std::erf(x);
  } else {
    const float a = std::fabs(x), a2 = a * a;
    // |x| < 0.5: erf's Maclaurin series 2/sqrt(pi) (x - x^3/3 + x^5/10 - ...), seven terms.
    const float series = a * (1.1283791671f + a2 * (-0.3761263890f + a2 * (0.1128379167f + a2 * (-0.0268661706f +
                         a2 * (0.0052239776f + a2 * (-0.0008548325f + a2 * 0.0001205529f))))));
    // Else Abramowitz and Stegun 7.1.26: 1 - t (p1 + t (p2 + ...)) e^(-x^2), t = 1 / (1 + p x), error < 1.5e-7.
    const float t = 1.0f / (1.0f + 0.3275911f * a);
    const float tail = 1.0f - t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f +
                       t * 1.061405429f)))) * vector_exp(-a2);
    return std::copysign(a < 0.5f ? series : tail, x);
  }
}

}  // namespace tl::detail
