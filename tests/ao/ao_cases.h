// tests/ao/ao_cases.h — reading the cases tests/ao's generators write (tests/ao/data/*.json, PyTorch 1.13's
// numbers and texts; tests run from the project root, a missing file fails the test), and the generators' Small
// model (gen_prepare_cases.py's).
#pragma once

#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::ao::quantization::testing {

using Json = nlohmann::json;

/// tests/ao/data/<name>.json, written by tests/ao/<generator>.
inline Json cases(const std::string& name, const std::string& generator) {
  std::ifstream in("tests/ao/data/" + name + ".json");
  REQUIRE_MESSAGE(in.good(), "missing tests/ao/data/" << name << ".json (run tests/ao/" << generator << ")");
  return Json::parse(in);
}

inline Json ao_cases() { return cases("ao_cases", "gen_ao_cases.py"); }

/// A JSON number, or "inf" / "-inf" / "nan" as the generator writes them.
inline double number(const Json& v) { return v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>(); }

/// {"shape": [...], "values": [...]} as a float32 tensor.
inline Tensor tensor_of(const Json& t) {
  std::vector<double> values;
  for (const Json& v : t.at("values")) values.push_back(number(v));
  return from_vector(values, Shape(t.at("shape").get<std::vector<int64_t>>())).to(kFloat);
}

/// The generators' Small (gen_prepare_cases.py): conv-bn-relu, conv, add, cat, maxpool, torch.flatten,
/// linear-relu, linear.
class Small : public tl::nn::Module {
 public:
  Small() {
    register_module("conv1", std::make_shared<tl::nn::Conv2d>(tl::nn::Conv2dOptions{.in_channels = 3, .out_channels = 8, .kernel_size = 3, .padding = 1}));
    register_module("bn1", std::make_shared<tl::nn::BatchNorm2d>(8));
    register_module("relu", std::make_shared<tl::nn::ReLU>());
    register_module("conv2", std::make_shared<tl::nn::Conv2d>(tl::nn::Conv2dOptions{.in_channels = 8, .out_channels = 8, .kernel_size = 3, .padding = 1}));
    register_module("pool", std::make_shared<tl::nn::MaxPool2d>(tl::nn::IntPair(2)));
    register_module("fc1", std::make_shared<tl::nn::Linear>(256, 32));
    register_module("fc_relu", std::make_shared<tl::nn::ReLU>());
    register_module("fc2", std::make_shared<tl::nn::Linear>(32, 10));
  }
  Tensor forward(const Tensor& x) override {
    const Tensor a = submodule("relu")(submodule("bn1")(submodule("conv1")(x)));
    const Tensor b = submodule("conv2")(a);
    const Tensor c = a + b;
    const Tensor d = cat({c, a}, 1);
    const Tensor e = submodule("pool")(d);
    const Tensor f = flatten(e, 1);
    return submodule("fc2")(submodule("fc_relu")(submodule("fc1")(f)));
  }
};
}  // namespace tl::ao::quantization::testing
