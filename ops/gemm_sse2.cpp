// ops/gemm_sse2.cpp — the Eigen GEMM compiled for SSE2 (any x86-64); ops/gemm.cpp calls it only on a CPU
// that has it.
#define TL_GEMM_ISA sse2
#include "ops/gemm_eigen.h"
