// bench/bench_pool.cpp — ResNet18's stem max pool (3x3, stride 2, padding 1) on 8x64x112x112: with and
// without indices, NaN-free (oneDNN's pooling_max) next to the same input with one NaN (the plain kernel,
// after a full NaN scan) and the scan alone. The cases take turns run by run; median, min and max in ms.
// Usage: bench_pool [--threads N] [--runs N] [--dtype float32|bfloat16]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "ops/ops.h"

namespace {

struct Case {
  const char* name;
  std::function<void()> run;
  std::vector<double> ms;
};

}  // namespace

int main(int argc, char** argv) try {
  int threads = tl::get_num_threads(), runs = 15;
  std::string dtype_name = "float32";
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    TL_CHECK((flag == "--threads" || flag == "--runs" || flag == "--dtype") && i + 1 < argc, "unknown flag or missing value '",
             flag, "' (usage: bench_pool [--threads N] [--runs N] [--dtype float32|bfloat16])");
    const std::string value = argv[++i];
    if (flag == "--dtype") {
      TL_CHECK(value == "float32" || value == "bfloat16", "--dtype expects float32 or bfloat16, got '", value, "'");
      dtype_name = value;
    } else {
      (flag == "--threads" ? threads : runs) = tl::bench::parse_number(flag, value, 1);
    }
  }
  tl::set_num_threads(threads);
  const tl::DType dtype = dtype_name == "float32" ? tl::DType::Float32 : tl::DType::BFloat16;
  tl::bench::print_header("bench_pool: max_pool2d 3x3 / 2, padding 1, input [8, 64, 112, 112]");
  std::printf("%s, %d runs after 3 warm-up runs, taking turns\n\n", dtype_name.c_str(), runs);

  tl::manual_seed(0);
  const tl::Tensor x = tl::relu(tl::randn({8, 64, 112, 112}, dtype));  // after a ReLU, as in ResNet: many tied zeros
  tl::Tensor with_nan = x.to(tl::DType::Float32).clone();
  with_nan.data<float>()[x.numel() - 1] = NAN;  // the last element: the scan reads everything
  with_nan = with_nan.to(dtype);
  volatile int64_t sink = 0;
  std::vector<Case> cases = {
      {"with indices", [&] { sink = sink + std::get<1>(tl::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1})).numel(); }},
      {"with indices, one NaN",
       [&] { sink = sink + std::get<1>(tl::max_pool2d_with_indices(with_nan, {3, 3}, {2, 2}, {1, 1})).numel(); }},
      {"values only", [&] { sink = sink + tl::max_pool2d(x, {3, 3}, {2, 2}, {1, 1}).numel(); }},
      {"values only, one NaN", [&] { sink = sink + tl::max_pool2d(with_nan, {3, 3}, {2, 2}, {1, 1}).numel(); }},
      {"scan (all_finite) alone", [&] { sink = sink + tl::all_finite(x); }},
  };
  for (int w = 0; w < 3; ++w)
    for (Case& c : cases) c.run();
  for (int r = 0; r < runs; ++r)
    for (Case& c : cases) c.ms.push_back(tl::bench::time_runs(0, 1, c.run).median_ms);
  std::printf("%-26s %9s %9s %9s\n", "case", "med ms", "min ms", "max ms");
  for (Case& c : cases) {
    std::sort(c.ms.begin(), c.ms.end());
    const size_t n = c.ms.size();
    const double median = n % 2 ? c.ms[n / 2] : (c.ms[n / 2 - 1] + c.ms[n / 2]) / 2;
    std::printf("%-26s %9.2f %9.2f %9.2f\n", c.name, median, c.ms.front(), c.ms.back());
  }
  return 0;
} catch (const tl::Error& e) {
  std::fprintf(stderr, "bench_pool: %s\n", e.what());
  return 1;
}
