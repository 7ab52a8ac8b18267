// core/cpu_load.cpp — cores and load as the kernel reports them (core/cpu_load.h).
#include "core/cpu_load.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace tl::detail {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The cgroup v2 directory of this process ("0::/a/b" in /proc/self/cgroup), or empty.
std::string own_cgroup() {
  std::istringstream lines(read_file("/proc/self/cgroup"));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return {};
}

}  // namespace

int64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty())
    for (long c = 0; c < std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)); ++c) cpus.push_back(static_cast<int>(c));
  return cpus;
}

std::optional<int> quota_cores(std::string_view cpu_max) {
  const size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  int64_t quota = 0, period = 0;
  const std::string_view q = cpu_max.substr(0, space), p = cpu_max.substr(space + 1);
  if (std::from_chars(q.data(), q.data() + q.size(), quota).ec != std::errc() ||
      std::from_chars(p.data(), p.data() + p.size(), period).ec != std::errc() || quota <= 0 || period <= 0)
    return std::nullopt;
  return static_cast<int>(std::max<int64_t>(1, (quota + period - 1) / period));
}

int usable_cores() {
  static const int cores = [] {
    int n = static_cast<int>(allowed_cpus().size());
    // A quota set on any ancestor limits this cgroup too.
    for (std::string dir = own_cgroup(); !dir.empty();) {
      if (std::optional<int> q = quota_cores(read_file("/sys/fs/cgroup" + dir + "/cpu.max"))) n = std::min(n, *q);
      if (dir == "/") break;
      const size_t slash = dir.rfind('/');
      dir = slash == 0 ? "/" : dir.substr(0, slash);
    }
    return std::max(1, n);
  }();
  return cores;
}

std::optional<CpuTicks> cpu_ticks(std::string_view proc_stat, const std::vector<int>& cpus) {
  CpuTicks ticks;
  for (int cpu : cpus) {
    const std::string label = "cpu" + std::to_string(cpu) + " ";
    const size_t at = proc_stat.find("\n" + label);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view line = proc_stat.substr(at + 1 + label.size());
    line = line.substr(0, line.find('\n'));
    // user nice system idle iowait irq softirq steal (guest time is counted in user already)
    int64_t fields[8] = {};
    for (int64_t& f : fields) {
      line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
      const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), f);
      if (ec != std::errc()) return std::nullopt;
      line.remove_prefix(static_cast<size_t>(end - line.data()));
    }
    ticks.busy += fields[0] + fields[2] + fields[5] + fields[6] + fields[7];
    ticks.niced += fields[1];
  }
  return ticks;
}

int threads_for_load(int cores, double others, int current) {
  const double left = static_cast<double>(cores) - std::max(0.0, others);
  const auto count = [&](double margin) { return std::clamp(static_cast<int>(std::floor(left + margin)), 1, std::max(1, cores)); };
  const int rise_to = count(0.25), fall_to = count(0.5);
  return std::clamp(current, rise_to, fall_to);
}

std::optional<double> OtherLoad::sample() {
  const std::optional<CpuTicks> ticks = cpu_ticks(read_file("/proc/stat"), cpus_);
  const int64_t own = clock_ns(CLOCK_PROCESS_CPUTIME_ID), wall = clock_ns(CLOCK_MONOTONIC);
  std::optional<double> others;
  if (ticks && ticks_ && wall > wall_ns_) {
    static const double ns_per_tick = 1e9 / static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
    const bool niced = getpriority(PRIO_PROCESS, 0) > 0;  // per call: the process may be reniced
    const int64_t busy = ticks->busy - ticks_->busy + (niced ? ticks->niced - ticks_->niced : 0);
    others = std::max(0.0, static_cast<double>(busy) * ns_per_tick - static_cast<double>(own - own_ns_)) /
             static_cast<double>(wall - wall_ns_);
  }
  ticks_ = ticks;
  own_ns_ = own;
  wall_ns_ = wall;
  return others;
}

}  // namespace tl::detail
