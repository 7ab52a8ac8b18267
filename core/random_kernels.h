// core/random_kernels.h — the boundary between core/generator.cpp and the per-ISA builds of the bulk
// random transforms (core/random_kernels_body.h): engine words in, uniforms or normals out.
#pragma once

#include <cstdint>

namespace tl::detail {

/// One ISA's build. Every build gives the same bits: the arithmetic is fixed operation by operation
/// (fused multiply-adds written out), so only the speed depends on the CPU.
struct RandomKernels {
  /// out[i] = U[from, to) from words[i]'s low 24 bits, as ATen's uniform_real_distribution<float>.
  void (*uniform_f32)(const uint32_t* words, float* out, int64_t n, float from, float to);
  /// out[i] = U[from, to) from 53 bits of (words[2i] << 32 | words[2i + 1]), as uniform_real_distribution<double>.
  void (*uniform_f64)(const uint32_t* words, double* out, int64_t n, double from, double to);
  /// Uniforms in place -> N(mean, std^2), 16 at a time as ATen's normal_fill_16 (float: its AVX2 kernel's
  /// Cephes log and sincos). n is a multiple of 16.
  void (*normal_f32)(float* data, int64_t n, float mean, float std);
  void (*normal_f64)(double* data, int64_t n, double mean, double std);
};

extern const RandomKernels random_kernels_generic;
extern const RandomKernels random_kernels_avx2;

}  // namespace tl::detail
