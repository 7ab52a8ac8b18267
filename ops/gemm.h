// ops/gemm.h — matrix products on strided memory (internal to ops/): oneDNN for float32 (its sgemm, a cached
// matmul primitive for large products), and the Eigen GEMM build that suits the running CPU (AVX-512, AVX2+FMA
// or SSE2, chosen once at first use) for float64.
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace tl::detail {

/// One matrix operand: element (i, j) at data[i * row_stride + j * col_stride]. Unless the matrix
/// has a single row or column, one of the strides must be 1 (see gemm_operand_ok).
struct GemmOperand {
  const void* data;
  int64_t row_stride, col_stride;
};

/// Whether a (rows x cols) operand with these strides can be passed to gemm as it is.
bool gemm_operand_ok(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride);

/// C (m x n; row-major with leading dimension ldc) = alpha * A (m x k) @ B (k x n) + beta * C,
/// for float32 or float64 (A, B, C all of `dtype`). beta == 0 ignores C's contents, NaN included.
/// Uses Eigen's OpenMP threads, or one thread when called inside a parallel region.
void gemm(DType dtype, int64_t m, int64_t n, int64_t k, double alpha, GemmOperand a, GemmOperand b, double beta,
          void* c, int64_t ldc);

/// The GEMM products run on: "onednn" (the default: oneDNN for float32, the best Eigen build for
/// float64 and for operands sgemm cannot take), or an Eigen build for both, "avx512", "avx2" or "sse2".
const char* gemm_isa();
/// Selects one by name (for tests and benchmarks); returns false, changing nothing, when the
/// name is unknown or the CPU lacks it. Not thread-safe against concurrent products.
bool set_gemm_isa(const char* name);

}  // namespace tl::detail
