// bench/bench_int8.cpp — int8 convolution (quantized::conv2d_relu: u8 NHWC activations, s8 weights prepacked once)
// next to our best fp32 convolution (mkldnn_convolution with ReLU: nChw16c activations, weights prepacked once,
// Winograd where oneDNN has it) on each distinct conv of ResNet18, at the batch sizes asked for; the two take
// turns run by run; median ms per conv, the speedup, and the sum over ResNet18's 20 convs (counted with repeats).
// Usage: bench_int8 [--threads N] [--runs N] [--batch N]...   (default batches 1 and 10)
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/dispatch.h"
#include "core/generator.h"
#include "core/op_kind.h"
#include "core/parallel.h"
#include "ops/ops.h"

namespace {

using tl::Shape;
using tl::Tensor;

/// One of ResNet18's convolutions: channels, input size, kernel, stride, and how often the net runs it.
struct Conv {
  int64_t in, out, size, kernel, stride, repeats;
};

const std::vector<Conv> kResNet18 = {
    {3, 64, 224, 7, 2, 1},    {64, 64, 56, 3, 1, 4},   {64, 128, 56, 3, 2, 1},  {128, 128, 28, 3, 1, 3},
    {64, 128, 56, 1, 2, 1},   {128, 256, 28, 3, 2, 1}, {256, 256, 14, 3, 1, 3}, {128, 256, 28, 1, 2, 1},
    {256, 512, 14, 3, 2, 1},  {512, 512, 7, 3, 1, 3},  {256, 512, 14, 1, 2, 1}};

Tensor to_mkldnn(const Tensor& x) {
  return tl::dispatch::call_single_output(tl::OpKind::ToMkldnn, {x, Tensor()}, {{"dtype", tl::AttrValue()}});
}

/// The fp32 conv as optimize_for_inference runs it: blocked input, weight packed for it, ReLU fused.
struct Fp32Conv {
  Tensor x, w, b;
  tl::Attrs attrs;
  // The stem (3 channels) reads its dense NCHW input, as the optimized ResNet18 does (no blocked 3-channel kernel).
  Fp32Conv(const Conv& c, const Tensor& input, const Tensor& weight, const Tensor& bias)
      : x(c.in % 16 == 0 ? to_mkldnn(input) : input), b(bias) {
    const Shape pad{c.kernel / 2, c.kernel / 2}, stride{c.stride, c.stride}, one{1, 1};
    const bool winograd = true;
    w = tl::dispatch::call_single_output(
        tl::OpKind::MkldnnReorderConv2dWeight, {weight},
        {{"padding", pad}, {"stride", stride}, {"dilation", one}, {"groups", int64_t{1}}, {"input_size", x.shape()},
         {"input_stride", x.strides()}, {"input_dtype", x.dtype()}, {"bias", true}, {"sum", false}, {"relu", true},
         {"winograd", winograd}});
    attrs = {{"padding", pad},       {"stride", stride},     {"dilation", one},           {"groups", int64_t{1}},
             {"relu", true},         {"winograd", winograd}, {"weight_size", weight.shape()}, {"packed_for", x.shape()}};
  }
  int64_t run() const {
    return tl::dispatch::call_single_output(tl::OpKind::MkldnnConvolution, {x, w, b, Tensor(), Tensor()}, attrs).numel();
  }
};

}  // namespace

int main(int argc, char** argv) try {
  int threads = tl::get_num_threads(), runs = 20;
  std::vector<int64_t> batches;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    TL_CHECK((flag == "--threads" || flag == "--runs" || flag == "--batch") && i + 1 < argc,
             "unknown flag or missing value '", flag, "' (usage: bench_int8 [--threads N] [--runs N] [--batch N]...)");
    if (flag == "--batch") batches.push_back(tl::bench::parse_number<int64_t>(flag, argv[++i], 1));
    else (flag == "--threads" ? threads : runs) = tl::bench::parse_number(flag, argv[++i], 1);
  }
  if (batches.empty()) batches = {1, 10};
  tl::set_num_threads(threads);
  tl::bench::print_header("bench_int8: ResNet18's convolutions (+ReLU), int8 (quantized::conv2d_relu) vs fp32");
  std::printf("%d runs after 3 warm-up runs, taking turns; ms are medians\n", runs);
  tl::manual_seed(0);
  for (int64_t batch : batches) {
    std::printf("\nbatch %lld\n%-28s %10s %10s %8s\n", static_cast<long long>(batch), "conv (in->out, size, k/s)",
                "fp32 ms", "int8 ms", "speedup");
    double fp32_total = 0, int8_total = 0;
    for (const Conv& c : kResNet18) {
      const Tensor x = tl::relu(tl::randn({batch, c.in, c.size, c.size}));
      const Tensor weight = tl::randn({c.out, c.in, c.kernel, c.kernel}) * 0.05;
      const Tensor bias = tl::randn({c.out}) * 0.1;
      const Fp32Conv fp32(c, x, weight, bias);
      const Tensor qx = tl::quantize_per_tensor(x, 0.03, 0, tl::kQUInt8);
      const Tensor qw = tl::quantize_per_channel(weight, tl::full({c.out}, 0.002, tl::kDouble),
                                                 tl::zeros({c.out}, tl::kLong), 0, tl::kQInt8);
      const Tensor packed = tl::quantized_conv2d_prepack(qw, bias, {c.stride, c.stride}, {c.kernel / 2, c.kernel / 2});
      // The int8 input channels-last, as the previous quantized conv leaves it.
      const Tensor qx_nhwc = qx.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
      volatile int64_t sink = 0;
      std::vector<double> fp32_ms, int8_ms;
      for (int r = -3; r < runs; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        sink = sink + fp32.run();
        if (r >= 0) fp32_ms.push_back(tl::bench::milliseconds_since(t0));
        t0 = std::chrono::steady_clock::now();
        sink = sink + tl::quantized_conv2d_relu(qx_nhwc, packed, 0.05, 0).numel();
        if (r >= 0) int8_ms.push_back(tl::bench::milliseconds_since(t0));
      }
      const double f = tl::bench::summarize(fp32_ms).median_ms, q = tl::bench::summarize(int8_ms).median_ms;
      fp32_total += f * static_cast<double>(c.repeats);
      int8_total += q * static_cast<double>(c.repeats);
      const std::string name = std::to_string(c.in) + "->" + std::to_string(c.out) + ", " + std::to_string(c.size) +
                               ", " + std::to_string(c.kernel) + "/" + std::to_string(c.stride) +
                               (c.repeats > 1 ? " (x" + std::to_string(c.repeats) + ")" : "");
      std::printf("%-28s %10.3f %10.3f %7.2fx\n", name.c_str(), f, q, f / q);
    }
    std::printf("%-28s %10.3f %10.3f %7.2fx\n", "ResNet18's 20 convs", fp32_total, int8_total, fp32_total / int8_total);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_int8: %s\n", e.what());
  return 1;
}
