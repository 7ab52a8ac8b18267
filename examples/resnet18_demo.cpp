// examples/resnet18_demo.cpp — the demo scripts/demo.sh runs: ResNet18 built in C++, traced into an FX
// graph, profiled node by node and op by op, conv-bn fused (outputs checked), and timed unfused vs
// fused vs optimize_for_inference.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include <torchless/torchless.h>

#include "bench/bench_util.h"
#include "models/resnet.h"

namespace fx = tl::fx;

namespace {

// The first `n` lines of `text`, then a note of how many were left out.
std::string head(const std::string& text, int n) {
  std::istringstream in(text);
  std::string out, line;
  int shown = 0, total = 0;
  while (std::getline(in, line)) {
    if (shown < n) out += line + "\n", ++shown;
    ++total;
  }
  if (total > shown) out += "    ... (" + std::to_string(total - shown) + " more lines)\n";
  return out;
}

}  // namespace

int main() try {
  tl::set_num_threads(2);
  tl::manual_seed(0);
  auto rn18 = tl::models::resnet18();
  rn18->eval();
  tl::NoGradGuard no_grad;  // inference only, as `with torch.no_grad():`
  const tl::Tensor input = tl::randn({5, 3, 224, 224});

  std::cout << "== print(resnet18) ==\n" << head([&] { std::ostringstream s; s << *rn18; return s.str(); }(), 12);

  auto traced = fx::symbolic_trace(rn18);
  std::cout << "\n== symbolic_trace(resnet18).graph ==\n" << head(traced->graph().str(), 14);

  fx::ProfilingInterpreter interp(rn18);
  interp.run(input);
  interp.run(input);
  std::cout << "\n== ProfilingInterpreter summary, batch 5 (sorted) ==\n" << head(interp.summary(true), 14)
            << "\n" << interp.summary_by_type() << "\n";

  tl::profiler::Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    (*rn18)(input);
  }
  std::cout << "\n== op-level profiler, batch 5 (key_averages, sorted by self CPU time) ==\n"
            << prof.key_averages().table({.sort_by = "self_cpu_time_total", .row_limit = 8});

  fx::FuseReport report;
  auto fused = fx::fuse_conv_bn(rn18, &report);
  std::cout << "\n== fuse_conv_bn ==\n" << report.str() << "\n" << head(fused->code(), 10);
  const bool same = tl::allclose((*fused)(input), (*rn18)(input), 1e-4, 1e-5);
  std::cout << "fused output allclose to unfused: " << (same ? "yes" : "NO") << "\n";

  auto optimized = fx::optimize_for_inference(rn18, {.example_input_shape = input.shape()});
  const bool close = tl::allclose((*optimized)(input), (*rn18)(input), 1e-4, 1e-4);
  std::cout << "optimize_for_inference output allclose to eager: " << (close ? "yes" : "NO") << "\n";

  tl::bench::print_header("\n== unfused vs fused vs optimized, batch 5 (3 warm-up, 10 runs) ==");
  const auto unfused_t = tl::bench::time_runs(3, 10, [&] { (*rn18)(input); });
  const auto fused_t = tl::bench::time_runs(3, 10, [&] { (*fused)(input); });
  const auto optimized_t = tl::bench::time_runs(3, 10, [&] { (*optimized)(input); });
  std::printf("unfused %.1f ms, fused %.1f ms, optimized %.1f ms (medians): fused %.2fx, optimized %.2fx\n",
              unfused_t.median_ms, fused_t.median_ms, optimized_t.median_ms, unfused_t.median_ms / fused_t.median_ms,
              unfused_t.median_ms / optimized_t.median_ms);
  return same && close ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "resnet18_demo: %s\n", e.what());
  return 1;
}
