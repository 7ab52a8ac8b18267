// ops/gemm_avx2.cpp — the Eigen GEMM compiled for AVX2 + FMA; ops/gemm.cpp calls it only on a CPU
// that has it.
#define TL_GEMM_ISA avx2
#include "ops/gemm_eigen.h"
