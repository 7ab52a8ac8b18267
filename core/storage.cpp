// core/storage.cpp — aligned allocation with counters; failure is a tl::Error, never bad_alloc.
// Counters and hooks see the bytes tensors hold; freed blocks of 64 KiB and more may wait in a bounded cache,
// and those below 2 MiB share huge-page chunks.
// A request is reserved against the allocation limit before any memory is asked for.
#include "core/storage.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <list>
#include <mutex>
#include <new>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "core/hook_stack.h"
#include "core/huge_page_chunks.h"

namespace tl {
namespace {

constexpr int64_t kAlignment = 64;
constexpr int64_t kPage = detail::HugePageChunks::kPageBytes;  // capacities below kHugePage are chunk pages
constexpr int64_t kCachedMin = int64_t{64} << 10;
constexpr int64_t kHugePage = detail::HugePageChunks::kChunkBytes;
constexpr int64_t kCacheBytes = int64_t{256} << 20;
std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_count{0};
constexpr int64_t kDefaultLimit = -1;  // g_limit's value until set_allocation_limit: physical memory
std::atomic<int64_t> g_limit{kDefaultLimit};
thread_local HookStack<AllocationHook> t_hooks;

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

void notify(const void* ptr, int64_t bytes_delta, int64_t in_use) {
  if (!t_hooks.empty()) [[unlikely]]
    t_hooks.for_each([&](AllocationHook& h) { h.on_allocation(ptr, bytes_delta, in_use); });
}

// Counts a reserved request that got its memory and tells the hooks; `in_use` includes it.
void record_allocation(const void* ptr, int64_t bytes, int64_t in_use) {
  g_count.fetch_add(1, std::memory_order_relaxed);
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (in_use > peak && !g_peak.compare_exchange_weak(peak, in_use, std::memory_order_relaxed)) {
  }
  notify(ptr, bytes, in_use);
}

void record_release(const void* ptr, int64_t bytes) {
  const int64_t in_use = g_in_use.fetch_sub(bytes, std::memory_order_relaxed) - bytes;
  notify(ptr, -bytes, in_use);
}

// Blocks of 64 KiB up to 2 MiB share huge-page chunks: a fresh 4 KiB page costs a fault each (~50 us on a
// loaded virtual machine), and such blocks (smaller weights, packed weights, batch-1 activations) took
// ResNet18's first inference from 2,800 faults to 5,900 on 4 KiB pages. Never destroyed, as the block cache.
detail::HugePageChunks& chunks() {
  static auto* c = new detail::HugePageChunks(detail::huge_page_source());
  return *c;
}

// Returns a block of `capacity` (see cached_capacity) to the system, or to its chunk.
void release_memory(void* p, int64_t capacity) {
  if (capacity < kHugePage) {
    chunks().release(p, capacity);
  } else {
    std::free(p);
  }
}

// Blocks of 64 KiB and more freed by tensors wait here for reuse (capacity in whole pages, in whole
// huge pages from 2 MiB), so a loop that makes the same outputs again touches warm pages instead of
// faulting in fresh ones: 64 MiB of fresh pages costs more than the add that fills them, a training
// step frees and makes again hundreds of MiB of activations, and a small model's step (a 32x16x8x8
// activation is 128 KiB) otherwise meets glibc trimming its heap and mapping such blocks afresh. The
// cache holds what brings the cached-size blocks in use back to their peak, plus kCacheBytes: blocks in
// use and cached together never pass peak + kCacheBytes, while a loop whose first pass differs from the
// others (optimizer state made once) still finds every block it needs next time. A request takes the
// block of its capacity freed last (its pages are the likeliest to be in cache); trimming frees the
// oldest.
class BlockCache {
 public:
  void* take(int64_t capacity) {
    std::lock_guard lock(mutex_);
    held_ += capacity;
    if (auto it = by_capacity_.find(capacity); it != by_capacity_.end() && !it->second.empty()) {
      const auto block = it->second.back();
      it->second.pop_back();
      if (it->second.empty()) by_capacity_.erase(it);
      void* p = block->second;
      bytes_ -= capacity;
      age_.erase(block);
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
      std::vector<Blocks::iterator>& same = by_capacity_[capacity];
      same.reserve(same.size() + 1);  // so that the push_back below cannot fail after age_ grew
      age_.emplace_back(capacity, p);
      same.push_back(std::prev(age_.end()));
    } catch (const std::bad_alloc&) {
      release_memory(p, capacity);  // no room to remember the block: release it instead
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
    for (const auto& [capacity, p] : age_) release_memory(p, capacity);
    age_.clear();
    by_capacity_.clear();
    bytes_ = 0;
  }

 private:
  using Blocks = std::list<std::pair<int64_t, void*>>;  // (capacity, block), oldest first

  void trim() {
    const int64_t bound = peak_held_ - held_ + kCacheBytes;
    while (bytes_ > bound) {
      const auto oldest = age_.begin();
      const auto same = by_capacity_.find(oldest->first);
      same->second.erase(same->second.begin());  // the oldest block of a capacity is its first
      if (same->second.empty()) by_capacity_.erase(same);
      bytes_ -= oldest->first;
      release_memory(oldest->second, oldest->first);
      age_.erase(oldest);
    }
  }

  std::mutex mutex_;
  Blocks age_;
  // The cached blocks of each capacity, oldest first. A key goes with its last block, so a program
  // that meets many sizes keeps no entries for the ones it no longer holds.
  std::unordered_map<int64_t, std::vector<Blocks::iterator>> by_capacity_;
  int64_t bytes_ = 0;  // cached
  int64_t held_ = 0;  // cached-size blocks handed out and not yet given back
  int64_t peak_held_ = 0;
};

// Never destroyed, so tensors that outlive static destruction can still return their blocks.
BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache;
  return *cache;
}

// The capacity a block of `bytes` is cached under (0: not cached): whole pages from 64 KiB, whole huge
// pages from 2 MiB.
int64_t cached_capacity(int64_t bytes) {
  const int64_t unit = bytes >= kHugePage ? kHugePage : bytes >= kCachedMin ? kPage : 0;
  return unit == 0 ? 0 : (bytes + unit - 1) / unit * unit;
}

// A new block of `capacity` for `bytes`, nullptr when the system has none: from 2 MiB on, starting on a
// huge-page boundary, with the whole huge pages `bytes` fills on transparent huge pages (fresh 64 MiB then
// takes 32 page faults instead of 16384, and freeing it skips most TLB shootdowns) and the rest of the
// capacity on 4 KiB pages, faulted only where written (2.3 MiB of data then makes 2.3 MiB fresh, not 4);
// below 2 MiB, pages of a huge-page chunk.
void* new_memory(int64_t capacity, int64_t bytes) {
  if (capacity < kHugePage) return chunks().allocate(capacity);
  void* p = nullptr;
  if (posix_memalign(&p, static_cast<size_t>(kHugePage), static_cast<size_t>(capacity)) != 0) return nullptr;
  madvise(p, static_cast<size_t>(bytes / kHugePage * kHugePage), MADV_HUGEPAGE);  // only a hint: failure is harmless
  return p;
}

// A block of `capacity` for `bytes` from the cache, or a new one.
void* allocate_cached(int64_t capacity, int64_t bytes) {
  if (void* p = block_cache().take(capacity)) return p;
  void* p = new_memory(capacity, bytes);
  if (p == nullptr) {
    block_cache().release_all();  // memory parked in the cache is better spent here
    p = new_memory(capacity, bytes);
    if (p == nullptr) block_cache().untake(capacity);
  }
  return p;
}

// A block below kCachedMin: from malloc, whose per-thread cache hands a freed size straight back, aligned by
// hand with malloc's own pointer kept in the word before it. posix_memalign bypasses that cache and splits a
// larger chunk on every call: a loop of 1-element ops then spent its time consolidating glibc's free lists.
void* allocate_small(int64_t bytes) {
  void* raw = std::malloc(static_cast<size_t>(bytes + kAlignment));
  if (raw == nullptr) return nullptr;
  const auto first = reinterpret_cast<uintptr_t>(raw) + sizeof(void*);
  void* p = reinterpret_cast<void*>((first + kAlignment - 1) / kAlignment * kAlignment);
  static_cast<void**>(p)[-1] = raw;
  return p;
}

void free_small(void* p) { std::free(static_cast<void**>(p)[-1]); }

// nullptr when the system has no memory for `bytes`.
void* allocate_block(int64_t bytes) {
  if (const int64_t capacity = cached_capacity(bytes)) return allocate_cached(capacity, bytes);
  return allocate_small(bytes);
}

void free_block(void* p, int64_t bytes) {
  if (const int64_t capacity = cached_capacity(bytes)) {
    block_cache().give(p, capacity);
  } else {
    free_small(p);
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

bool fits_allocation_limit(int64_t count, int64_t element_bytes) {
  int64_t bytes = 0;
  return count >= 0 && !__builtin_mul_overflow(count, element_bytes, &bytes) &&
         bytes <= allocation_limit() - g_in_use.load(std::memory_order_relaxed);
}

void push_allocation_hook(AllocationHook* hook) { t_hooks.push(hook, "push_allocation_hook"); }

void pop_allocation_hook(AllocationHook* hook) { t_hooks.pop(hook, "pop_allocation_hook"); }

AllocationHook* set_allocation_hook(AllocationHook* hook) {
  AllocationHook* previous = t_hooks.top();
  if (previous) t_hooks.pop(previous, "set_allocation_hook");
  if (hook) t_hooks.push(hook, "set_allocation_hook");
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
