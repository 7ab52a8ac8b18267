// ops/gemm_avx512.cpp — the Eigen GEMM compiled for AVX-512F + FMA; ops/gemm.cpp calls it only on a CPU
// that has it.
#define TL_GEMM_ISA avx512
#include "ops/gemm_eigen.h"
