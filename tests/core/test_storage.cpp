// tests/core/test_storage.cpp — aligned allocation, exact byte accounting, the per-thread hook,
// and impossible allocations surfacing as tl::Error (never std::bad_alloc, never a crash).
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <thread>
#include <vector>

#include "core/storage.h"
#include "core/tensor.h"

namespace tl {
namespace {

struct Event {
  const void* ptr;
  int64_t delta;
  int64_t in_use;
};

struct RecordingHook : AllocationHook {
  std::vector<Event> events;
  void on_allocation(const void* ptr, int64_t bytes_delta, int64_t bytes_in_use) override {
    events.push_back({ptr, bytes_delta, bytes_in_use});
  }
};

// Installs a hook for one scope and restores whatever was there before.
class ScopedHook {
 public:
  explicit ScopedHook(AllocationHook* hook) : previous_(set_allocation_hook(hook)) {}
  ~ScopedHook() { set_allocation_hook(previous_); }

 private:
  AllocationHook* previous_;
};

TEST_CASE("storage: every allocation is 64-byte aligned and keeps its requested size") {
  std::vector<std::shared_ptr<Storage>> keep;
  for (int64_t bytes : {0, 1, 3, 63, 64, 65, 100, 4097, 1 << 20}) {
    keep.push_back(Storage::allocate(bytes));
    INFO("bytes ", bytes);
    CHECK(keep.back()->data() != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(keep.back()->data()) % 64 == 0);
    CHECK(keep.back()->nbytes() == bytes);
  }
}

TEST_CASE("storage: blocks of 2 MiB and more start on a huge-page boundary") {
  for (int64_t bytes : {int64_t{2} << 20, (int64_t{2} << 20) + 4, int64_t{64} << 20}) {
    auto s = Storage::allocate(bytes);
    CHECK(reinterpret_cast<uintptr_t>(s->data()) % (uintptr_t{2} << 20) == 0);
    CHECK(s->nbytes() == bytes);
  }
}

TEST_CASE("storage: a freed large block is reused, yet counters and hooks see every allocation") {
  const int64_t bytes = (int64_t{8} << 20) + 12;
  const AllocatorStats base = allocator_stats();
  RecordingHook hook;
  ScopedHook scoped(&hook);
  const void* first = Storage::allocate(bytes)->data();  // freed at once: parked in the cache
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  auto again = Storage::allocate(bytes);
  CHECK(again->data() == first);
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use + bytes);
  CHECK(allocator_stats().allocations == base.allocations + 2);
  REQUIRE(hook.events.size() == 3);
  CHECK(hook.events[0].delta == bytes);
  CHECK(hook.events[1].delta == -bytes);
  CHECK(hook.events[2].delta == bytes);
}

TEST_CASE("storage: a zero-byte allocation counts as an allocation of 0 bytes") {
  const AllocatorStats base = allocator_stats();
  auto empty = Storage::allocate(0);
  CHECK(allocator_stats().allocations == base.allocations + 1);
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
}

TEST_CASE("storage: counters move by exactly the bytes allocated and return to the baseline") {
  const AllocatorStats base = allocator_stats();
  {
    auto a = Storage::allocate(1000);
    AllocatorStats now = allocator_stats();
    CHECK(now.bytes_in_use == base.bytes_in_use + 1000);
    CHECK(now.allocations == base.allocations + 1);
    CHECK(now.peak_bytes >= now.bytes_in_use);
    {
      const Tensor t = Tensor::allocate({3, 5}, DType::Float64);  // 120 bytes
      now = allocator_stats();
      CHECK(now.bytes_in_use == base.bytes_in_use + 1120);
      CHECK(now.allocations == base.allocations + 2);
    }
    CHECK(allocator_stats().bytes_in_use == base.bytes_in_use + 1000);
  }
  const AllocatorStats after = allocator_stats();
  CHECK(after.bytes_in_use == base.bytes_in_use);
  CHECK(after.allocations == base.allocations + 2);  // a count of allocations made, not live ones
}

TEST_CASE("storage: peak_bytes records the high-water mark since the last reset") {
  reset_peak_bytes();
  const AllocatorStats base = allocator_stats();
  CHECK(base.peak_bytes == base.bytes_in_use);
  {
    auto a = Storage::allocate(5000);
    auto b = Storage::allocate(3000);
  }
  auto c = Storage::allocate(2000);
  CHECK(allocator_stats().peak_bytes == base.bytes_in_use + 8000);
  reset_peak_bytes();
  CHECK(allocator_stats().peak_bytes == base.bytes_in_use + 2000);
}

TEST_CASE("storage: wrapped memory is not counted and not freed by the storage") {
  std::vector<float> buffer(256, 1.0f);
  const AllocatorStats base = allocator_stats();
  RecordingHook hook;
  {
    ScopedHook scoped(&hook);
    auto s = Storage::wrap(buffer.data(), 1024, nullptr);
    CHECK(s->data() == buffer.data());
    CHECK(s->nbytes() == 1024);
  }
  CHECK(hook.events.empty());
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  CHECK(allocator_stats().allocations == base.allocations);
  CHECK(buffer[255] == 1.0f);
}

TEST_CASE("storage: the hook sees +bytes and -bytes for its own thread's allocations only") {
  RecordingHook hook;
  const void* ptr = nullptr;
  {
    ScopedHook scoped(&hook);
    const int64_t in_use = allocator_stats().bytes_in_use;
    {
      auto s = Storage::allocate(777);
      ptr = s->data();
      std::thread other([] { auto unseen = Storage::allocate(4096); });
      other.join();
    }
    REQUIRE(hook.events.size() == 2);
    CHECK(hook.events[0].ptr == ptr);
    CHECK(hook.events[0].delta == 777);
    CHECK(hook.events[0].in_use >= in_use + 777);
    CHECK(hook.events[1].ptr == ptr);
    CHECK(hook.events[1].delta == -777);
  }
  auto after = Storage::allocate(16);  // uninstalled: nothing more is recorded
  CHECK(hook.events.size() == 2);
}

TEST_CASE("storage: set_allocation_hook returns the previous hook") {
  RecordingHook first, second;
  AllocationHook* original = set_allocation_hook(&first);
  CHECK(set_allocation_hook(&second) == &first);
  CHECK(set_allocation_hook(original) == &second);
}

TEST_CASE("storage: an impossible allocation is a tl::Error and changes no counter") {
  const AllocatorStats base = allocator_stats();
  RecordingHook hook;
  ScopedHook scoped(&hook);
  CHECK_THROWS_WITH_AS(Storage::allocate(int64_t{1} << 62),
                       doctest::Contains("allocate: out of memory allocating 4611686018427387904 bytes"), Error);
  CHECK_THROWS_WITH_AS(Storage::allocate(std::numeric_limits<int64_t>::max()),
                       "allocate: cannot allocate 9223372036854775807 bytes", Error);
  CHECK_THROWS_WITH_AS(Storage::allocate(-8), "allocate: negative byte count -8", Error);
  CHECK_THROWS_WITH_AS(Tensor::allocate({int64_t{1} << 30, int64_t{1} << 30}, DType::Float32),
                       doctest::Contains("out of memory allocating 4611686018427387904 bytes"), Error);
  CHECK(hook.events.empty());
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  CHECK(allocator_stats().allocations == base.allocations);
}

}  // namespace
}  // namespace tl
