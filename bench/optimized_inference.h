// bench/optimized_inference.h — what bench_resnet18 and bench_zoo share: PyTorch's partner (bench/pt_partner.py in
// each environment of bench/pt_env.py) and the optimize_for_inference run at each batch, printed as a table and as
// `RESULT bench=inference ...` lines (scripts/results.py reads them). Included by one source per executable.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/bench_util.h"
#include "fx/passes/optimize_for_inference.h"
#include "ops/ops.h"
#include "profiler/profile.h"

namespace tl::bench {

/// What the PyTorch partner is asked to time: a torchvision model (get_model's name) at size x size inputs.
struct PartnerOptions {
  std::string model = "resnet18";
  int64_t size = 224;
  int warmup = 10, runs = 20;
  int threads = 2;  ///< 0: tl::get_num_threads()
};

/// One PyTorch run of a variant: its timing, peak RSS and the BLAS and allocator it reported.
struct PartnerRun {
  Timing t;
  double rss_mib = 0;
  std::string blas = "unknown", allocator = "unknown";
};

/// PyTorch's runs of `variants` at `batch` (all in one process per environment of bench/pt_env.py), keyed by
/// variant; empty when PyTorch is unavailable.
inline std::map<std::string, std::vector<PartnerRun>> partner(const PartnerOptions& o, int64_t batch,
                                                              const std::vector<std::string>& variants) {
  const std::string threads = std::to_string(o.threads > 0 ? o.threads : get_num_threads());
  std::string cmd = "/usr/bin/python3 " TL_SOURCE_DIR "/bench/pt_env.py --threads " + threads +
                    " -- /usr/bin/python3 " TL_SOURCE_DIR "/bench/pt_partner.py --model " + o.model + " --size " +
                    std::to_string(o.size) + " --batches " + std::to_string(batch) + " --warmup " +
                    std::to_string(o.warmup) + " --runs " + std::to_string(o.runs) + " --threads " + threads +
                    " --variants";
  for (const auto& v : variants) cmd += " " + v;
  std::map<std::string, std::vector<PartnerRun>> out;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, p)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("variant")) continue;
    out[j["variant"]].push_back({{j["median_ms"], j["min_ms"], j["max_ms"]},
                                 j.value("peak_rss_mb", 0.0),
                                 j.value("blas", "unknown"),
                                 j.value("allocator", "unknown")});
  }
  pclose(p);
  return out;
}

/// The fastest of a variant's runs (by median).
inline const PartnerRun& best(const std::vector<PartnerRun>& runs) {
  return *std::min_element(runs.begin(), runs.end(),
                           [](const PartnerRun& a, const PartnerRun& b) { return a.t.median_ms < b.t.median_ms; });
}

/// "PyTorch <variant> (<blas>, <allocator>)", a row's name.
inline std::string partner_name(const std::string& variant, const PartnerRun& r) {
  return "PyTorch " + variant + " (" + r.blas + ", " + r.allocator + ")";
}

/// One row of a timing table: name, median, min, max (ms) and images per second.
inline void row(const std::string& name, const Timing& t, int64_t batch) {
  std::printf("  %-60s %9.1f %9.1f %9.1f %9.1f\n", name.c_str(), t.median_ms, t.min_ms, t.max_ms,
              batch / t.median_ms * 1e3);
}

/// PyTorch's RESULT lines of `variant`, one per environment it ran in.
inline void print_partner_results(const PartnerOptions& o, const std::string& variant, const std::string& precision,
                                  int64_t batch, const std::vector<PartnerRun>& runs) {
  for (const PartnerRun& r : runs)
    std::printf("RESULT bench=inference impl=pytorch variant=%s precision=%s batch=%ld median_ms=%.2f min_ms=%.2f "
                "max_ms=%.2f rss_mib=%.0f blas=%s allocator=%s model=%s size=%ld\n",
                variant.c_str(), precision.c_str(), static_cast<long>(batch), r.t.median_ms, r.t.min_ms, r.t.max_ms,
                r.rss_mib, r.blas.c_str(), r.allocator.c_str(), o.model.c_str(), static_cast<long>(o.size));
}

/// ||actual - expected|| / ||expected|| (||actual - expected|| where expected is all zeros).
inline double relative_error(const Tensor& actual, const Tensor& expected) {
  const double difference = (actual - expected).pow(2.0).sum().item<float>(), scale = expected.pow(2.0).sum().item<float>();
  // Where the logits are all zero (a freshly built ViT or Swin: their heads start at zero), the absolute error.
  return std::sqrt(scale > 0 ? difference / scale : difference);
}

/// An optimized run: the model as the partner knows it, the precision, the batches, and PyTorch's variants timed
/// next to it (each in a process of its own, so that each peak RSS is that variant's alone).
struct OptimizedRun {
  PartnerOptions partner;
  std::string precision = "fp32";  ///< fp32 or bf16
  std::vector<int64_t> batches;
  std::vector<std::string> pt_variants;
  bool with_partner = true;
  bool profile = false;  ///< after the figures, the profiler's table of one steady-state run (where the time goes)
  bool inference_linear = true;  ///< InferenceOptions::inference_linear (false: Linear stays on the eager addmm)
};

/// optimize_for_inference of `model` (eval, under no_grad) at each batch: first inference (optimize + first run),
/// steady-state timing, the arena, peak RSS, the logits' error against eager, and PyTorch's variants; with
/// `profile`, the ops of one more run by self CPU time.
inline void run_optimized(const OptimizedRun& o, const std::shared_ptr<nn::Module>& model) {
  const bool bf16 = o.precision == "bf16";
  const PartnerOptions& po = o.partner;
  for (int64_t batch : o.batches) {
    const Tensor x = randn({batch, 3, po.size, po.size});
    const Shape shape = x.shape();
    const auto t0 = std::chrono::steady_clock::now();
    auto optimized = fx::optimize_for_inference(
        model, {.precision = bf16 ? fx::InferencePrecision::BFloat16 : fx::InferencePrecision::Float32,
                .inference_linear = o.inference_linear,
                .example_input_shape = shape});
    const Tensor first = (*optimized)(x);
    const double first_ms = milliseconds_since(t0);
    std::printf("\n%s, batch %ld, %ld x %ld, %s (%d warm-up, %d timed runs; ms)\n  %-60s %9s %9s %9s %9s\n",
                po.model.c_str(), static_cast<long>(batch), static_cast<long>(po.size), static_cast<long>(po.size),
                o.precision.c_str(), po.warmup, po.runs, "variant", "median", "min", "max", "img/s");
    const Timing t = time_runs(po.warmup, po.runs, [&] { (*optimized)(x); });
    row("torchless optimized " + o.precision, t, batch);
    std::map<std::string, std::vector<PartnerRun>> pt;
    for (const std::string& variant : o.with_partner ? o.pt_variants : std::vector<std::string>{})
      for (auto& [name, runs] : partner(po, batch, {variant})) pt[name] = std::move(runs);
    const PartnerRun* fastest = nullptr;
    std::string fastest_variant;
    for (const auto& [name, runs] : pt)
      for (const PartnerRun& r : runs) {
        row(partner_name(name, r), r.t, batch);
        if (!fastest || r.t.median_ms < fastest->t.median_ms) {
          fastest = &r;
          fastest_variant = name;
        }
      }
    if (o.with_partner && pt.empty())
      std::printf("  (PyTorch partner gave no figures: install python3-torch python3-torchvision, or run "
                  "bench/pt_partner.py --model %s by hand for its error)\n", po.model.c_str());
    const fx::ArenaStats arena = optimized->arena_stats(shape);
    std::printf("  first inference (optimize + first run) %.1f ms; arena %.1f MiB planned for %ld activations of %.1f MiB\n",
                first_ms, arena.planned_bytes / 1048576.0, static_cast<long>(arena.activations),
                arena.total_bytes / 1048576.0);
    const double rss_mib = peak_rss_mib();  // before the eager reference run below
    const double error = relative_error(first, (*model)(x));
    std::printf("  logits vs eager fp32: relative error %.2e\n", error);
    if (fastest)
      std::printf("  torchless optimized vs %s: %.2fx\n", partner_name(fastest_variant, *fastest).c_str(),
                  fastest->t.median_ms / t.median_ms);
    std::printf("RESULT bench=inference impl=torchless variant=optimized precision=%s batch=%ld median_ms=%.2f "
                "min_ms=%.2f max_ms=%.2f first_ms=%.1f arena_bytes=%ld error=%.2e rss_mib=%.0f model=%s size=%ld\n",
                o.precision.c_str(), static_cast<long>(batch), t.median_ms, t.min_ms, t.max_ms, first_ms,
                static_cast<long>(arena.planned_bytes), error, rss_mib, po.model.c_str(), static_cast<long>(po.size));
    for (const auto& [name, runs] : pt) print_partner_results(po, name, o.precision, batch, runs);
    if (o.profile) {
      profiler::Profile prof;
      {
        auto running = prof.start();
        (*optimized)(x);
      }
      std::printf("\none optimized run of %s batch %ld, sorted by self CPU time\n%s", po.model.c_str(),
                  static_cast<long>(batch),
                  prof.key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = 8}).c_str());
    }
  }
}

}  // namespace tl::bench
