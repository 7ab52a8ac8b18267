// bench/bench_resnet18.cpp — ResNet18 inference, torchless next to PyTorch 1.13 measured in the
// same run (bench/pt_partner.py through /usr/bin/python3). Not a test: it prints figures.
//
//   bench_resnet18 [--mode eager|fused|optimized|first] [--precision fp32|bf16|int8] [--batch 1,5,10] [--warmup 10]
//                  [--runs 20] [--threads 2|auto] [--no-partner] [--profile]
// --threads auto leaves the count unpinned: an optimized module then adapts it to the cores other processes
// leave idle (core/adaptive_threads.h), and PyTorch runs with its default (the cores).
// PyTorch runs once per environment of bench/pt_env.py (as installed; OpenBLAS + jemalloc), each row named
// with the BLAS and allocator it ran with; ratios are against its best. Optimized mode prints first-inference
// time, the planned arena and, per batch, a `RESULT bench=inference ...` line for torchless and one per
// environment for PyTorch's jit_freeze_optimize (fp32) or bf16 autocast (bf16), read by bench/compare and
// scripts/results.py (which keeps PyTorch's best). First mode is one first inference (fp32, the first batch size)
// in this fresh process, in its parts, each with its wall time, minor page faults (fresh memory, which this VM
// clears slowly) and bytes allocated; --profile adds the profiler's table of the recording run, with each op's
// allocations (the packed weights under mkldnn_reorder_conv2d_weight). int8 is FX graph-mode quantization
// (prepare_fx, eight calibration batches, convert_fx, as pt_partner.py's fx_int8_onednn does; printed in parts, not in
// first_ms, which is the converted model's optimize_for_inference + first run), timed next to PyTorch's on its onednn
// engine.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ao/quantization/convert.h"
#include "ao/quantization/prepare.h"
#include "bench/bench_util.h"
#include "bench/optimized_inference.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/profiling_interpreter.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "ops/ops.h"
#include "profiler/profile.h"

namespace {

using tl::bench::best;
using tl::bench::PartnerRun;
using tl::bench::partner_name;
using tl::bench::row;
using tl::bench::Timing;

struct Options {
  std::string mode = "eager";
  std::string precision = "fp32";
  std::vector<int64_t> batches = {1, 5, 10};
  int warmup = 10, runs = 20, threads = 2;  ///< 0: auto (not pinned)
  bool partner = true;
  bool profile = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      TL_CHECK(i + 1 < argc, "", a, " needs a value");
      return argv[++i];
    };
    if (a == "--mode") o.mode = value();
    else if (a == "--precision") o.precision = value();
    else if (a == "--batch") o.batches = tl::bench::parse_batches(a, value());
    else if (a == "--warmup") o.warmup = tl::bench::parse_number(a, value(), 0);
    else if (a == "--runs") o.runs = tl::bench::parse_number(a, value(), 1);
    else if (a == "--threads") {
      const std::string n = value();
      o.threads = n == "auto" ? 0 : tl::bench::parse_number(a, n, 1);
    }
    else if (a == "--no-partner") o.partner = false;
    else if (a == "--profile") o.profile = true;
    else TL_CHECK(false, "unknown option ", a,
                  " (usage: --mode eager|fused|optimized|first --precision fp32|bf16|int8 --batch 1,5,10 --warmup N",
                  " --runs N --threads N|auto --no-partner --profile)");
  }
  TL_CHECK(o.mode == "eager" || o.mode == "fused" || o.mode == "optimized" || o.mode == "first",
           "--mode must be eager, fused, optimized or first, got ", o.mode);
  TL_CHECK(o.precision == "fp32" || o.precision == "bf16" || o.precision == "int8",
           "--precision must be fp32, bf16 or int8, got ", o.precision);
  TL_CHECK(o.precision == "fp32" || o.mode == "optimized", "--precision ", o.precision, " needs --mode optimized");
  TL_CHECK(!o.profile || o.mode == "first", "--profile needs --mode first");
  return o;
}

// PyTorch's ResNet18 partner with this run's warm-up, runs and threads.
tl::bench::PartnerOptions partner_options(const Options& o) {
  return {.warmup = o.warmup, .runs = o.runs, .threads = o.threads};
}

std::map<std::string, std::vector<PartnerRun>> partner(const Options& o, int64_t batch,
                                                       const std::vector<std::string>& variants) {
  return tl::bench::partner(partner_options(o), batch, variants);
}

// This process's CPU time in ms (all its threads).
double process_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

// A variant's wall time and this process's CPU time per run. With --threads 1 the CPU time is the work
// itself, which waiting for a busy machine's cores does not inflate; with more threads it includes the
// OpenMP workers' spinning.
struct Interleaved {
  Timing wall, cpu;
};

// Each of `variants` run `warmup` times, then `runs` rounds timing each variant once per round: a change of
// the machine's load falls on all of them alike.
std::vector<Interleaved> time_interleaved(int warmup, int runs, const std::vector<std::function<void()>>& variants) {
  for (int i = 0; i < warmup; ++i)
    for (const auto& f : variants) f();
  std::vector<std::vector<double>> wall(variants.size()), cpu(variants.size());
  for (int i = 0; i < runs; ++i)
    for (size_t v = 0; v < variants.size(); ++v) {
      const double cpu0 = process_cpu_ms();
      const auto t0 = std::chrono::steady_clock::now();
      variants[v]();
      wall[v].push_back(tl::bench::milliseconds_since(t0));
      cpu[v].push_back(process_cpu_ms() - cpu0);
    }
  std::vector<Interleaved> out;
  for (size_t v = 0; v < variants.size(); ++v)
    out.push_back({tl::bench::summarize(std::move(wall[v])), tl::bench::summarize(std::move(cpu[v]))});
  return out;
}

// Share of the eager run spent in BatchNorm2d nodes, from the fx ProfilingInterpreter.
double batch_norm_share(const std::shared_ptr<tl::models::ResNet>& model, const tl::Tensor& x) {
  tl::fx::ProfilingInterpreter interp(model);
  for (int i = 0; i < 3; ++i) interp.run(x);
  double bn = 0, total = 0;
  for (const auto& [node, times] : interp.runtimes_sec()) {
    double sum = 0;
    for (double s : times) sum += s;
    total += sum;
    if (node->op() == tl::fx::Opcode::CallModule &&
        interp.module().get_submodule(node->target())->type_name() == "BatchNorm2d")
      bn += sum;
  }
  return total > 0 ? bn / total : 0;
}

// The parts of one first inference: each part's wall time, this process's CPU time (the kernel's clearing
// of fresh pages included), the minor page faults it took (each a fresh page the kernel clears: 4 KiB, or
// 2 MiB for a huge page) and the bytes allocated on this thread.
class PartMeter : public tl::AllocationHook {
 public:
  PartMeter() : guard_(this) {}
  void on_allocation(const void* /*ptr*/, int64_t bytes_delta, int64_t /*bytes_in_use*/) override {
    if (bytes_delta > 0) allocated_ += bytes_delta;
  }
  template <typename F>
  void measure(const char* name, const F& f) {
    const long faults = minor_faults();
    const int64_t allocated = allocated_;
    const double cpu = process_cpu_ms();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    parts_.push_back({name, tl::bench::milliseconds_since(t0), process_cpu_ms() - cpu, minor_faults() - faults,
                      allocated_ - allocated});
  }
  /// Each part measured since the last print, then their sum as `total`.
  void print(const char* total) {
    std::printf("  %-62s %9s %9s %12s %10s\n", "part", "ms", "CPU ms", "page faults", "MiB alloc");
    Part sum{total, 0, 0, 0, 0};
    for (const Part& p : parts_) {
      row(p);
      sum.ms += p.ms;
      sum.cpu_ms += p.cpu_ms;
      sum.faults += p.faults;
      sum.allocated += p.allocated;
    }
    row(sum);
    total_ms_ = sum.ms;
    parts_.clear();
  }
  /// The wall time of the parts the last print() summed.
  double total_ms() const { return total_ms_; }

 private:
  struct Part {
    const char* name;
    double ms, cpu_ms;
    long faults;
    int64_t allocated;
  };
  static long minor_faults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
  }
  static void row(const Part& p) {
    std::printf("  %-62s %9.1f %9.1f %12ld %10.1f\n", p.name, p.ms, p.cpu_ms, p.faults, p.allocated / 1048576.0);
  }
  int64_t allocated_ = 0;
  double total_ms_ = 0;
  std::vector<Part> parts_;
  tl::AllocationHookGuard guard_;
};

// First inference of fp32 ResNet18 at the first batch size, in its parts (the optimizer's graph work,
// then the recording run that creates the primitives and packs the weights, then the first run in the
// planned arena); the steady state after it for comparison.
void run_first(const Options& o, const std::shared_ptr<tl::models::ResNet>& model) {
  const tl::Tensor x = tl::randn({o.batches.front(), 3, 224, 224});
  PartMeter meter;
  std::shared_ptr<tl::fx::InferenceGraphModule> optimized;
  tl::profiler::Profile prof({.profile_memory = true});
  meter.measure("optimize_for_inference without an example (trace, fold, rewrite)", [&] {
    optimized = tl::fx::optimize_for_inference(model, {.example_input_shape = {}});
  });
  meter.measure("recording run (primitives, weight packing, plan)", [&] {
    std::optional<tl::profiler::ProfileGuard> running;
    if (o.profile) running.emplace(prof.start());
    (*optimized)(x);
  });
  meter.measure("first run in the planned arena", [&] { (*optimized)(x); });
  std::printf("\nfirst inference, fp32 batch %ld, fresh process%s\n", static_cast<long>(o.batches.front()),
              o.profile ? " (recording run profiled: its time includes the profiler's)" : "");
  meter.print("first inference (optimize + first run)");
  const Timing t = tl::bench::time_runs(o.warmup, o.runs, [&] { (*optimized)(x); });
  std::printf("  steady state after it: median %.1f ms (min %.1f, max %.1f; %d runs); first / steady %.1fx\n",
              t.median_ms, t.min_ms, t.max_ms, o.runs, meter.total_ms() / t.median_ms);
  if (o.profile)
    std::printf("\nthe recording run, sorted by self CPU time\n%s",
                prof.key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = 12}).c_str());
}

// int8: the converted model, made once (prepare_fx, eight calibration batches (4, 3, 224, 224), convert_fx, as
// pt_partner.py's fx_int8_onednn), each step measured as a part; then at each batch the first inference of the
// converted model (optimize_for_inference at that shape, which runs the recording run, then the first run: the
// RESULT line's first_ms, the conversion not included), and the converted graph timed as it is and optimized, next
// to PyTorch's.
void run_int8(const Options& o, const std::shared_ptr<tl::models::ResNet>& model) {
  namespace q = tl::ao::quantization;
  PartMeter meter;
  std::shared_ptr<tl::fx::GraphModule> prepared, converted;
  meter.measure("prepare_fx (trace, fuse, insert observers)", [&] {
    prepared = q::prepare_fx(model, q::get_default_qconfig_mapping("onednn"), {tl::randn({4, 3, 224, 224})});
  });
  meter.measure("calibration (8 observed forwards of 4 images)", [&] {
    for (int i = 0; i < 8; ++i) (*prepared)(tl::randn({4, 3, 224, 224}));
  });
  meter.measure("convert_fx (quantize weights, swap modules)", [&] { converted = q::convert_fx(prepared); });
  std::printf("\nint8 model, made once in this fresh process\n");
  meter.print("prepare + calibration + convert");
  const std::string pt_variant = "fx_int8_onednn";
  for (int64_t batch : o.batches) {
    const tl::Tensor x = tl::randn({batch, 3, 224, 224});
    std::shared_ptr<tl::fx::InferenceGraphModule> optimized;
    meter.measure("optimize_for_inference at this shape (rewrite, recording run)", [&] {
      optimized = tl::fx::optimize_for_inference(converted, {.example_input_shape = x.shape()});
    });
    tl::Tensor optimized_first;
    meter.measure("first run in the planned arena", [&] { optimized_first = (*optimized)(x); });
    std::printf("\nfirst inference, int8 batch %ld (the converted model's; the conversion above not included)\n",
                static_cast<long>(batch));
    meter.print("first inference (optimize + first run)");
    const double first_ms = meter.total_ms();
    std::printf("\nbatch %ld, int8 (%d warm-up, %d timed runs; ms)\n  %-60s %9s %9s %9s %9s\n", static_cast<long>(batch),
                o.warmup, o.runs, "variant", "median", "min", "max", "img/s");
    const tl::Tensor first = (*converted)(x);
    const Timing node_by_node = tl::bench::time_runs(o.warmup, o.runs, [&] { (*converted)(x); });
    row("torchless fx int8 (onednn), converted graph node by node", node_by_node, batch);
    // optimize_for_inference of the converted graph: each conv -> quantized add(_relu) one primitive.
    const double logit_difference = (optimized_first - first).abs().max().item<double>();
    const Timing t = tl::bench::time_runs(o.warmup, o.runs, [&] { (*optimized)(x); });
    row("torchless fx int8 (onednn), optimize_for_inference", t, batch);
    std::printf("  optimize_for_inference vs node by node: %.2fx (largest logit difference %.4f)\n",
                node_by_node.median_ms / t.median_ms, logit_difference);
    const auto pt = o.partner ? partner(o, batch, {pt_variant}) : std::map<std::string, std::vector<PartnerRun>>{};
    for (const auto& [name, runs] : pt)
      for (const PartnerRun& r : runs) row(partner_name(name, r), r.t, batch);
    const double rss_mib = tl::bench::peak_rss_mib();
    const double error = tl::bench::relative_error(first, (*model)(x));
    std::printf("  logits vs eager fp32: relative error %.2e\n", error);
    if (pt.count(pt_variant))
      std::printf("  torchless int8 vs %s: %.2fx\n", partner_name(pt_variant, best(pt.at(pt_variant))).c_str(),
                  best(pt.at(pt_variant)).t.median_ms / t.median_ms);
    std::printf("RESULT bench=inference impl=torchless variant=fx_int8 precision=int8 batch=%ld median_ms=%.2f "
                "min_ms=%.2f max_ms=%.2f first_ms=%.1f arena_bytes=0 error=%.2e rss_mib=%.0f model=resnet18 size=224\n",
                static_cast<long>(batch), t.median_ms, t.min_ms, t.max_ms, first_ms, error, rss_mib);
    if (pt.count(pt_variant))
      tl::bench::print_partner_results(partner_options(o), pt_variant, "int8", batch, pt.at(pt_variant));
  }
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  if (o.threads > 0) tl::set_num_threads(o.threads);
  tl::bench::print_header(("ResNet18 inference, mode " + o.mode).c_str());
  tl::manual_seed(0);
  auto model = tl::models::resnet18();
  model->eval();
  tl::NoGradGuard no_grad;  // the PyTorch partner runs under torch.no_grad() too
  if (o.mode == "first" || o.mode == "optimized") {
    if (o.mode == "first") run_first(o, model);
    else if (o.precision == "int8") run_int8(o, model);
    else
      tl::bench::run_optimized({.partner = partner_options(o),
                                .precision = o.precision,
                                .batches = o.batches,
                                .pt_variants = {o.precision == "bf16" ? "bf16_autocast_channels_last"
                                                                      : "jit_freeze_optimize"},
                                .with_partner = o.partner},
                               model);
    std::printf("\npeak RSS of this process: %.0f MiB\n", tl::bench::peak_rss_mib());
    return 0;
  }
  // Fused mode also times the unfused trace: it runs through the same GraphModule plan as the fused one,
  // so fused vs traced is what the fusion itself saves.
  std::shared_ptr<tl::fx::GraphModule> fused, traced;
  if (o.mode == "fused") {
    fused = tl::fx::fuse_conv_bn(model);
    traced = tl::fx::symbolic_trace(model);
  }
  const std::vector<std::string> pt_variants =
      o.mode == "eager" ? std::vector<std::string>{"eager_nchw"} : std::vector<std::string>{"eager_nchw", "fx_fused"};

  for (int64_t batch : o.batches) {
    const tl::Tensor x = tl::randn({batch, 3, 224, 224});
    std::printf("\nbatch %ld (%d warm-up, %d timed runs%s; ms)\n  %-60s %9s %9s %9s %9s\n", static_cast<long>(batch),
                o.warmup, o.runs, fused ? ", the three variants interleaved" : "", "variant", "median", "min", "max",
                "img/s");
    std::vector<std::function<void()>> variants{[&] { (*model)(x); }};
    if (fused) {
      variants.push_back([&] { (*traced)(x); });
      variants.push_back([&] { (*fused)(x); });
    }
    const std::vector<Interleaved> t = time_interleaved(o.warmup, o.runs, variants);
    const Timing& eager = t[0].wall;
    row("torchless eager", eager, batch);
    Timing fused_t{};
    if (fused) {
      fused_t = t[2].wall;
      row("torchless fx traced (unfused)", t[1].wall, batch);
      row("torchless fx fused", fused_t, batch);
      std::printf("  CPU time per run, median ms: eager %.1f, traced %.1f, fused %.1f; fused vs unfused %.2fx, "
                  "fused vs traced %.2fx\n",
                  t[0].cpu.median_ms, t[1].cpu.median_ms, t[2].cpu.median_ms, t[0].cpu.median_ms / t[2].cpu.median_ms,
                  t[1].cpu.median_ms / t[2].cpu.median_ms);
    }
    const auto pt = o.partner ? partner(o, batch, pt_variants) : std::map<std::string, std::vector<PartnerRun>>{};
    for (const auto& [name, runs] : pt)
      for (const PartnerRun& r : runs) row(partner_name(name, r), r.t, batch);
    if (pt.count("eager_nchw"))
      std::printf("  torchless eager vs PyTorch's best eager: %.2fx\n",
                  best(pt.at("eager_nchw")).t.median_ms / eager.median_ms);
    else if (o.partner)
      std::printf("  (PyTorch partner unavailable: install python3-torch python3-torchvision)\n");
    if (fused) {
      const double share = batch_norm_share(model, x);
      std::printf("  fused vs unfused: torchless %.2fx (saves %.1f%%; BatchNorm2d share of the eager profile %.1f%%); "
                  "fused vs traced %.2fx (saves %.1f%%)\n",
                  eager.median_ms / fused_t.median_ms, 100 * (1 - fused_t.median_ms / eager.median_ms), 100 * share,
                  t[1].wall.median_ms / fused_t.median_ms, 100 * (1 - fused_t.median_ms / t[1].wall.median_ms));
      if (pt.count("fx_fused") && pt.count("eager_nchw"))
        std::printf("  fused vs unfused: PyTorch %.2fx (best of each); torchless fused vs PyTorch's best fused: "
                    "%.2fx\n",
                    best(pt.at("eager_nchw")).t.median_ms / best(pt.at("fx_fused")).t.median_ms,
                    best(pt.at("fx_fused")).t.median_ms / fused_t.median_ms);
    }
  }
  std::printf("\npeak RSS of this process: %.0f MiB\n", tl::bench::peak_rss_mib());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_resnet18: %s\n", e.what());
  return 1;
}
