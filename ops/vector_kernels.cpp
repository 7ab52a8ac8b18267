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

std::atomic<const Build*>& current() {
  static std::atomic<const Build*> build{&best_build<Build>(kBuilds)};
  return build;
}

}  // namespace

const VectorKernels& vector_kernels() { return *current().load(std::memory_order_relaxed)->kernels; }

const char* vector_isa() { return current().load(std::memory_order_relaxed)->name; }

bool set_vector_isa(const char* name) {
  const Build* b = supported_build<Build>(kBuilds, name);
  if (b == nullptr) return false;
  current().store(b, std::memory_order_relaxed);
  return true;
}

}  // namespace tl::detail
