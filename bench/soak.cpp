// bench/soak.cpp — a long run of batch-1 ResNet18 inferences through optimize_for_inference: resident
// memory must stay flat after warm-up, the logits must not change, and the allocator's counters
// must return to their baseline once the model and the optimized module are gone. Exits 1 otherwise.
//
//   soak [--iterations 10000] [--warmup 100] [--every 500] [--size 224] [--precision fp32|bf16]
//        [--threads 2] [--rss-tolerance-mib 8]
// Prints a table every `--every` iterations (VmRSS and RssAnon from /proc/self/status, allocator
// counters, median latency of the window), then a summary and a `RESULT ...` line.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/storage.h"
#include "fx/passes/optimize_for_inference.h"
#include "models/resnet.h"
#include "ops/ops.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kInputs = 4;  // distinct images cycled through, each checked against its warm-up logits
constexpr const char* kUsage =
    "usage: --iterations N --warmup N --every N --size N --precision fp32|bf16 --threads N --rss-tolerance-mib X";

struct Options {
  int iterations = 10000, warmup = 100, every = 500, threads = 2;
  int64_t size = 224;
  std::string precision = "fp32";
  double rss_tolerance_mib = 8;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    TL_CHECK(i + 1 < argc, "", a, " needs a value (", kUsage, ")");
    const std::string v = argv[++i];
    if (a == "--iterations") o.iterations = tl::bench::parse_number(a, v, 1);
    else if (a == "--warmup") o.warmup = tl::bench::parse_number(a, v, 0);
    else if (a == "--every") o.every = tl::bench::parse_number(a, v, 1);
    else if (a == "--size") o.size = tl::bench::parse_number<int64_t>(a, v, 1);
    else if (a == "--precision") o.precision = v;
    else if (a == "--threads") o.threads = tl::bench::parse_number(a, v, 1);
    else if (a == "--rss-tolerance-mib") o.rss_tolerance_mib = tl::bench::parse_number(a, v, 0.0);
    else TL_CHECK(false, "unknown option ", a, " (", kUsage, ")");
  }
  TL_CHECK(o.precision == "fp32" || o.precision == "bf16", "--precision must be fp32 or bf16, got ", o.precision);
  return o;
}

double mib(int64_t bytes) { return static_cast<double>(bytes) / 1048576.0; }

// Resident memory now, in MiB: all of it (VmRSS) and its anonymous part (RssAnon: the heap, where a leak
// shows; file-backed pages such as library code come and go under the machine's memory pressure).
struct Rss {
  double vm = 0, anon = 0;
};

Rss read_rss() {
  Rss rss;
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) rss.vm = std::stod(line.substr(6)) / 1024.0;
    if (line.rfind("RssAnon:", 0) == 0) rss.anon = std::stod(line.substr(8)) / 1024.0;
  }
  TL_CHECK(rss.vm > 0, "no VmRSS line in /proc/self/status");
  return rss;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

bool same_bits(const tl::Tensor& a, const tl::Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.contiguous().raw_data(), b.contiguous().raw_data(),
                                               static_cast<size_t>(a.nbytes())) == 0;
}

// What the timed loop saw, for the summary.
struct SoakRun {
  Rss start, end;
  double max_drift = 0;  ///< the largest |VmRSS - start| or |RssAnon - start| at a sample, MiB
  double wall_s = 0, median_ms = 0, p99_ms = 0, max_ms = 0;
  int64_t in_use_start = 0, in_use_min = 0, in_use_max = 0;
  int mismatches = 0;
};

void print_row(int iteration, const Rss& rss, const Rss& start, const tl::AllocatorStats& now,
               const std::string& allocs, const std::string& median) {
  std::printf("%9d %9.1f %9.1f %9.1f %9.1f %12.3f %10.1f %10.1f %11s %10s\n", iteration, rss.vm, rss.vm - start.vm,
              rss.anon, rss.anon - start.anon, mib(now.bytes_in_use), mib(now.cached_bytes), mib(now.peak_bytes),
              allocs.c_str(), median.c_str());
  std::fflush(stdout);
}

// Runs `request` (returning its inference time in ms) o.iterations times, sampling RSS and the
// allocator's counters every o.every iterations.
template <typename Request>
void timed_loop(const Options& o, const Request& request, SoakRun& run) {
  run.start = run.end = read_rss();
  tl::AllocatorStats window = tl::allocator_stats();
  run.in_use_start = run.in_use_min = run.in_use_max = window.bytes_in_use;
  tl::reset_peak_bytes();
  std::printf("\n%9s %9s %9s %9s %9s %12s %10s %10s %11s %10s\n", "iteration", "RSS MiB", "dRSS", "anon MiB",
              "danon", "in use MiB", "cached MiB", "peak MiB", "allocs/iter", "median ms");
  print_row(0, run.start, run.start, window, "-", "-");
  std::vector<double> ms, window_ms;
  const auto start = Clock::now();
  for (int i = 0; i < o.iterations; ++i) {
    window_ms.push_back(request(i));
    if ((i + 1) % o.every != 0 && i + 1 != o.iterations) continue;
    const tl::AllocatorStats now = tl::allocator_stats();
    run.end = read_rss();
    run.max_drift = std::max({run.max_drift, std::abs(run.end.vm - run.start.vm), std::abs(run.end.anon - run.start.anon)});
    run.in_use_min = std::min(run.in_use_min, now.bytes_in_use);
    run.in_use_max = std::max(run.in_use_max, now.bytes_in_use);
    char allocs[32], median[32];
    std::snprintf(allocs, sizeof allocs, "%.1f",
                  static_cast<double>(now.allocations - window.allocations) / static_cast<double>(window_ms.size()));
    std::snprintf(median, sizeof median, "%.2f", percentile(window_ms, 0.5));
    print_row(i + 1, run.end, run.start, now, allocs, median);
    ms.insert(ms.end(), window_ms.begin(), window_ms.end());
    window_ms.clear();
    window = now;
  }
  run.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  run.median_ms = percentile(ms, 0.5);
  run.p99_ms = percentile(ms, 0.99);
  run.max_ms = percentile(ms, 1.0);
}

// Builds the model and its optimized module, warms up, runs the timed loop; everything the model
// allocated is released when this returns.
SoakRun soak(const Options& o) {
  const int64_t before = tl::allocator_stats().bytes_in_use;
  auto model = tl::models::resnet18();
  model->eval();
  tl::NoGradGuard no_grad;  // inference only
  const int64_t with_model = tl::allocator_stats().bytes_in_use;
  const tl::Shape shape{1, 3, o.size, o.size};
  auto fast = tl::fx::optimize_for_inference(
      model, {.precision = o.precision == "bf16" ? tl::fx::InferencePrecision::BFloat16
                                                 : tl::fx::InferencePrecision::Float32,
              .example_input_shape = shape});
  std::printf("bytes in use: model %.1f MiB, optimized module %.1f MiB (arena %.1f MiB)\n",
              mib(with_model - before), mib(tl::allocator_stats().bytes_in_use - with_model),
              mib(fast->arena_stats(shape).planned_bytes));
  std::vector<tl::Tensor> inputs, expected;
  for (int k = 0; k < kInputs; ++k) {
    inputs.push_back(tl::randn(shape));
    expected.push_back((*fast)(inputs.back()));
  }
  SoakRun run;
  // One request: a fresh input tensor, as a server receiving images has; the logits are checked against
  // the first ones for that image and released before the loop reads the counters.
  auto request = [&](int i) {
    const size_t k = static_cast<size_t>(i % kInputs);
    const tl::Tensor x = inputs[k].clone();
    const auto t0 = Clock::now();
    const tl::Tensor logits = (*fast)(x);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!same_bits(logits, expected[k])) ++run.mismatches;
    return ms;
  };
  for (int i = 0; i < o.warmup; ++i) request(i);
  timed_loop(o, request, run);
  return run;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  tl::set_num_threads(o.threads);
  tl::bench::print_header("soak: ResNet18 batch 1 through optimize_for_inference");
  std::printf("%s, %lldx%lld, %d iterations after %d warm-up, %d inputs cycled, sampled every %d\n",
              o.precision.c_str(), static_cast<long long>(o.size), static_cast<long long>(o.size), o.iterations,
              o.warmup, kInputs, o.every);
  tl::manual_seed(0);
  const tl::AllocatorStats baseline = tl::allocator_stats();
  const Rss before = read_rss();
  const SoakRun run = soak(o);
  const tl::AllocatorStats destroyed = tl::allocator_stats();
  tl::empty_cache();
  const tl::AllocatorStats after = tl::allocator_stats();
  const Rss teardown = read_rss();

  const double growth = run.end.vm - run.start.vm, anon_growth = run.end.anon - run.start.anon;
  std::printf("\nRSS after warm-up %.1f MiB (anon %.1f), at the end %.1f MiB (anon %.1f): growth %+.1f MiB "
              "(anon %+.1f; tolerance %.1f MiB), max drift %.1f MiB\n", run.start.vm, run.start.anon, run.end.vm,
              run.end.anon, growth, anon_growth, o.rss_tolerance_mib, run.max_drift);
  std::printf("bytes_in_use during the run: %lld..%lld bytes (%lld after warm-up)\n",
              static_cast<long long>(run.in_use_min), static_cast<long long>(run.in_use_max),
              static_cast<long long>(run.in_use_start));
  std::printf("wall time %.1f s for %d iterations; per iteration median %.2f ms, p99 %.2f ms, max %.2f ms\n",
              run.wall_s, o.iterations, run.median_ms, run.p99_ms, run.max_ms);
  std::printf("inferences whose logits differ from the first ones for their image: %d\n", run.mismatches);
  std::printf("allocator after destroying the model and module: %lld bytes in use, %.1f MiB cached; after "
              "empty_cache: %lld bytes in use (baseline %lld), %lld cached\n",
              static_cast<long long>(destroyed.bytes_in_use), mib(destroyed.cached_bytes),
              static_cast<long long>(after.bytes_in_use), static_cast<long long>(baseline.bytes_in_use),
              static_cast<long long>(after.cached_bytes));
  std::printf("RSS before the model %.1f MiB (anon %.1f), after teardown %.1f MiB (anon %.1f); peak %.1f MiB\n",
              before.vm, before.anon, teardown.vm, teardown.anon, tl::bench::peak_rss_mib());

  std::vector<std::string> failures;
  if (growth > o.rss_tolerance_mib || anon_growth > o.rss_tolerance_mib) failures.push_back("RSS grew after warm-up");
  if (run.in_use_min != run.in_use_start || run.in_use_max != run.in_use_start)
    failures.push_back("bytes_in_use moved between iterations");
  if (run.mismatches > 0) failures.push_back("logits changed");
  if (after.bytes_in_use != baseline.bytes_in_use || after.cached_bytes != 0)
    failures.push_back("allocator counters did not return to the baseline");
  std::printf("RESULT precision=%s size=%lld iterations=%d rss_start_mib=%.1f rss_end_mib=%.1f growth_mib=%.1f "
              "anon_growth_mib=%.1f max_drift_mib=%.1f wall_s=%.1f median_ms=%.2f p99_ms=%.2f in_use_after=%lld "
              "baseline=%lld mismatches=%d\n",
              o.precision.c_str(), static_cast<long long>(o.size), o.iterations, run.start.vm, run.end.vm, growth,
              anon_growth, run.max_drift, run.wall_s, run.median_ms, run.p99_ms,
              static_cast<long long>(after.bytes_in_use), static_cast<long long>(baseline.bytes_in_use),
              run.mismatches);
  for (const std::string& f : failures) std::printf("FAIL: %s\n", f.c_str());
  std::printf("%s\n", failures.empty() ? "PASS" : "FAIL");
  return failures.empty() ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "soak: %s\n", e.what());
  return 2;
}
