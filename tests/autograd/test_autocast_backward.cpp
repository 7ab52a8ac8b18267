// tests/autograd/test_autocast_backward.cpp — training under tl::autocast: a small CNN's forward and
// loss in bfloat16 give PyTorch 1.13's loss, float32 gradients and running statistics
// (tests/reference/make_autocast_references.py), and backward runs in the forward's dtypes even when
// the scope is still open.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "core/autocast.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using Json = nlohmann::json;

struct Net {
  std::map<std::string, Tensor> p;  // parameters and buffers by PyTorch's state-dict names

  explicit Net(const Json& init) {
    const std::map<std::string, Shape> shapes = {
        {"conv1.weight", {8, 1, 3, 3}}, {"bn.weight", {8}},         {"bn.bias", {8}},
        {"bn.running_mean", {8}},       {"bn.running_var", {8}},    {"conv2.weight", {8, 8, 3, 3}},
        {"conv2.bias", {8}},            {"fc.weight", {4, 128}},    {"fc.bias", {4}}};
    for (const auto& [name, shape] : shapes) {
      p[name] = from_vector(init.at(name).get<std::vector<float>>(), shape);
      if (name.find("running") == std::string::npos) p[name].requires_grad_();
    }
  }
  Tensor forward(const Tensor& x) {
    Tensor h = conv2d(x, p["conv1.weight"], {}, {1, 1}, {1, 1});
    h = relu(batch_norm(h, p["bn.weight"], p["bn.bias"], p["bn.running_mean"], p["bn.running_var"], true, 0.1, 1e-5, true));
    h = relu(conv2d(h, p["conv2.weight"], p["conv2.bias"], {1, 1}, {1, 1}));
    return linear(max_pool2d(h, {2, 2}).flatten(1), p["fc.weight"], p["fc.bias"]);
  }
};

Tensor floats(const Json& values, const Shape& shape) { return from_vector(values.get<std::vector<float>>(), shape); }

// Largest magnitude of a float32 reference, for a tolerance relative to the tensor's scale.
double max_abs(const Tensor& t) {
  const Tensor a = t.abs().contiguous();
  return static_cast<double>(*std::max_element(a.data<float>(), a.data<float>() + a.numel()));
}

}  // namespace

TEST_CASE("a CNN step under autocast gives PyTorch 1.13's loss, gradients and running statistics") {
  const Json ref = Json::parse(testing::read_reference("autocast.json")).at("step");
  Net net(ref.at("init"));
  const Tensor x = floats(ref.at("input"), {4, 1, 8, 8});
  const Tensor y = from_vector(ref.at("target").get<std::vector<int64_t>>(), {4});
  Tensor logits, loss;
  {
    autocast scope;
    logits = net.forward(x);
    loss = cross_entropy_loss(logits, y);
  }
  CHECK(logits.dtype() == DType::BFloat16);
  CHECK(loss.dtype() == DType::Float32);
  loss.backward();

  // Both runs round the same activations to bfloat16 (8 significant bits); the two implementations may
  // round a value either way where their float32 sums differ in the last bits, so a gradient may differ by
  // a few bfloat16 steps (2^-8) of its tensor's largest element. 2^-6 of the scale allows four.
  const double bf16_scale_tol = std::ldexp(1.0, -6);
  CHECK(loss.item<float>() == doctest::Approx(ref.at("loss").get<double>()).epsilon(bf16_scale_tol));
  for (const auto& item : ref.at("grads").items()) {
    const std::string name = item.key();
    const Json& values = item.value();
    CAPTURE(name);
    const Tensor& g = net.p[name].grad();
    REQUIRE(g.defined());
    CHECK(g.dtype() == DType::Float32);
    const Tensor expected = floats(values, g.shape());
    CHECK_TENSOR_CLOSE(g, expected, 0, bf16_scale_tol * max_abs(expected));
  }
  for (const char* stat : {"running_mean", "running_var"}) {
    CAPTURE(stat);
    const Tensor expected = floats(ref.at(stat), {8});
    CHECK_TENSOR_CLOSE(net.p[std::string("bn.") + stat], expected, 0, bf16_scale_tol * max_abs(expected));
  }
}

TEST_CASE("backward inside an open autocast scope runs each op's backward in its forward dtype") {
  const Json init = Json::parse(testing::read_reference("autocast.json")).at("step").at("init");
  const Tensor x = randn({4, 1, 8, 8});
  const Tensor y = from_vector<int64_t>({0, 3, 1, 2}, {4});
  std::map<std::string, Tensor> grads[2];
  for (int inside = 0; inside < 2; ++inside) {
    Net net(init);
    autocast scope;
    Tensor loss = cross_entropy_loss(net.forward(x), y);
    if (inside) {
      loss.backward();
    } else {
      autocast off({.enabled = false});
      loss.backward();
    }
    for (auto& [name, t] : net.p)
      if (t.requires_grad()) grads[inside][name] = t.grad();
  }
  for (const auto& entry : grads[0]) {
    const std::string& name = entry.first;
    const Tensor& g = entry.second;
    CAPTURE(name);
    CHECK_TENSOR_CLOSE(grads[1].at(name), g, 0, 0);
  }
}

}  // namespace tl
