// tests/ops/test_inference_kernels.cpp — the inference-layout kernels against plain references: the
// blocked / NHWC layouts element by element, conv with residual and ReLU post-ops against eager
// conv2d + add + relu, prepacked weights, pools, `out` arguments, and the error messages.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/generator.h"
#include "core/op_kind.h"
#include "ops/ops.h"
#include "tests/support/captured_warnings.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

Tensor to_mkldnn(const Tensor& x, std::optional<DType> dtype = std::nullopt, const Tensor& out = {}) {
  return dispatch::call_single_output(OpKind::ToMkldnn, {x, out}, {{"dtype", dtype ? AttrValue(*dtype) : AttrValue()}});
}

Tensor to_dense(const Tensor& x, int64_t channels, const Tensor& out = {}) {
  return dispatch::call_single_output(OpKind::ToDense, {x, out}, {{"channels", channels}});
}

struct ConvArgs {
  Shape stride{1, 1}, padding{0, 0}, dilation{1, 1};
  int64_t groups = 1;
  bool relu = false;
  bool winograd = false;
};

Tensor pack_weight(const Tensor& w, const Tensor& x, const ConvArgs& a, bool bias, bool sum) {
  const Attrs attrs{{"padding", a.padding},  {"stride", a.stride},       {"dilation", a.dilation},
                    {"groups", a.groups},    {"input_size", x.shape()},  {"input_stride", x.strides()},
                    {"input_dtype", x.dtype()}, {"bias", bias},          {"sum", sum},
                    {"relu", a.relu},        {"winograd", a.winograd}};
  return dispatch::call_single_output(OpKind::MkldnnReorderConv2dWeight, {w}, attrs);
}

/// mkldnn_convolution with a dense weight, or (packed) with it prepacked for x first.
Tensor mkldnn_conv(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& other, const ConvArgs& a,
                   bool packed, const Tensor& out = {}) {
  const Tensor weight = packed ? pack_weight(w, x, a, b.defined(), other.defined()) : w;
  const Attrs attrs{{"padding", a.padding}, {"stride", a.stride},     {"dilation", a.dilation},
                    {"groups", a.groups},   {"relu", a.relu},         {"winograd", a.winograd},
                    {"weight_size", w.shape()}, {"packed_for", x.shape()}};
  return dispatch::call_single_output(OpKind::MkldnnConvolution, {x, weight, b, other, out}, attrs);
}

/// Element (n, c, h, w) of a blocked tensor, read plainly.
float blocked_at(const Tensor& t, int64_t n, int64_t c, int64_t h, int64_t w) {
  return t.data<float>()[(((n * t.size(1) + c / 16) * t.size(2) + h) * t.size(3) + w) * 16 + c % 16];
}

TEST_CASE("to_mkldnn / to_dense: blocked fp32 holds each channel at its block, padding zero") {
  manual_seed(1);
  for (int64_t c : {1, 5, 16, 21, 40}) {
    CAPTURE(c);
    // A non-contiguous NCHW input: a transposed view.
    const Tensor x = randn({2, c, 7, 3}).transpose(2, 3).contiguous().transpose(2, 3);
    const Tensor y = to_mkldnn(x);
    REQUIRE(y.shape() == Shape{2, (c + 15) / 16, 7, 3, 16});
    bool same = true;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t ch = 0; ch < y.size(1) * 16; ++ch)
        for (int64_t h = 0; h < 7; ++h)
          for (int64_t w = 0; w < 3; ++w) {
            const float expected = ch < c ? x.select(0, n).select(0, ch).select(0, h).select(0, w).item<float>() : 0.0f;
            same = same && blocked_at(y, n, ch, h, w) == expected;
          }
    CHECK(same);
    CHECK(equal(to_dense(y, c), x.contiguous()));
    // `out` arguments are written in place.
    Tensor out = empty(y.shape());
    CHECK(to_mkldnn(x, std::nullopt, out).is_same(out));
    CHECK(equal(out, y));
  }
}

TEST_CASE("to_mkldnn / to_dense: bf16 NHWC round trip") {
  manual_seed(2);
  const Tensor x = randn({2, 21, 5, 6});
  const Tensor y = to_mkldnn(x, DType::BFloat16);
  CHECK(y.dtype() == DType::BFloat16);
  CHECK(y.shape() == x.shape());
  CHECK(y.strides() == Strides{5 * 6 * 21, 1, 6 * 21, 21});
  CHECK(equal(y, x.to(DType::BFloat16)));
  CHECK(equal(to_dense(y, -1), x.to(DType::BFloat16).to(DType::Float32)));
}

TEST_CASE("mkldnn_convolution: residual and ReLU post-ops match eager conv2d + add + relu") {
  manual_seed(3);
  struct Case {
    int64_t c_in, c_out, k;
    ConvArgs args;
  };
  // Winograd is asked for everywhere; it applies to the 3x3 stride-1 cases, the others run direct.
  for (const Case& t : {Case{5, 20, 3, {.padding = {1, 1}}}, Case{16, 32, 1, {.stride = {2, 2}}},
                        Case{32, 32, 3, {.padding = {2, 1}, .dilation = {2, 1}, .groups = 2}},
                        Case{3, 16, 7, {.stride = {2, 2}, .padding = {3, 3}}}, Case{16, 48, 3, {.padding = {1, 1}}},
                        Case{40, 24, 3, {}}}) {
    for (bool relu : {false, true})
      for (bool residual : {false, true})
        for (bool packed : {false, true})
          for (bool winograd : {false, true}) {
            CAPTURE(t.c_in);
            CAPTURE(relu);
            CAPTURE(residual);
            CAPTURE(packed);
            CAPTURE(winograd);
            ConvArgs a = t.args;
            a.relu = relu;
            a.winograd = winograd;
            const Tensor x = randn({2, t.c_in, 11, 9});
            const Tensor w = randn({t.c_out, t.c_in / a.groups, t.k, t.k}) * 0.2, b = randn({t.c_out});
            Tensor expected = conv2d(x, w, b, a.stride, a.padding, a.dilation, a.groups);
            const Tensor other = residual ? randn(expected.shape()) : Tensor();
            if (residual) expected = expected + other;
            if (relu) expected = tl::relu(expected);
            const Tensor other_blocked = residual ? to_mkldnn(other) : Tensor();
            const Tensor from_blocked = mkldnn_conv(to_mkldnn(x), w, b, other_blocked, a, packed);
            CHECK_TENSOR_CLOSE(to_dense(from_blocked, t.c_out), expected, 1e-4, 1e-4);
            // The dense image as input (the first conv of a network).
            const Tensor from_dense = mkldnn_conv(x, w, b, other_blocked, a, packed);
            CHECK_TENSOR_CLOSE(to_dense(from_dense, t.c_out), expected, 1e-4, 1e-4);
            if (residual) CHECK(equal(other_blocked, to_mkldnn(other)));  // the residual itself is untouched
          }
  }
}

TEST_CASE("mkldnn_convolution: a grouped conv whose groups are not whole 16-channel blocks runs a JIT kernel") {
  // RegNet's 8-channel groups: on the blocked layout oneDNN has only its reference kernel (~1000x slower), so the
  // plan runs the conv on the layouts oneDNN picks, between reorders; it warns only when that too is slow.
  manual_seed(4);
  testing::CapturedWarnings warnings;
  const ConvArgs grouped{.padding = {1, 1}, .groups = 6};
  for (bool relu : {false, true})
    for (bool residual : {false, true})
      for (bool packed : {false, true}) {
        CAPTURE(relu);
        CAPTURE(residual);
        CAPTURE(packed);
        ConvArgs a = grouped;
        a.relu = relu;
        const Tensor x = randn({2, 48, 13, 11});
        const Tensor w = randn({48, 8, 3, 3}) * 0.2, b = randn({48});
        Tensor expected = conv2d(x, w, b, a.stride, a.padding, a.dilation, a.groups);
        const Tensor other = residual ? randn(expected.shape()) : Tensor();
        if (residual) expected = expected + other;
        if (relu) expected = tl::relu(expected);
        const Tensor other_blocked = residual ? to_mkldnn(other) : Tensor();
        CHECK_TENSOR_CLOSE(to_dense(mkldnn_conv(to_mkldnn(x), w, b, other_blocked, a, packed), 48), expected, 1e-4, 1e-4);
        CHECK_TENSOR_CLOSE(to_dense(mkldnn_conv(x, w, b, other_blocked, a, packed), 48), expected, 1e-4, 1e-4);
      }
  CHECK(warnings.messages == std::vector<std::string>{});
}

TEST_CASE("mkldnn_reorder_conv2d_weight: Winograd packs 3x3 weights as transformed 4x4 or 6x6 tiles") {
  manual_seed(7);
  const Tensor x = to_mkldnn(randn({1, 32, 10, 10})), w = randn({32, 32, 3, 3});
  const ConvArgs direct{.padding = {1, 1}}, winograd{.padding = {1, 1}, .winograd = true};
  const int64_t direct_numel = pack_weight(w, x, direct, false, false).numel();
  CHECK(direct_numel == w.numel());
  // F(2x2, 3x3) keeps 16 values per 3x3 kernel, F(4x4, 3x3) 36: more than the 9 of the weight.
  CHECK(pack_weight(w, x, winograd, false, false).numel() >= 16 * direct_numel / 9);
  // bf16 has no Winograd kernel: asking for it packs the direct layout.
  const Tensor xb = to_mkldnn(randn({1, 32, 10, 10}), DType::BFloat16);
  CHECK(pack_weight(w, xb, winograd, false, false).numel() == pack_weight(w, xb, direct, false, false).numel());
}

TEST_CASE("mkldnn_convolution: writes in place over its residual, and runs in bf16 NHWC") {
  manual_seed(4);
  const Tensor x = randn({1, 16, 8, 8}), w = randn({16, 16, 3, 3}) * 0.1, b = randn({16});
  const ConvArgs a{.padding = {1, 1}, .relu = true};
  const Tensor other = randn({1, 16, 8, 8});
  const Tensor expected = tl::relu(conv2d(x, w, b, a.stride, a.padding) + other);
  const Tensor residual = to_mkldnn(other);
  const Tensor y = mkldnn_conv(to_mkldnn(x), w, b, residual, a, true, residual);
  CHECK(y.is_same(residual));
  CHECK_TENSOR_CLOSE(to_dense(y, 16), expected, 1e-4, 1e-4);

  const Tensor xb = to_mkldnn(x, DType::BFloat16);
  const Tensor yb = mkldnn_conv(xb, w, b, to_mkldnn(other, DType::BFloat16), a, true);
  CHECK(yb.dtype() == DType::BFloat16);
  CHECK(yb.strides() == Strides{8 * 8 * 16, 1, 8 * 16, 16});
  CHECK_TENSOR_CLOSE(to_dense(yb, 16), expected, 3e-2, 3e-2);
}

TEST_CASE("mkldnn_max_pool2d / mkldnn_adaptive_avg_pool2d match the eager pools") {
  manual_seed(5);
  const Tensor x = randn({2, 21, 13, 10});
  for (std::optional<DType> dtype : {std::optional<DType>(), std::optional<DType>(DType::BFloat16)}) {
    const Tensor y = to_mkldnn(x, dtype);
    const Tensor reference = dtype ? x.to(DType::BFloat16).to(DType::Float32) : x;
    const Tensor pooled = dispatch::call_single_output(OpKind::MkldnnMaxPool2d, {y, Tensor()},
                                          {{"kernel_size", Shape{3, 3}}, {"stride", Shape{2, 2}}, {"padding", Shape{1, 1}},
                                           {"dilation", Shape{1, 1}}, {"ceil_mode", true}});
    CHECK(equal(to_dense(pooled, 21), max_pool2d(reference, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true)));
    for (const Shape& size : {Shape{1, 1}, Shape{3, 4}}) {
      const Tensor avg = dispatch::call_single_output(OpKind::MkldnnAdaptiveAvgPool2d, {y, Tensor()}, {{"output_size", size}});
      const double tol = dtype ? 1e-2 : 1e-5;
      CHECK_TENSOR_CLOSE(to_dense(avg, 21), adaptive_avg_pool2d(reference, size), tol, tol);
    }
  }
}

TEST_CASE("inference kernels: errors name the values") {
  manual_seed(6);
  const Tensor x = randn({1, 5, 4, 4});
  const Tensor y = to_mkldnn(x);
  CHECK_THROWS_WITH_AS(to_dense(y, 17), "to_dense: input [1, 1, 4, 4, 16] holds 1 blocks of 16 channels, which cannot hold 17 channels", Error);
  CHECK_THROWS_WITH_AS(to_mkldnn(randn({5, 4, 4})), "to_mkldnn: expected 4-D input (N, C, H, W), got [5, 4, 4]", Error);
  CHECK_THROWS_WITH_AS(to_mkldnn(x, std::nullopt, empty({1, 1, 4, 4, 8})),
                       "to_mkldnn: expected out of shape [1, 1, 4, 4, 16] and dtype torch.float32, got [1, 1, 4, 4, 8] torch.float32",
                       Error);
  const Tensor w = randn({8, 6, 3, 3});
  CHECK_THROWS_WITH_AS(mkldnn_conv(x, w, {}, {}, {}, false),
                       "mkldnn_convolution: input [1, 5, 4, 4] has 5 channels but weight [8, 6, 3, 3] with groups=1 expects 6",
                       Error);
  const Tensor w5 = randn({8, 5, 3, 3});
  // The packed weight carries the layout it was packed in: one packed for bf16 input is refused for
  // fp32 input, and a copy of a packed weight is not one.
  const Tensor packed = pack_weight(w5, to_mkldnn(x, DType::BFloat16), {}, false, false);
  const Attrs attrs{{"padding", Shape{0, 0}}, {"stride", Shape{1, 1}}, {"dilation", Shape{1, 1}}, {"groups", int64_t{1}},
                    {"relu", false}, {"winograd", false}};
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::MkldnnConvolution, {y, packed, Tensor(), Tensor(), Tensor()}, attrs),
                       "mkldnn_convolution: weight was prepacked for input [1, 5, 4, 4] torch.bfloat16, whose layout "
                       "is not the one the primitive for input [1, 1, 4, 4, 16] torch.float32 wants", Error);
  const Tensor fp32_packed = pack_weight(w5, y, {}, false, false);
  CHECK(dispatch::call_single_output(OpKind::MkldnnConvolution, {y, fp32_packed, Tensor(), Tensor(), Tensor()}, attrs).shape() ==
        Shape{1, 1, 2, 2, 16});
  CHECK_THROWS_WITH_AS(
      dispatch::call_single_output(OpKind::MkldnnConvolution, {y, fp32_packed.clone(), Tensor(), Tensor(), Tensor()}, attrs),
      doctest::Contains("mkldnn_convolution: a 1-D weight must be a tensor mkldnn_reorder_conv2d_weight returned"), Error);
  CHECK_THROWS_WITH_AS(mkldnn_conv(y, w5, {}, to_mkldnn(randn({1, 8, 3, 3})), {}, false),
                       doctest::Contains("mkldnn_convolution: residual [1, 1, 3, 3, 16]"), Error);
}

TEST_CASE("mkldnn_convolution: weight_size must be the weight's size, and a refused call writes nothing") {
  manual_seed(7);
  const Tensor x_dense = randn({1, 5, 4, 4});
  const Tensor x = to_mkldnn(x_dense);
  const Tensor w = randn({8, 5, 3, 3});
  const Tensor packed = pack_weight(w, x, {}, false, false);
  auto call = [&](const Tensor& weight, const Shape& weight_size, const Tensor& out) {
    const Attrs attrs{{"padding", Shape{0, 0}}, {"stride", Shape{1, 1}}, {"dilation", Shape{1, 1}},
                      {"groups", int64_t{1}},   {"relu", false},         {"winograd", false},
                      {"weight_size", weight_size}, {"packed_for", x.shape()}};
    return dispatch::call_single_output(OpKind::MkldnnConvolution, {x, weight, Tensor(), Tensor(), out}, attrs);
  };
  const Tensor expected = to_dense(call(packed, w.shape(), {}), 8);
  CHECK_TENSOR_CLOSE(expected, conv2d(x_dense, w), 1e-4, 1e-4);
  // The same output channels but other input channels: used to run, answering for the packed weight.
  const Tensor out = full({1, 1, 2, 2, 16}, 3.0);
  CHECK_THROWS_WITH_AS(call(packed, Shape{8, 6, 3, 3}, out),
                       "mkldnn_convolution: weight_size [8, 6, 3, 3] does not match the prepacked weight's size "
                       "[8, 5, 3, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(call(packed, Shape{16, 5, 3, 3}, out),
                       "mkldnn_convolution: weight_size [16, 5, 3, 3] does not match the prepacked weight's size "
                       "[8, 5, 3, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(call(w, Shape{8, 5, 1, 1}, out),
                       "mkldnn_convolution: weight_size [8, 5, 1, 1] does not match the dense weight's size "
                       "[8, 5, 3, 3]",
                       Error);
  CHECK(equal(out, full({1, 1, 2, 2, 16}, 3.0)));  // out untouched by the refused calls
  // An empty weight_size means "not given"; a matching one runs, and both give the same result.
  CHECK(equal(to_dense(call(packed, Shape{}, {}), 8), expected));
  CHECK(equal(to_dense(call(w, w.shape(), {}), 8), expected));
}

}  // namespace
}  // namespace tl
