// bench/bench_util.h — what every benchmark shares: warm-up then timed runs, median and spread,
// and a header naming the machine, thread count and oneDNN version.
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>
#include <sys/resource.h>

#include "core/error.h"
#include "core/parallel.h"

namespace tl::bench {

struct Timing {
  double median_ms = 0, min_ms = 0, max_ms = 0;
};

/// `text`, the value of command-line option `option`, parsed whole as a T of at least `min`.
template <typename T = int>
T parse_number(const std::string& option, const std::string& text, T min) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  TL_CHECK(ec == std::errc() && end == text.data() + text.size(), option, " expects ",
           std::is_integral_v<T> ? "an integer" : "a number", ", got '", text, "'");
  TL_CHECK(value >= min, option, " must be at least ", min, ", got ", value);
  return value;
}

/// `text`, the comma-separated batch sizes of option `option` (each at least 1, at least one).
inline std::vector<int64_t> parse_batches(const std::string& option, const std::string& text) {
  std::vector<int64_t> batches;
  std::stringstream ss(text);
  for (std::string b; std::getline(ss, b, ',');) batches.push_back(parse_number<int64_t>(option, b, 1));
  TL_CHECK(!batches.empty(), option, " needs at least one batch size");
  return batches;
}

/// The options of a micro-benchmark that takes only --threads N and --runs N.
struct RunOptions {
  int threads = get_num_threads();
  int runs = 20;
};

/// Reads --threads and --runs; anything else throws tl::Error with `name`'s usage line.
inline RunOptions parse_run_options(int argc, char** argv, const char* name) {
  RunOptions o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    TL_CHECK((flag == "--threads" || flag == "--runs") && i + 1 < argc, "unknown flag or missing value '", flag,
             "' (usage: ", name, " [--threads N] [--runs N])");
    (flag == "--threads" ? o.threads : o.runs) = parse_number(flag, argv[++i], 1);
  }
  return o;
}

inline double milliseconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Median, min and max of the samples `ms`, which must not be empty.
inline Timing summarize(std::vector<double> ms) {
  TL_CHECK(!ms.empty(), "summarize: needs at least one sample");
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  const double median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return {median, ms.front(), ms.back()};
}

/// Runs f `warmup` times untimed, then `runs` times timed; returns median/min/max in ms.
template <typename F>
Timing time_runs(int warmup, int runs, const F& f) {
  TL_CHECK(warmup >= 0 && runs >= 1, "time_runs: needs warmup >= 0 and runs >= 1, got warmup ", warmup, " and runs ",
           runs);
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    ms.push_back(milliseconds_since(t0));
  }
  return summarize(std::move(ms));
}

inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

/// Peak resident set size of this process so far, in MiB.
inline double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

inline void print_header(const char* title) {
  const dnnl_version_t* v = dnnl_version();
  std::printf("%s\n%s, %d threads, oneDNN %d.%d.%d (%s)\n", title, cpu_model().c_str(), get_num_threads(), v->major,
              v->minor, v->patch, v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other runtime");
}

}  // namespace tl::bench
