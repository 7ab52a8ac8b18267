// ops/gemm_eigen.h — Eigen's GEMM for the ISA ops/gemm_<isa>.cpp defines as TL_GEMM_ISA and compiles
// for. Eigen's namespace is renamed per ISA: no inline function or template instance is shared by
// the builds, so the linker can never keep the wrong one (an AVX-512 body on a CPU without it).
#pragma once

#ifndef TL_GEMM_ISA
#error "ops/gemm_eigen.h is included by ops/gemm_<isa>.cpp only, after defining TL_GEMM_ISA"
#endif

#define TL_GEMM_CAT2(a, b) a##b
#define TL_GEMM_CAT(a, b) TL_GEMM_CAT2(a, b)
#define Eigen TL_GEMM_CAT(TlEigen_, TL_GEMM_ISA)

#include <Eigen/Core>

#include "ops/gemm_kernels.h"

namespace tl::detail {
namespace {

template <typename T, int kOrder>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, kOrder>;
template <typename T, int kOrder>
using ConstMap = Eigen::Map<const Matrix<T, kOrder>, Eigen::Unaligned, Eigen::OuterStride<>>;
using Stride = Eigen::OuterStride<>;

// A and B row- or column-major (the unit stride says which); C always row-major.
template <typename T, int kOrderA, int kOrderB>
void product(const GemmProblem<T>& p) {
  const ConstMap<T, kOrderA> a(p.a, p.m, p.k, Stride(kOrderA == Eigen::RowMajor ? p.a_rs : p.a_cs));
  const ConstMap<T, kOrderB> b(p.b, p.k, p.n, Stride(kOrderB == Eigen::RowMajor ? p.b_rs : p.b_cs));
  Eigen::Map<Matrix<T, Eigen::RowMajor>, Eigen::Unaligned, Stride> c(p.c, p.m, p.n, Stride(p.ldc));
  if (p.beta == T(0)) {
    c.noalias() = p.alpha * a * b;
    return;
  }
  if (p.beta != T(1)) c *= p.beta;
  c.noalias() += p.alpha * a * b;
}

template <typename T>
void gemm(const GemmProblem<T>& p) {
  constexpr int kRow = Eigen::RowMajor, kCol = Eigen::ColMajor;
  const bool a_rows = p.a_cs == 1, b_rows = p.b_cs == 1;
  if (a_rows && b_rows) return product<T, kRow, kRow>(p);
  if (a_rows) return product<T, kRow, kCol>(p);
  if (b_rows) return product<T, kCol, kRow>(p);
  product<T, kCol, kCol>(p);
}

}  // namespace

void TL_GEMM_CAT(gemm_f32_, TL_GEMM_ISA)(const GemmProblem<float>& problem) { gemm(problem); }
void TL_GEMM_CAT(gemm_f64_, TL_GEMM_ISA)(const GemmProblem<double>& problem) { gemm(problem); }

}  // namespace tl::detail
