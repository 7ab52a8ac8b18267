// bench/bench_batch_norm.cpp — training-mode batch_norm forward and native_batch_norm_backward on
// ResNet18's five BatchNorm2d shapes at batch 8, float32 and bfloat16 (fp32 parameters, as autocast
// gives); "step" weighs each shape by how many of ResNet18's 20 BN layers have it.
// Usage: bench_batch_norm [--threads N] [--runs N]. Forward and backward take turns run by run.
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "ops/ops.h"

namespace {

struct Shape4 {
  int64_t c, hw, layers;  // channels, spatial side, ResNet18 BN layers of this shape
};
constexpr Shape4 kShapes[] = {{64, 112, 1}, {64, 56, 4}, {128, 28, 5}, {256, 14, 5}, {512, 7, 5}};
constexpr int64_t kBatch = 8;
constexpr int kWarmup = 3;

}  // namespace

int main(int argc, char** argv) {
  const tl::bench::RunOptions o = tl::bench::parse_run_options(argc, argv, "bench_batch_norm");
  tl::set_num_threads(o.threads);
  tl::bench::print_header("batch_norm training forward / native_batch_norm_backward, ResNet18 shapes, N=8");
  tl::manual_seed(0);
  std::printf("%-8s %-16s %10s %10s %10s\n", "dtype", "shape", "fwd ms", "bwd ms", "x layers");
  for (tl::DType dtype : {tl::DType::Float32, tl::DType::BFloat16}) {
    double step_fwd = 0, step_bwd = 0;
    for (const Shape4& s : kShapes) {
      const tl::Shape shape{kBatch, s.c, s.hw, s.hw};
      const tl::Tensor x = (tl::randn(shape) * 2.0 + 0.5).to(dtype), grad = tl::randn(shape).to(dtype);
      const tl::Tensor weight = tl::randn({s.c}), bias = tl::randn({s.c});
      const tl::Tensor running_mean = tl::zeros({s.c}), running_var = tl::ones({s.c});
      std::vector<double> fwd, bwd;
      for (int r = 0; r < kWarmup + o.runs; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        tl::Tensor y = tl::batch_norm(x, weight, bias, running_mean, running_var, true, 0.1, 1e-5, true);
        const double f = tl::bench::milliseconds_since(t0);
        t0 = std::chrono::steady_clock::now();
        auto g = tl::native_batch_norm_backward(grad, x, weight, {}, {}, {}, {}, true, 1e-5, {true, true, true});
        const double b = tl::bench::milliseconds_since(t0);
        if (r >= kWarmup) fwd.push_back(f), bwd.push_back(b);
      }
      const tl::bench::Timing tf = tl::bench::summarize(fwd), tb = tl::bench::summarize(bwd);
      const std::string name = std::to_string(s.c) + "x" + std::to_string(s.hw) + "x" + std::to_string(s.hw);
      std::printf("%-8s %-16s %10.3f %10.3f %10lld\n", dtype == tl::DType::Float32 ? "float32" : "bfloat16",
                  name.c_str(), tf.median_ms, tb.median_ms, static_cast<long long>(s.layers));
      step_fwd += tf.median_ms * s.layers;
      step_bwd += tb.median_ms * s.layers;
    }
    std::printf("%-8s %-16s %10.3f %10.3f   (sum over 20 layers; fwd+bwd %.2f ms)\n",
                dtype == tl::DType::Float32 ? "float32" : "bfloat16", "step", step_fwd, step_bwd, step_fwd + step_bwd);
  }
}
