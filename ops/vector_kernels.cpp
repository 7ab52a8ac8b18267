// ops/vector_kernels.cpp — picks the build of ops/vector_kernels.h's loops for the running CPU
// (core/cpu_features.h). The default build runs on any x86-64: only the chosen build executes its ISA.
#include "ops/vector_kernels.h"

#include <atomic>

#include "core/cpu_features.h"

namespace tl::detail {
namespace {

struct Build {
  const char* name;
  bool (*supported)();
  const VectorKernels* kernels;
};

// Best first.
const Build kBuilds[] = {
    {"avx512", cpu_has_avx512f_fma, &vector_kernels_avx512},
    {"avx2", cpu_has_avx2_fma, &vector_kernels_avx2},
    {"sse2", cpu_has_sse2, &vector_kernels_sse2},
};

std::atomic<const VectorKernels*>& current() {
  static std::atomic<const VectorKernels*> kernels{best_build<Build>(kBuilds).kernels};
  return kernels;
}

}  // namespace

const VectorKernels& vector_kernels() { return *current().load(std::memory_order_relaxed); }

bool set_vector_isa(const char* name) {
  const Build* b = supported_build<Build>(kBuilds, name);
  if (b == nullptr) return false;
  current().store(b->kernels, std::memory_order_relaxed);
  return true;
}

}  // namespace tl::detail
