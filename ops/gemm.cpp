// ops/gemm.cpp — runs a product on oneDNN (ops/gemm_onednn.cpp) or on the Eigen build for the running CPU
// (core/cpu_features.h), normalising operands for them. The default build runs on any x86-64: only the chosen build executes its ISA.
#include "ops/gemm.h"

#include <atomic>
#include <cstring>
#include <new>

#include "core/cpu_features.h"
#include "core/error.h"
#include "ops/gemm_kernels.h"

namespace tl::detail {
namespace {

struct Backend {
  const char* name;
  bool (*supported)();
  void (*f32)(const GemmProblem<float>&);
  void (*f64)(const GemmProblem<double>&);
};

// The Eigen builds, best first.
const Backend kEigen[] = {
    {"avx512", cpu_has_avx512f_fma, gemm_f32_avx512, gemm_f64_avx512},
    {"avx2", cpu_has_avx2_fma, gemm_f32_avx2, gemm_f64_avx2},
    {"sse2", cpu_has_sse2, gemm_f32_sse2, gemm_f64_sse2},
};

const Backend* best_eigen() {
  static const Backend* best = &best_build<Backend>(kEigen);
  return best;
}

// oneDNN has no float64 GEMM, and its sgemm no leading dimension for a broadcast (stride 0) operand: those
// products run on the best Eigen build.
void f32_onednn(const GemmProblem<float>& p) {
  if (!gemm_f32_onednn(p)) best_eigen()->f32(p);
}
void f64_onednn(const GemmProblem<double>& p) { best_eigen()->f64(p); }

const Backend kOnednn{"onednn", cpu_has_sse2, f32_onednn, f64_onednn};

const Backend* find_backend(const char* name) {
  if (std::strcmp(kOnednn.name, name) == 0) return &kOnednn;
  return supported_build<Backend>(kEigen, name);
}

// oneDNN's by default: equal to Eigen's on one thread, but 4-10x faster on two while other processes share the
// cores (at ViT's and ConvNeXt's Linear shapes; bench_zoo --gemm compares whole models), where Eigen's threads
// wait for each other at every packed panel.
std::atomic<const Backend*>& current() {
  static std::atomic<const Backend*> backend{&kOnednn};
  return backend;
}

// Strides Eigen can map: a single row or column may take either layout, so give it a unit stride.
void normalise(int64_t rows, int64_t cols, int64_t& rs, int64_t& cs) {
  if (cols == 1) {
    cs = 1;
    if (rows == 1) rs = 1;
  } else if (rows == 1) {
    if (cs == 1) rs = cols;
    else rs = 1;
  }
}

template <typename T>
void run(void (*kernel)(const GemmProblem<T>&), int64_t m, int64_t n, int64_t k, double alpha, GemmOperand a,
         GemmOperand b, double beta, void* c, int64_t ldc) {
  T* out = static_cast<T*>(c);
  if (k == 0 || alpha == 0) {
    // An empty sum, or one BLAS skips (alpha == 0: an inf or NaN in A or B does not reach C, as in PyTorch):
    // C = beta * C (or zeros, never reading C when beta == 0).
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) out[i * ldc + j] = beta == 0 ? T(0) : static_cast<T>(beta) * out[i * ldc + j];
    return;
  }
  normalise(m, k, a.row_stride, a.col_stride);
  normalise(k, n, b.row_stride, b.col_stride);
  const GemmProblem<T> problem{m, n, k, static_cast<const T*>(a.data), a.row_stride, a.col_stride,
                               static_cast<const T*>(b.data), b.row_stride, b.col_stride, out, ldc,
                               static_cast<T>(alpha), static_cast<T>(beta)};
  try {
    kernel(problem);
  } catch (const std::bad_alloc&) {
    TL_CHECK(false, "matmul: out of memory for the workspace of a ", m, "x", k, " @ ", k, "x", n, " product");
  }
}

}  // namespace

bool gemm_operand_ok(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  return rows <= 1 || cols <= 1 || row_stride == 1 || col_stride == 1;
}

void gemm(DType dtype, int64_t m, int64_t n, int64_t k, double alpha, GemmOperand a, GemmOperand b, double beta,
          void* c, int64_t ldc) {
  TL_INTERNAL_ASSERT(gemm_operand_ok(m, k, a.row_stride, a.col_stride) &&
                     gemm_operand_ok(k, n, b.row_stride, b.col_stride), "gemm: operand without a unit stride");
  if (m == 0 || n == 0) return;
  const Backend* backend = current().load(std::memory_order_relaxed);
  if (dtype == DType::Float32) return run(backend->f32, m, n, k, alpha, a, b, beta, c, ldc);
  TL_INTERNAL_ASSERT(dtype == DType::Float64, "gemm: unsupported dtype ", dtype);
  run(backend->f64, m, n, k, alpha, a, b, beta, c, ldc);
}

const char* gemm_isa() { return current().load(std::memory_order_relaxed)->name; }

bool set_gemm_isa(const char* name) {
  const Backend* b = find_backend(name);
  if (b == nullptr) return false;
  current().store(b, std::memory_order_relaxed);
  return true;
}

}  // namespace tl::detail
