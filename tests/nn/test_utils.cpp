// tests/nn/test_utils.cpp — torch.nn.utils: clip_grad_norm_ and clip_grad_value_ against PyTorch 1.13
// (tests/reference/make_nn_utils_references.py), the parameter/vector conversions, and their misuse.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nn/utils.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

using Json = nlohmann::json;
using testing::element_at;

/// A JSON number, or "nan" / "inf" / "-inf" (JSON has no such numbers).
double number(const Json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string s = v.get<std::string>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  return s == "inf" ? INFINITY : -INFINITY;
}

Tensor float_tensor(const Json& values, const Json& shape) {
  std::vector<float> data;
  for (const Json& v : values) data.push_back(static_cast<float>(number(v)));
  return from_vector(data, Shape(shape.get<std::vector<int64_t>>()));
}

/// Parameters of the reference shapes (zeros) whose .grad holds the case's gradients.
std::vector<Tensor> params_with_grads(const Json& c, const Json& shapes) {
  std::vector<Tensor> params;
  for (size_t i = 0; i < shapes.size(); ++i) {
    Tensor p = zeros(Shape(shapes[i].get<std::vector<int64_t>>())).requires_grad_();
    p.mutable_grad() = float_tensor(c.at("grads")[i], shapes[i]);
    params.push_back(p);
  }
  return params;
}

TEST_CASE("clip_grad_norm_: total norm and clipped gradients as PyTorch's for every p") {
  const Json data = Json::parse(testing::read_reference("nn_utils_init.json"));
  const Json& shapes = data.at("shapes");
  for (const Json& c : data.at("clip_grad_norm_")) {
    const double p = number(c.at("norm_type"));
    const double max_norm = c.at("max_norm");
    CAPTURE(p);
    CAPTURE(max_norm);
    std::vector<Tensor> params = params_with_grads(c, shapes);
    const Tensor total = utils::clip_grad_norm_(params, max_norm, p);
    CHECK(total.dim() == 0);
    CHECK(total.dtype() == DType::Float32);
    CHECK_TENSOR_CLOSE(total, scalar_tensor(number(c.at("total")), DType::Float32), 2e-6, 0.0);
    for (size_t i = 0; i < params.size(); ++i)
      CHECK_TENSOR_CLOSE(params[i].grad(), float_tensor(c.at("clipped")[i], shapes[i]), 2e-6, 1e-12);
  }
}

TEST_CASE("clip_grad_norm_: gradients change in place; no gradient gives 0; a single tensor is a list of one") {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({2}).requires_grad_();
  a.mutable_grad() = from_vector<float>({3, 0}, {2});
  const Tensor grad_object = a.grad();
  CHECK(utils::clip_grad_norm_({a, b}, 1.0).item<float>() == 3.0f);  // b has no .grad: skipped
  CHECK(a.grad().is_same(grad_object));
  CHECK(element_at(a.grad(), 0) == doctest::Approx(3.0 / (3.0 + 1e-6)));  // max_norm / (total + 1e-6) times 3
  CHECK_FALSE(b.grad().defined());

  const Tensor none = utils::clip_grad_norm_(b, 1.0);
  CHECK(none.item<float>() == 0.0f);
  CHECK(none.dtype() == DType::Float32);
  Tensor c = zeros({3}).requires_grad_();
  c.mutable_grad() = from_vector<float>({0, -4, 0}, {3});
  CHECK(utils::clip_grad_norm_(c, 2.0, INFINITY).item<float>() == 4.0f);
  CHECK(element_at(c.grad(), 1) == doctest::Approx(-2.0f));
}

TEST_CASE("clip_grad_norm_: a non-finite total norm with error_if_nonfinite throws and changes nothing") {
  Tensor a = zeros({2}).requires_grad_(), b = zeros({1}).requires_grad_();
  a.mutable_grad() = from_vector<float>({3, 4}, {2});
  b.mutable_grad() = from_vector<float>({INFINITY}, {1});
  CHECK_THROWS_WITH_AS(utils::clip_grad_norm_({a, b}, 1.0, 2.0, true),
                       "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
                       "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                       "`error_if_nonfinite=False`",
                       Error);
  CHECK_THROWS_WITH_AS(utils::clip_grad_norm_({a, b}, 1.0, INFINITY, true),
                       doctest::Contains("The total norm of order inf for gradients"), Error);
  CHECK(element_at(a.grad(), 0) == 3.0f);
  CHECK(element_at(a.grad(), 1) == 4.0f);
  CHECK(std::isinf(element_at(b.grad(), 0)));
  CHECK(utils::clip_grad_norm_(a, 10.0, 2.0, true).item<float>() == 5.0f);  // finite: no error
}

TEST_CASE("clip_grad_value_: gradients clamped in place as PyTorch's, a negative value included") {
  const Json data = Json::parse(testing::read_reference("nn_utils_init.json"));
  const Json& shapes = data.at("shapes");
  for (const Json& c : data.at("clip_grad_value_")) {
    const double clip = c.at("clip_value");
    CAPTURE(clip);
    std::vector<Tensor> params = params_with_grads(c, shapes);
    std::vector<Tensor> grad_objects;
    for (const Tensor& p : params) grad_objects.push_back(p.grad());
    utils::clip_grad_value_(params, clip);
    for (size_t i = 0; i < params.size(); ++i) {
      CHECK(params[i].grad().is_same(grad_objects[i]));
      CHECK_TENSOR_CLOSE(params[i].grad(), float_tensor(c.at("clipped")[i], shapes[i]), 0.0, 0.0);
    }
  }
  Tensor none = zeros({2}).requires_grad_();
  utils::clip_grad_value_(none, 1.0);
  CHECK_FALSE(none.grad().defined());
}

TEST_CASE("parameters_to_vector and vector_to_parameters: flatten in order; the parameters become views of vec") {
  Tensor w = arange(0, 6, 1, DType::Float32).reshape({2, 3}).detach().requires_grad_();
  Tensor b = from_vector<float>({10, 11}, {2}).requires_grad_();
  const Tensor vec = utils::parameters_to_vector({w, b});
  CHECK_TENSOR_CLOSE(vec, from_vector<float>({0, 1, 2, 3, 4, 5, 10, 11}, {8}), 0.0, 0.0);
  CHECK(vec.grad_fn_name() == "CatBackward0");

  w.mutable_grad() = ones({2, 3});
  const Tensor grad_object = w.grad();
  Tensor source = arange(20, 29, 1, DType::Float32);  // one element more than needed: ignored
  utils::vector_to_parameters(source, {w, b});
  CHECK(w.sizes() == Shape({2, 3}));
  CHECK_TENSOR_CLOSE(w, from_vector<float>({20, 21, 22, 23, 24, 25}, {2, 3}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(b, from_vector<float>({26, 27}, {2}), 0.0, 0.0);
  CHECK(w.requires_grad());
  CHECK(w.grad().is_same(grad_object));
  source.mul_(2.0);  // PyTorch's param.data = vec[a:b].view_as(param): the memory is shared
  CHECK(element_at(b, 1) == 54.0f);
}

TEST_CASE("vector_to_parameters: a short or non-1-D vec throws and changes no parameter") {
  Tensor w = zeros({2, 3}).requires_grad_(), b = zeros({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(utils::vector_to_parameters(ones({7}), {w, b}),
                       "vector_to_parameters: shape '[2]' is invalid for input of size 1 (vec has 7 elements, the "
                       "parameters up to this one need 8)",
                       Error);
  CHECK(w.sum().item<float>() == 0.0f);
  CHECK(b.sum().item<float>() == 0.0f);
  CHECK_THROWS_WITH_AS(utils::vector_to_parameters(ones({2, 4}), {w, b}),
                       "vector_to_parameters: expected a 1-D vec, got shape [2, 4]", Error);
  CHECK(w.sum().item<float>() == 0.0f);
  CHECK_THROWS_AS(utils::parameters_to_vector({w.t()}), Error);  // view(-1) of a transposed parameter
  CHECK_THROWS_AS(utils::parameters_to_vector(std::vector<Tensor>{}), Error);
}

}  // namespace
}  // namespace tl::nn
