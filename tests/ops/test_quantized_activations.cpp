// tests/ops/test_quantized_activations.cpp — the quantized activations and the mul / scalar ops the model zoo's
// converted graphs call, against PyTorch 1.13 (tests/ops/data/quantized_activation_cases.json, written by
// tests/ops/gen_quantized_activation_cases.py): the same integers and qparams in, the result's qparams equal and
// >= 99% of its integers equal to PyTorch's, the rest within one quantum (#33); then `out=`, and the misuse
// messages with the state they leave.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/support/json_cases.h"

namespace tl {
namespace {

using Json = nlohmann::json;

const Json& cases() { return testing::json_cases("tests/ops/data/quantized_activation_cases.json"); }

// Our result for a case (the op by its name in the generator).
Tensor run(const Json& c) {
  const std::string op = c["op"];
  const Json& args = c["args"];
  Tensor x = testing::quint8_case_tensor(c["inputs"][0]);
  if (op == "relu") return relu(x);
  if (op == "relu_") return x.relu_();
  if (op == "hardtanh") return hardtanh(x, testing::json_number(args["min_val"]), testing::json_number(args["max_val"]));
  if (op == "relu6") return relu6(x);
  if (op == "relu6_") return relu6_(x);
  if (op == "hardsigmoid") return hardsigmoid(x);
  if (op == "sigmoid") return sigmoid(x);
  if (op == "hardswish") return quantized_hardswish(x, testing::json_number(args["output_scale"]), std::stoll(args["output_zero_point"].get<std::string>()));
  if (op == "mul_scalar") return quantized_mul(x, testing::json_number(args["b"]));
  if (op == "mul_relu_scalar") return quantized_mul_relu(x, testing::json_number(args["b"]));
  if (op == "add_scalar") return quantized_add(x, testing::json_number(args["b"]));
  if (op == "add_relu_scalar") return quantized_add_relu(x, testing::json_number(args["b"]));
  const Tensor y = testing::quint8_case_tensor(c["inputs"][1]);
  const double scale = testing::json_number(args["scale"]);
  const int64_t zero_point = std::stoll(args["zero_point"].get<std::string>());
  if (op == "mul") return quantized_mul(x, y, scale, zero_point);
  REQUIRE(op == "mul_relu");
  return quantized_mul_relu(x, y, scale, zero_point);
}

// An `out=` tensor: quint8 zeros (scale, zero_point) of `shape`, channels-last for a 4-D shape.
Tensor quint8_zeros(const Shape& shape, double scale, int64_t zero_point) {
  if (shape.size() != 4) return _make_per_tensor_quantized_tensor(zeros(shape, kUInt8), scale, zero_point);
  const Tensor nhwc = zeros({shape[0], shape[2], shape[3], shape[1]}, kUInt8);
  return _make_per_tensor_quantized_tensor(nhwc, scale, zero_point).permute({0, 3, 1, 2});
}

}  // namespace

TEST_CASE("quantized relu, hardtanh, relu6, hardsigmoid, sigmoid, hardswish, mul and the scalar ops: PyTorch's integers") {
  testing::check_quantized_cases(cases(), {"unary", "binary"}, run, [](const Tensor&, const Json&) {});
}

TEST_CASE("relu_ and relu6_ of a quantized tensor write it, keeping its qparams and layout") {
  manual_seed(0);
  const Tensor x = quantize_per_tensor(randn({2, 3, 4, 5}), 0.05, 100, kQUInt8);
  const Tensor expected = relu(x);
  Tensor view = x.permute({0, 2, 3, 1});  // not contiguous: the integers are written back in place
  view.relu_();
  CHECK(equal(x.int_repr(), expected.int_repr()));
  CHECK(x.q_zero_point() == 100);
  CHECK(testing::integers(relu6_(x)) == testing::integers(hardtanh(expected, 0.0, 6.0)));
}

TEST_CASE("out=: the quantized conv, linear, add, mul and hardswish write a given result of their qparams") {
  manual_seed(1);
  const Tensor x = quantize_per_tensor(randn({1, 4, 5, 5}), 0.05, 120, kQUInt8);
  const Tensor w = quantize_per_channel(randn({6, 4, 3, 3}) * 0.2, full({6}, 0.01, kDouble), zeros({6}, kLong), 0, kQInt8);
  const Tensor packed = quantized_conv2d_prepack(w, randn({6}), {1, 1}, {1, 1});
  const Tensor fresh = quantized_conv2d_relu(x, packed, 0.1, 0);
  const Tensor out = quint8_zeros(fresh.shape(), 0.1, 0);
  const Tensor written = quantized_conv2d_relu(x, packed, 0.1, 0, out);
  CHECK(written.is_same(out));
  CHECK(testing::integers(out) == testing::integers(fresh));
  // The residual as its own result: conv2d_add reads it, then writes the sum over it.
  const Tensor residual = quantized_conv2d(x, packed, 0.2, 90);
  const Tensor sum = quantized_conv2d_add(x, packed, residual, 0.1, 100, 0.2, 90);
  const Tensor in_place =  // a channels-last copy of residual
      _make_per_tensor_quantized_tensor(residual.int_repr().permute({0, 2, 3, 1}).contiguous(), 0.2, 90)
          .permute({0, 3, 1, 2});
  CHECK(quantized_conv2d_add(x, packed, in_place, 0.1, 100, 0.2, 90, in_place).is_same(in_place));
  CHECK(testing::integers(in_place) == testing::integers(sum));

  const Tensor a = quantize_per_tensor(randn({2, 7}), 0.05, 100, kQUInt8);
  const Tensor added = quantized_add(a, a, 0.1, 90);
  const Tensor add_out = quint8_zeros({2, 7}, 0.1, 90);
  CHECK(quantized_add(a, a, 0.1, 90, add_out).is_same(add_out));
  CHECK(testing::integers(add_out) == testing::integers(added));
  const Tensor product = quantized_mul(a, a, 0.02, 10);
  const Tensor mul_out = quint8_zeros({2, 7}, 0.02, 10);
  quantized_mul(a, a, 0.02, 10, mul_out);
  CHECK(testing::integers(mul_out) == testing::integers(product));
  const Tensor swished = quantized_hardswish(a, 0.03, 20);
  const Tensor swish_out = quint8_zeros({2, 7}, 0.03, 20);
  quantized_hardswish(a, 0.03, 20, swish_out);
  CHECK(testing::integers(swish_out) == testing::integers(swished));
  const Tensor fc = quantized_linear_prepack(quantize_per_tensor(randn({3, 7}) * 0.1, 0.002, 0, kQInt8));
  const Tensor linear = quantized_linear(a, fc, 0.05, 60);
  const Tensor linear_out = quint8_zeros({2, 3}, 0.05, 60);
  quantized_linear(a, fc, 0.05, 60, linear_out);
  CHECK(testing::integers(linear_out) == testing::integers(linear));

  // Another result's qparams, shape or layout is refused before anything is written.
  const std::vector<int64_t> before = testing::integers(out);
  CHECK_THROWS_WITH_AS(quantized_conv2d_relu(x, packed, 0.2, 0, out),
                       doctest::Contains("quantized::conv2d_relu: out has scale 0.1 and zero_point 0 but the result's"),
                       Error);
  CHECK_THROWS_WITH_AS(quantized_add(a, a, 0.1, 90, quint8_zeros({7, 2}, 0.1, 90).t()),
                       "quantized::add: out has shape [2, 7] and strides [1, 2] but the result has shape [2, 7] and "
                       "strides [7, 1]",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_mul(a, a, 0.02, 10, randn({2, 7})),
                       "quantized::mul: expected out to be a torch.quint8 tensor quantized per tensor, got torch.float32",
                       Error);
  CHECK(testing::integers(out) == before);
}

TEST_CASE("quantized activations and mul: misuse is a tl::Error naming the values, the inputs unchanged") {
  manual_seed(2);
  Tensor a = quantize_per_tensor(randn({2, 3}), 0.05, 120, kQUInt8);
  const std::vector<int64_t> before = testing::integers(a);
  Tensor s8 = quantize_per_tensor(randn({2, 3}), 0.05, 0, kQInt8);
  CHECK_THROWS_WITH_AS(s8.relu_(), "relu_: expected input to be a torch.quint8 tensor quantized per tensor, got "
                                  "torch.qint8 torch.per_tensor_affine", Error);
  CHECK_THROWS_WITH_AS(quantized_mul(a, s8, 0.1, 0),
                       "quantized::mul: Mul operands should have same data type, got torch.quint8 and torch.qint8", Error);
  CHECK_THROWS_WITH_AS(quantized_mul(a, quantize_per_tensor(randn({4, 3}), 0.05, 0, kQUInt8), 0.1, 0),
                       doctest::Contains("[2, 3]"), Error);
  CHECK_THROWS_WITH_AS(quantized_hardswish(a, 0.1, 256), "quantize_tensor_per_tensor_affine zero_point 256 is above upper bound.",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_add(a, std::numeric_limits<double>::infinity()),
                       doctest::Contains("is not finite in units of the scale"), Error);
  CHECK_THROWS_AS(a.sigmoid_(), Error);  // ATen has no quantized in-place sigmoid either
  CHECK(testing::integers(a) == before);
}

}  // namespace tl
