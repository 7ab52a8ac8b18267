// core/storage.cpp — aligned allocation with counters; failure is a tl::Error, never bad_alloc.
// Counters and hooks see the bytes tensors hold; large freed blocks may wait in a bounded cache.
#include "core/storage.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <new>
#include <utility>

#include <sys/mman.h>

#include "core/error.h"

namespace tl {
namespace {

constexpr int64_t kAlignment = 64;
constexpr int64_t kHugePage = int64_t{2} << 20;
constexpr int64_t kCacheBytes = int64_t{256} << 20;
std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_count{0};
thread_local AllocationHook* t_hook = nullptr;

// `delta` is +bytes for an allocation (zero-byte ones count too) and -bytes for a release.
void account(const void* ptr, int64_t delta, bool allocation) {
  const int64_t now = g_in_use.fetch_add(delta, std::memory_order_relaxed) + delta;
  if (allocation) {
    g_count.fetch_add(1, std::memory_order_relaxed);
    int64_t peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  if (t_hook) t_hook->on_allocation(ptr, delta, now);
}

// Large blocks (>= 2 MiB, capacity in whole huge pages) freed by tensors wait here for reuse, so a
// loop that makes the same big outputs again touches warm pages instead of faulting in fresh ones
// (64 MiB of fresh pages costs more than the add that fills them). Holds at most kCacheBytes.
class BlockCache {
 public:
  void* take(int64_t capacity) {
    std::lock_guard lock(mutex_);
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
      if (it->first != capacity) continue;
      void* p = it->second;
      bytes_ -= capacity;
      blocks_.erase(it);
      return p;
    }
    return nullptr;
  }
  // Keeps `p`, freeing the oldest blocks to stay within the limit. Runs in ~Storage: never throws.
  void give(void* p, int64_t capacity) {
    std::lock_guard lock(mutex_);
    if (capacity > kCacheBytes) {
      std::free(p);
      return;
    }
    while (bytes_ + capacity > kCacheBytes) {
      bytes_ -= blocks_.front().first;
      std::free(blocks_.front().second);
      blocks_.pop_front();
    }
    try {
      blocks_.emplace_back(capacity, p);
    } catch (const std::bad_alloc&) {
      std::free(p);  // no room to remember the block: release it instead
      return;
    }
    bytes_ += capacity;
  }
  void release_all() {
    std::lock_guard lock(mutex_);
    for (const auto& [capacity, p] : blocks_) std::free(p);
    blocks_.clear();
    bytes_ = 0;
  }

 private:
  std::mutex mutex_;
  std::deque<std::pair<int64_t, void*>> blocks_;  // (capacity, block), oldest first
  int64_t bytes_ = 0;
};

// Never destroyed, so tensors that outlive static destruction can still return their blocks.
BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache;
  return *cache;
}

int64_t huge_capacity(int64_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// Large blocks start on a huge-page boundary and ask for transparent huge pages: fresh 64 MiB then
// takes 32 page faults instead of 16384, and freeing it skips most TLB shootdowns.
void* allocate_huge(int64_t capacity) {
  if (void* p = block_cache().take(capacity)) return p;
  void* p = nullptr;
  if (posix_memalign(&p, kHugePage, static_cast<size_t>(capacity)) != 0) {
    block_cache().release_all();  // memory parked in the cache is better spent here
    if (posix_memalign(&p, kHugePage, static_cast<size_t>(capacity)) != 0) return nullptr;
  }
  madvise(p, static_cast<size_t>(capacity), MADV_HUGEPAGE);  // only a hint: failure is harmless
  return p;
}

}  // namespace

AllocatorStats allocator_stats() {
  return {g_in_use.load(), g_peak.load(), g_count.load()};
}

void reset_peak_bytes() { g_peak.store(g_in_use.load()); }

AllocationHook* set_allocation_hook(AllocationHook* hook) {
  AllocationHook* previous = t_hook;
  t_hook = hook;
  return previous;
}

std::shared_ptr<Storage> Storage::allocate(int64_t bytes) {
  TL_CHECK(bytes >= 0, "allocate: negative byte count ", bytes);
  TL_CHECK(bytes <= INT64_MAX - kHugePage, "allocate: cannot allocate ", bytes, " bytes");
  void* p = nullptr;
  if (bytes >= kHugePage) {
    p = allocate_huge(huge_capacity(bytes));
  } else if (posix_memalign(&p, kAlignment, static_cast<size_t>(std::max<int64_t>(bytes, 1))) != 0) {
    p = nullptr;
  }
  TL_CHECK(p != nullptr, "allocate: out of memory allocating ", bytes, " bytes (", g_in_use.load(),
           " bytes already in use)");
  account(p, bytes, true);
  return std::shared_ptr<Storage>(new Storage(p, bytes, true, nullptr));
}

std::shared_ptr<Storage> Storage::wrap(void* data, int64_t bytes, std::shared_ptr<void> keep_alive) {
  return std::shared_ptr<Storage>(new Storage(data, bytes, false, std::move(keep_alive)));
}

Storage::Storage(void* data, int64_t bytes, bool owned, std::shared_ptr<void> keep_alive)
    : data_(data), nbytes_(bytes), owned_(owned), keep_alive_(std::move(keep_alive)) {}

Storage::~Storage() {
  if (!owned_) return;
  account(data_, -nbytes_, false);
  if (nbytes_ >= kHugePage) {
    block_cache().give(data_, huge_capacity(nbytes_));
  } else {
    std::free(data_);
  }
}

}  // namespace tl
