// core/storage.h — reference-counted, 64-byte aligned buffers, with process-wide counters, a limit
// checked before any memory is requested, and per-thread allocation hooks (the profiler's memory
// events). Every tensor byte is allocated here.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "core/hook_stack.h"

namespace tl {

/// Process-wide allocator statistics (all Storage objects ever made), torch.cuda.memory_stats()'s
/// counterpart. Freed blocks kept for reuse count in cached_bytes, never in bytes_in_use.
struct AllocatorStats {
  int64_t bytes_in_use = 0;  ///< bytes held by live storages (torch.cuda.memory_allocated())
  int64_t peak_bytes = 0;    ///< high-water mark of bytes_in_use since the last reset_peak_bytes()
  int64_t allocations = 0;   ///< number of allocations made so far
  int64_t cached_bytes = 0;  ///< freed blocks of 64 KiB and more kept for reuse (whole pages); empty_cache() frees them
};
AllocatorStats allocator_stats();
/// Resets peak_bytes to the current bytes_in_use. The block cache keeps freed blocks of 64 KiB and more up
/// to what brings such blocks in use back to their peak, plus 256 MiB, so a loop that frees and makes the
/// same activations again reuses them; this resets that peak too.
void reset_peak_bytes();
/// Returns the cached freed blocks to the system (cached_bytes becomes 0), like torch.cuda.empty_cache().
/// Live tensors are untouched.
void empty_cache();

/// Caps bytes_in_use at `bytes` (torch.cuda.set_per_process_memory_fraction, in bytes): an allocation
/// that would pass the cap throws tl::Error naming the request, the bytes in use and the limit, before
/// any memory is requested. The default is the machine's physical memory. Returns the previous limit;
/// throws tl::Error for a negative `bytes`.
int64_t set_allocation_limit(int64_t bytes);
/// The current limit on bytes_in_use (see set_allocation_limit).
int64_t allocation_limit();
/// True when `count` elements of `element_bytes` each fit beside the bytes in use under allocation_limit():
/// the check a buffer the library builds outside Storage (an index list, a permutation) passes first, so
/// a huge count is a tl::Error naming it rather than std::length_error or std::bad_alloc.
bool fits_allocation_limit(int64_t count, int64_t element_bytes);

/// Told about each allocation (+bytes) and release (-bytes) made on the thread that installed it.
class AllocationHook {
 public:
  virtual ~AllocationHook() = default;
  virtual void on_allocation(const void* ptr, int64_t bytes_delta, int64_t bytes_in_use) = 0;
};
/// Adds `hook` on top of the calling thread's allocation hooks (core/hook_stack.h): every hook installed
/// sees each allocation, bottom to top. Throws tl::Error when the thread already has 16 installed.
void push_allocation_hook(AllocationHook* hook);
/// Removes `hook`; it must be installed on this thread (an internal error otherwise).
void pop_allocation_hook(AllocationHook* hook);

/// RAII: installs an allocation hook for the current scope on the current thread.
using AllocationHookGuard = ScopedHook<AllocationHook, push_allocation_hook, pop_allocation_hook>;

/// Deprecated in 0.2.0, removed in 0.3.0: replaces the calling thread's topmost allocation hook by `hook`
/// (nullptr removes it) and returns the one replaced, the single-slot form of push/pop_allocation_hook.
[[deprecated("tl::set_allocation_hook is tl::push_allocation_hook / pop_allocation_hook (or AllocationHookGuard)")]]
AllocationHook* set_allocation_hook(AllocationHook* hook);

/// A block of raw bytes owned by one or more tensors.
class Storage {
 public:
  /// Allocates `bytes` (64-byte aligned, uninitialised). Throws tl::Error for a negative count, a request
  /// above allocation_limit() and a failed allocation; no counter or hook then sees the request.
  static std::shared_ptr<Storage> allocate(int64_t bytes);
  /// Wraps memory owned elsewhere (no counters, no hook, no limit); `keep_alive` owns it. Throws
  /// tl::Error for a negative `bytes` or a null `data` with bytes > 0.
  static std::shared_ptr<Storage> wrap(void* data, int64_t bytes, std::shared_ptr<void> keep_alive);

  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* data() const { return data_; }
  int64_t nbytes() const { return nbytes_; }
  /// The version counter shared by every tensor viewing this storage: each in-place op (an op whose
  /// schema writes an argument) bumps it, and autograd compares it with the version a saved tensor had.
  int64_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }

 private:
  Storage(void* data, int64_t bytes, bool owned, std::shared_ptr<void> keep_alive);
  void* data_;
  int64_t nbytes_;
  bool owned_;
  std::shared_ptr<void> keep_alive_;
  std::atomic<int64_t> version_{0};
};

}  // namespace tl
