// tests/core/test_parallel.cpp — thread counts: set_num_threads pins a thread's count, AdaptiveThreads gives an
// unpinned thread the cores other processes leave (and restores its count), and the kernel's reports it decides
// from (/proc/stat, cgroup v2's cpu.max) parsed as the kernel writes them.
#include <doctest/doctest.h>

#include <thread>

#include "core/adaptive_threads.h"
#include "core/cpu_load.h"
#include "core/error.h"
#include "core/parallel.h"

namespace tl {
namespace {

// Runs f on a new thread: its count starts unpinned, from OpenMP's default.
template <typename F>
void on_fresh_thread(const F& f) {
  std::thread t(f);
  t.join();
}

}  // namespace

TEST_CASE("parallel: /proc/stat's busy ticks are every field but idle and iowait, over the CPUs asked for") {
  const std::string stat =
      "cpu  30 0 6 200 4 0 0 0 0 0\n"
      "cpu0 10 1 2 100 3 4 5 6 0 0\n"
      "cpu1 20 0 4 100 1 0 0 0 7 0\n"
      "intr 1 2 3\n";
  CHECK(detail::busy_ticks(stat, {0}) == 10 + 1 + 2 + 4 + 5 + 6);
  CHECK(detail::busy_ticks(stat, {1}) == 24);  // guest time (7) is in user already
  CHECK(detail::busy_ticks(stat, {0, 1}) == 28 + 24);
  CHECK_FALSE(detail::busy_ticks(stat, {2}));  // no such CPU
  CHECK_FALSE(detail::busy_ticks("cpu0 1 2\n", {0}));
  CHECK_FALSE(detail::busy_ticks("", {0}));
}

TEST_CASE("parallel: a cgroup v2 quota allows its cores rounded up; 'max' allows any") {
  CHECK(detail::quota_cores("200000 100000") == 2);
  CHECK(detail::quota_cores("150000 100000\n") == 2);
  CHECK(detail::quota_cores("50000 100000") == 1);
  CHECK_FALSE(detail::quota_cores("max 100000"));
  CHECK_FALSE(detail::quota_cores(""));
  CHECK_FALSE(detail::quota_cores("0 100000"));
  const int cores = detail::usable_cores();
  CHECK(cores >= 1);
  CHECK(cores <= static_cast<int>(detail::allowed_cpus().size()));
}

TEST_CASE("parallel: the threads for a load are the cores others leave, a core kept while they take under 3/4 of it") {
  CHECK(detail::threads_for_load(2, 0.0) == 2);
  CHECK(detail::threads_for_load(2, 0.2) == 2);   // a daemon's blip
  CHECK(detail::threads_for_load(2, 0.8) == 1);   // a busy loop on one core, shared with ours
  CHECK(detail::threads_for_load(2, 1.0) == 1);
  CHECK(detail::threads_for_load(2, 2.0) == 1);   // never fewer than one
  CHECK(detail::threads_for_load(8, 3.0) == 5);
  CHECK(detail::threads_for_load(1, -0.5) == 1);  // a negative estimate counts as none
}

TEST_CASE("parallel: other processes' load is measured between samples, never below zero") {
  detail::OtherLoad load(detail::allowed_cpus());
  CHECK_FALSE(load.sample());  // nothing to compare with yet
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const std::optional<double> others = load.sample();
  REQUIRE(others);
  CHECK(*others >= 0.0);
  CHECK(*others <= static_cast<double>(detail::allowed_cpus().size()) + 1.0);  // tick rounding over 30 ms
}

TEST_CASE("parallel: AdaptiveThreads sets an unpinned thread's count for its scope and restores it") {
  on_fresh_thread([] {
    const int before = get_num_threads();
    {
      const AdaptiveThreads scope;
      const int inside = get_num_threads();
      CHECK(inside >= 1);
      CHECK(inside <= detail::usable_cores());
      {
        const AdaptiveThreads nested;  // the outer scope decided: the count stays
        CHECK(get_num_threads() == inside);
      }
      CHECK(get_num_threads() == inside);
    }
    CHECK(get_num_threads() == before);
  });
}

TEST_CASE("parallel: a count set with set_num_threads is pinned: AdaptiveThreads leaves it, inside the scope too") {
  on_fresh_thread([] {
    set_num_threads(3);
    {
      const AdaptiveThreads scope;
      CHECK(get_num_threads() == 3);
    }
    CHECK(get_num_threads() == 3);
  });
  on_fresh_thread([] {
    {
      const AdaptiveThreads scope;
      set_num_threads(5);  // the user's choice inside the scope outlives it
    }
    CHECK(get_num_threads() == 5);
  });
  CHECK_THROWS_WITH_AS(set_num_threads(0), "set_num_threads: expected a positive thread count, got 0", Error);
}

}  // namespace tl
