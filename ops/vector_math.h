// ops/vector_math.h — e^x for float in arithmetic, bit operations and selects only, so that an elementwise loop
// calling it can vectorise (std::exp is one libm call per element); internal to ops/. Within 2 float ulp, NaN stays
// NaN, other types go to <cmath>. GCC vectorises it only where it may evaluate both arms of a select, which
// ops/meson.build allows (-fno-trapping-math), and a lambda that reads captured doubles stays scalar.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
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

}  // namespace tl::detail
