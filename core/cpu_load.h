// core/cpu_load.h — (internal) how many cores this process may use and how busy other processes keep them,
// read from the kernel (sched_getaffinity, cgroup v2's cpu.max, /proc/stat): what adaptive_num_threads()
// (core/parallel.h) decides from. The parsers are pure functions of the files' text, tested on their own.
#pragma once

#include <time.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tl::detail {

/// `clock` (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, ...) in nanoseconds.
int64_t clock_ns(clockid_t clock);
/// The CPUs this process may run on (its affinity mask), in order.
std::vector<int> allowed_cpus();
/// The cores a cgroup v2 `cpu.max` line allows ("150000 100000" -> 2, rounded up), nullopt for "max ..." or
/// text that is not such a line.
std::optional<int> quota_cores(std::string_view cpu_max);
/// The cores this process may use: allowed_cpus()'s count, capped by the quota of its cgroup and every
/// ancestor's (read once).
int usable_cores();
/// /proc/stat's time in clock ticks, summed over the lines of `cpus` ("cpu3 ..."): `busy` is user, system,
/// irq, softirq and steal; `niced` is the time of processes with a positive nice value, which yield to a
/// process at nice 0 (the scheduler gives a nice-10 process a tenth of its share).
struct CpuTicks {
  int64_t busy = 0;
  int64_t niced = 0;
};
/// nullopt when a CPU's line is missing or malformed.
std::optional<CpuTicks> cpu_ticks(std::string_view proc_stat, const std::vector<int>& cpus);
/// The threads to use on `cores` cores when other processes keep `others` of them busy on average, given the
/// `current` count: the cores they leave, with a margin either way so that sampling noise (ticks of 10 ms)
/// does not flip the count. It rises to the cores left while others take at most a quarter of the last one,
/// falls when they take more than half of one in use, and otherwise stays; at least 1.
int threads_for_load(int cores, double others, int current);

/// Measures, between successive calls, how many of `cpus` other processes kept busy: their busy time less
/// this process's own CPU time, over the wall time between the calls. Niced processes' time counts only when
/// this process is niced too (then they compete as equals, and its own time is among theirs).
class OtherLoad {
 public:
  explicit OtherLoad(std::vector<int> cpus) : cpus_(std::move(cpus)) {}
  /// The average number of cores other processes used since the previous call; nullopt on the first
  /// call, or when /proc/stat cannot be read.
  std::optional<double> sample();

 private:
  std::vector<int> cpus_;
  std::optional<CpuTicks> ticks_;
  int64_t own_ns_ = 0, wall_ns_ = 0;
};

}  // namespace tl::detail
