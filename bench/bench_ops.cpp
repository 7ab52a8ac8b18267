// bench/bench_ops.cpp — memory-bound ops (add, add_, sum, and the pointwise, activation, rearranging, indexing,
// reduction, scan, normalisation and loss ops, pads, upsampling, im2col and adaptive max pooling of #32, reads
// through an accessor) in GB/s next to std::memcpy of the same bytes, sorting and unique in GB/s of their input
// and results, a 1024^3 float32 matmul and an einsum in GFLOP/s, and the per-op overhead of the dispatch point
// (a 1-element a + b, relu and F.relu, the views split and unbind make, ns per op). The benchmarks take turns
// run by run, so a change in machine load hits an op and its memcpy partner alike.
// Usage: bench_ops [--threads N] [--runs N]. GB/s counts bytes read + written, 1 GB = 1e9 bytes.
// bench_ops --numel N [--threads N] [--runs N] [--sample-ms X] [--ops a,b] instead times the cases of
// bench/ops_cases.txt (or those named) at N elements, per call, as RESULT lines (bench/ops_cases.h;
// bench/ops_compare puts PyTorch's beside them). --vector-isa avx512|avx2|sse2 runs ops/vector_kernels.h's build
// for that ISA instead of the widest the CPU has (to compare the builds).
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "bench/bench_util.h"
#include "bench/ops_cases.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "nn/functional.h"
#include "ops/ops.h"
#include "ops/vector_kernels.h"

namespace {

constexpr int kWarmup = 3;
constexpr int64_t kBytes = int64_t{64} << 20;  // each float32 operand: 64 MiB
constexpr int64_t kMatmulN = 1024;
constexpr int64_t kTinyOps = 100000;  // 1-element adds per run: the dispatch point's own cost

struct Bench {
  const char* name;
  double work;       // bytes read + written, or flops, per run
  const char* unit;  // "GB/s", "GFLOP/s" or "ns/op" (work: ops per run)
  std::function<void()> run;
  std::vector<double> seconds;
  std::string unavailable;  // why the op cannot run (e.g. its kernel is not written yet)
};

double seconds_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Warm-up, then `runs` rounds in which every available benchmark runs once, in turn.
void run_all(std::vector<Bench>& benches, int runs) {
  for (Bench& b : benches) {
    try {
      for (int i = 0; i < kWarmup; ++i) b.run();
    } catch (const tl::Error& e) {
      b.unavailable = e.what();
    }
  }
  for (int r = 0; r < runs; ++r) {
    for (Bench& b : benches) {
      if (b.unavailable.empty()) b.seconds.push_back(seconds_of(b.run));
    }
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double rate(const Bench& b) {
  return std::string(b.unit) == "ns/op" ? median(b.seconds) / b.work * 1e9 : b.work / median(b.seconds) / 1e9;
}

// One table row: median, min and max time, the rate at the median, and the rate relative to `base`.
void print_row(const Bench& b, double base) {
  if (!b.unavailable.empty()) {
    std::printf("%-28s not available: %s\n", b.name, b.unavailable.c_str());
    return;
  }
  const auto [lo, hi] = std::minmax_element(b.seconds.begin(), b.seconds.end());
  std::printf("%-28s %9.2f %9.2f %9.2f %10.2f %-7s", b.name, median(b.seconds) * 1e3, *lo * 1e3, *hi * 1e3, rate(b),
              b.unit);
  if (std::string(b.unit) == "GB/s") std::printf(" %6.0f%%", 100.0 * rate(b) / base);
  std::printf("\n");
}

void memcpy_split(char* dst, const char* src, int64_t bytes, int threads) {
#pragma omp parallel num_threads(threads)
  {
    const int64_t chunk = bytes / omp_get_num_threads();
    const int64_t begin = chunk * omp_get_thread_num();
    const int64_t end = omp_get_thread_num() == omp_get_num_threads() - 1 ? bytes : begin + chunk;
    std::memcpy(dst + begin, src + begin, static_cast<size_t>(end - begin));
  }
}

}  // namespace

int main(int argc, char** argv) try {
  // --numel and --sample-ms select the per-size mode; the other flags are the common ones.
  int64_t numel = 0;
  double sample_ms = 2.0;
  std::string only, vector_isa;
  std::vector<char*> common = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if ((flag == "--numel" || flag == "--sample-ms" || flag == "--ops" || flag == "--vector-isa") && i + 1 < argc) {
      if (flag == "--numel") numel = tl::bench::parse_number<int64_t>(flag, argv[++i], 1);
      else if (flag == "--ops") only = argv[++i];
      else if (flag == "--vector-isa") vector_isa = argv[++i];
      else sample_ms = tl::bench::parse_number<double>(flag, argv[++i], 0.0);
    } else {
      common.push_back(argv[i]);
    }
  }
  const tl::bench::RunOptions opt = tl::bench::parse_run_options(
      static_cast<int>(common.size()), common.data(),
      "bench_ops [--numel N [--sample-ms X] [--ops a,b]] [--vector-isa avx512|avx2|sse2]");
  tl::set_num_threads(opt.threads);
  if (!vector_isa.empty() && !tl::detail::set_vector_isa(vector_isa.c_str())) {
    std::fprintf(stderr, "bench_ops: --vector-isa %s is not a build this CPU runs (avx512, avx2, sse2)\n",
                 vector_isa.c_str());
    return 2;
  }
  if (numel > 0) {
    tl::bench::run_op_cases(TL_SOURCE_DIR "/bench/ops_cases.txt", numel, opt.runs, sample_ms, only);
    return 0;
  }
  const dnnl_version_t* v = dnnl_version();
  std::printf("bench_ops: %d threads, oneDNN %d.%d.%d, %d runs after %d warm-up runs, operands %lld MiB float32\n\n",
              opt.threads, v->major, v->minor, v->patch, opt.runs, kWarmup, static_cast<long long>(kBytes >> 20));

  const int64_t n = kBytes / 4;
  tl::manual_seed(0);
  tl::Tensor a = tl::rand({n}), b = tl::rand({n}), acc = tl::rand({n}), dst = tl::zeros({n});
  tl::Tensor x = tl::rand({kMatmulN, kMatmulN}), w = tl::rand({kMatmulN, kMatmulN});
  const tl::Tensor one_a = tl::rand({1}), one_b = tl::rand({1});
  const tl::Tensor square = a.view({8192, n / 8192}), small = tl::rand({16, 16});
  const tl::Tensor mask_a = a.gt(0.5), mask_b = b.gt(0.5);
  const tl::Tensor index = (b * static_cast<double>(n - 1)).to(tl::kLong), mask = b > 0.5;
  const int64_t matrix_rows = n / 1024;
  const tl::Tensor row_index = (b.slice(0, 0, matrix_rows) * static_cast<double>(matrix_rows - 1)).to(tl::kLong);
  tl::Tensor matrix = acc.view({matrix_rows, 1024});
  const tl::Tensor source = a.view({matrix_rows, 1024});
  // Sorting works on 2^20 elements in rows of 1024 (16x less than the memory-bound operands).
  constexpr int64_t kSortN = int64_t{1} << 20, kRow = 1024;
  const tl::Tensor rows = a.slice(0, 0, kSortN).view({-1, kRow}), big_rows = a.view({-1, kRow});
  const tl::Tensor flags = a > 2.0;  // all false: any() reads every element
  // einsum's attention scores: (batch, heads, queries, dim) x (batch, heads, keys, dim).
  const tl::Tensor q = tl::rand({8, 8, 256, 64}), k = tl::rand({8, 8, 256, 64});
  const tl::Tensor image = a.view({64, 64, 64, 64}), image8 = image.slice(0, 0, 8);  // (N, C, H, W), 1/8 of it
  const tl::Tensor sequences = a.view({256, 256, 256});  // (N, C, L)
  const tl::Tensor deconv_weight = tl::randn({64, 64, 3, 3});  // (C_in, C_out, kH, kW)
  const tl::Tensor row_weight = tl::rand({kRow}), row_bias = tl::rand({kRow});
  const tl::Tensor planes = a.view({-1, 32, 32, 32}), plane_weight = tl::rand({32});
  const auto row_stats = tl::native_layer_norm(big_rows, {kRow}, row_weight, row_bias, 1e-5);
  const tl::Tensor row_mean = std::get<1>(row_stats), row_rstd = std::get<2>(row_stats);
  const tl::Tensor prelu_weight = tl::full({1}, 0.25);
  const auto* src_bytes = static_cast<const char*>(a.raw_data());
  auto* dst_bytes = static_cast<char*>(dst.raw_data());
  const tl::Tensor probs = tl::sigmoid(a);  // probabilities for binary_cross_entropy
  volatile double sink = 0;  // keeps results observable

  std::vector<Bench> benches = {
      {"memcpy, 1 thread", 2.0 * kBytes, "GB/s", [&] { std::memcpy(dst_bytes, src_bytes, kBytes); }},
      {"memcpy, 2 threads (halves)", 2.0 * kBytes, "GB/s", [&] { memcpy_split(dst_bytes, src_bytes, kBytes, 2); }},
      {"add (a + b, new tensor)", 3.0 * kBytes, "GB/s", [&] { sink = sink + (a + b).numel(); }},
      {"add_ (in place)", 3.0 * kBytes, "GB/s", [&] { acc.add_(b); }},
      {"sum (all elements)", 1.0 * kBytes, "GB/s", [&] { sink = sink + a.sum().item<double>(); }},
      {"gather (index int64)", 4.0 * kBytes, "GB/s", [&] { sink = sink + a.gather(0, index).numel(); }},
      {"scatter_add_ (index int64)", 5.0 * kBytes, "GB/s", [&] { acc.scatter_add_(0, index, b); }},
      {"index_add_ (1024-wide rows)", 3.0 * kBytes, "GB/s", [&] { matrix.index_add_(0, row_index, source); }},
      {"masked_fill_", 2.25 * kBytes, "GB/s", [&] { acc.masked_fill_(mask, 0.5); }},
      {"linspace (new tensor)", 1.0 * kBytes, "GB/s", [&] { sink = sink + tl::linspace(0, 1, n).numel(); }},
      {"var (all elements)", 1.0 * kBytes, "GB/s", [&] { sink = sink + a.var().item<double>(); }},
      {"std (rows of 1024)", 1.0 * kBytes, "GB/s", [&] { sink = sink + big_rows.std(1).numel(); }},
      {"norm (all elements)", 1.0 * kBytes, "GB/s", [&] { sink = sink + a.norm().item<double>(); }},
      {"vector_norm inf (rows)", 1.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::linalg_vector_norm(big_rows, INFINITY, 1).numel(); }},
      {"any (all elements, bool)", 0.25 * kBytes, "GB/s", [&] { sink = sink + flags.any().item<bool>(); }},
      {"layer_norm (rows of 1024)", 2.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::layer_norm(big_rows, {kRow}, row_weight, row_bias).numel(); }},
      {"layer_norm backward (rows)", 5.0 * kBytes, "GB/s",
       [&] {
         const auto [gx, gw, gb] = tl::native_layer_norm_backward(big_rows, big_rows, {kRow}, row_mean, row_rstd,
                                                                  row_weight, row_bias, {true, true, true});
         sink = sink + gx.numel() + gw.numel() + gb.numel();
       }},
      {"group_norm (32 channels, 8 groups)", 2.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::group_norm(planes, 8, plane_weight, plane_weight).numel(); }},
      {"embedding (rows of 1024)", 2.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::embedding(matrix, row_index).numel(); }},
      {"embedding backward (rows)", 3.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::embedding_dense_backward(source, row_index, matrix_rows, -1, false).numel(); }},
      {"cumsum (rows of 1024)", 2.0 * kBytes, "GB/s", [&] { sink = sink + big_rows.cumsum(1).numel(); }},
      {"cumprod (rows of 1024)", 2.0 * kBytes, "GB/s", [&] { sink = sink + big_rows.cumprod(1).numel(); }},
      {"sort (2^20, rows of 1024)", 16.0 * kSortN, "GB/s", [&] { sink = sink + rows.sort(1).values.numel(); }},
      {"topk 8 (2^20, rows of 1024)", 4.0 * kSortN, "GB/s", [&] { sink = sink + rows.topk(8).values.numel(); }},
      {"kthvalue 512 (rows of 1024)", 4.0 * kSortN, "GB/s", [&] { sink = sink + rows.kthvalue(512).values.numel(); }},
      {"unique (2^20, inverse and counts)", 16.0 * kSortN, "GB/s",
       [&] { sink = sink + std::get<0>(tl::_unique2(rows, true, true, true)).numel(); }},
      {"einsum bhqd,bhkd->bhqk", 2.0 * 8 * 8 * 256 * 256 * 64, "GFLOP/s",
       [&] { sink = sink + tl::einsum("bhqd,bhkd->bhqk", {q, k}).numel(); }},
      {"accessor<float, 2> reads (rows of 1024)", 1.0 * kBytes, "GB/s",
       [&] {
         const auto acc2 = big_rows.accessor<float, 2>();
         double total = 0;
         for (int64_t i = 0; i < acc2.size(0); ++i)
           for (int64_t j = 0; j < acc2.size(1); ++j) total += acc2[i][j];
         sink = sink + total;
       }},
      {"matmul 1024x1024x1024", 2.0 * kMatmulN * kMatmulN * kMatmulN, "GFLOP/s",
       [&] { sink = sink + x.matmul(w).numel(); }},
      {"floor", 2.0 * kBytes, "GB/s", [&] { sink = sink + a.floor().numel(); }},
      {"round", 2.0 * kBytes, "GB/s", [&] { sink = sink + a.round().numel(); }},
      {"sign", 2.0 * kBytes, "GB/s", [&] { sink = sink + a.sign().numel(); }},
      {"erf", 2.0 * kBytes, "GB/s", [&] { sink = sink + a.erf().numel(); }},
      {"floor_ (in place)", 2.0 * kBytes, "GB/s", [&] { acc.floor_(); }},
      {"isnan (bool out)", 1.25 * kBytes, "GB/s", [&] { sink = sink + a.isnan().numel(); }},
      {"nan_to_num", 2.0 * kBytes, "GB/s", [&] { sink = sink + a.nan_to_num().numel(); }},
      {"logical_and (bool)", 0.75 * kBytes, "GB/s", [&] { sink = sink + mask_a.logical_and(mask_b).numel(); }},
      {"clamp_min", 2.0 * kBytes, "GB/s", [&] { sink = sink + a.clamp_min(0.5).numel(); }},
      {"clamp_min_ (in place)", 2.0 * kBytes, "GB/s", [&] { acc.clamp_min_(0.5); }},
      {"fmod (a, b)", 3.0 * kBytes, "GB/s", [&] { sink = sink + a.fmod(b).numel(); }},
      {"remainder (a, 0.3)", 2.0 * kBytes, "GB/s", [&] { sink = sink + a.remainder(0.3).numel(); }},
      {"leaky_relu", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::leaky_relu(a, 0.2).numel(); }},
      {"elu", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::elu(a).numel(); }},
      {"softplus", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::softplus(a).numel(); }},
      {"mish", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::mish(a).numel(); }},
      {"hardsigmoid", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::hardsigmoid(a).numel(); }},
      {"hardtanh", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::hardtanh(a).numel(); }},
      {"prelu (one weight)", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::prelu(a, prelu_weight).numel(); }},
      {"lerp (a, b, 0.3)", 3.0 * kBytes, "GB/s", [&] { sink = sink + tl::lerp(a, b, 0.3).numel(); }},
      {"addcmul (acc, a, b)", 4.0 * kBytes, "GB/s", [&] { sink = sink + tl::addcmul(acc, a, b, 0.5).numel(); }},
      {"addcdiv (acc, a, b)", 4.0 * kBytes, "GB/s", [&] { sink = sink + tl::addcdiv(acc, a, b, 0.5).numel(); }},
      {"xlogy (a, b)", 3.0 * kBytes, "GB/s", [&] { sink = sink + a.xlogy(b).numel(); }},
      {"smooth_l1_loss none", 3.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::smooth_l1_loss(a, b, tl::Reduction::None).numel(); }},
      {"smooth_l1_loss_backward none", 4.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::smooth_l1_loss_backward(b, a, b, tl::Reduction::None, 1.0).numel(); }},
      {"huber_loss mean", 2.0 * kBytes, "GB/s", [&] { sink = sink + tl::huber_loss(a, b).item<double>(); }},
      {"binary_cross_entropy mean", 2.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::binary_cross_entropy(probs, probs).item<double>(); }},
      {"bce_with_logits mean", 2.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::binary_cross_entropy_with_logits(a, probs).item<double>(); }},
      {"flip (both dims)", 2.0 * kBytes, "GB/s", [&] { sink = sink + square.flip({0, 1}).numel(); }},
      {"roll (both dims)", 2.0 * kBytes, "GB/s", [&] { sink = sink + square.roll({3, 5}, {0, 1}).numel(); }},
      {"repeat (x2 rows)", 3.0 * kBytes, "GB/s", [&] { sink = sink + square.repeat({2, 1}).numel(); }},
      {"tile (x2 rows)", 3.0 * kBytes, "GB/s", [&] { sink = sink + tl::tile(square, {2, 1}).numel(); }},
      {"triu", 2.0 * kBytes, "GB/s", [&] { sink = sink + square.triu().numel(); }},
      {"constant_pad_nd (1 each side)", 2.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::constant_pad_nd(image, {1, 1, 1, 1}).numel(); }},
      {"reflection_pad2d (1 each side)", 2.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::reflection_pad2d(image, {1, 1, 1, 1}).numel(); }},
      {"upsample_nearest2d x2", 5.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::upsample_nearest2d(image, {128, 128}).numel(); }},
      {"upsample_bilinear2d x2", 5.0 * kBytes, "GB/s",
       [&] { sink = sink + tl::upsample_bilinear2d(image, {128, 128}, false).numel(); }},
      {"im2col 3x3 pad 1 (1/8 image)", 10.0 * kBytes / 8, "GB/s",
       [&] { sink = sink + tl::im2col(image8, {3, 3}, {1, 1}, {1, 1}, {1, 1}).numel(); }},
      {"adaptive_max_pool2d 7x7", 1.0 * kBytes, "GB/s",
       [&] { sink = sink + std::get<0>(tl::adaptive_max_pool2d(image, {7, 7})).numel(); }},
      {"max_pool1d k2 (N, C, L)", 1.5 * kBytes, "GB/s",
       [&] { sink = sink + tl::max_pool1d(sequences, {2}).numel(); }},
      {"conv_transpose2d 64->64 3x3 s2 (1/8 image)", 2.0 * 8 * 64 * 64 * 64 * 64 * 9, "GFLOP/s",
       [&] { sink = sink + tl::conv_transpose2d(image8, deconv_weight, {}, {2, 2}, {1, 1}, {1, 1}).numel(); }},
      {"split into 16 (views)", static_cast<double>(kTinyOps / 10), "ns/op",
       [&] {
         for (int64_t i = 0; i < kTinyOps / 10; ++i) sink = sink + small.split(1).size();
       }},
      {"unbind 16 / chunk 4 / narrow", static_cast<double>(kTinyOps / 10), "ns/op",
       [&] {
         for (int64_t i = 0; i < kTinyOps / 10; ++i)
           sink = sink + small.unbind().size() + small.chunk(4).size() + small.narrow(0, 2, 3).numel();
       }},
      {"a + b, 1 element (overhead)", static_cast<double>(kTinyOps), "ns/op",
       [&] {
         for (int64_t i = 0; i < kTinyOps; ++i) sink = sink + (one_a + one_b).numel();
       }},
      // F.relu is a named call (traced as one node): untraced it must cost what the relu op costs.
      {"relu, 1 element (overhead)", static_cast<double>(kTinyOps), "ns/op",
       [&] {
         for (int64_t i = 0; i < kTinyOps; ++i) sink = sink + tl::relu(one_a).numel();
       }},
      {"F.relu, 1 element (overhead)", static_cast<double>(kTinyOps), "ns/op",
       [&] {
         for (int64_t i = 0; i < kTinyOps; ++i) sink = sink + tl::nn::functional::relu(one_a).numel();
       }},
  };
  run_all(benches, opt.runs);

  std::printf("%-28s %9s %9s %9s %10s %-7s %7s\n", "benchmark", "med ms", "min ms", "max ms", "rate", "unit",
              "vs cpy2");
  const double base = rate(benches[1]);
  for (const Bench& bench : benches) print_row(bench, base);
  std::printf("\nvs cpy2: rate relative to the 2-thread memcpy (target for add / add_ / sum: >= 70%%)\n");
  return 0;
} catch (const tl::Error& e) {
  std::fprintf(stderr, "bench_ops: %s\n", e.what());
  return 1;
}
