// core/storage.cpp — aligned allocation with counters; failure is a tl::Error, never bad_alloc.
// Counters and hooks see the bytes tensors hold; large freed blocks may wait in a bounded cache.
// A request is reserved against the allocation limit before any memory is asked for.
#include "core/storage.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <new>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"

namespace tl {
namespace {

constexpr int64_t kAlignment = 64;
constexpr int64_t kHugePage = int64_t{2} << 20;
constexpr int64_t kCacheBytes = int64_t{256} << 20;
std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_count{0};
constexpr int64_t kDefaultLimit = -1;  // g_limit's value until set_allocation_limit: physical memory
std::atomic<int64_t> g_limit{kDefaultLimit};
thread_local AllocationHook* t_hook = nullptr;

// Read once: the default limit must not change under a running program.
int64_t physical_memory() {
  static const int64_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    int64_t total = 0;
    if (pages <= 0 || page <= 0 || __builtin_mul_overflow(int64_t{pages}, int64_t{page}, &total)) return INT64_MAX;
    return total;
  }();
  return bytes;
}

// Adds `bytes` to bytes_in_use unless that passes the limit (a zero-byte request never does); returns
// the new total. Reserving before allocating keeps threads racing for the last bytes within the limit.
int64_t reserve(int64_t bytes) {
  const int64_t limit = allocation_limit();
  int64_t in_use = g_in_use.load(std::memory_order_relaxed);
  do {
    TL_CHECK(bytes == 0 || bytes <= limit - in_use, "allocate: ", bytes, " bytes would exceed the allocation limit of ",
             limit, " bytes (", in_use, " bytes in use; see tl::set_allocation_limit)");
  } while (!g_in_use.compare_exchange_weak(in_use, in_use + bytes, std::memory_order_relaxed));
  return in_use + bytes;
}

// Counts a reserved request that got its memory and tells the hook; `in_use` includes it.
void record_allocation(const void* ptr, int64_t bytes, int64_t in_use) {
  g_count.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (in_use > peak && !g_peak.compare_exchange_weak(peak, in_use, std::memory_order_relaxed)) {
  }
  if (t_hook) t_hook->on_allocation(ptr, bytes, in_use);
}

void record_release(const void* ptr, int64_t bytes) {
  const int64_t in_use = g_in_use.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
  if (t_hook) t_hook->on_allocation(ptr, -bytes, in_use);
}

// Large blocks (>= 2 MiB, capacity in whole huge pages) freed by tensors wait here for reuse, so a
// loop that makes the same big outputs again touches warm pages instead of faulting in fresh ones
// (64 MiB of fresh pages costs more than the add that fills them; a training step frees and makes
// again hundreds of MiB of activations). The cache holds what brings the large blocks in use back to
// their peak, plus kCacheBytes: blocks in use and cached together never pass peak + kCacheBytes, the
// bound a fixed kCacheBytes cache had, while a loop whose first pass differs from the others (optimizer
// state made once) still finds every block it needs next time.
class BlockCache {
 public:
  void* take(int64_t capacity) {
    std::lock_guard lock(mutex_);
    held_ += capacity;
    for (auto it = blocks_.begin(); it != blocks_.end(); ++it) {
      if (it->first != capacity) continue;
      void* p = it->second;
      bytes_ -= capacity;
      blocks_.erase(it);
      return p;
    }
    peak_held_ = std::max(peak_held_, held_);
    trim();  // blocks of other sizes give way to the new one
    return nullptr;
  }
  // A block take() counted was not allocated after all.
  void untake(int64_t capacity) {
    std::lock_guard lock(mutex_);
    held_ -= capacity;
  }
  // Keeps `p`, freeing the oldest blocks to stay within the bound. Runs in ~Storage: never throws.
  void give(void* p, int64_t capacity) {
    std::lock_guard lock(mutex_);
    held_ -= capacity;
    try {
      blocks_.emplace_back(capacity, p);
    } catch (const std::bad_alloc&) {
      std::free(p);  // no room to remember the block: release it instead
      return;
    }
    bytes_ += capacity;
    trim();
  }
  int64_t bytes() {
    std::lock_guard lock(mutex_);
    return bytes_;
  }
  // The peak restarts from the blocks in use now (reset_peak_bytes), trimming the cache to match.
  void reset_peak() {
    std::lock_guard lock(mutex_);
    peak_held_ = held_;
    trim();
  }
  void release_all() {
    std::lock_guard lock(mutex_);
    for (const auto& [capacity, p] : blocks_) std::free(p);
    blocks_.clear();
    bytes_ = 0;
  }

 private:
  void trim() {
    const int64_t bound = peak_held_ - held_ + kCacheBytes;
    while (bytes_ > bound) {
      bytes_ -= blocks_.front().first;
      std::free(blocks_.front().second);
      blocks_.pop_front();
    }
  }

  std::mutex mutex_;
  std::deque<std::pair<int64_t, void*>> blocks_;  // (capacity, block), oldest first
  int64_t bytes_ = 0;                             // cached
  int64_t held_ = 0;                              // large blocks handed out and not yet given back
  int64_t peak_held_ = 0;
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
    if (posix_memalign(&p, kHugePage, static_cast<size_t>(capacity)) != 0) {
      block_cache().untake(capacity);
      return nullptr;
    }
  }
  madvise(p, static_cast<size_t>(capacity), MADV_HUGEPAGE);  // only a hint: failure is harmless
  return p;
}

// nullptr when the system has no memory for `bytes`.
void* allocate_block(int64_t bytes) {
  if (bytes >= kHugePage) return allocate_huge(huge_capacity(bytes));
  void* p = nullptr;
  return posix_memalign(&p, kAlignment, static_cast<size_t>(std::max<int64_t>(bytes, 1))) == 0 ? p : nullptr;
}

void free_block(void* p, int64_t bytes) {
  if (bytes >= kHugePage) {
    block_cache().give(p, huge_capacity(bytes));
  } else {
    std::free(p);
  }
}

}  // namespace

AllocatorStats allocator_stats() {
  return {g_in_use.load(), g_peak.load(), g_count.load(), block_cache().bytes()};
}

void reset_peak_bytes() {
  g_peak.store(g_in_use.load());
  block_cache().reset_peak();
}

void empty_cache() { block_cache().release_all(); }

int64_t set_allocation_limit(int64_t bytes) {
  TL_CHECK(bytes >= 0, "set_allocation_limit: expected a non-negative number of bytes, got ", bytes);
  const int64_t previous = g_limit.exchange(bytes);
  return previous == kDefaultLimit ? physical_memory() : previous;
}

int64_t allocation_limit() {
  const int64_t limit = g_limit.load(std::memory_order_relaxed);
  return limit == kDefaultLimit ? physical_memory() : limit;
}

AllocationHook* set_allocation_hook(AllocationHook* hook) {
  AllocationHook* previous = t_hook;
  t_hook = hook;
  return previous;
}

std::shared_ptr<Storage> Storage::allocate(int64_t bytes) {
  TL_CHECK(bytes >= 0, "allocate: negative byte count ", bytes);
  TL_CHECK(bytes <= INT64_MAX - kHugePage, "allocate: cannot allocate ", bytes, " bytes");
  const int64_t in_use = reserve(bytes);
  void* p = allocate_block(bytes);
  Storage* storage = p ? new (std::nothrow) Storage(p, bytes, true, nullptr) : nullptr;
  if (storage == nullptr) {
    if (p) free_block(p, bytes);
    g_in_use.fetch_sub(bytes, std::memory_order_relaxed);
    detail::throw_error(detail::str_cat("allocate: out of memory allocating ", bytes, " bytes (", in_use - bytes,
                                        " bytes already in use)"));
  }
  record_allocation(p, bytes, in_use);
  try {
    return std::shared_ptr<Storage>(storage);
  } catch (const std::bad_alloc&) {  // shared_ptr deleted the storage, which released and uncounted it
    detail::throw_error(detail::str_cat("allocate: out of memory for the bookkeeping of ", bytes, " bytes"));
  }
}

std::shared_ptr<Storage> Storage::wrap(void* data, int64_t bytes, std::shared_ptr<void> keep_alive) {
  TL_CHECK(bytes >= 0, "wrap: negative byte count ", bytes);
  TL_CHECK(data != nullptr || bytes == 0, "wrap: null data for ", bytes, " bytes");
  return std::shared_ptr<Storage>(new Storage(data, bytes, false, std::move(keep_alive)));
}

Storage::Storage(void* data, int64_t bytes, bool owned, std::shared_ptr<void> keep_alive)
    : data_(data), nbytes_(bytes), owned_(owned), keep_alive_(std::move(keep_alive)) {}

Storage::~Storage() {
  if (!owned_) return;
  record_release(data_, nbytes_);
  free_block(data_, nbytes_);
}

}  // namespace tl
