// ops/vector_kernels_sse2.cpp — ops/vector_kernels.h's loops compiled for SSE2 (any x86-64); ops/vector_kernels.cpp picks
// this table only on a CPU that has it.
#define TL_VECTOR_KERNELS vector_kernels_sse2
#include "ops/vector_kernels_body.h"
