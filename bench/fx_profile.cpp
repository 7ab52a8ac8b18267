// bench/fx_profile.cpp — the fx_profiling_tutorial in C++: trace ResNet18, print its graph, profile
// every node at batch 5 and print the sorted summary; then the cost of interpretation (batch 1,
// Interpreter vs calling the module directly, measured in the same run).
//
//   fx_profile [--runs N] [--threads N]
#include <cstdio>
#include <algorithm>
#include <iostream>
#include <vector>
#include <string>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "fx/interpreter.h"
#include "fx/profiling_interpreter.h"
#include "models/resnet.h"
#include "ops/ops.h"

int main(int argc, char** argv) try {
  int runs = 20, threads = 2;
  for (int i = 1; i < argc; i += 2) {
    const std::string a = argv[i];
    TL_CHECK(i + 1 < argc, a, " needs a value (usage: --runs N --threads N)");
    if (a == "--runs") runs = tl::bench::parse_number(a, argv[i + 1], 1);
    else if (a == "--threads") threads = tl::bench::parse_number(a, argv[i + 1], 1);
    else TL_CHECK(false, "unknown option ", a, " (usage: --runs N --threads N)");
  }
  tl::set_num_threads(threads);
  tl::manual_seed(0);
  auto rn18 = tl::models::resnet18();
  rn18->eval();
  tl::NoGradGuard no_grad;  // inference only
  const tl::Tensor input = tl::randn({5, 3, 224, 224});

  auto traced = tl::fx::symbolic_trace(rn18);
  std::cout << traced->graph() << "\n\n";

  tl::fx::ProfilingInterpreter interp(rn18);
  interp.run(input);  // warm-up: primitive creation and first-touch memory
  interp.run(input);
  std::cout << interp.summary(/*should_sort=*/true) << "\n\n";
  double pct = 0;
  for (const auto& [node, times] : interp.runtimes_sec()) {
    double mean = 0;
    for (double t : times) mean += t;
    pct += mean / static_cast<double>(times.size());
  }
  double total = 0;
  for (double t : interp.total_runtime_sec()) total += t;
  total /= static_cast<double>(interp.total_runtime_sec().size());
  std::printf("percentages add up to %.1f%% of the mean run time (%.1f ms)\n\n", 100 * pct / total, total * 1e3);
  std::cout << interp.summary_by_type() << "\n\n";

  tl::bench::print_header("cost of interpretation, ResNet18 batch 1");
  tl::fx::Interpreter plain(traced);
  // Rounds alternate the two ways so drifting machine speed affects both alike; medians of rounds.
  // At 224x224 the run-to-run noise is several percent, so the interpretation cost is also measured
  // absolutely at 32x32, where the kernels are cheap and the same per-node work dominates.
  for (const int64_t side : {int64_t{224}, int64_t{32}}) {
    const tl::Tensor x1 = tl::randn({1, 3, side, side});
    const int n = side == 224 ? runs : 5 * runs;
    std::vector<double> direct_ms, interp_ms;
    for (int round = 0; round < 7; ++round) {
      direct_ms.push_back(tl::bench::time_runs(3, n, [&] { (*rn18)(x1); }).median_ms);
      interp_ms.push_back(tl::bench::time_runs(3, n, [&] { plain.run(x1); }).median_ms);
    }
    std::sort(direct_ms.begin(), direct_ms.end());
    std::sort(interp_ms.begin(), interp_ms.end());
    const double d = direct_ms[3], it = interp_ms[3];
    std::printf("input %ldx%ld: module called directly %.3f ms, through the Interpreter %.3f ms "
                "(median of 7 rounds of %d runs): %+.3f ms, %+.2f%%\n",
                static_cast<long>(side), static_cast<long>(side), d, it, n, it - d, 100 * (it / d - 1));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "fx_profile: %s\n", e.what());
  return 1;
}
