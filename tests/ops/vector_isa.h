// tests/ops/vector_isa.h — runs a check once per build of ops/vector_kernels.h that this CPU can execute, so that
// every ISA path meets the same PyTorch references.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "ops/vector_kernels.h"

namespace tl::testing {

/// The builds of ops/vector_kernels.h, widest first.
inline constexpr const char* kVectorIsas[] = {"avx512", "avx2", "sse2"};

/// Calls f(isa) with each build the CPU runs selected in turn; the build selected before is selected again
/// afterwards, also when f throws.
template <typename F>
void for_each_vector_isa(const F& f) {
  struct Restore {
    std::string isa = detail::vector_isa();
    ~Restore() { detail::set_vector_isa(isa.c_str()); }
  } restore;
  for (const char* isa : kVectorIsas) {
    if (!detail::set_vector_isa(isa)) continue;  // sse2 runs everywhere
    CAPTURE(isa);
    f(isa);
  }
}

}  // namespace tl::testing
