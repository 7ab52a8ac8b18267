// tests/core/test_parallel.cpp — thread counts: set_num_threads pins a thread's count, AdaptiveThreads gives an
// unpinned thread the cores other processes leave (and restores its count), and the kernel's reports it decides
// from (/proc/stat, cgroup v2's cpu.max) parsed as the kernel writes them.
#include <doctest/doctest.h>

#include <algorithm>
#include <latch>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

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

TEST_CASE("parallel: /proc/stat's ticks: busy is every field but nice, idle and iowait; niced is nice's, over the CPUs asked for") {
  const std::string stat =
      "cpu  30 1 6 200 4 0 0 0 0 0\n"
      "cpu0 10 1 2 100 3 4 5 6 0 0\n"
      "cpu1 20 0 4 100 1 0 0 0 7 0\n"
      "intr 1 2 3\n";
  const auto ticks = [&](const std::vector<int>& cpus) {
    const std::optional<detail::CpuTicks> t = detail::cpu_ticks(stat, cpus);
    REQUIRE(t);
    return std::pair{t->busy, t->niced};
  };
  CHECK(ticks({0}) == std::pair<int64_t, int64_t>{10 + 2 + 4 + 5 + 6, 1});
  CHECK(ticks({1}) == std::pair<int64_t, int64_t>{24, 0});  // guest time (7) is in user already
  CHECK(ticks({0, 1}) == std::pair<int64_t, int64_t>{27 + 24, 1});
  CHECK_FALSE(detail::cpu_ticks(stat, {2}));  // no such CPU
  CHECK_FALSE(detail::cpu_ticks("cpu0 1 2\n", {0}));
  CHECK_FALSE(detail::cpu_ticks("", {0}));
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

TEST_CASE("parallel: the threads for a load are the cores others leave, with a margin either way against noise") {
  for (int current : {1, 2}) {
    CAPTURE(current);
    CHECK(detail::threads_for_load(2, 0.0, current) == 2);
    CHECK(detail::threads_for_load(2, 0.2, current) == 2);  // a daemon's blip: the last core is still ours
    CHECK(detail::threads_for_load(2, 0.6, current) == 1);  // more than half a core taken: one thread
    CHECK(detail::threads_for_load(2, 1.0, current) == 1);  // a busy loop on one core
    CHECK(detail::threads_for_load(2, 2.0, current) == 1);  // never fewer than one
  }
  // Between a quarter and a half of a core taken, the count stays: a tick more or less does not flip it.
  CHECK(detail::threads_for_load(2, 0.4, 1) == 1);
  CHECK(detail::threads_for_load(2, 0.4, 2) == 2);
  CHECK(detail::threads_for_load(8, 3.0, 2) == 5);
  CHECK(detail::threads_for_load(8, 3.3, 2) == 4);  // rises to the cores left with a quarter to spare
  CHECK(detail::threads_for_load(8, 3.3, 8) == 5);  // falls to those left with half a core to spare
  CHECK(detail::threads_for_load(8, 3.3, 5) == 5);
  CHECK(detail::threads_for_load(1, -0.5, 1) == 1);  // a negative estimate counts as none
  CHECK(detail::threads_for_load(2, 0.0, 5) == 2);   // never more than the cores
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

TEST_CASE("parallel: an AdaptiveThreads scope opened while another thread is in one takes its share of the cores") {
  std::latch first_inside(1), second_checked(1);
  int second_count = 0;
  std::thread first([&] {
    const AdaptiveThreads scope;
    first_inside.count_down();
    second_checked.wait();
  });
  std::thread second([&] {
    first_inside.wait();
    const AdaptiveThreads scope;
    second_count = get_num_threads();
    second_checked.count_down();
  });
  first.join();
  second.join();
  CHECK(second_count >= 1);
  CHECK(second_count <= std::max(1, detail::usable_cores() / 2));
  // Both scopes closed: a caller alone is counted alone again.
  on_fresh_thread([] {
    const AdaptiveThreads scope;
    CHECK(get_num_threads() == adaptive_num_threads());
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
