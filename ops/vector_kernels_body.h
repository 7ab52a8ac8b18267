// ops/vector_kernels_body.h — ops/vector_kernels.h's loops, compiled once per ISA by ops/vector_kernels_<isa>.cpp,
// which defines TL_VECTOR_KERNELS as the name of its table. Everything here has internal linkage and calls only
// always-inlined formulas (ops/vector_math.h) or templates instantiated with this file's own lambdas, so no inline
// body is shared between builds (the linker can never keep an AVX2 copy for a CPU without it).
#pragma once

#ifndef TL_VECTOR_KERNELS
#error "ops/vector_kernels_body.h is included by ops/vector_kernels_<isa>.cpp only, after defining TL_VECTOR_KERNELS"
#endif

#include <cmath>
#include <cstdint>

#include "ops/lane_loops.h"
#include "ops/vector_kernels.h"
#include "ops/vector_math.h"

namespace tl::detail {
namespace {

// out[k] = fast(in[0][k]) (kInputs = 2: fast(in[0][k], in[1][k])) for k < n; non-zero when some element is outside
// valid's range.
template <int kInputs, typename Fast, typename Valid>
unsigned block(const float* const* in, float* out, int64_t n, const Fast& fast, const Valid& valid) {
  const float* a = in[0];
  [[maybe_unused]] const float* b = in[kInputs - 1];
  unsigned outside = 0;
  for (int64_t k = 0; k < n; ++k) {
    if constexpr (kInputs == 1) {
      outside |= static_cast<unsigned>(!valid(a[k]));
      out[k] = fast(a[k]);
    } else {
      outside |= static_cast<unsigned>(!valid(a[k], b[k]));
      out[k] = fast(a[k], b[k]);
    }
  }
  return outside;
}

unsigned sin_block(const float* const* in, float* out, int64_t n) {
  return block<1>(in, out, n, [](float x) { return vector_sin_cos<false>(x); },
                  [](float x) { return trig_in_range(x); });
}

unsigned cos_block(const float* const* in, float* out, int64_t n) {
  return block<1>(in, out, n, [](float x) { return vector_sin_cos<true>(x); },
                  [](float x) { return trig_in_range(x); });
}

// x rounded as kMode says: <cmath>'s rounding where the build has SSE4.1 (the AVX2 and AVX-512 ones), one instruction
// (roundps, vrndscaleps) instead of round_integral's dozen; the SSE2 build takes the formula. Both are exact, so
// every build gives the same bits.
template <RoundMode kMode>
[[gnu::always_inline]] inline float rounded(float x) {
#if defined(__SSE4_1__)
  if constexpr (kMode == RoundMode::Floor) return std::floor(x);
  else if constexpr (kMode == RoundMode::Ceil) return std::ceil(x);
  else if constexpr (kMode == RoundMode::Nearest) return std::nearbyint(x);
  else return std::trunc(x);
#else
  return round_integral<kMode>(x);
#endif
}

// The rounding ops hold everywhere (NaN and infinities are their own results).
template <RoundMode kMode>
unsigned round_block(const float* const* in, float* out, int64_t n) {
  return block<1>(in, out, n, [](float x) { return rounded<kMode>(x); }, [](float) { return true; });
}

unsigned div_floor_block(const float* const* in, float* out, int64_t n) {
  return block<2>(in, out, n, [](float a, float b) { return vector_div_floor(a, b); },
                  [](float a, float b) { return div_floor_in_range(a, b); });
}

unsigned fmod_block(const float* const* in, float* out, int64_t n) {
  return block<2>(in, out, n, [](float a, float b) { return vector_fmod(a, b); },
                  [](float a, float b) { return div_floor_in_range(a, b); });
}

unsigned remainder_block(const float* const* in, float* out, int64_t n) {
  return block<2>(in, out, n, [](float a, float b) { return remainder_from_fmod(vector_fmod(a, b), b); },
                  [](float a, float b) { return div_floor_in_range(a, b); });
}

unsigned maximum_block(const float* const* in, float* out, int64_t n) {
  return block<2>(in, out, n, [](float a, float b) { return vector_extreme<true>(a, b); },
                  [](float, float) { return true; });
}

unsigned minimum_block(const float* const* in, float* out, int64_t n) {
  return block<2>(in, out, n, [](float a, float b) { return vector_extreme<false>(a, b); },
                  [](float, float) { return true; });
}

// cascade_sum's order, with each leaf's exponentials taken first into a buffer: GCC does not vectorise vector_exp
// inside the lanes' loop.
float shifted_exp_sum(const float* p, int64_t n, float max) {
  return pairwise_sum<float>(p, n, 1, [max](const float* run, int64_t len) {
    float e[kLeaf];
    for (int64_t i = 0; i < len; ++i) e[i] = vector_exp(run[i] - max);
    return lane_sum<float, true>(e, len, 1, [](float v) { return v; });
  });
}

void shifted_exp_add(float* acc, const float* p, const float* max, int64_t n) {
  for (int64_t t = 0; t < n; ++t) acc[t] += vector_exp(p[t] - max[t]);
}

// As shifted_exp_sum, each value widened from bfloat16 and each step rounded to it in the leaf's loop.
float shifted_exp_sum_bf16(const uint16_t* p, int64_t n, float max) {
  return pairwise_sum<float>(p, n, 1, [max](const uint16_t* run, int64_t len) {
    float e[kLeaf];
    for (int64_t i = 0; i < len; ++i) e[i] = round_to_bf16(vector_exp(round_to_bf16(bf16_to_float(run[i]) - max)));
    return lane_sum<float, true>(e, len, 1, [](float v) { return v; });
  });
}

void shifted_exp_add_bf16(float* acc, const uint16_t* p, const uint16_t* max, int64_t n) {
  for (int64_t t = 0; t < n; ++t)
    acc[t] += round_to_bf16(vector_exp(round_to_bf16(bf16_to_float(p[t]) - bf16_to_float(max[t]))));
}

float prod(const float* p, int64_t n) {
  return lane_product<float, true>(p, n, 1, [](float v) { return v; }, [](float a, float b) { return a * b; });
}

}  // namespace

const VectorKernels TL_VECTOR_KERNELS = {
    .sin = sin_block,
    .cos = cos_block,
    .div_floor = div_floor_block,
    .fmod = fmod_block,
    .remainder = remainder_block,
    .floor = round_block<RoundMode::Floor>,
    .ceil = round_block<RoundMode::Ceil>,
    .round = round_block<RoundMode::Nearest>,
    .trunc = round_block<RoundMode::Trunc>,
    .maximum = maximum_block,
    .minimum = minimum_block,
    .shifted_exp_sum = shifted_exp_sum,
    .shifted_exp_add = shifted_exp_add,
    .shifted_exp_sum_bf16 = shifted_exp_sum_bf16,
    .shifted_exp_add_bf16 = shifted_exp_add_bf16,
    .prod = prod,
};

}  // namespace tl::detail
