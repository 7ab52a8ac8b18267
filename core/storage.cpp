// core/storage.cpp — aligned allocation with counters; failure is a tl::Error, never bad_alloc.
#include "core/storage.h"

#include <atomic>
#include <cstdlib>

#include "core/error.h"

namespace tl {
namespace {

constexpr int64_t kAlignment = 64;
std::atomic<int64_t> g_in_use{0};
std::atomic<int64_t> g_peak{0};
std::atomic<int64_t> g_count{0};
thread_local AllocationHook* t_hook = nullptr;

void account(const void* ptr, int64_t delta) {
  const int64_t now = g_in_use.fetch_add(delta, std::memory_order_relaxed) + delta;
  if (delta > 0) {
    g_count.fetch_add(1, std::memory_order_relaxed);
    int64_t peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  if (t_hook) t_hook->on_allocation(ptr, delta, now);
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
  // Round up so aligned_alloc's size is a multiple of the alignment; never request 0 bytes.
  TL_CHECK(bytes <= INT64_MAX - kAlignment, "allocate: cannot allocate ", bytes, " bytes");
  const int64_t rounded = std::max<int64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  void* p = std::aligned_alloc(kAlignment, static_cast<size_t>(rounded));
  TL_CHECK(p != nullptr, "allocate: out of memory allocating ", bytes, " bytes (",
           g_in_use.load(), " bytes already in use)");
  account(p, bytes);
  return std::shared_ptr<Storage>(new Storage(p, bytes, true, nullptr));
}

std::shared_ptr<Storage> Storage::wrap(void* data, int64_t bytes, std::shared_ptr<void> keep_alive) {
  return std::shared_ptr<Storage>(new Storage(data, bytes, false, std::move(keep_alive)));
}

Storage::Storage(void* data, int64_t bytes, bool owned, std::shared_ptr<void> keep_alive)
    : data_(data), nbytes_(bytes), owned_(owned), keep_alive_(std::move(keep_alive)) {}

Storage::~Storage() {
  if (!owned_) return;
  account(data_, -nbytes_);
  std::free(data_);
}

}  // namespace tl
