// tests/ops/test_quantized_kernels.cpp — the int8 kernels against PyTorch 1.13's onednn engine
// (tests/ops/data/quantized_kernel_cases.json, written by tests/ops/gen_quantized_kernel_cases.py): the same
// integers and qparams in, >= 99% of the result's integers equal to PyTorch's and the rest within one quantum
// (#33's numerics); then prepack / unpack, layouts, and every misuse message with the state it leaves.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/support/json_cases.h"

namespace tl {
namespace {

using Json = nlohmann::json;

const Json& cases() { return testing::json_cases("tests/ops/data/quantized_kernel_cases.json"); }

// A case's quantized tensor, from its integers: quint8 per tensor, or a qint8 weight per tensor / per channel.
Tensor qtensor(const Json& c) {
  const Shape shape(c["shape"].get<std::vector<int64_t>>());
  const Tensor ints = from_vector(c["ints"].get<std::vector<int64_t>>(), shape);
  const DType bytes = c["dtype"] == "qint8" ? kInt8 : kUInt8;
  if (c.contains("scales")) {
    std::vector<double> scales;
    for (const Json& s : c["scales"]) scales.push_back(testing::json_number(s));
    const auto n = static_cast<int64_t>(scales.size());
    return _make_per_channel_quantized_tensor(ints.to(bytes), from_vector(scales, {n}), zeros({n}, kLong),
                                              c["axis"].get<int64_t>());
  }
  return _make_per_tensor_quantized_tensor(ints.to(bytes), testing::json_number(c["scale"]), c["zero_point"].get<int64_t>());
}

Tensor bias_of(const Json& c) {
  if (c["bias"].is_null()) return {};
  std::vector<float> b;
  for (const Json& v : c["bias"]) b.push_back(std::stof(v.get<std::string>()));
  return from_vector(b, {static_cast<int64_t>(b.size())});
}

Shape pair(const Json& v) { return Shape(v.get<std::vector<int64_t>>()); }

// How a result's integers compare with PyTorch's, summed over a family of cases.

Tensor conv_packed(const Json& c) {
  return quantized_conv2d_prepack(qtensor(c["weight"]), bias_of(c), pair(c["stride"]), pair(c["padding"]),
                                  pair(c["dilation"]), c["groups"].get<int64_t>());
}

// A small valid conv: x (1, 4, 5, 5) quint8, weight (6, 4, 3, 3) qint8 per channel, bias (6).
Tensor small_input() { return quantize_per_tensor(randn({1, 4, 5, 5}), 0.05, 120, kQUInt8); }
Tensor small_weight() {
  return quantize_per_channel(randn({6, 4, 3, 3}) * 0.2, full({6}, 0.01, kDouble), zeros({6}, kLong), 0, kQInt8);
}

}  // namespace

TEST_CASE("quantized::conv2d / conv2d_relu / conv2d_add(_relu): PyTorch's integers (onednn engine)") {
  testing::Agreement conv, relu, add, add_relu;
  for (const Json& c : cases()["conv"]) {
    const std::string name = c["op"].get<std::string>() + " " + c["name"].get<std::string>();
    CAPTURE(name);
    const Tensor x = qtensor(c["x"]), w = conv_packed(c);
    const double scale = testing::json_number(c["output_scale"]);
    const int64_t zero_point = c["output_zero_point"];
    if (c["op"] == "conv2d") conv.add(quantized_conv2d(x, w, scale, zero_point), c);
    if (c["op"] == "conv2d_relu") relu.add(quantized_conv2d_relu(x, w, scale, zero_point), c);
    if (c["op"] == "conv2d_add" || c["op"] == "conv2d_add_relu") {
      const Tensor other = qtensor(c["other"]);
      const std::vector<int64_t> before = testing::integers(other);
      const double out_scale = testing::json_number(c["add_scale"]);
      const int64_t out_zero_point = c["add_zero_point"];
      const Tensor y = c["op"] == "conv2d_add"
                           ? quantized_conv2d_add(x, w, other, scale, zero_point, out_scale, out_zero_point)
                           : quantized_conv2d_add_relu(x, w, other, scale, zero_point, out_scale, out_zero_point);
      CHECK(y.q_scale() == out_scale);
      CHECK(testing::integers(other) == before);  // the residual is read, not written
      (c["op"] == "conv2d_add" ? add : add_relu).add(y, c);
    }
  }
  conv.report("quantized::conv2d");
  relu.report("quantized::conv2d_relu");
  add.report("quantized::conv2d_add (vs conv2d then add)");
  add_relu.report("quantized::conv2d_add_relu (vs conv2d then add_relu)");
}

TEST_CASE("quantized::linear / linear_relu: PyTorch's integers (onednn engine)") {
  testing::Agreement linear, relu;
  for (const Json& c : cases()["linear"]) {
    const std::string name = c["op"].get<std::string>() + " " + c["name"].get<std::string>();
    CAPTURE(name);
    const Tensor x = qtensor(c["x"]), w = quantized_linear_prepack(qtensor(c["weight"]), bias_of(c));
    const double scale = testing::json_number(c["output_scale"]);
    const int64_t zero_point = c["output_zero_point"];
    if (c["op"] == "linear") linear.add(quantized_linear(x, w, scale, zero_point), c);
    else relu.add(quantized_linear_relu(x, w, scale, zero_point), c);
  }
  linear.report("quantized::linear");
  relu.report("quantized::linear_relu");
}

TEST_CASE("quantized::add / add_relu, max_pool2d, adaptive_avg_pool2d, cat: PyTorch's integers") {
  testing::Agreement add, pool, avg, cat;
  for (const Json& c : cases()["pointwise"]) {
    const std::string name = c["op"].get<std::string>() + " " + c["name"].get<std::string>();
    CAPTURE(name);
    const Tensor a = qtensor(c["a"]), b = qtensor(c["b"]);
    const double scale = testing::json_number(c["scale"]);
    const int64_t zero_point = c["zero_point"];
    add.add(c["op"] == "add" ? quantized_add(a, b, scale, zero_point) : quantized_add_relu(a, b, scale, zero_point), c);
  }
  for (const Json& c : cases()["pool_cat"]) {
    const std::string name = c["op"].get<std::string>() + " " + c["name"].get<std::string>();
    CAPTURE(name);
    if (c["op"] == "max_pool2d") {
      const Tensor x = qtensor(c["x"]);
      const Tensor y = quantized_max_pool2d(x, pair(c["kernel_size"]), pair(c["stride"]), pair(c["padding"]),
                                            pair(c["dilation"]), c["ceil_mode"].get<bool>());
      CHECK(y.q_scale() == x.q_scale());
      CHECK(testing::integers(y) == c["expected"].get<std::vector<int64_t>>());  // a maximum is exact
      pool.add(y, c);
    } else if (c["op"] == "adaptive_avg_pool2d") {
      avg.add(quantized_adaptive_avg_pool2d(qtensor(c["x"]), pair(c["output_size"])), c);
    } else {
      std::vector<Tensor> xs;
      for (const Json& t : c["xs"]) xs.push_back(qtensor(t));
      const std::optional<double> scale =
          c["scale"].is_null() ? std::nullopt : std::optional<double>(testing::json_number(c["scale"]));
      const std::optional<int64_t> zero_point =
          c["zero_point"].is_null() ? std::nullopt : std::optional<int64_t>(c["zero_point"].get<int64_t>());
      const Tensor y = quantized_cat(xs, c["dim"].get<int64_t>(), scale, zero_point);
      CHECK(y.q_scale() == testing::json_number(c["out_scale"]));
      CHECK(y.q_zero_point() == c["out_zero_point"].get<int64_t>());
      cat.add(y, c);
    }
  }
  add.report("quantized::add / add_relu");
  pool.report("quantized max_pool2d");
  avg.report("quantized adaptive_avg_pool2d");
  cat.report("quantized::cat");
}

TEST_CASE("max_pool2d, adaptive_avg_pool2d and cat of quantized tensors run the quantized kernels, as ATen's do") {
  manual_seed(3);
  const Tensor x = quantize_per_tensor(randn({2, 3, 6, 6}), 0.05, 120, kQUInt8);
  const Tensor pooled = max_pool2d(x, {3, 3}, {2, 2}, {1, 1});
  CHECK(pooled.is_quantized());
  CHECK(equal(pooled.int_repr(), quantized_max_pool2d(x, {3, 3}, {2, 2}, {1, 1}).int_repr()));
  const Tensor averaged = adaptive_avg_pool2d(x, {1, 1});
  CHECK(equal(averaged.int_repr(), quantized_adaptive_avg_pool2d(x, {1, 1}).int_repr()));
  const Tensor joined = cat({x, x}, 1);
  CHECK(joined.q_scale() == x.q_scale());
  CHECK(equal(joined.int_repr(), quantized_cat({x, x}, 1, std::nullopt, std::nullopt).int_repr()));
  // A float tensor among quantized ones is refused by quantized::cat, as ATen's.
  CHECK_THROWS_AS(cat({x, randn({2, 3, 6, 6})}, 1), Error);
}

TEST_CASE("quantize_per_tensor and quantized::add(_relu) with one-element qparam tensors, as a converted graph calls "
          "them") {
  manual_seed(4);
  const Tensor f = randn({2, 8});
  const Tensor scale = full({}, 0.07), zero_point = full({}, 90, kLong);
  const Tensor q = quantize_per_tensor(f, scale, zero_point, kQUInt8);
  CHECK(q.q_scale() == static_cast<double>(0.07f));  // the float32 buffer's value, as Python's float() reads it
  CHECK(equal(q.int_repr(), quantize_per_tensor(f, static_cast<double>(0.07f), 90, kQUInt8).int_repr()));
  CHECK(equal(quantized_add_relu(q, q, scale, zero_point).int_repr(),
              quantized_add_relu(q, q, static_cast<double>(0.07f), 90).int_repr()));
  CHECK_THROWS_WITH_AS(quantized_add(q, q, full({2}, 0.07), zero_point),
                       "quantized::add: expected scale and zero_point of one element each, got [2] and []", Error);
}

TEST_CASE("prepack: unpack gives the weight and bias back; conv results are channels-last, as ATen's") {
  manual_seed(0);
  const Tensor w = small_weight(), b = randn({6});
  const Tensor packed = quantized_conv2d_prepack(w, b, {1, 1}, {1, 1});
  CHECK(packed.dim() == 1);
  CHECK(packed.dtype() == kInt8);
  const TensorList unpacked = quantized_conv2d_unpack(packed);
  REQUIRE(unpacked.size() == 2);
  CHECK(testing::integers(unpacked[0]) == testing::integers(w));
  CHECK(*unpacked[0].quantizer() == *w.quantizer());
  CHECK(equal(unpacked[1], b));
  CHECK(quantized_conv2d_unpack(quantized_conv2d_prepack(w, {})).size() == 1);

  const Tensor y = quantized_conv2d(small_input(), packed, 0.1, 100);
  CHECK(y.shape() == Shape{1, 6, 5, 5});
  CHECK(y.strides() == Strides{150, 1, 30, 6});
  // A channels-last input is read in place and gives the same integers as the contiguous one.
  const Tensor x = small_input();
  const Tensor x_nhwc = x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  CHECK(testing::integers(quantized_conv2d(x_nhwc, packed, 0.1, 100)) == testing::integers(quantized_conv2d(x, packed, 0.1, 100)));
  // Another batch and size: same weight, another primitive.
  CHECK(quantized_conv2d(quantize_per_tensor(randn({3, 4, 9, 7}), 0.05, 120, kQUInt8), packed, 0.1, 100).shape() ==
        Shape{3, 6, 9, 7});

  const Tensor lw = quantize_per_tensor(randn({5, 8}) * 0.1, 0.002, 0, kQInt8);
  const TensorList lu = quantized_linear_unpack(quantized_linear_prepack(lw));
  REQUIRE(lu.size() == 1);
  CHECK(testing::integers(lu[0]) == testing::integers(lw));
  const Tensor lx = quantize_per_tensor(randn({2, 3, 8}), 0.05, 100, kQUInt8);
  CHECK(quantized_linear(lx, quantized_linear_prepack(lw), 0.1, 50).shape() == Shape{2, 3, 5});
}

TEST_CASE("conv2d_relu / linear_relu clamp at the output zero point (PyTorch 1.13's onednn kernels do not)") {
  // PyTorch applies ReLU after adding the zero point, where it does nothing; a converted model's ReLU output has
  // zero point 0 (the cases above), where both agree. Here: ReLU of the real value, max(q, zero_point).
  manual_seed(2);
  const Tensor x = small_input(), w = quantized_conv2d_prepack(small_weight(), randn({6}), {1, 1}, {1, 1});
  const std::vector<int64_t> plain = testing::integers(quantized_conv2d(x, w, 0.05, 100));
  const std::vector<int64_t> relu = testing::integers(quantized_conv2d_relu(x, w, 0.05, 100));
  int64_t clamped = 0;
  for (size_t i = 0; i < plain.size(); ++i) {
    CHECK(relu[i] == std::max<int64_t>(plain[i], 100));
    clamped += plain[i] < 100;
  }
  CHECK(clamped > 0);
  const Tensor lx = quantize_per_tensor(randn({3, 8}), 0.05, 100, kQUInt8);
  const Tensor lw = quantized_linear_prepack(quantize_per_tensor(randn({5, 8}) * 0.1, 0.002, 0, kQInt8), randn({5}));
  const std::vector<int64_t> lplain = testing::integers(quantized_linear(lx, lw, 0.05, 100));
  const std::vector<int64_t> lrelu = testing::integers(quantized_linear_relu(lx, lw, 0.05, 100));
  for (size_t i = 0; i < lplain.size(); ++i) CHECK(lrelu[i] == std::max<int64_t>(lplain[i], 100));
}

TEST_CASE("int8 kernels are not differentiable, as PyTorch's quantized ops") {
  const Tensor b = randn({6}).requires_grad_();
  const Tensor packed = quantized_conv2d_prepack(small_weight(), b);
  CHECK_FALSE(packed.requires_grad());
  CHECK_FALSE(quantized_conv2d(small_input(), packed, 0.1, 100).requires_grad());
}

TEST_CASE("int8 misuse: a tl::Error naming the values, nothing changed") {
  manual_seed(1);
  const Tensor x = small_input(), w = small_weight();
  const std::vector<int64_t> x_before = testing::integers(x);
  const Tensor packed = quantized_conv2d_prepack(w, {}, {1, 1}, {1, 1});
  // Activations: quint8 per tensor only (ATen's onednn kernels).
  CHECK_THROWS_WITH_AS(quantized_conv2d(quantize_per_tensor(randn({1, 4, 5, 5}), 0.05, 0, kQInt8), packed, 0.1, 0),
                       "quantized::conv2d: expected input to be a torch.quint8 tensor quantized per tensor, got "
                       "torch.qint8 torch.per_tensor_affine",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d(randn({1, 4, 5, 5}), packed, 0.1, 0),
                       "quantized::conv2d: expected input to be a torch.quint8 tensor quantized per tensor, got "
                       "torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d(quantize_per_tensor(randn({1, 3, 5, 5}), 0.05, 0, kQUInt8), packed, 0.1, 0),
                       "quantized::conv2d: input [1, 3, 5, 5] has 3 channels but weight [6, 4, 3, 3] with groups=1 "
                       "expects 4",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d(x, w, 0.1, 0),
                       doctest::Contains("quantized::conv2d: expected a packed weight that quantized::conv2d_prepack "
                                         "returned, got [6, 4, 3, 3] torch.qint8"),
                       Error);
  const Tensor linear_packed = quantized_linear_prepack(quantize_per_tensor(randn({5, 8}), 0.01, 0, kQInt8));
  CHECK_THROWS_WITH_AS(quantized_conv2d(x, linear_packed, 0.1, 0), doctest::Contains("(packed for another op)"), Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d(x, packed.narrow(0, 0, 4), 0.1, 0),
                       doctest::Contains("expected a packed weight that quantized::conv2d_prepack returned"), Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d(x, packed, 0.1, 300),
                       "quantize_tensor_per_tensor_affine zero_point 300 is above upper bound.", Error);
  // The residual of a fused add: quint8, the conv's output shape; the residual is left as it was.
  const Tensor residual = quantize_per_tensor(randn({1, 6, 5, 4}), 0.05, 100, kQUInt8);
  const std::vector<int64_t> residual_before = testing::integers(residual);
  CHECK_THROWS_WITH_AS(quantized_conv2d_add(x, packed, residual, 0.1, 100, 0.2, 100),
                       "quantized::conv2d_add: the residual [1, 6, 5, 4] does not have the conv's output shape "
                       "[1, 6, 5, 5]",
                       Error);
  CHECK(testing::integers(residual) == residual_before);
  CHECK(testing::integers(x) == x_before);

  // Prepack: ATen's weight checks, and ours for the window.
  CHECK_THROWS_WITH_AS(quantized_conv2d_prepack(quantize_per_tensor(randn({6, 4, 3, 3}), 0.1, 0, kQUInt8), {}),
                       "quantized::conv2d_prepack: Weight should be of type QInt8, got torch.quint8", Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d_prepack(quantize_per_tensor(randn({6, 4, 3}), 0.1, 0, kQInt8), {}),
                       "quantized::conv2d_prepack: Weight is expected to have 4 dims, got [6, 4, 3]", Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d_prepack(quantize_per_tensor(randn({6, 4, 3, 3}), 0.1, 2, kQInt8), {}),
                       "quantized::conv2d_prepack: ONEDNN only supports symmetric quantization of weight, whose zero "
                       "point must be 0, got 2",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d_prepack(w, {}, {1, 1}, {0, 0}, {1, 1}, 4),
                       "quantized::conv2d_prepack: weight [6, 4, 3, 3] has 6 output channels, not divisible by groups=4",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d_prepack(w, randn({5})),
                       "quantized::conv2d_prepack: expected a float32 bias of shape [6], got [5] torch.float32", Error);
  CHECK_THROWS_WITH_AS(quantized_conv2d_prepack(w, {}, {0, 1}), doctest::Contains("stride"), Error);

  // Linear.
  const Tensor lx = quantize_per_tensor(randn({3, 7}), 0.05, 120, kQUInt8);
  CHECK_THROWS_WITH_AS(quantized_linear(lx, linear_packed, 0.1, 90),
                       "quantized::linear: input [3, 7] has 7 features but weight [5, 8] expects 8", Error);
  CHECK_THROWS_WITH_AS(quantized_linear(lx, packed, 0.1, 90), doctest::Contains("(packed for another op)"), Error);
  CHECK_THROWS_WITH_AS(quantized_linear_prepack(quantize_per_tensor(randn({5, 8, 1}), 0.1, 0, kQInt8)),
                       "quantized::linear_prepack: Weight is expected to have 2 dims, got [5, 8, 1]", Error);

  // Add: ATen's "same data type", then one shape.
  const Tensor a = quantize_per_tensor(randn({2, 3}), 0.05, 120, kQUInt8);
  CHECK_THROWS_WITH_AS(quantized_add(a, quantize_per_tensor(randn({2, 3}), 0.05, 0, kQInt8), 0.2, 3),
                       "quantized::add: Add operands should have same data type, got torch.quint8 and torch.qint8", Error);
  CHECK_THROWS_WITH_AS(quantized_add(a, quantize_per_tensor(randn({2, 4}), 0.05, 0, kQUInt8), 0.2, 3),
                       "quantized::add: expected operands of one shape, got [2, 3] and [2, 4]", Error);
  // Pools and cat.
  CHECK_THROWS_WITH_AS(quantized_max_pool2d(x, {3, 3}, {2, 2}, {2, 2}),
                       "quantized_max_pool2d: padding [2, 2] should be at most half of kernel_size [3, 3]", Error);
  CHECK_THROWS_WITH_AS(quantized_adaptive_avg_pool2d(a, {1, 1}),
                       "quantized::adaptive_avg_pool2d: expected a 4-D input (N, C, H, W), got [2, 3]", Error);
  CHECK_THROWS_WITH_AS(quantized_adaptive_avg_pool2d(quantize_per_tensor(zeros({1, 1, 0, 3}), 0.1, 0, kQUInt8), {1, 1}),
                       "quantized::adaptive_avg_pool2d: expected non-empty spatial dimensions, got input [1, 1, 0, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_cat({a, quantize_per_tensor(randn({3, 3}), 0.05, 0, kQUInt8)}, 1, std::nullopt,
                                     std::nullopt),
                       "quantized::cat: Sizes of tensors must match except in dimension 1, got [2, 3] and [3, 3]", Error);
  CHECK_THROWS_WITH_AS(quantized_cat({a}, 2, std::nullopt, std::nullopt),
                       "quantized::cat: Dimension out of range (expected to be in range of [-2, 1], but got 2)", Error);
  CHECK(testing::integers(x) == x_before);
}

}  // namespace tl
