// tests/core/test_storage.cpp — aligned allocation, exact byte accounting, the block cache and
// empty_cache, the per-thread hook, the allocation limit, and impossible allocations surfacing as
// tl::Error (never std::bad_alloc, never a crash).
#include <doctest/doctest.h>

#include <algorithm>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/storage.h"
#include "core/tensor.h"
#include "tests/support/allocation_limit.h"

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

// Installs a hook for one scope, on top of any installed before.
using ScopedHook = AllocationHookGuard;

using ScopedLimit = testing::ScopedAllocationLimit;

// The message a request of `bytes` gets at the current limit and bytes in use.
std::string limit_message(int64_t bytes) {
  return detail::str_cat("allocate: ", bytes, " bytes would exceed the allocation limit of ", allocation_limit(),
                         " bytes (", allocator_stats().bytes_in_use, " bytes in use; see tl::set_allocation_limit)");
}

// The kernel's count of physical memory, read independently of sysconf: MemTotal in /proc/meminfo.
int64_t mem_total_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  int64_t kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024;
  return -1;
}

TEST_CASE("storage: every allocation is 64-byte aligned, keeps its requested size and owns all of it") {
  std::vector<std::shared_ptr<Storage>> keep;
  for (int64_t bytes : {0, 1, 3, 63, 64, 65, 100, 4097, 65535, 65536, 1 << 20}) {
    keep.push_back(Storage::allocate(bytes));
    INFO("bytes ", bytes);
    CHECK(keep.back()->data() != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(keep.back()->data()) % 64 == 0);
    CHECK(keep.back()->nbytes() == bytes);
    std::memset(keep.back()->data(), 0xA5, static_cast<size_t>(bytes));  // the sanitizer build checks the bounds
  }
  for (const auto& s : keep)
    CHECK(std::all_of(static_cast<const unsigned char*>(s->data()),
                      static_cast<const unsigned char*>(s->data()) + s->nbytes(), [](unsigned char c) { return c == 0xA5; }));
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

TEST_CASE("storage: every installed hook sees each allocation, and one removed sees no more") {
  RecordingHook outer, inner;
  {
    ScopedHook outer_scope(&outer);
    {
      ScopedHook inner_scope(&inner);
      auto s = Storage::allocate(333);
    }
    auto t = Storage::allocate(444);
  }
  REQUIRE(inner.events.size() == 2);
  CHECK(inner.events[0].delta == 333);
  CHECK(inner.events[1].delta == -333);
  REQUIRE(outer.events.size() == 4);
  CHECK(outer.events[0].delta == 333);
  CHECK(outer.events[1].delta == -333);
  CHECK(outer.events[2].delta == 444);
  CHECK(outer.events[3].delta == -444);
}

TEST_CASE("storage: removing a hook that is not installed is an internal error, and changes nothing") {
  RecordingHook installed, never;
  ScopedHook scoped(&installed);
  CHECK_THROWS_WITH_AS(pop_allocation_hook(&never), doctest::Contains("pop_allocation_hook: hook not installed on this thread"),
                       Error);
  auto s = Storage::allocate(16);
  CHECK(installed.events.size() == 1);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: set_allocation_hook replaces the topmost hook and returns it, for one more version") {
  RecordingHook first, second;
  AllocationHook* original = set_allocation_hook(&first);
  CHECK(set_allocation_hook(&second) == &first);
  CHECK(set_allocation_hook(original) == &second);
}
#pragma GCC diagnostic pop

TEST_CASE("storage: an impossible allocation is a tl::Error and changes no counter") {
  const AllocatorStats base = allocator_stats();
  RecordingHook hook;
  ScopedHook scoped(&hook);
  CHECK_THROWS_WITH_AS(Storage::allocate(int64_t{1} << 62), limit_message(int64_t{1} << 62).c_str(), Error);
  CHECK_THROWS_WITH_AS(Storage::allocate(std::numeric_limits<int64_t>::max()),
                       "allocate: cannot allocate 9223372036854775807 bytes", Error);
  CHECK_THROWS_WITH_AS(Storage::allocate(-8), "allocate: negative byte count -8", Error);
  {
    ScopedLimit unlimited(std::numeric_limits<int64_t>::max());  // the system itself must refuse
    CHECK_THROWS_WITH_AS(Storage::allocate(int64_t{1} << 62),
                         doctest::Contains("allocate: out of memory allocating 4611686018427387904 bytes"), Error);
    CHECK_THROWS_WITH_AS(Tensor::allocate({int64_t{1} << 30, int64_t{1} << 30}, DType::Float32),
                         doctest::Contains("out of memory allocating 4611686018427387904 bytes"), Error);
  }
  CHECK(hook.events.empty());
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  CHECK(allocator_stats().allocations == base.allocations);
}

TEST_CASE("storage: the default allocation limit is the machine's physical memory") {
  const int64_t mem_total = mem_total_bytes();
  REQUIRE(mem_total > 0);
  CHECK(allocation_limit() == mem_total);
}

TEST_CASE("storage: set_allocation_limit returns the previous limit and refuses a negative one") {
  const int64_t original = allocation_limit();
  CHECK(set_allocation_limit(int64_t{1} << 30) == original);
  CHECK(allocation_limit() == int64_t{1} << 30);
  CHECK(set_allocation_limit(original) == int64_t{1} << 30);
  CHECK_THROWS_WITH_AS(set_allocation_limit(-1), "set_allocation_limit: expected a non-negative number of bytes, got -1",
                       Error);
  CHECK(allocation_limit() == original);
}

TEST_CASE("storage: the limit caps the bytes in use, not each request, and is checked before allocating") {
  const AllocatorStats base = allocator_stats();
  ScopedLimit limit(base.bytes_in_use + (int64_t{1} << 20));
  RecordingHook hook;
  ScopedHook scoped(&hook);
  {
    auto exactly = Storage::allocate(int64_t{1} << 20);  // reaches the limit, does not pass it
    CHECK(allocator_stats().bytes_in_use == allocation_limit());
    CHECK_THROWS_WITH_AS(Storage::allocate(1), limit_message(1).c_str(), Error);
    CHECK(Storage::allocate(0)->nbytes() == 0);  // an empty tensor is always possible
  }
  auto half = Storage::allocate(int64_t{1} << 19);
  CHECK_THROWS_WITH_AS(Storage::allocate((int64_t{1} << 19) + 64), limit_message((int64_t{1} << 19) + 64).c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(Tensor::allocate({3, 1 << 16}, DType::Float32),
                       ("tensor of size [3, 65536] and dtype torch.float32: " + limit_message(3 << 18)).c_str(), Error);
  REQUIRE(hook.events.size() == 5);  // +1 MiB, +0, -0, -1 MiB, +512 KiB: the refused requests left no trace
  CHECK(hook.events[4].delta == int64_t{1} << 19);
  CHECK(allocator_stats().allocations == base.allocations + 3);
}

TEST_CASE("storage: threads racing for the last bytes under the limit get exactly what fits") {
  constexpr int kThreads = 4, kBlocks = 10;
  constexpr int64_t kBlock = int64_t{1} << 16;
  reset_peak_bytes();
  const AllocatorStats base = allocator_stats();
  ScopedLimit limit(base.bytes_in_use + kBlocks * kBlock);
  std::atomic<int> granted{0}, refused{0};
  std::vector<std::vector<std::shared_ptr<Storage>>> kept(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kBlocks; ++i) {
        try {
          kept[static_cast<size_t>(t)].push_back(Storage::allocate(kBlock));
          ++granted;
        } catch (const Error&) {
          ++refused;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(granted == kBlocks);
  CHECK(refused == kThreads * kBlocks - kBlocks);
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use + kBlocks * kBlock);
  CHECK(allocator_stats().peak_bytes <= allocation_limit());
}

TEST_CASE("storage: freed large blocks count as cached, never in use, until empty_cache releases them") {
  empty_cache();
  const AllocatorStats base = allocator_stats();
  REQUIRE(base.cached_bytes == 0);
  const int64_t bytes = (int64_t{6} << 20) + 1;  // held in whole 2 MiB pages: 8 MiB
  const void* first = Storage::allocate(bytes)->data();
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  CHECK(allocator_stats().cached_bytes == int64_t{8} << 20);
  {
    auto reused = Storage::allocate(bytes);
    CHECK(reused->data() == first);
    CHECK(allocator_stats().cached_bytes == 0);
    CHECK(allocator_stats().bytes_in_use == base.bytes_in_use + bytes);
    auto small = Storage::allocate(4096);  // blocks under 64 KiB go back to the system at once
  }
  CHECK(allocator_stats().cached_bytes == int64_t{8} << 20);
  empty_cache();
  CHECK(allocator_stats().cached_bytes == 0);
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  const auto live = Storage::allocate(bytes);  // empty_cache leaves live storages alone
  empty_cache();
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use + bytes);
  static_cast<char*>(live->data())[bytes - 1] = 1;
}

TEST_CASE("storage: freed blocks from 64 KiB are cached in whole pages, the last freed of a size reused first") {
  constexpr int64_t kKiB = 1024;
  empty_cache();
  const AllocatorStats base = allocator_stats();
  const int64_t bytes = 128 * kKiB + 1;  // a small model's activation: held in whole pages, 132 KiB
  const void* older = nullptr;
  const void* newer = nullptr;
  {
    auto a = Storage::allocate(bytes);
    auto b = Storage::allocate(bytes);
    CHECK(reinterpret_cast<uintptr_t>(a->data()) % 4096 == 0);
    older = a->data();
    newer = b->data();
    a.reset();
    CHECK(allocator_stats().cached_bytes == 132 * kKiB);
  }
  CHECK(allocator_stats().cached_bytes == 2 * 132 * kKiB);
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  {
    auto reused = Storage::allocate(bytes + 100);  // same capacity: the block freed last, still warm
    CHECK(reused->data() == newer);
    auto next = Storage::allocate(bytes);
    CHECK(next->data() == older);
    CHECK(allocator_stats().cached_bytes == 0);
    auto below = Storage::allocate(64 * kKiB - 1);  // under 64 KiB: back to the system at once
  }
  CHECK(allocator_stats().cached_bytes == 2 * 132 * kKiB);
  empty_cache();
  CHECK(allocator_stats().cached_bytes == 0);
}

TEST_CASE("storage: the cache keeps freed blocks up to the peak in use, and other sizes evict them") {
  constexpr int64_t kMiB = int64_t{1} << 20;
  empty_cache();
  reset_peak_bytes();
  std::vector<std::shared_ptr<Storage>> step;
  for (int i = 0; i < 75; ++i) step.push_back(Storage::allocate(4 * kMiB));  // 300 MiB, a training step's worth
  std::vector<const void*> addresses;
  for (const auto& s : step) addresses.push_back(s->data());
  step.clear();
  CHECK(allocator_stats().cached_bytes == 300 * kMiB);  // more than 256 MiB: all of it is below the peak
  for (int i = 0; i < 75; ++i) step.push_back(Storage::allocate(4 * kMiB));  // the next step reuses every block
  CHECK(allocator_stats().cached_bytes == 0);
  for (const auto& s : step) CHECK(std::find(addresses.begin(), addresses.end(), s->data()) != addresses.end());
  step.clear();
  // Blocks of another size miss: the cache gives way so that blocks in use and cached stay within
  // peak + 256 MiB.
  std::vector<std::shared_ptr<Storage>> other;
  for (int i = 0; i < 100; ++i) {
    other.push_back(Storage::allocate(6 * kMiB));
    const int64_t held = static_cast<int64_t>(other.size()) * 6 * kMiB;
    CHECK(held + allocator_stats().cached_bytes <= std::max<int64_t>(300 * kMiB, held) + 256 * kMiB);
  }
  CHECK(allocator_stats().cached_bytes == 256 * kMiB);  // past the old peak, 256 MiB of 4 MiB blocks stay
  other.clear();
  empty_cache();
}

TEST_CASE("storage: wrap refuses a negative size and null data") {
  CHECK_THROWS_WITH_AS(Storage::wrap(nullptr, -4, nullptr), "wrap: negative byte count -4", Error);
  CHECK_THROWS_WITH_AS(Storage::wrap(nullptr, 16, nullptr), "wrap: null data for 16 bytes", Error);
  CHECK(Storage::wrap(nullptr, 0, nullptr)->nbytes() == 0);
}

}  // namespace
}  // namespace tl
