// tests/nn/test_activation.cpp — the activation modules against PyTorch 1.13 (tests/reference/activations.json,
// made by tests/reference/make_activation_references.py): repr, forward values, input (and PReLU weight)
// gradients, grad_fn names; their functional forms; inplace; PReLU's parameter; misuse.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nn/functional.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

using Json = nlohmann::json;

// The modules of make_activation_references.py's MODULES, under the same names.
std::map<std::string, std::function<std::shared_ptr<Module>()>> modules() {
  return {
      {"Sigmoid", [] { return std::make_shared<Sigmoid>(); }},
      {"Tanh", [] { return std::make_shared<Tanh>(); }},
      {"SiLU", [] { return std::make_shared<SiLU>(); }},
      {"Mish", [] { return std::make_shared<Mish>(); }},
      {"Hardswish", [] { return std::make_shared<Hardswish>(); }},
      {"GELU", [] { return std::make_shared<GELU>(); }},
      {"GELU_tanh", [] { return std::make_shared<GELU>("tanh"); }},
      {"LeakyReLU", [] { return std::make_shared<LeakyReLU>(); }},
      {"LeakyReLU_0.2", [] { return std::make_shared<LeakyReLU>(0.2); }},
      {"LeakyReLU_inplace", [] { return std::make_shared<LeakyReLU>(LeakyReLUOptions{.negative_slope = 0.2, .inplace = true}); }},
      {"ELU", [] { return std::make_shared<ELU>(); }},
      {"ELU_0.5", [] { return std::make_shared<ELU>(0.5); }},
      {"ELU_inplace", [] { return std::make_shared<ELU>(0.5, true); }},
      {"Softplus", [] { return std::make_shared<Softplus>(); }},
      {"Softplus_2", [] { return std::make_shared<Softplus>(2, 10.5); }},
      {"Softplus_float", [] { return std::make_shared<Softplus>(SoftplusOptions{.beta = 0.5, .threshold = 4.0}); }},
      {"Hardsigmoid", [] { return std::make_shared<Hardsigmoid>(); }},
      {"Hardtanh", [] { return std::make_shared<Hardtanh>(); }},
      {"Hardtanh_int", [] { return std::make_shared<Hardtanh>(-2, 3); }},
      {"ReLU6", [] { return std::make_shared<ReLU6>(); }},
      {"PReLU", [] { return std::make_shared<PReLU>(); }},
      {"PReLU_3", [] { return std::make_shared<PReLU>(3, 0.1); }},
      {"Hardswish_inplace", [] { return std::make_shared<Hardswish>(true); }},
      {"SiLU_inplace", [] { return std::make_shared<SiLU>(true); }},
      {"Mish_inplace", [] { return std::make_shared<Mish>(true); }},
      {"Hardsigmoid_inplace", [] { return std::make_shared<Hardsigmoid>(true); }},
      {"Hardtanh_inplace", [] { return std::make_shared<Hardtanh>(-2, 3, true); }},
      {"ReLU6_inplace", [] { return std::make_shared<ReLU6>(true); }},
      {"Softmax", [] { return std::make_shared<Softmax>(1); }},
      {"LogSoftmax", [] { return std::make_shared<LogSoftmax>(-1); }},
  };
}

Tensor values(const Json& v, const Shape& shape) { return from_vector(v.get<std::vector<float>>(), shape); }

TEST_CASE("activation modules: repr, forward, gradients and grad_fn as PyTorch's") {
  const Json data = Json::parse(testing::read_reference("activations.json"));
  const Shape shape{2, 3, 4};
  const Tensor g = values(data.at("g"), shape);
  const auto made = modules();
  REQUIRE(made.size() == data.at("modules").size());
  for (const auto& item : data.at("modules").items()) {
    const std::string name = item.key();
    const Json& ref = item.value();
    CAPTURE(name);
    REQUIRE(made.count(name) == 1);
    const std::shared_ptr<Module> module = made.at(name)();
    CHECK(repr(*module) == ref.at("repr").get<std::string>());
    Tensor x = values(data.at("x"), shape).requires_grad_();
    const Tensor input = name.ends_with("inplace") ? x.clone() : x;
    const Tensor out = (*module)(input);
    CHECK(out.is_same(input) == name.ends_with("inplace"));  // in place: the input itself comes back
    CHECK_TENSOR_CLOSE(out, values(ref.at("output"), shape), 1e-6, 1e-6);
    CHECK(out.grad_fn_name() == ref.at("grad_fn").get<std::string>());
    (out * g).sum().backward();
    CHECK_TENSOR_CLOSE(x.grad(), values(ref.at("grad"), shape), 1e-6, 1e-6);
    if (ref.contains("weight")) {
      const Tensor w = module->parameter("weight");
      CHECK_TENSOR_CLOSE(w, values(ref.at("weight"), w.shape()), 0.0, 0.0);
      CHECK_TENSOR_CLOSE(w.grad(), values(ref.at("weight_grad"), w.shape()), 1e-5, 1e-6);
      std::vector<std::string> keys;
      for (const auto& [key, value] : module->state_dict()) keys.push_back(key);
      CHECK(keys == ref.at("state_dict").get<std::vector<std::string>>());
    }
  }
}

TEST_CASE("activation functions: F:: forms equal the modules and relu6 is hardtanh(0, 6)") {
  const Tensor x = randn({3, 5}) * 5.0;
  CHECK_TENSOR_CLOSE(functional::gelu(x, "tanh"), GELU("tanh")(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::mish(x), Mish()(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::leaky_relu(x, 0.3), LeakyReLU(0.3)(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::elu(x, 0.7), ELU(0.7)(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::softplus(x, 2, 3), Softplus(2, 3)(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::hardsigmoid(x), Hardsigmoid()(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::hardtanh(x, -2, 2), Hardtanh(-2, 2)(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::relu6(x), tl::hardtanh(x, 0, 6), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::prelu(x, full({5}, 0.5)), where(x.gt(Scalar(0.0)), x, x * 0.5), 0.0, 0.0);
  // hardtanh keeps an integral dtype, its bounds truncated (PyTorch: hardtanh(int64, -1.5, 2.5) clamps to [-1, 2]).
  const Tensor i = from_vector<int64_t>({-3, 0, 3}, {3});
  CHECK_TENSOR_CLOSE(functional::hardtanh(i, -1.5, 2.5), from_vector<int64_t>({-1, 0, 2}, {3}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::relu6(from_vector<int64_t>({-1, 7}, {2})), from_vector<int64_t>({0, 6}, {2}), 0.0, 0.0);
}

TEST_CASE("LeakyReLU / ELU inplace overwrite and return their input") {
  const Tensor x = randn({4, 3});
  for (bool elu : {false, true}) {
    CAPTURE(elu);
    const Tensor y = x.clone();
    const Tensor out = elu ? ELU(0.5, true)(y) : LeakyReLU(0.1, true)(y);
    CHECK(out.is_same(y));
    CHECK_TENSOR_CLOSE(y, elu ? functional::elu(x, 0.5) : functional::leaky_relu(x, 0.1), 0.0, 0.0);
  }
}

TEST_CASE("PReLU: weight (num_parameters) filled with init; one weight per channel of dim 1") {
  PReLU prelu(PReLUOptions{.num_parameters = 4, .init = -0.125});
  CHECK(prelu.parameter("weight").shape() == Shape{4});
  CHECK_TENSOR_CLOSE(prelu.parameter("weight"), full({4}, -0.125), 0.0, 0.0);
  CHECK(prelu.parameter("weight").requires_grad());
  CHECK(repr(PReLU(0)) == "PReLU(num_parameters=0)");
  CHECK_THROWS_WITH_AS(PReLU(-1), "PReLU: num_parameters must be non-negative, got -1", Error);
  CHECK_THROWS_WITH_AS(prelu(zeros({2, 3, 5})),
                       "Mismatch of parameter numbers and input channel size. Found parameter numbers = 4 and channel "
                       "size = 3.",
                       Error);
  CHECK_THROWS_WITH_AS(prelu(zeros({})), "Not allow zero-dim input tensor.", Error);
  CHECK_THROWS_WITH_AS(functional::prelu(zeros({5}), zeros({5})),
                       "Mismatch of parameter numbers and input channel size. Found parameter numbers = 5 and channel "
                       "size = 1.",
                       Error);
  CHECK_THROWS_WITH_AS(functional::prelu(zeros({2, 4}), zeros({2, 2})),
                       "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = 2", Error);
  CHECK_THROWS_WITH_AS(functional::prelu(zeros({2, 4}), zeros({4}, DType::Float64)),
                       "prelu: expected weight of dtype torch.float32, got torch.float64", Error);
  CHECK(prelu(zeros({2, 4, 3})).shape() == Shape{2, 4, 3});
}

TEST_CASE("activations: misuse throws PyTorch's errors") {
  CHECK_THROWS_WITH_AS(Hardtanh(1.0, 0.0), "Hardtanh: expected max_val > min_val, got min_val=1.0 and max_val=0.0", Error);
  CHECK_THROWS_WITH_AS(GELU("fast")(zeros({2})), "gelu: approximate argument must be either none or tanh, got 'fast'",
                       Error);
  CHECK_THROWS_WITH_AS(functional::leaky_relu(zeros({2}, DType::Int64)),
                       "leaky_relu: expected a floating point dtype, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(functional::hardtanh(zeros({2}, DType::Bool)), "Bool inputs not supported for hardtanh", Error);
  // The in-place forms' backward reads the result, whose sign is the input's only for a slope >= 0.
  Tensor x = randn({3}).requires_grad_();
  Tensor y = functional::leaky_relu(x * 1.0, -0.1, true);
  CHECK_THROWS_WITH_AS(y.sum().backward(),
                       doctest::Contains("In-place leakyReLu backward calculation is triggered with a negative slope"),
                       Error);
  y = functional::elu(x * 1.0, -0.1, true);
  CHECK_THROWS_WITH_AS(y.sum().backward(),
                       doctest::Contains("In-place elu backward calculation is triggered with a negative slope"), Error);
  // A failed inplace call leaves its input as it was.
  const Tensor i = from_vector<int64_t>({-1, 2}, {2});
  CHECK_THROWS_AS(functional::elu(i, 1.0, true), Error);
  CHECK_TENSOR_CLOSE(i, from_vector<int64_t>({-1, 2}, {2}), 0.0, 0.0);
}

}  // namespace
}  // namespace tl::nn
