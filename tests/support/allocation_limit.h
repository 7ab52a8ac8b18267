// tests/support/allocation_limit.h — tl::set_allocation_limit for one scope, so a test can make an
// allocation fail at a chosen point and check what the failed call left behind.
#pragma once

#include <cstdint>

#include "core/storage.h"

namespace tl::testing {

/// Caps bytes_in_use at `bytes` until destroyed, then restores the previous limit.
class ScopedAllocationLimit {
 public:
  explicit ScopedAllocationLimit(int64_t bytes) : previous_(set_allocation_limit(bytes)) {}
  ~ScopedAllocationLimit() { set_allocation_limit(previous_); }
  ScopedAllocationLimit(const ScopedAllocationLimit&) = delete;
  ScopedAllocationLimit& operator=(const ScopedAllocationLimit&) = delete;

 private:
  int64_t previous_;
};

}  // namespace tl::testing
