// ops/vector_kernels.cpp — picks the build of ops/vector_kernels.h's loops for the running CPU
// (core/cpu_features.h). The default build runs on any x86-64: only the chosen build executes its ISA.
#include "ops/vector_kernels.h"

#include <atomic>
#include <cstring>

#include "core/cpu_features.h"

namespace tl::detail {
namespace {

struct Build {
  const VectorKernels* kernels;
  bool (*supported)();
};

bool has_sse2() { return true; }

// Best first.
const Build kBuilds[] = {
    {&vector_kernels_avx512, cpu_has_avx512f_fma},
    {&vector_kernels_avx2, cpu_has_avx2_fma},
    {&vector_kernels_sse2, has_sse2},
};

const VectorKernels* best() {
  for (const Build& b : kBuilds)
    if (b.supported()) return b.kernels;
  return &vector_kernels_sse2;
}

std::atomic<const VectorKernels*>& current() {
  static std::atomic<const VectorKernels*> kernels{best()};
  return kernels;
}

}  // namespace

const VectorKernels& vector_kernels() { return *current().load(std::memory_order_relaxed); }

bool set_vector_isa(const char* name) {
  for (const Build& b : kBuilds) {
    if (std::strcmp(b.kernels->isa, name) != 0) continue;
    if (!b.supported()) return false;
    current().store(b.kernels, std::memory_order_relaxed);
    return true;
  }
  return false;
}

}  // namespace tl::detail
