// tests/nn/rnn_reference.h — reading tests/reference/rnn_attention.json (tests/reference/make_rnn_references.py)
// for test_rnn.cpp and test_attention.cpp: tensors, and one case's check of a module's parameters, forward
// values and gradients against PyTorch 1.13's.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generator.h"
#include "nn/module.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::nn::rnn_reference {

using Json = nlohmann::json;

inline const Json& data() {
  static const Json parsed = Json::parse(testing::read_reference("rnn_attention.json"));
  return parsed;
}

/// A tensor of the reference: {"shape", "dtype" (float32 / bool), "values"}; null is an undefined tensor.
inline Tensor tensor(const Json& t) {
  if (t.is_null()) return {};
  const Shape shape(t.at("shape").get<std::vector<int64_t>>());
  const std::vector<float> values = t.at("values").get<std::vector<float>>();
  const Tensor f = from_vector(values, shape);
  return t.at("dtype") == "bool" ? f != 0.0 : f;
}

/// Checks one case: `module` (made after manual_seed(case.seed)) has PyTorch's parameters, names and
/// values bit for bit; then, in the case's mode and after manual_seed(dropout_seed) when it has one,
/// `call(inputs)` gives PyTorch's outputs, and sum(output_i * grad_output_i) PyTorch's gradients for
/// every floating input and parameter.
inline void check_case(Module& module, const Json& c, const std::function<TensorList(const TensorList&)>& call) {
  const auto params = module.named_parameters();
  REQUIRE(params.size() == c.at("params").size());
  for (size_t i = 0; i < params.size(); ++i) {
    const Json& p = c.at("params")[i];
    CHECK(params[i].first == p.at("name").get<std::string>());
    CHECK_TENSOR_CLOSE(params[i].second, tensor(p), 0.0, 0.0);
  }
  module.train(c.at("training").get<bool>());
  TensorList inputs;
  for (const Json& t : c.at("inputs")) {
    Tensor x = tensor(t);
    if (x.defined() && is_floating_point(x.dtype())) x.requires_grad_();
    inputs.push_back(x);
  }
  if (!c.at("dropout_seed").is_null()) manual_seed(c.at("dropout_seed").get<uint64_t>());
  TensorList outputs = call(inputs);
  std::erase_if(outputs, [](const Tensor& t) { return !t.defined(); });
  REQUIRE(outputs.size() == c.at("outputs").size());
  Tensor loss = zeros({});
  for (size_t i = 0; i < outputs.size(); ++i) {
    CHECK_TENSOR_CLOSE(outputs[i], tensor(c.at("outputs")[i]), 1e-5, 1e-5);
    loss = loss + (outputs[i] * tensor(c.at("grad_outputs")[i])).sum();
  }
  loss.backward();
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!c.at("input_grads")[i].is_null()) CHECK_TENSOR_CLOSE(inputs[i].grad(), tensor(c.at("input_grads")[i]), 1e-4, 1e-5);
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter ", params[i].first);
    CHECK_TENSOR_CLOSE(params[i].second.grad(), tensor(c.at("param_grads")[i]), 1e-4, 1e-5);
  }
}

}  // namespace tl::nn::rnn_reference
