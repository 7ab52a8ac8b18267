// ops/vector_kernels_avx2.cpp — ops/vector_kernels.h's loops compiled for AVX2; ops/vector_kernels.cpp picks
// this table only on a CPU that has it.
#define TL_VECTOR_KERNELS vector_kernels_avx2
#include "ops/vector_kernels_body.h"
