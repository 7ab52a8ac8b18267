// core/adaptive_threads.cpp — thread counts adapted to the cores other processes leave idle.
#include "core/adaptive_threads.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <optional>

#include "core/cpu_load.h"

namespace tl {
namespace {

thread_local bool t_pinned = false;     // set_num_threads was called on this thread
thread_local int t_adaptive_depth = 0;  // AdaptiveThreads alive on this thread: the outermost decided
std::atomic<int> g_adaptive_callers{0};  // threads inside an outermost AdaptiveThreads: they share the cores

bool pinned() {
  static const bool by_environment = std::getenv("OMP_NUM_THREADS") != nullptr;
  return t_pinned || by_environment;
}

// One sampler for the process: the last decision, and when to look at the machine again. The first
// reading only starts the measurement, so the second comes sooner: the decision is known ~100 ms after the
// first call (optimize_for_inference makes that call when it starts) rather than after ~200. Shorter windows
// would misjudge: /proc/stat counts in 10 ms ticks per CPU.
struct Sampler {
  static constexpr int64_t kIntervalNs = 200'000'000;
  static constexpr int64_t kFirstIntervalNs = 100'000'000;
  std::mutex mutex;
  detail::OtherLoad load{detail::allowed_cpus()};
  std::atomic<int> threads{detail::usable_cores()};
  std::atomic<int64_t> next_ns{0};
};

Sampler& sampler() {
  static Sampler s;
  return s;
}

}  // namespace

void detail::pin_num_threads() { t_pinned = true; }

int adaptive_num_threads() {
  Sampler& s = sampler();
  const int64_t now = detail::clock_ns(CLOCK_MONOTONIC_COARSE);
  if (now >= s.next_ns.load(std::memory_order_relaxed)) {
    std::unique_lock lock(s.mutex, std::try_to_lock);  // a thread already sampling decides for everyone
    if (lock && now >= s.next_ns.load(std::memory_order_relaxed)) {
      const std::optional<double> others = s.load.sample();
      if (others)
        s.threads.store(detail::threads_for_load(detail::usable_cores(), *others, s.threads.load(std::memory_order_relaxed)),
                        std::memory_order_relaxed);
      s.next_ns.store(now + (others ? Sampler::kIntervalNs : Sampler::kFirstIntervalNs), std::memory_order_relaxed);
    }
  }
  return s.threads.load(std::memory_order_relaxed);
}

AdaptiveThreads::AdaptiveThreads() {
  if (pinned() || omp_in_parallel()) return;
  counted_ = true;
  if (t_adaptive_depth++ > 0) return;
  previous_ = omp_get_max_threads();
  // Callers on several threads at once (a server's workers) split the cores the machine leaves: their own
  // CPU time is this process's, which the load sampler does not count against it.
  const int callers = g_adaptive_callers.fetch_add(1, std::memory_order_relaxed) + 1;
  if (const int n = std::max(1, adaptive_num_threads() / callers); n != previous_) omp_set_num_threads(n);
}

AdaptiveThreads::~AdaptiveThreads() {
  if (!counted_) return;
  if (--t_adaptive_depth == 0) g_adaptive_callers.fetch_sub(1, std::memory_order_relaxed);
  // A count the user pinned inside the scope stays.
  if (previous_ > 0 && !pinned() && omp_get_max_threads() != previous_) omp_set_num_threads(previous_);
}

}  // namespace tl
