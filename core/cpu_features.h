// core/cpu_features.h — what the running CPU can execute, for the kernels built once per ISA (ops/gemm_*,
// core/random_kernels_*, ops/vector_kernels_*): each picks the best build the CPU has, so the library runs on any
// x86-64.
#pragma once

#include <cstring>
#include <span>

namespace tl::detail {

/// SSE2: every x86-64 has it (the default build's instruction set).
inline bool cpu_has_sse2() { return true; }

/// AVX2 with FMA (x86-64-v3's vector core).
inline bool cpu_has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
/// AVX-512F with FMA.
inline bool cpu_has_avx512f_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
}

/// The first build of `builds` (best first, the last one sse2) the CPU runs. A build has `name` and `supported`.
template <typename Build>
const Build& best_build(std::span<const Build> builds) {
  for (const Build& b : builds)
    if (b.supported()) return b;
  return builds.back();
}

/// The build of `builds` named `name` ("avx512", "avx2", "sse2"), or nullptr when none is or the CPU cannot run it.
template <typename Build>
const Build* supported_build(std::span<const Build> builds, const char* name) {
  for (const Build& b : builds)
    if (std::strcmp(b.name, name) == 0) return b.supported() ? &b : nullptr;
  return nullptr;
}

}  // namespace tl::detail
