// bench/bench_train.cpp — ResNet18 training steps at 224x224 (train mode, cross-entropy, SGD) on a fixed
// synthetic batch; bench/train_compare runs it next to PyTorch 1.13 (bench/pt_train.py). Not a test.
//
//   bench_train [--batch 8] [--precision fp32|bf16] [--variant nchw|channels_last] [--warmup 3] [--runs 10]
//               [--threads 2] [--profile]
// A step is zero_grad + forward + loss + backward + optimizer step. Prints the step's median, min and
// max, each phase's median, peak RSS next to the allocator's peak of live tensors and a
// `RESULT bench=train ...` line (read by bench/train_compare and scripts/plot_results.py); --profile
// instead prints the profiler's table of one step after the warm-up. Bad options exit with 2.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/train_step.h"
#include "core/generator.h"
#include "core/storage.h"
#include "profiler/profile.h"

namespace {

using tl::bench::StepMs;
using tl::bench::Timing;
using tl::bench::Trainer;

constexpr char kUsage[] =
    "usage: --batch N --precision fp32|bf16 --variant nchw|channels_last --warmup N --runs N --threads N --profile";

struct Options {
  int64_t batch = 8;
  std::string precision = "fp32", variant = "nchw";
  int warmup = 3, runs = 10, threads = 2;
  bool profile = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      TL_CHECK(i + 1 < argc, "", a, " needs a value (", kUsage, ")");
      return argv[++i];
    };
    if (a == "--batch") o.batch = tl::bench::parse_number<int64_t>(a, value(), 1);
    else if (a == "--precision") o.precision = value();
    else if (a == "--variant") o.variant = value();
    else if (a == "--warmup") o.warmup = tl::bench::parse_number(a, value(), 0);
    else if (a == "--runs") o.runs = tl::bench::parse_number(a, value(), 1);
    else if (a == "--threads") o.threads = tl::bench::parse_number(a, value(), 1);
    else if (a == "--profile") o.profile = true;
    else TL_CHECK(false, "unknown option ", a, " (", kUsage, ")");
  }
  TL_CHECK(o.precision == "fp32" || o.precision == "bf16", "--precision must be fp32 or bf16, got ", o.precision);
  TL_CHECK(o.variant == "nchw" || o.variant == "channels_last", "--variant must be nchw or channels_last, got ",
           o.variant);
  return o;
}

void print_profile(const Options& o, Trainer& t) {
  for (int i = 0; i < o.warmup; ++i) tl::bench::train_step(t);
  tl::profiler::Profile prof;
  {
    auto running = prof.start();
    tl::bench::train_step(t);
  }
  std::printf("\none training step, batch %ld, after %d warm-up steps; sorted by self CPU time\n",
              static_cast<long>(o.batch), o.warmup);
  std::printf("%s", prof.key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = -1}).c_str());
}

// `share` in percent, or negative for none.
void print_row(const char* name, const Timing& t, double share) {
  std::printf("  %-16s %9.1f %9.1f %9.1f", name, t.median_ms, t.min_ms, t.max_ms);
  if (share >= 0) std::printf(" %8.1f%%", share);
  std::printf("\n");
}

void run_timed(const Options& o, Trainer& t) {
  std::vector<double> total, forward, backward, optimizer;
  float first_loss = 0, last_loss = 0;
  for (int i = 0; i < o.warmup + o.runs; ++i) {
    const StepMs ms = tl::bench::train_step(t);
    if (i == 0) first_loss = ms.loss;
    last_loss = ms.loss;
    if (i < o.warmup) continue;
    total.push_back(ms.total);
    forward.push_back(ms.forward);
    backward.push_back(ms.backward);
    optimizer.push_back(ms.optimizer);
  }
  const Timing step_t = tl::bench::summarize(total), forward_t = tl::bench::summarize(forward),
               backward_t = tl::bench::summarize(backward), optimizer_t = tl::bench::summarize(optimizer);
  const double rss_mib = tl::bench::peak_rss_mib();
  const tl::AllocatorStats mem = tl::allocator_stats();
  const double tensors_mib = static_cast<double>(mem.peak_bytes) / 1048576.0;
  // Shares of the phases' median sum: medians of a noisy machine's steps need not add up to the step's.
  const double phases_ms = forward_t.median_ms + backward_t.median_ms + optimizer_t.median_ms;
  std::printf("\nbatch %ld, %s, %s (%d warm-up, %d timed steps; ms)\n  %-16s %9s %9s %9s %9s\n",
              static_cast<long>(o.batch), o.precision.c_str(), o.variant.c_str(), o.warmup, o.runs, "", "median", "min", "max", "share");
  print_row("step", step_t, -1);
  print_row("forward+loss", forward_t, 100 * forward_t.median_ms / phases_ms);
  print_row("backward", backward_t, 100 * backward_t.median_ms / phases_ms);
  print_row("optimizer step", optimizer_t, 100 * optimizer_t.median_ms / phases_ms);
  std::printf("  %.1f img/s; loss %.4f at the first step, %.4f at the last\n", o.batch / step_t.median_ms * 1e3,
              first_loss, last_loss);
  std::printf("  peak RSS %.0f MiB; live tensors at most %.0f MiB, freed blocks cached for reuse at the end %.0f MiB\n",
              rss_mib, tensors_mib, static_cast<double>(mem.cached_bytes) / 1048576.0);
  std::printf("RESULT bench=train impl=torchless variant=%s precision=%s batch=%ld median_ms=%.2f min_ms=%.2f "
              "max_ms=%.2f forward_ms=%.2f backward_ms=%.2f optimizer_ms=%.2f loss_first=%.4f loss_last=%.4f "
              "rss_mib=%.0f tensors_mib=%.0f\n",
              o.variant.c_str(), o.precision.c_str(), static_cast<long>(o.batch), step_t.median_ms, step_t.min_ms, step_t.max_ms,
              forward_t.median_ms, backward_t.median_ms, optimizer_t.median_ms, first_loss, last_loss, rss_mib,
              tensors_mib);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    o = parse(argc, argv);
  } catch (const tl::Error& e) {
    std::fprintf(stderr, "bench_train: %s\n", e.what());
    return 2;
  }
  try {
    tl::set_num_threads(o.threads);
    tl::bench::print_header("ResNet18 training step: cross-entropy, SGD lr 0.01 momentum 0.9 weight_decay 1e-4");
    tl::manual_seed(0);
    Trainer t(o.batch, o.precision == "bf16", o.variant == "channels_last");
    if (o.profile) print_profile(o, t);
    else run_timed(o, t);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_train: %s\n", e.what());
    return 1;
  }
}
