// ops/vector_kernels.h — the hot inner loops of sin, cos, floor, ceil, round, trunc, div(rounding_mode="floor"),
// fmod, remainder, maximum, minimum, logsumexp and prod on float (and logsumexp's on bfloat16), built once per ISA
// (ops/vector_kernels_<isa>.cpp from ops/vector_kernels_body.h) and picked once for the running CPU
// (core/cpu_features.h); internal to ops/. Each build runs the same operations in the same order without FMA, so
// every ISA gives the same bits.
#pragma once

#include <cstdint>

namespace tl::detail {

/// A block of an elementwise kernel's vectorised formula: out[k] = fast(in[0][k], ...) for k < n, returning non-zero
/// when some element lies outside the formula's range (the caller recomputes those with the exact formula).
using VectorBlock = unsigned (*)(const float* const* in, float* out, int64_t n);

struct VectorKernels {
  VectorBlock sin;        ///< vector_sin_cos<false> of in[0], range trig_in_range
  VectorBlock cos;        ///< vector_sin_cos<true> of in[0], range trig_in_range
  VectorBlock div_floor;  ///< vector_div_floor(in[0], in[1]), range div_floor_in_range
  VectorBlock fmod;       ///< vector_fmod(in[0], in[1]), range div_floor_in_range
  VectorBlock remainder;  ///< remainder_from_fmod(vector_fmod(in[0], in[1]), in[1]), range div_floor_in_range
  VectorBlock floor;      ///< vector_floor of in[0], every value in range
  VectorBlock ceil;       ///< vector_ceil of in[0], every value in range
  VectorBlock round;      ///< vector_round of in[0], every value in range
  VectorBlock trunc;      ///< vector_trunc of in[0], every value in range
  VectorBlock maximum;    ///< vector_extreme<true>(in[0], in[1]), every value in range
  VectorBlock minimum;    ///< vector_extreme<false>(in[0], in[1]), every value in range
  /// cascade_sum of vector_exp(p[i] - max) over n contiguous floats (logsumexp's inner run).
  float (*shifted_exp_sum)(const float* p, int64_t n, float max);
  /// acc[t] += vector_exp(p[t] - max[t]) for t < n (logsumexp's vertical pass).
  void (*shifted_exp_add)(float* acc, const float* p, const float* max, int64_t n);
  /// shifted_exp_sum of n contiguous bfloat16 (their bits), each step rounded to bfloat16 as ATen's ops round it:
  /// the difference p[i] - max, then its exponential; the sum in float.
  float (*shifted_exp_sum_bf16)(const uint16_t* p, int64_t n, float max);
  /// shifted_exp_add of bfloat16 p and max (their bits), rounded as shifted_exp_sum_bf16 rounds.
  void (*shifted_exp_add_bf16)(float* acc, const uint16_t* p, const uint16_t* max, int64_t n);
  /// lane_product of n contiguous floats (prod's inner run).
  float (*prod)(const float* p, int64_t n);
};

extern const VectorKernels vector_kernels_sse2, vector_kernels_avx2, vector_kernels_avx512;

/// The build the kernels run: the widest the CPU has, unless set_vector_isa chose another.
const VectorKernels& vector_kernels();
/// The name of that build: "avx512", "avx2" or "sse2".
const char* vector_isa();
/// Selects a build by name (for tests and benchmarks); returns false, changing nothing, when the name is unknown or
/// the CPU lacks that ISA. Not thread-safe against kernels running concurrently.
bool set_vector_isa(const char* name);

/// body() built for AVX2 and for AVX-512 besides the kernel file's own SSE2: a function per ISA (GCC's target
/// attribute) with every call in it inlined (flatten), so a plain loop in body vectorises at that width.
template <typename Body>
[[gnu::flatten, gnu::target("avx2")]] void run_avx2(const Body& body) {
  body();
}
#if defined(__clang__)
#define TL_AVX512_TARGET "avx512f,avx2"  // clang takes no vector-width preference in a target attribute
#else
#define TL_AVX512_TARGET "avx512f,avx2,prefer-vector-width=512"
#endif
template <typename Body>
[[gnu::flatten, gnu::target(TL_AVX512_TARGET)]] void run_avx512(const Body& body) {
  body();
}
#undef TL_AVX512_TARGET

/// Runs body() at the width the build above runs at (the widest the CPU has, unless set_vector_isa chose another).
/// ops/ is built with -ffp-contract=off, so no width fuses a multiply and an add: body gives the same bits on each.
/// For the hot loop of a kernel (once per run of elements or per chunk of rows), never per element.
template <typename Body>
void at_vector_width(const Body& body) {
  const VectorKernels* isa = &vector_kernels();
  if (isa == &vector_kernels_avx512) return run_avx512(body);
  if (isa == &vector_kernels_avx2) return run_avx2(body);
  body();
}

}  // namespace tl::detail
