// bench/bench_rnn.cpp — LSTM speed next to PyTorch 1.13 measured in the same run (bench/pt_rnn.py through
// /usr/bin/python3): one LSTMCell step (batch 16, 256 -> 256), a 2-layer LSTM(64, 256) over 32 steps of a
// batch of 16 under NoGradGuard, and its forward + backward. Not a test: it prints figures.
//
//   bench_rnn [--threads N] [--runs N]
#include <cstdio>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "nn/rnn.h"
#include "ops/ops.h"

namespace {

using tl::bench::Timing;
constexpr int kWarmup = 3;

// PyTorch's timings by case name; empty when PyTorch is unavailable.
std::map<std::string, Timing> partner(const tl::bench::RunOptions& o) {
  const std::string cmd = "/usr/bin/python3 " TL_SOURCE_DIR "/bench/pt_rnn.py --warmup " + std::to_string(kWarmup) +
                          " --runs " + std::to_string(o.runs) + " --threads " + std::to_string(o.threads);
  std::map<std::string, Timing> out;
  FILE* p = popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return out;
  char line[1024];
  while (std::fgets(line, sizeof line, p)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.contains("case")) out[j["case"]] = {j["median_ms"], j["min_ms"], j["max_ms"]};
  }
  pclose(p);
  return out;
}

void row(const std::string& name, const Timing& t) {
  std::printf("  %-40s %9.3f %9.3f %9.3f\n", name.c_str(), t.median_ms, t.min_ms, t.max_ms);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const tl::bench::RunOptions o = tl::bench::parse_run_options(argc, argv, "bench_rnn");
    tl::set_num_threads(o.threads);
    tl::bench::print_header("bench_rnn: LSTM cell step, forward and forward + backward");
    tl::manual_seed(0);
    tl::nn::LSTMCell cell(256, 256);
    const tl::Tensor x = tl::randn({16, 256}), h = tl::randn({16, 256}), c = tl::randn({16, 256});
    tl::nn::LSTM lstm(tl::nn::LSTMOptions(64, 256).num_layers(2));
    const tl::Tensor seq = tl::randn({32, 16, 64});

    const std::map<std::string, Timing> ours{
        {"cell_step", tl::bench::time_runs(kWarmup, o.runs, [&] {
           tl::NoGradGuard no_grad;
           cell.forward(x, std::make_tuple(h, c));
         })},
        {"forward", tl::bench::time_runs(kWarmup, o.runs, [&] {
           tl::NoGradGuard no_grad;
           lstm.forward(seq);
         })},
        {"forward_backward", tl::bench::time_runs(kWarmup, o.runs, [&] {
           std::get<0>(lstm.forward(seq)).sum().backward();
         })},
    };
    const std::map<std::string, Timing> theirs = partner(o);
    std::printf("  %-40s %9s %9s %9s   (ms)\n", "case", "median", "min", "max");
    for (const auto& [name, t] : ours) {
      row("torchless " + name, t);
      if (auto it = theirs.find(name); it != theirs.end()) row("PyTorch " + name, it->second);
    }
    if (theirs.empty()) std::printf("  (PyTorch partner unavailable)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_rnn: %s\n", e.what());
    return 2;
  }
  return 0;
}
