// core/random_kernels_avx2.cpp — the bulk random transforms compiled for AVX2 + FMA; core/generator.cpp
// uses it only on a CPU that has both.
#define TL_RANDOM_KERNELS random_kernels_avx2
#include "core/random_kernels_body.h"
