// ops/gemm_kernels.h — the boundary between the GEMM dispatcher (ops/gemm.cpp), the per-ISA Eigen builds of
// ops/gemm_<isa>.cpp and oneDNN's sgemm (ops/gemm_onednn.cpp). Only plain pointers cross it: no Eigen type is
// shared by builds.
#pragma once

#include <cstdint>

namespace tl::detail {

/// C (m x n, row-major, leading dimension ldc) = alpha * A (m x k) @ B (k x n) + beta * C.
/// Element (i, j) of A is a[i * a_rs + j * a_cs], and a_rs == 1 or a_cs == 1 (same for B).
/// m, n, k > 0. beta == 0 overwrites C without reading it.
template <typename T>
struct GemmProblem {
  int64_t m, n, k;
  const T* a;
  int64_t a_rs, a_cs;
  const T* b;
  int64_t b_rs, b_cs;
  T* c;
  int64_t ldc;
  T alpha, beta;
};

#define TL_GEMM_DECLARE_ISA(isa)                         \
  void gemm_f32_##isa(const GemmProblem<float>& problem); \
  void gemm_f64_##isa(const GemmProblem<double>& problem);
TL_GEMM_DECLARE_ISA(sse2)
TL_GEMM_DECLARE_ISA(avx2)
TL_GEMM_DECLARE_ISA(avx512)
#undef TL_GEMM_DECLARE_ISA

/// The product on oneDNN (ops/gemm_onednn.cpp: sgemm, or a matmul primitive when large); false, touching nothing,
/// when an operand's strides are not a leading dimension sgemm takes (a broadcast row or column, stride 0).
bool gemm_f32_onednn(const GemmProblem<float>& problem);

}  // namespace tl::detail
