// core/random_kernels_generic.cpp — the bulk random transforms for any x86-64; core/generator.cpp uses it
// on a CPU without AVX2 and FMA.
#define TL_RANDOM_KERNELS random_kernels_generic
#include "core/random_kernels_body.h"
