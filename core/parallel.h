// core/parallel.h — splitting work over OpenMP threads. Small ranges run inline on the caller,
// so tiny tensors pay no thread start-up.
#pragma once

#include <algorithm>
#include <cstdint>

#include <omp.h>

namespace tl {

/// Elements below which a kernel should stay on one thread.
inline constexpr int64_t kGrainSize = 32768;

/// The OpenMP threads the calling thread's parallel regions use.
int get_num_threads();
/// Sets the threads the calling thread's kernels and oneDNN primitives use. Per calling thread, as
/// omp_set_num_threads is: other threads keep theirs, new ones start from OMP_NUM_THREADS or the cores.
void set_num_threads(int n);

/// Calls f(chunk_begin, chunk_end) over [begin, end) split into at most one chunk per thread.
/// f must not throw: validate input before the parallel region.
template <typename F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  if (n <= grain || omp_in_parallel() || omp_get_max_threads() == 1) {
    f(begin, end);
    return;
  }
  const int64_t max_chunks = std::max<int64_t>(1, n / std::max<int64_t>(grain, 1));
  const int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), max_chunks));
#pragma omp parallel num_threads(threads)
  {
    const int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t chunk = (n + nt - 1) / nt;
    const int64_t b = begin + tid * chunk, e = std::min(end, b + chunk);
    if (b < e) f(b, e);
  }
}

}  // namespace tl
