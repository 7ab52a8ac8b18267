// core/storage.h — reference-counted, 64-byte aligned buffers, with process-wide counters and a
// per-thread allocation hook (the profiler's memory events). Every tensor byte is allocated here.
#pragma once

#include <cstdint>
#include <memory>

namespace tl {

/// Process-wide allocator statistics (all Storage objects ever made).
struct AllocatorStats {
  int64_t bytes_in_use = 0;
  int64_t peak_bytes = 0;
  int64_t allocations = 0;  ///< number of allocations made so far
};
AllocatorStats allocator_stats();
/// Resets peak_bytes to the current bytes_in_use.
void reset_peak_bytes();

/// Told about each allocation (+bytes) and release (-bytes) made on the thread that installed it.
class AllocationHook {
 public:
  virtual ~AllocationHook() = default;
  virtual void on_allocation(const void* ptr, int64_t bytes_delta, int64_t bytes_in_use) = 0;
};
/// Installs `hook` for the calling thread (nullptr uninstalls); returns the previous one.
AllocationHook* set_allocation_hook(AllocationHook* hook);

/// A block of raw bytes owned by one or more tensors.
class Storage {
 public:
  /// Allocates `bytes` (64-byte aligned, uninitialised); throws tl::Error if that is impossible.
  static std::shared_ptr<Storage> allocate(int64_t bytes);
  /// Wraps memory owned elsewhere (no counters, no hook); `keep_alive` owns it.
  static std::shared_ptr<Storage> wrap(void* data, int64_t bytes, std::shared_ptr<void> keep_alive);

  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  int64_t nbytes() const { return nbytes_; }

 private:
  Storage(void* data, int64_t bytes, bool owned, std::shared_ptr<void> keep_alive);
  void* data_;
  int64_t nbytes_;
  bool owned_;
  std::shared_ptr<void> keep_alive_;
};

}  // namespace tl
