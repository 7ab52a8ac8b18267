// tests/fx/test_fuse_conv_bn.cpp — the conv-bn fusion pass: PyTorch's printed results on the toy
// model, output equivalence on ResNet18/50 with random BN statistics, and every legality rule.
#include <doctest/doctest.h>

#include <tuple>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "models/toy_fuser.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/bn_calibration.h"
#include "tests/support/json_cases.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

using testing::between;
using testing::read_reference;

TEST_CASE("fuse_conv_bn: the seed's toy model gives PyTorch's fused graph and code") {
  manual_seed(1);
  const std::string ref = read_reference("toy_fuser_model.txt");
  auto model = models::toy_fuser_model();
  testing::calibrate_batch_norms(*model, {2, 1, 5, 5});
  model->eval();
  FuseReport report;
  auto fused = fuse_conv_bn(model, &report);
  CHECK(fused->code() == between(ref, "fuse(model).code:\n", "\n\nprint(fuse(model).graph):"));
  CHECK(fused->graph().str() == testing::strip_trailing_newlines(between(ref, "print(fuse(model).graph):\n", "\n\n")));
  CHECK(report.fused.size() == 3);
  CHECK(report.skipped.empty());
  Tensor x = randn({3, 1, 6, 5});
  CHECK_TENSOR_CLOSE((*fused)(x), (*model)(x), 1e-5, 1e-6);
}

// ResNet50 runs in float64: in float32, rounding through its 50 layers alone puts fused and unfused
// logits ~2e-4 apart, which would hide a folding error of that size.
TEST_CASE("fuse_conv_bn: ResNet18 and ResNet50 fold every BatchNorm and keep their outputs") {
  manual_seed(2);
  for (auto [model, expected_pairs, dtype] : {std::tuple{models::resnet18(), size_t{20}, DType::Float32},
                                              std::tuple{models::resnet50(), size_t{53}, DType::Float64}}) {
    const size_t pairs = expected_pairs;  // clang 14 cannot capture a structured binding in CAPTURE
    CAPTURE(pairs);
    testing::calibrate_batch_norms(*model, {4, 3, 64, 64});  // calibrated in float32, then converted exactly
    model->to(dtype);
    model->eval();
    const nn::StateDict before = model->state_dict();
    std::vector<Tensor> copies;
    for (const auto& [name, t] : before) copies.push_back(t.clone());
    FuseReport report;
    auto fused = fuse_conv_bn(model, &report);
    CHECK(report.fused.size() == expected_pairs);
    CHECK(report.skipped.empty());
    CHECK(fused->graph().find_nodes(Opcode::CallModule).size() > 0);
    for (Node* n : fused->graph().find_nodes(Opcode::CallModule))
      CHECK(fused->get_submodule(n->target())->type_name() != "BatchNorm2d");
    Tensor x = randn({2, 3, 64, 64}, dtype);
    CHECK_TENSOR_CLOSE((*fused)(x), (*model)(x), 1e-4, 1e-5);
    // The input model is untouched.
    for (size_t i = 0; i < before.size(); ++i) CHECK(equal(before[i].second, copies[i]));
  }
}

// conv -> bn, but the conv output is also added to the result.
class SharedOutput : public nn::Module {
 public:
  SharedOutput() {
    register_module("conv", std::make_shared<nn::Conv2d>(2, 2, 3));
    register_module("bn", std::make_shared<nn::BatchNorm2d>(nn::BatchNorm2dOptions{.num_features = 2}));
  }
  std::string type_name() const override { return "SharedOutput"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    Tensor c = submodule("conv")(x);
    return submodule("bn")(c) + c;
  }
};

// The same conv module called twice, each followed by its own bn.
class ReusedConv : public nn::Module {
 public:
  ReusedConv() {
    register_module("conv", std::make_shared<nn::Conv2d>(2, 2, 1));
    register_module("bn1", std::make_shared<nn::BatchNorm2d>(nn::BatchNorm2dOptions{.num_features = 2}));
    register_module("bn2", std::make_shared<nn::BatchNorm2d>(nn::BatchNorm2dOptions{.num_features = 2}));
  }
  std::string type_name() const override { return "ReusedConv"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    return submodule("bn1")(submodule("conv")(x)) + submodule("bn2")(submodule("conv")(x));
  }
};

// A fused conv whose weight another conv shares (tied): folding must give the fused conv a weight of its own.
class TiedWeights : public nn::Module {
 public:
  TiedWeights() {
    auto conv = register_module("conv", std::make_shared<nn::Conv2d>(2, 2, 3));
    register_module("bn", std::make_shared<nn::BatchNorm2d>(nn::BatchNorm2dOptions{.num_features = 2}));
    register_module("tied", std::make_shared<nn::Conv2d>(2, 2, 3))->register_parameter("weight", conv->parameter("weight"));
  }
  std::string type_name() const override { return "TiedWeights"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override { return submodule("bn")(submodule("conv")(x)) + submodule("tied")(x); }
};

TEST_CASE("fuse_conv_bn: a weight tied to another module is folded into the fused conv's copy only") {
  manual_seed(5);
  const Tensor x = randn({2, 2, 5, 5});
  auto model = std::make_shared<TiedWeights>();
  testing::calibrate_batch_norms(*model, x.shape());
  model->eval();
  FuseReport report;
  auto fused = fuse_conv_bn(model, &report);
  CHECK(report.fused.size() == 1);
  CHECK_TENSOR_CLOSE((*fused)(x), (*model)(x), 1e-5, 1e-6);
  CHECK(equal(fused->get_parameter("tied.weight"), model->get_parameter("conv.weight")));
  CHECK_FALSE(fused->get_parameter("tied.weight").is_same(model->get_parameter("conv.weight")));
}

TEST_CASE("fuse_conv_bn: illegal pairs are left alone and reported") {
  manual_seed(3);
  Tensor x = randn({2, 2, 5, 5});
  SUBCASE("conv output with another user") {
    auto model = std::make_shared<SharedOutput>();
    testing::calibrate_batch_norms(*model, x.shape());
    model->eval();
    FuseReport report;
    auto fused = fuse_conv_bn(model, &report);
    REQUIRE(report.skipped.size() == 1);
    CHECK(report.skipped[0].reason == "the conv output has 2 users, not only the batch norm");
    CHECK(report.str() == "fused 0 conv-bn pairs, skipped 1\n  skipped conv -> bn: the conv output has 2 users, not only the batch norm");
    CHECK_TENSOR_CLOSE((*fused)(x), (*model)(x), 0.0, 0.0);
  }
  SUBCASE("conv module called at two sites") {
    auto model = std::make_shared<ReusedConv>();
    testing::calibrate_batch_norms(*model, x.shape());
    model->eval();
    FuseReport report;
    auto fused = fuse_conv_bn(model, &report);
    REQUIRE(report.skipped.size() == 2);
    CHECK(report.skipped[0].reason == "the conv module is called at 2 call sites");
    CHECK_TENSOR_CLOSE((*fused)(x), (*model)(x), 0.0, 0.0);
  }
  SUBCASE("batch norm without running statistics") {
    auto model = std::make_shared<nn::Sequential>(
        std::make_shared<nn::Conv2d>(2, 3, 3),
        std::make_shared<nn::BatchNorm2d>(nn::BatchNorm2dOptions{.num_features = 3, .track_running_stats = false}));
    model->eval();
    FuseReport report;
    auto fused = fuse_conv_bn(model, &report);
    REQUIRE(report.skipped.size() == 1);
    CHECK(report.skipped[0].reason == "the batch norm has no running statistics");
    CHECK_TENSOR_CLOSE((*fused)(x), (*model)(x), 0.0, 0.0);
  }
  SUBCASE("training mode is refused") {
    auto model = models::toy_fuser_model();
    CHECK_THROWS_WITH_AS(fuse_conv_bn(model), "fuse_conv_bn: fusion is for inference, but the M is in training mode; call eval() first",
                         Error);
    model->eval();
    model->get_submodule("bn1")->train();
    CHECK_THROWS_WITH_AS(fuse_conv_bn(model), doctest::Contains("batch norm 'bn1' (BatchNorm2d) is in training mode"), Error);
  }
}

TEST_CASE("fuse_conv_bn: grouped and depthwise convolutions, with and without bias, fold exactly") {
  manual_seed(4);
  for (int64_t groups : {1, 2, 6}) {
    for (bool bias : {true, false}) {
      CAPTURE(groups);
      CAPTURE(bias);
      auto model = std::make_shared<nn::Sequential>(
          std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 6, .out_channels = 6, .kernel_size = 3,
                                                          .padding = 1, .groups = groups, .bias = bias}),
          std::make_shared<nn::BatchNorm2d>(nn::BatchNorm2dOptions{.num_features = 6}));
      Tensor x = randn({2, 6, 7, 9});
      testing::calibrate_batch_norms(*model, x.shape());
      model->eval();
      FuseReport report;
      auto fused = fuse_conv_bn(model, &report);
      CHECK(report.fused.size() == 1);
      CHECK_TENSOR_CLOSE((*fused)(x), (*model)(x), 1e-5, 1e-6);
      CHECK(fused->get_submodule("0")->extra_repr().find("bias=False") == std::string::npos);
    }
  }
}

// {"shape": [...], "values": ["0.1", ...]} (tests/fx/gen_fuse_conv_bn_cases.py) as a float32 tensor, exactly.
Tensor case_tensor(const nlohmann::json& t) {
  std::vector<double> values;
  for (const nlohmann::json& v : t.at("values")) values.push_back(testing::json_number(v));
  return from_vector(values, Shape(t.at("shape").get<std::vector<int64_t>>())).to(kFloat);
}

// Quantization rounds the folded weights to integers, so a weight one ulp off PyTorch's can move an integer: the
// cases are ones where folding in float64 gives other bits.
TEST_CASE("fuse_conv_bn_eval: the folded weight and bias are PyTorch 1.13's to the bit (its float32 order)") {
  for (const nlohmann::json& c : testing::json_cases("tests/fx/data/fuse_conv_bn_cases.json")) {
    const Tensor weight = case_tensor(c.at("weight"));
    const int64_t channels = weight.shape()[0];
    const bool has_bias = c.contains("bias");
    CAPTURE(has_bias);
    nn::Conv2d conv(nn::Conv2dOptions{.in_channels = weight.shape()[1], .out_channels = channels, .kernel_size = 3,
                                      .bias = has_bias});
    nn::BatchNorm2d bn(nn::BatchNorm2dOptions{.num_features = channels, .eps = c.at("eps").get<double>()});
    {
      NoGradGuard no_grad;
      conv.parameter("weight").copy_(weight);
      if (has_bias) conv.parameter("bias").copy_(case_tensor(c.at("bias")));
      bn.buffer("running_mean").copy_(case_tensor(c.at("running_mean")));
      bn.buffer("running_var").copy_(case_tensor(c.at("running_var")));
      bn.parameter("weight").copy_(case_tensor(c.at("bn_weight")));
      bn.parameter("bias").copy_(case_tensor(c.at("bn_bias")));
    }
    conv.eval();
    bn.eval();
    const auto fused = fuse_conv_bn_eval(conv, bn);
    CHECK(equal(fused->parameter("weight"), case_tensor(c.at("fused_weight"))));
    CHECK(equal(fused->parameter("bias"), case_tensor(c.at("fused_bias"))));
  }
}

TEST_CASE("fuse_conv_bn: a GraphModule input is copied, not modified") {
  auto model = models::toy_fuser_model();
  model->eval();
  auto traced = symbolic_trace(model);
  const std::string code_before = traced->code();
  auto fused = fuse_conv_bn(traced);
  CHECK(traced->code() == code_before);
  CHECK(fused->code() != code_before);
}

// symbolic_trace shares the module's submodules and tensors; the passes copy them first (as the seed's
// fuser deep-copies), so neither the module nor a traced module sharing with it changes.
TEST_CASE("fuse_conv_bn and optimize_for_inference never modify the module, nor a trace sharing its tensors") {
  manual_seed(4);
  auto model = models::toy_fuser_model();
  testing::calibrate_batch_norms(*model, {2, 1, 5, 5});
  model->eval();
  auto traced = symbolic_trace(model);
  const std::string graph_before = traced->graph().str();
  const nn::StateDict before = model->state_dict();
  std::vector<Tensor> copies;
  for (const auto& entry : before) copies.push_back(entry.second.clone());
  const Tensor x = randn({2, 1, 5, 5});
  const Tensor expected = (*model)(x);
  for (const std::shared_ptr<nn::Module>& input : {std::shared_ptr<nn::Module>(model), std::shared_ptr<nn::Module>(traced)}) {
    CAPTURE(input->type_name());
    std::vector<std::shared_ptr<GraphModule>> results{fuse_conv_bn(input),
                                                      optimize_for_inference(input, {.example_input_shape = {}})};
    for (const std::shared_ptr<GraphModule>& result : results) {
      CHECK_TENSOR_CLOSE((*result)(x), expected, 1e-5, 1e-6);
      for (const auto& [name, m] : model->named_modules())
        for (const auto& [result_name, r] : result->named_modules()) CHECK(m != r);
      for (const Tensor& p : model->parameters())
        for (const Tensor& r : result->parameters()) CHECK_FALSE(p.is_same(r));
    }
  }
  for (size_t i = 0; i < before.size(); ++i) CHECK(equal(model->state_dict()[i].second, copies[i]));
  CHECK(model->get_submodule("bn1")->type_name() == "BatchNorm2d");
  CHECK(traced->get_submodule("bn1") == model->get_submodule("bn1"));
  CHECK(traced->graph().str() == graph_before);
  CHECK_TENSOR_CLOSE((*traced)(x), expected, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::fx
