// examples/resnet18_demo.cpp — the README's main demo: ResNet18 built in C++, traced into an FX
// graph, profiled node by node, conv-bn fused (outputs checked), and timed unfused vs fused.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include <torchless/torchless.h>

#include "bench/bench_util.h"

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
  const tl::Tensor input = tl::randn({5, 3, 224, 224});

  std::cout << "== print(resnet18) ==\n" << head([&] { std::ostringstream s; s << *rn18; return s.str(); }(), 12);

  auto traced = fx::symbolic_trace(rn18);
  std::cout << "\n== symbolic_trace(resnet18).graph ==\n" << head(traced->graph().str(), 14);

  fx::ProfilingInterpreter interp(rn18);
  interp.run(input);
  interp.run(input);
  std::cout << "\n== ProfilingInterpreter summary, batch 5 (sorted) ==\n" << head(interp.summary(true), 14)
            << "\n" << interp.summary_by_type() << "\n";

  fx::FuseReport report;
  auto fused = fx::fuse_conv_bn(rn18, &report);
  std::cout << "\n== fuse_conv_bn ==\n" << report.str() << "\n" << head(fused->code(), 10);
  const bool same = tl::allclose((*fused)(input), (*rn18)(input), 1e-4, 1e-5);
  std::cout << "fused output allclose to unfused: " << (same ? "yes" : "NO") << "\n";

  tl::bench::print_header("\n== unfused vs fused, batch 5 (3 warm-up, 10 runs) ==");
  const auto unfused_t = tl::bench::time_runs(3, 10, [&] { (*rn18)(input); });
  const auto fused_t = tl::bench::time_runs(3, 10, [&] { (*fused)(input); });
  std::printf("unfused %.1f ms, fused %.1f ms (median): fused is %.2fx\n", unfused_t.median_ms, fused_t.median_ms,
              unfused_t.median_ms / fused_t.median_ms);
  return same ? 0 : 1;
} catch (const std::exception& e) {
  std::fprintf(stderr, "resnet18_demo: %s\n", e.what());
  return 1;
}
