// ops/gemm_onednn.cpp — float32 products on oneDNN: its sgemm for small ones, a cached matmul primitive for large
// ones. Each thread packs and multiplies its own block of C, where Eigen's threads wait for each other at every
// packed panel: on a machine other processes share, Eigen's 2-thread products ran 4-10x slower than oneDNN's.
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <string>

#include "core/error.h"
#include "ops/gemm_kernels.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/matmul_primitive.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/primitive_cache.h"

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

// From this many multiply-adds, sgemm's packing buffers (allocated and freed on every call, 4.7 MiB for
// 197x768 @ 768x3072) pass glibc's mmap threshold: a fresh process's first large products, or all of them under
// MALLOC_TRIM_THRESHOLD_, then fault fresh pages on every call and ran 2.5-3x slower. The primitive packs into
// a scratchpad from a per-thread buffer (ops/onednn/engine.h) instead; its creation (about 1.5 ms, once per
// shape) is what a product of this size costs about once.
constexpr int64_t kPrimitiveWork = int64_t{1} << 27;

/// C = alpha * A @ B (+ beta * C) as one matmul primitive, for one set of sizes, strides, alpha and beta.
onednn::MatmulPrimitive make_plan(const GemmProblem<float>& p) {
  using dnnl::memory;
  const memory::data_type f32 = memory::data_type::f32;
  const memory::desc a({p.m, p.k}, f32, memory::dims{p.a_rs, p.a_cs});
  const memory::desc b({p.k, p.n}, f32, memory::dims{p.b_rs, p.b_cs});
  const memory::desc c({p.m, p.n}, f32, memory::dims{p.ldc, 1});
  dnnl::primitive_attr attr = onednn::default_attr();
  if (p.alpha != 1) attr.set_output_scales(0, {p.alpha});
  if (p.beta != 0) {
    dnnl::post_ops sum;
    sum.append_sum(p.beta);  // C's old value times beta, added after alpha scaled the product
    attr.set_post_ops(sum);
  }
  return onednn::MatmulPrimitive(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, c), attr, onednn::engine()));
}

void run_primitive(const GemmProblem<float>& p) {
  onednn::PrimitiveKey key("gemm");
  key.add(p.m).add(p.n).add(p.k).add(p.a_rs).add(p.a_cs).add(p.b_rs).add(p.b_cs).add(p.ldc);
  key.add(static_cast<double>(p.alpha)).add(static_cast<double>(p.beta));
  const auto context = [&] { return str_cat(p.m, "x", p.k, " @ ", p.k, "x", p.n); };
  onednn::guarded("matmul", context, [&] {
    const auto plan =
        onednn::primitive_cache().get_or_create<onednn::MatmulPrimitive>(key, [&] { return make_plan(p); });
    plan->matmul.execute({{DNNL_ARG_SRC, onednn::memory_of(const_cast<float*>(p.a), plan->src)},
                          {DNNL_ARG_WEIGHTS, onednn::memory_of(const_cast<float*>(p.b), plan->weights)},
                          {DNNL_ARG_DST, onednn::memory_of(p.c, plan->dst)}});
  });
}

}  // namespace

bool gemm_f32_onednn(const GemmProblem<float>& p) {
  char ta = 'N', tb = 'N';
  int64_t lda = 0, ldb = 0;
  if (!sgemm_operand(p.m, p.k, p.a_rs, p.a_cs, ta, lda) || !sgemm_operand(p.k, p.n, p.b_rs, p.b_cs, tb, ldb) ||
      p.ldc < p.n)
    return false;
  if (p.m * p.n * p.k >= kPrimitiveWork) {
    run_primitive(p);
    return true;
  }
  const dnnl_status_t status = dnnl_sgemm(ta, tb, p.m, p.n, p.k, p.alpha, p.a, lda, p.b, ldb, p.beta, p.c, p.ldc);
  TL_CHECK(status != dnnl_out_of_memory, "matmul: out of memory for the workspace of a ", p.m, "x", p.k, " @ ", p.k,
           "x", p.n, " product");
  TL_INTERNAL_ASSERT(status == dnnl_success, "gemm: oneDNN's sgemm failed with status ", static_cast<int>(status),
                     " for ", p.m, "x", p.k, " @ ", p.k, "x", p.n);
  return true;
}

}  // namespace tl::detail
