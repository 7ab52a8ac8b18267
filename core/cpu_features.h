// core/cpu_features.h — what the running CPU can execute, for the kernels built once per ISA (ops/gemm_*,
// core/random_kernels_*): each picks the best build the CPU has, so the library runs on any x86-64.
#pragma once

namespace tl::detail {

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

}  // namespace tl::detail
