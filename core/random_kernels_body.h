// core/random_kernels_body.h — the bulk random transforms, compiled once per ISA by
// core/random_kernels_<isa>.cpp, which defines TL_RANDOM_KERNELS as the name of its table. Everything
// here has internal linkage and calls only compiler builtins, so no inline body is shared between builds
// (the linker can never keep an AVX2 copy for a CPU without it).
#pragma once

#ifndef TL_RANDOM_KERNELS
#error "core/random_kernels_body.h is included by core/random_kernels_<isa>.cpp only, after defining TL_RANDOM_KERNELS"
#endif

#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "core/random_kernels.h"

namespace tl::detail {
namespace {

// The AVX2 kernel's logarithm (Cephes' logf as avx_mathfun.h vectorises it), one lane, for x > 0.
inline float lane_log(float x) {
  const float smallest_normal = std::bit_cast<float>(0x00800000u);
  x = x < smallest_normal ? smallest_normal : x;  // std::max's order
  uint32_t bits = std::bit_cast<uint32_t>(x);
  const int32_t exponent = static_cast<int32_t>(bits >> 23) - 0x7f;
  bits = (bits & ~0x7f800000u) | std::bit_cast<uint32_t>(0.5f);
  x = std::bit_cast<float>(bits);  // in [0.5, 1)
  float e = static_cast<float>(exponent) + 1.0f;
  const bool below = x < static_cast<float>(0.707106781186547524);
  const float tmp = below ? x : 0.0f;
  x = x - 1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  // Cephes' coefficients as the double constants avx_mathfun.h rounds to float (written out: an inner loop
  // here would stop the vectorisation of the caller's lanes).
  float y = static_cast<float>(7.0376836292E-2);
  y = __builtin_fmaf(y, x, static_cast<float>(-1.1514610310E-1));
  y = __builtin_fmaf(y, x, static_cast<float>(1.1676998740E-1));
  y = __builtin_fmaf(y, x, static_cast<float>(-1.2420140846E-1));
  y = __builtin_fmaf(y, x, static_cast<float>(1.4249322787E-1));
  y = __builtin_fmaf(y, x, static_cast<float>(-1.6668057665E-1));
  y = __builtin_fmaf(y, x, static_cast<float>(2.0000714765E-1));
  y = __builtin_fmaf(y, x, static_cast<float>(-2.4999993993E-1));
  y = __builtin_fmaf(y, x, static_cast<float>(3.3333331174E-1));
  y = y * x;
  y = __builtin_fmaf(y, z, e * static_cast<float>(-2.12194440e-4));
  y = __builtin_fmaf(-z, 0.5f, y);
  return __builtin_fmaf(e, static_cast<float>(0.693359375), x + y);
}

struct SinCos {
  float sine, cosine;
};

// The AVX2 kernel's sine and cosine (Cephes' sinf/cosf as avx_mathfun.h's sincos256_ps), one lane.
inline SinCos lane_sincos(float x) {
  uint32_t sign_sin = std::bit_cast<uint32_t>(x) & 0x80000000u;
  x = std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7fffffffu);
  float y = x * static_cast<float>(1.27323954473516);
  int32_t j = static_cast<int32_t>(y);
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  sign_sin ^= static_cast<uint32_t>(j & 4) << 29;
  const bool first_poly = (j & 2) == 0;
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  x = __builtin_fmaf(y, static_cast<float>(-0.78515625), x);
  x = __builtin_fmaf(y, static_cast<float>(-2.4187564849853515625e-4), x);
  x = __builtin_fmaf(y, static_cast<float>(-3.77489497744594108e-8), x);
  const float z = x * x;
  float c = static_cast<float>(2.443315711809948E-005);
  c = __builtin_fmaf(c, z, static_cast<float>(-1.388731625493765E-003));
  c = __builtin_fmaf(c, z, static_cast<float>(4.166664568298827E-002));
  c = c * z;
  c = __builtin_fmaf(c, z, -(z * 0.5f));
  c = c + 1.0f;
  float s = static_cast<float>(-1.9515295891E-4);
  s = __builtin_fmaf(s, z, static_cast<float>(8.3321608736E-3));
  s = __builtin_fmaf(s, z, static_cast<float>(-1.6666654611E-1));
  s = __builtin_fmaf(s * z, x, x);
  const float sin_part_s = first_poly ? s : 0.0f, sin_part_c = first_poly ? 0.0f : c;
  s = s - sin_part_s;
  c = c - sin_part_c;
  return {std::bit_cast<float>(std::bit_cast<uint32_t>(sin_part_c + sin_part_s) ^ sign_sin),
          std::bit_cast<float>(std::bit_cast<uint32_t>(c + s) ^ sign_cos)};
}

void uniform_f32(const uint32_t* words, float* out, int64_t n, float from, float to) {
  const float range = to - from;
  for (int64_t i = 0; i < n; ++i)
    out[i] = __builtin_fmaf(static_cast<float>(words[i] & 0xffffffu) * (1.0f / 16777216.0f), range, from);
}

void uniform_f64(const uint32_t* words, double* out, int64_t n, double from, double to) {
  const double range = to - from;
  constexpr uint64_t kMask = (uint64_t{1} << 53) - 1;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t bits = (uint64_t{words[2 * i]} << 32) | words[2 * i + 1];
    out[i] = __builtin_fma(static_cast<double>(bits & kMask) * (1.0 / 9007199254740992.0), range, from);
  }
}

// data[j] and data[j + 8] of each block of 16 from the pair (data[j], data[j + 8]).
void normal_f32(float* data, int64_t n, float mean, float std) {
  const float two_pi = static_cast<float>(2.0 * std::numbers::pi);
  for (int64_t block = 0; block + 16 <= n; block += 16) {
    float* d = data + block;
#pragma omp simd
    for (int j = 0; j < 8; ++j) {
      const float u1 = 1.0f - d[j], u2 = d[j + 8];
      const float radius = __builtin_sqrtf(-2.0f * lane_log(u1));
      const SinCos angle = lane_sincos(two_pi * u2);
      d[j] = __builtin_fmaf(radius * angle.cosine, std, mean);
      d[j + 8] = __builtin_fmaf(radius * angle.sine, std, mean);
    }
  }
}

void normal_f64(double* data, int64_t n, double mean, double std) {
  for (int64_t block = 0; block + 16 <= n; block += 16) {
    double* d = data + block;
    for (int j = 0; j < 8; ++j) {
      const double u1 = 1.0 - d[j], u2 = d[j + 8];
      const double radius = __builtin_sqrt(-2.0 * __builtin_log(u1));
      const double theta = 2.0 * std::numbers::pi * u2;
      d[j] = __builtin_fma(radius * __builtin_cos(theta), std, mean);
      d[j + 8] = __builtin_fma(radius * __builtin_sin(theta), std, mean);
    }
  }
}

}  // namespace

const RandomKernels TL_RANDOM_KERNELS = {uniform_f32, uniform_f64, normal_f32, normal_f64};

}  // namespace tl::detail
