// core/adaptive_threads.h — how many threads latency-bound work should use on a shared machine: the cores
// this process may run on (its affinity mask, capped by a cgroup v2 CPU quota) less those other processes
// keep busy. Where another process holds a core, a parallel region split over that core waits for its time
// slices at every barrier, so fewer threads finish sooner. A count set with set_num_threads (core/parallel.h)
// is the user's choice and is pinned: nothing here changes it.
#pragma once

namespace tl {

/// The threads worth using now: usable cores less the load other processes put on them over the last
/// sampling interval (~200 ms; /proc/stat against this process's own CPU time), at least 1.
int adaptive_num_threads();

/// For its lifetime, the calling thread's parallel regions use adaptive_num_threads() threads, unless the
/// count is pinned (set_num_threads on this thread, or OMP_NUM_THREADS in the environment); the previous
/// count comes back after. A scope nested in another keeps the outer one's decision. A scope opened
/// while scopes are open on k - 1 other threads (a server calling a model from several workers) takes 1/k
/// of those threads, at least 1. An optimized module's forward runs under one: latency-bound inference is where a busy core costs
/// most. Kernels may sum in another order on another count: results agree to rounding, and repeat bit for
/// bit only when pinned.
class AdaptiveThreads {
 public:
  AdaptiveThreads();
  ~AdaptiveThreads();
  AdaptiveThreads(const AdaptiveThreads&) = delete;
  AdaptiveThreads& operator=(const AdaptiveThreads&) = delete;

 private:
  bool counted_ = false;  ///< this scope adapts (the count is not pinned)
  int previous_ = 0;      ///< the count to restore; 0 in a scope nested in another, which decided
};

namespace detail {
/// Marks the calling thread's count as the user's (set_num_threads calls it).
void pin_num_threads();
}  // namespace detail

}  // namespace tl
