// ops/vector_math.h — e^x, ln x, ln(1 + x), erf, sin, cos, fmod, remainder, floor division, maximum / minimum,
// rounding to integers and bfloat16's conversions for float in arithmetic, bit operations and selects only, so that
// an elementwise loop calling them vectorises (std::exp is one libm call per element); internal to ops/, compiled per
// ISA by ops/vector_kernels_body.h. exp within 2 float ulp, ln, ln(1 + x) and erf within about half an ulp, sin / cos
// below 1 on |x| <= kTrigMax (beyond it callers take <cmath>), the rounding exact; NaN stays NaN, other types go to
// <cmath>. Every function is always inlined and has no FMA of its own, so each ISA's build gives the same bits.
// GCC vectorises them only where it may evaluate both arms of a select, which ops/meson.build allows
// (-fno-trapping-math), and a lambda that reads captured doubles stays scalar.
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
    // The clamps as maxps / minps take them (NaN becomes -104, keeping the integer conversion below defined).
    const float low = -104.0f < x ? x : -104.0f, clamped = low < 89.0f ? low : 89.0f;
    const float n = (clamped * kLog2e + kRound) - kRound;
    const float r = (clamped - n * kLn2Hi) - n * kLn2Lo;
    const float p = (((((1.9875691500e-4f * r + 1.3981999507e-3f) * r + 8.3334519073e-3f) * r + 4.1665795894e-2f) * r +
                      1.6666665459e-1f) * r + 5.0000001201e-1f) * r * r + r + 1.0f;
    const int32_t k = static_cast<int32_t>(n), half = k >> 1;  // floor(k / 2): one shift
    const float y = p * std::bit_cast<float>((half + 127) << 23) * std::bit_cast<float>((k - half + 127) << 23);
    return x != x ? x : y;
  }
}

/// ln(1 + f) = 2 atanh(f / (2 + f)) for f in [sqrt(1/2) - 1, sqrt(2) - 1] (|s| <= 0.1716), in double to about
/// 2^-34 relative, for a float result that rounds it once: atanh's odd series to s^11 (the next term is below 2^-35
/// of the result).
[[gnu::always_inline]] inline double log1p_series(double f) {
  const double s = f / (2.0 + f), z = s * s;
  return s * (2.0 + z * (2.0 / 3 + z * (2.0 / 5 + z * (2.0 / 7 + z * (2.0 / 9 + z * (2.0 / 11))))));
}

/// A positive normal float u as 2^k m with m in [sqrt(1/2), sqrt(2)), from u's bits: the exponent moved where the
/// mantissa passes sqrt(1/2). Any other u gives unspecified (defined) values.
struct LogSplit {
  int32_t k;
  float m;
};
[[gnu::always_inline]] inline LogSplit log_split(float u) {
  constexpr uint32_t kSqrtHalf = 0x3f3504f3;  // the float just below sqrt(1/2)
  const uint32_t bits = std::bit_cast<uint32_t>(u);
  const int32_t k = static_cast<int32_t>(bits - kSqrtHalf) >> 23;  // in [-256, 255] for any bits: no overflow below
  return {k, std::bit_cast<float>(bits - (static_cast<uint32_t>(k) << 23))};
}

inline constexpr double kLn2 = 0.6931471805599453;

/// ln x, within about half a float ulp (k ln 2 + log1p_series(m - 1), rounded once); a subnormal x is scaled by 2^23
/// first. As <cmath>: ln 0 = -inf (either zero's sign), ln x < 0 = NaN, ln inf = inf, NaN stays NaN. Every step is
/// an exact bit operation or one IEEE double operation, so each ISA's build gives the same bits.
template <typename A>
[[gnu::always_inline]] inline A vector_log(A x) {
  if constexpr (!std::is_same_v<A, float>) {
    return std::log(x);
  } else {
    constexpr float kNormalMin = std::numeric_limits<float>::min(), kScale = 8388608.0f;  // 2^23
    const bool subnormal = x < kNormalMin;
    const LogSplit split = log_split(subnormal ? x * kScale : x);
    const double k = static_cast<double>(split.k - (subnormal ? 23 : 0));
    const auto finite = static_cast<float>(k * kLn2 + log1p_series(static_cast<double>(split.m) - 1.0));
    const float special = x == 0.0f ? -std::numeric_limits<float>::infinity()
                                    : x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : x;  // inf, NaN
    return ((x > 0.0f) & (x < std::numeric_limits<float>::infinity())) ? finite : special;
  }
}

/// ln(1 + x), within about half a float ulp for every x: u = 1 + x in float split as 2^k m, and 1 + x = 2^k (m + d
/// 2^-k) with d = x - (u - 1) the part the float sum lost (exact in double), so f = m - 1 + d 2^-k in double (x
/// itself where u's k is 0) and the result k ln 2 + log1p_series(f), rounded once. As <cmath>: log1p(-1) = -inf,
/// below -1 NaN, inf stays inf, NaN stays NaN, a zero keeps its sign.
template <typename A>
[[gnu::always_inline]] inline A vector_log1p(A x) {
  if constexpr (!std::is_same_v<A, float>) {
    return std::log1p(x);
  } else {
    const float u = 1.0f + x;
    const LogSplit split = log_split(u);
    const double lost = static_cast<double>(x) - (static_cast<double>(u) - 1.0);
    const double scale = std::bit_cast<double>(static_cast<uint64_t>(1023 - split.k) << 52);  // 2^-k
    const double f = (static_cast<double>(split.m) - 1.0) + lost * scale;
    const auto finite = static_cast<float>(static_cast<double>(split.k) * kLn2 + log1p_series(f));
    const float special = x == -1.0f ? -std::numeric_limits<float>::infinity()
                                     : x < -1.0f ? std::numeric_limits<float>::quiet_NaN() : x;  // inf, NaN, zeros
    return ((x > -1.0f) & (x != 0.0f) & (x < std::numeric_limits<float>::infinity())) ? finite : special;
  }
}

/// erf x within about half a float ulp, in double, rounded once: |x| < 0.75 as |x| P(x^2) (P of degree 6, relative
/// error below 1e-10), 0.75 <= |x| < 3.95 as a polynomial of degree 18 in t = (|x| - 2.35) / 1.6 (absolute error
/// below 2e-10 where erf exceeds 0.7), beyond it 1 (float's erf is 1 from 3.92); then x's sign. Both polynomials
/// were fitted to erf in double (Chebyshev least squares, expanded to powers: no coefficient above 1.13). NaN stays
/// NaN; erf(-0.0) is -0.0.
template <typename A>
[[gnu::always_inline]] inline A vector_erf(A x) {
  if constexpr (!std::is_same_v<A, float>) {
    return std::erf(x);
  } else {
    const double a = std::fabs(static_cast<double>(x)), z = a * a;
    const double near_zero =
        a * (1.128379167077287 +
             z * (-0.3761263856156565 +
                  z * (0.11283781282221263 +
                       z * (-0.02686499076194452 +
                            z * (0.0052176024387319605 + z * (-0.000837072802262645 + z * 9.557730466731871e-05))))));
    const double t = ((a < 3.95 ? a : 3.95) - 2.35) * 0.625;
    // Horner's rule written out: a loop over the coefficients kept the caller's loop from vectorising.
    const double far =
        0.9991107329395624 +
        t * (0.007214124516897617 +
        t * (-0.02712511073917935 +
        t * (0.061837701817137235 +
        t * (-0.09310805624765188 +
        t * (0.09254065692270567 +
        t * (-0.05242307906100223 +
        t * (-6.850826637166095e-05 +
        t * (0.028824501410092386 +
        t * (-0.02413578412802668 +
        t * (0.005027363657540598 +
        t * (0.006889812252742038 +
        t * (-0.006265892528562492 +
        t * (0.0008067562225225514 +
        t * (0.001689641078734253 +
        t * (-0.0008021858634416608 +
        t * (-0.00014180500675043122 +
        t * (0.00013959820244707392 +
        t * -1.049030936390602e-05)))))))))))))))));
    const double e = a < 0.75 ? near_zero : a < 3.95 ? far : 1.0;
    return x != x ? x : std::copysign(static_cast<float>(e), x);
  }
}

// x rounded to an integer: below 2^23 (float; 2^52 double) adding and subtracting that power rounds |x| to the
// nearest integer n, half to even (roundps needs SSE4.1, which the default build does not assume), and the
// correction toward kMode's direction follows; the result takes x's sign (floor(-0.0) and ceil(-0.3) are -0.0).
// Larger |x|, infinities and NaN are integral or NaN already: shifting by 0 keeps them. No branch and no
// short-circuit (`&`, not `&&`): GCC would not vectorise a comparison it has to move under a condition (it could
// trap). No lambda: its call operator could be emitted out of line, for the linker to share between ISA builds.
enum class RoundMode { Floor, Ceil, Nearest, Trunc };

template <RoundMode kMode, typename A>
[[gnu::always_inline]] inline A round_integral(A x) {
  constexpr A kIntegral = A(1) / std::numeric_limits<A>::epsilon();
  const A a = std::fabs(x);
  const A shift = a < kIntegral ? kIntegral : A(0);
  const A n = (a + shift) - shift;
  const bool negative = x < A(0);
  A r = n;
  if constexpr (kMode == RoundMode::Floor) r = n + A(negative & (n < a)) - A(!negative & (n > a));
  if constexpr (kMode == RoundMode::Ceil) r = n + A(!negative & (n < a)) - A(negative & (n > a));
  if constexpr (kMode == RoundMode::Trunc) r = n - A(n > a);
  return std::copysign(r, x);
}

template <typename A>
[[gnu::always_inline]] inline A vector_floor(A x) { return round_integral<RoundMode::Floor>(x); }
template <typename A>
[[gnu::always_inline]] inline A vector_ceil(A x) { return round_integral<RoundMode::Ceil>(x); }
/// Half to even (round(2.5) is 2), as std::nearbyint in the default rounding mode.
template <typename A>
[[gnu::always_inline]] inline A vector_round(A x) { return round_integral<RoundMode::Nearest>(x); }
template <typename A>
[[gnu::always_inline]] inline A vector_trunc(A x) { return round_integral<RoundMode::Trunc>(x); }

/// The largest |x| whose sin and cos vector_sin_cos computes (its reduction by pi/4 is exact up to there).
inline constexpr float kTrigMax = 1048576.0f;  // 2^20

/// Whether vector_sin_cos computes x's sin and cos (false for NaN and infinities, whose results are NaN).
[[gnu::always_inline]] inline bool trig_in_range(float x) { return std::fabs(x) <= kTrigMax; }

/// sin x (kCos: cos x) for trig_in_range(x), below 1 ulp; anything else gives an unspecified finite value.
/// |x| = j pi/4 + r with j even and |r| <= pi/4, r in double from pi/4 in three parts whose products with
/// j < 2^21 are exact, so r is right however close x is to a multiple of pi; then Cephes' sinf or cosf polynomial
/// of r, as the octant j mod 8 chooses (its coefficients selected, so that one polynomial is evaluated), its leading
/// terms (r; 1 - r^2 / 2) in double and the rest in float, so that the result is rounded once; the octant also
/// gives the sign (sin(-0.0) is -0.0).
template <bool kCos>
[[gnu::always_inline]] inline float vector_sin_cos(float v) {
  constexpr double kFourOverPi = 1.2732395447351628, kPio4Hi = 0.7853981629014015,  // Hi: 30 bits
      kPio4Mid = 4.960467895817611e-10, kPio4Lo = 2.5850914908970526e-19;             // Mid: the next 30
  const uint32_t sign = std::bit_cast<uint32_t>(v) & 0x80000000u;
  const float a = std::fabs(v);
  const double x = a <= kTrigMax ? a : 0.0f;  // keeps the conversion below defined
  const int32_t j = (static_cast<int32_t>(x * kFourOverPi) + 1) & ~1;
  const double y = j;
  const double rd = ((x - y * kPio4Hi) - y * kPio4Mid) - y * kPio4Lo;
  const auto r = static_cast<float>(rd);
  const float z = r * r;
  const auto octant = static_cast<uint32_t>(j);  // mod 8: 0, 2, 4 or 6
  const bool cos_poly = kCos ? (octant & 2u) == 0 : (octant & 2u) != 0;
  // sinf's rest ((s1 z + s2) z + s3) z r, cosf's ((c1 z + c2) z + c3) z z.
  const float k1 = cos_poly ? 2.443315711809948e-5f : -1.9515295891e-4f;
  const float k2 = cos_poly ? -1.388731625493765e-3f : 8.3321608736e-3f;
  const float k3 = cos_poly ? 4.166664568298827e-2f : -1.6666654611e-1f;
  const float rest = ((k1 * z + k2) * z + k3) * z * (cos_poly ? z : r);
  const double lead = cos_poly ? 1.0 - 0.5 * rd * rd : rd;
  const uint32_t negate = kCos ? ((octant + 2u) & 4u) << 29 : (((octant & 4u) << 29) ^ sign);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(static_cast<float>(lead + rest)) ^ negate);
}

/// maximum (kMax) or minimum of a and b as ATen's: NaN wins (a quiet NaN), a tie returns a (maximum(-0.0, 0.0) is
/// -0.0). `|`, not `||`: a select with no short-circuit vectorises.
template <bool kMax, typename A>
[[gnu::always_inline]] inline A vector_extreme(A a, A b) {
  const A extreme = (kMax ? a < b : b < a) ? b : a;
  if constexpr (std::is_floating_point_v<A>) return (a != a) | (b != b) ? std::numeric_limits<A>::quiet_NaN() : extreme;
  else return extreme;
}

/// The float a bfloat16 holds, from its bits (BFloat16's conversion, as bits so that a loop of it vectorises).
[[gnu::always_inline]] inline float bf16_to_float(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

/// x rounded to bfloat16 and widened back, as BFloat16(x) rounds it: to nearest even, NaN to a quiet NaN.
[[gnu::always_inline]] inline float round_to_bf16(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  const uint32_t quiet = (u | 0x400000u) & 0xffff0000u;
  return std::bit_cast<float>((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
}

/// Whether vector_div_floor computes a / b rounded toward -inf: |a / b| < 2^23 and b finite (false for NaN).
[[gnu::always_inline]] inline bool div_floor_in_range(float a, float b) {
  return (std::fabs(static_cast<double>(a) / b) < 0x1p23) & (std::fabs(b) <= std::numeric_limits<float>::max());
}

/// fmod(a, b), exactly, for div_floor_in_range(a, b); anything else gives an unspecified value. a - q b with
/// q = trunc(a / b) in double: q is exact there (a / b in double cannot round across an integer below 2^23) and
/// q b has at most 48 bits, so the difference is exact, as fmod's result is; it takes a's sign (fmod(-4, 2) is -0.0).
[[gnu::always_inline]] inline float vector_fmod(float a, float b) {
  const double quot = static_cast<double>(a) / b;
  const double q = vector_trunc(quot);  // no conversion to int32: GCC's AVX2 and AVX-512 builds left that loop scalar
  return std::copysign(static_cast<float>(a - q * b), a);
}

/// Python's remainder from C's fmod(a, b) = mod: mod + b where mod is non-zero and its sign differs from b's (ATen's).
template <typename A>
[[gnu::always_inline]] inline A remainder_from_fmod(A mod, A b) {
  return (mod != A(0)) & ((b < A(0)) != (mod < A(0))) ? static_cast<A>(mod + b) : mod;
}

/// a / b rounded toward -inf for div_floor_in_range(a, b), as ATen's div_floor_floating (the quotient from
/// vector_fmod, so that it is exact where a / b would round up to the next integer; a zero quotient keeps a / b's
/// sign); anything else gives an unspecified value.
[[gnu::always_inline]] inline float vector_div_floor(float a, float b) {
  const float mod = vector_fmod(a, b);
  float div = (a - mod) / b;
  div -= static_cast<float>((mod != 0.0f) & ((b < 0.0f) != (mod < 0.0f)));
  const float floordiv = vector_floor(div);
  const float rounded = div - floordiv > 0.5f ? floordiv + 1.0f : floordiv;
  // Zero with a / b's sign, from the signs' bits (b is finite and non-zero here): no division under a select.
  const uint32_t sign = (std::bit_cast<uint32_t>(a) ^ std::bit_cast<uint32_t>(b)) & 0x80000000u;
  const float signed_zero = std::bit_cast<float>(sign);
  return div == 0.0f ? signed_zero : rounded;
}

}  // namespace tl::detail
