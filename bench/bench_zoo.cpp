// bench/bench_zoo.cpp — a torchvision classification model (models::get_model) through optimize_for_inference, next
// to PyTorch 1.13's eager NCHW, channels_last and jit-frozen variants of the same model measured in the same run
// (bench/pt_partner.py in each environment of bench/pt_env.py). Not a test: it prints figures.
//
//   bench_zoo --model NAME [--batch 1,8] [--precision fp32|bf16] [--size S] [--runs 20] [--warmup 10]
//             [--threads 2] [--no-partner] [--profile] [--gemm onednn|avx512|avx2|sse2] [--no-inference-linear]
//   bench_zoo --list                      the model names, one a line
// Per batch: first inference (optimize + first run), steady-state median/min/max, peak RSS, the logits' error
// against eager and one `RESULT bench=inference ... model=NAME size=S` line per implementation (bench/zoo_compare
// and scripts/results.py read them). Inputs are S x S, by default 224 (inception_v3 299, as torchvision's
// transforms and bench/pt_partner.py's input_size). --profile adds the profiler's table of one more optimized run;
// --gemm runs the matrix products on that GEMM (ops/gemm.h; oneDNN's sgemm by default) to compare them;
// --no-inference-linear leaves Linear layers on the eager addmm instead of MkldnnLinear, to compare the two.
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/optimized_inference.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/registry.h"
#include "ops/gemm.h"

namespace {

struct Options {
  std::string model;
  std::string gemm;
  tl::bench::OptimizedRun run;
  bool list = false;
};

// The input height and width the zoo is benchmarked at (bench/pt_partner.py's input_size).
int64_t default_size(const std::string& model) { return model == "inception_v3" ? 299 : 224; }

Options parse(int argc, char** argv) {
  Options o;
  o.run.batches = {1, 8};
  int64_t size = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      TL_CHECK(i + 1 < argc, "", a, " needs a value");
      return argv[++i];
    };
    if (a == "--model") o.model = value();
    else if (a == "--precision") o.run.precision = value();
    else if (a == "--batch") o.run.batches = tl::bench::parse_batches(a, value());
    else if (a == "--size") size = tl::bench::parse_number<int64_t>(a, value(), 32);
    else if (a == "--warmup") o.run.partner.warmup = tl::bench::parse_number(a, value(), 0);
    else if (a == "--runs") o.run.partner.runs = tl::bench::parse_number(a, value(), 1);
    else if (a == "--threads") o.run.partner.threads = tl::bench::parse_number(a, value(), 1);
    else if (a == "--no-partner") o.run.with_partner = false;
    else if (a == "--profile") o.run.profile = true;
    else if (a == "--list") o.list = true;
    else if (a == "--gemm") o.gemm = value();
    else if (a == "--no-inference-linear") o.run.inference_linear = false;
    else TL_CHECK(false, "unknown option ", a,
                  " (usage: --model NAME --batch 1,8 --precision fp32|bf16 --size S --runs N --warmup N --threads N",
                  " --no-partner --profile --gemm NAME --no-inference-linear, or --list)");
  }
  TL_CHECK(o.list || !o.model.empty(), "--model NAME is needed (bench_zoo --list names the models)");
  TL_CHECK(o.run.precision == "fp32" || o.run.precision == "bf16", "--precision must be fp32 or bf16, got ",
           o.run.precision);
  o.run.partner.model = o.model;
  o.run.partner.size = size > 0 ? size : default_size(o.model);
  o.run.pt_variants = o.run.precision == "bf16"
                          ? std::vector<std::string>{"bf16_autocast_channels_last"}
                          : std::vector<std::string>{"eager_nchw", "eager_channels_last", "jit_freeze_optimize"};
  return o;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse(argc, argv);
  if (o.list) {
    for (const std::string& name : tl::models::list_models()) std::printf("%s\n", name.c_str());
    return 0;
  }
  tl::set_num_threads(o.run.partner.threads);
  TL_CHECK(o.gemm.empty() || tl::detail::set_gemm_isa(o.gemm.c_str()), "--gemm ", o.gemm,
           " is not a GEMM this CPU runs (onednn, avx512, avx2, sse2)");
  tl::manual_seed(0);
  auto model = tl::models::get_model(o.model);
  model->eval();
  tl::bench::print_header((o.model + " inference, optimize_for_inference").c_str());
  std::printf("GEMM: %s\n", tl::detail::gemm_isa());
  tl::NoGradGuard no_grad;  // the PyTorch partner runs under torch.no_grad() too
  tl::bench::run_optimized(o.run, model);
  std::printf("\npeak RSS of this process: %.0f MiB\n", tl::bench::peak_rss_mib());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_zoo: %s\n", e.what());
  return 1;
}
