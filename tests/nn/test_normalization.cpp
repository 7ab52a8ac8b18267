// tests/nn/test_normalization.cpp — LayerNorm against PyTorch 1.13 (tests/reference/make_norm_references.py):
// forward, the gradients of input, weight and bias, repr, parameters and state_dict keys, and misuse.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/grad_mode.h"
#include "nn/functional.h"
#include "nn/normalization.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

using Json = nlohmann::json;

Shape shape_of(const Json& v) { return Shape(v.get<std::vector<int64_t>>()); }

Tensor tensor_of(const Json& values, const Shape& shape, DType dtype) {
  return from_vector(values.get<std::vector<double>>(), shape).to(dtype);
}

std::vector<std::string> keys(const StateDict& dict) {
  std::vector<std::string> out;
  for (const auto& entry : dict) out.push_back(entry.first);
  return out;
}

TEST_CASE("LayerNorm: forward and the gradients of input, weight and bias equal PyTorch's") {
  const Json data = Json::parse(testing::read_reference("norm_layers.json"));
  for (const Json& c : data.at("layer_norm")) {
    const std::string repr_text = c.at("repr");
    CAPTURE(repr_text);
    const DType dtype = c.at("dtype") == "float64" ? DType::Float64 : DType::Float32;
    const double tol = dtype == DType::Float64 ? 1e-12 : 2e-5;
    const Shape shape = shape_of(c.at("shape")), normalized = shape_of(c.at("normalized_shape"));
    LayerNorm ln(LayerNormOptions{.normalized_shape = normalized, .eps = c.at("eps"), .elementwise_affine = c.at("affine")});
    CHECK(repr(ln) == repr_text);
    ln.to(dtype);
    if (c.at("affine")) {
      NoGradGuard no_grad;
      ln.parameter("weight").copy_(tensor_of(c.at("weight"), normalized, dtype));
      ln.parameter("bias").copy_(tensor_of(c.at("bias"), normalized, dtype));
    }
    const Tensor x = tensor_of(c.at("x"), shape, dtype).requires_grad_();
    const Tensor out = ln(x);
    CHECK(out.grad_fn_name() == "NativeLayerNormBackward0");
    CHECK_TENSOR_CLOSE(out, tensor_of(c.at("out"), shape, dtype), tol, tol);
    out.backward(tensor_of(c.at("grad"), shape, dtype));
    CHECK_TENSOR_CLOSE(x.grad(), tensor_of(c.at("grad_x"), shape, dtype), tol, tol);
    if (!c.at("affine")) continue;
    CHECK_TENSOR_CLOSE(ln.parameter("weight").grad(), tensor_of(c.at("grad_weight"), normalized, dtype), tol, tol);
    CHECK_TENSOR_CLOSE(ln.parameter("bias").grad(), tensor_of(c.at("grad_bias"), normalized, dtype), tol, tol);
  }
}

TEST_CASE("LayerNorm: parameters, state_dict keys, init, repr; train and eval agree; F::layer_norm is the op") {
  LayerNorm ln(4);
  CHECK(repr(ln) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True)");
  CHECK(keys(ln.state_dict()) == std::vector<std::string>{"weight", "bias"});
  CHECK_TENSOR_CLOSE(ln.parameter("weight"), ones({4}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(ln.parameter("bias"), zeros({4}), 0.0, 0.0);
  LayerNorm plain(LayerNormOptions{.normalized_shape = {3, 4}, .eps = 1e-3, .elementwise_affine = false});
  CHECK(repr(plain) == "LayerNorm((3, 4), eps=0.001, elementwise_affine=False)");
  CHECK(keys(plain.state_dict()).empty());
  CHECK(LayerNorm(Shape{2, 4}).parameter("weight").shape() == Shape{2, 4});

  const Tensor x = randn({2, 3, 4});
  const Tensor train_out = plain(x);
  plain.eval();
  CHECK_TENSOR_CLOSE(plain(x), train_out, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::layer_norm(x, {3, 4}, {}, {}, 1e-3), train_out, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(std::get<0>(native_layer_norm(x, {3, 4}, Tensor(), Tensor(), 1e-3)), train_out, 0.0, 0.0);
}

TEST_CASE("LayerNorm: misuse throws PyTorch's messages and leaves the module as it was") {
  LayerNorm ln(4);
  const StateDict before = ln.state_dict();
  CHECK_THROWS_WITH_AS(ln(randn({2, 3})),
                       "native_layer_norm: given normalized_shape=[4], expected input with shape [*, normalized_shape], "
                       "but got input of size [2, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(ln(randn({2, 4}).to(DType::Float64)),
                       "native_layer_norm: weight dtype torch.float32 differs from input dtype torch.float64", Error);
  CHECK_TENSOR_CLOSE(ln.parameter("weight"), before[0].second, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(layer_norm(randn({2, 3}), Shape{}),
                       "native_layer_norm: expected normalized_shape to be at least 1-dimensional, i.e., containing "
                       "at least one element, but got normalized_shape = []",
                       Error);
  CHECK_THROWS_WITH_AS(layer_norm(randn({2, 3}), {3}, ones({2})),
                       "native_layer_norm: expected weight to be of same shape as normalized_shape, but got weight of "
                       "shape [2] and normalized_shape = [3]",
                       Error);
  CHECK_THROWS_WITH_AS(layer_norm(arange(0, 4), {4}), "native_layer_norm: expected a floating point input, got torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(LayerNorm(LayerNormOptions{.normalized_shape = {4}, .eps = -1.0}),
                       "LayerNorm: eps must be non-negative, got -1", Error);
}

TEST_CASE("layer_norm: empty rows give mean 0 and rstd NaN, no rows give empty statistics, as PyTorch") {
  const auto [out, mean, rstd] = native_layer_norm(zeros({2, 0}), {0}, Tensor(), Tensor(), 1e-5);
  CHECK(out.shape() == Shape{2, 0});
  CHECK(mean.shape() == Shape{2, 1});
  CHECK(testing::element_at(mean, 1) == 0.0);
  CHECK(std::isnan(testing::element_at(rstd, 0)));
  const auto [out0, mean0, rstd0] = native_layer_norm(zeros({0, 3}), {3}, ones({3}), zeros({3}), 1e-5);
  CHECK(out0.shape() == Shape{0, 3});
  CHECK(mean0.shape() == Shape{0, 1});
  const auto [gx, gw, gb] = native_layer_norm_backward(zeros({0, 3}), zeros({0, 3}), {3}, mean0, rstd0, ones({3}),
                                                       zeros({3}), {true, true, true});
  CHECK(gx.shape() == Shape{0, 3});
  CHECK_TENSOR_CLOSE(gw, zeros({3}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(gb, zeros({3}), 0.0, 0.0);
}

}  // namespace
}  // namespace tl::nn
