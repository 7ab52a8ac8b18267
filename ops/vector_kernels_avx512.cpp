// ops/vector_kernels_avx512.cpp — ops/vector_kernels.h's loops compiled for AVX-512F; ops/vector_kernels.cpp picks
// this table only on a CPU that has it.
#define TL_VECTOR_KERNELS vector_kernels_avx512
#include "ops/vector_kernels_body.h"
