// ops/gemm_onednn.cpp — float32 products through oneDNN's sgemm (its JIT kernels for the running CPU). Each
// thread packs and multiplies its own block of C, where Eigen's threads wait for each other at every packed
// panel: on a machine other processes share, Eigen's 2-thread products ran 4-10x slower than oneDNN's.
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>

#include "core/error.h"
#include "ops/gemm_kernels.h"

namespace tl::detail {
namespace {

/// An operand as sgemm's row-major API takes it: 'N' with leading dimension row_stride (>= cols), or 'T' (the
/// column-major matrix) with leading dimension col_stride (>= rows); false when its strides fit neither.
bool sgemm_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs, char& trans, int64_t& ld) {
  if (cs == 1 && rs >= std::max<int64_t>(cols, 1)) {
    trans = 'N';
    ld = rs;
    return true;
  }
  if (rs == 1 && cs >= std::max<int64_t>(rows, 1)) {
    trans = 'T';
    ld = cs;
    return true;
  }
  return false;
}

}  // namespace

bool gemm_f32_onednn(const GemmProblem<float>& p) {
  char ta = 'N', tb = 'N';
  int64_t lda = 0, ldb = 0;
  if (!sgemm_operand(p.m, p.k, p.a_rs, p.a_cs, ta, lda) || !sgemm_operand(p.k, p.n, p.b_rs, p.b_cs, tb, ldb) ||
      p.ldc < p.n)
    return false;
  const dnnl_status_t status = dnnl_sgemm(ta, tb, p.m, p.n, p.k, p.alpha, p.a, lda, p.b, ldb, p.beta, p.c, p.ldc);
  TL_CHECK(status != dnnl_out_of_memory, "matmul: out of memory for the workspace of a ", p.m, "x", p.k, " @ ", p.k,
           "x", p.n, " product");
  TL_INTERNAL_ASSERT(status == dnnl_success, "gemm: oneDNN's sgemm failed with status ", static_cast<int>(status),
                     " for ", p.m, "x", p.k, " @ ", p.k, "x", p.n);
  return true;
}

}  // namespace tl::detail
