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
/// /proc/stat's busy time (every field but idle and iowait), in clock ticks, summed over the lines of
/// `cpus` ("cpu3 ..."); nullopt when a CPU's line is missing or malformed.
std::optional<int64_t> busy_ticks(std::string_view proc_stat, const std::vector<int>& cpus);
/// The threads to use on `cores` cores when other processes keep `others` of them busy on average: the
/// cores they leave, a core counted while others take less than three quarters of it, at least 1.
int threads_for_load(int cores, double others);

/// Measures, between successive calls, how many of `cpus` other processes kept busy: their busy time less
/// this process's own CPU time, over the wall time between the calls.
class OtherLoad {
 public:
  explicit OtherLoad(std::vector<int> cpus) : cpus_(std::move(cpus)) {}
  /// The average number of cores other processes used since the previous call; nullopt on the first
  /// call, or when /proc/stat cannot be read.
  std::optional<double> sample();

 private:
  std::vector<int> cpus_;
  std::optional<int64_t> busy_ticks_;
  int64_t own_ns_ = 0, wall_ns_ = 0;
};

}  // namespace tl::detail
