// tests/ao/test_quantized_optimize.cpp — optimize_for_inference of a converted int8 graph: each quantized conv whose
// result a quantized add(_relu) reads becomes one QuantizedConvAdd(ReLU)2d (oneDNN's sum post-op), and the result
// computes the converted graph's integers (exactly on the small model of gen_convert_cases.py; on resnet18 within #33's
// line, oneDNN's sum rounding a few near-ties the other way).
#include <doctest/doctest.h>

#include <string>

#include "ao/nn/quantized.h"
#include "ao/quantization/convert.h"
#include "core/generator.h"
#include "core/py_repr.h"
#include "fx/passes/inference_plan.h"
#include "fx/passes/optimize_for_inference.h"
#include "models/resnet.h"
#include "profiler/profile.h"
#include "tests/ao/convert_cases.h"

namespace tl::ao::quantization {
namespace {

namespace qi = tl::ao::nn::intrinsic::quantized;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST_CASE("optimize_for_inference of a converted graph: conv then quantized add is one QuantizedConvAdd2d") {
  const testing::Json data = testing::convert_cases().at("small");
  const auto converted = convert_fx(testing::calibrated(testing::small_case(data), data));
  const auto optimized = fx::optimize_for_inference(converted, {.example_input_shape = {1, 3, 8, 8}});
  const auto conv2 = optimized->get_submodule("conv2");
  REQUIRE(std::dynamic_pointer_cast<qi::ConvAdd2d>(conv2) != nullptr);
  CHECK(conv2->type_name() == "QuantizedConvAdd2d");
  // The conv's repr with the add's output qparams (the graph's `_scale_0` / `_zero_point_0`).
  CHECK(conv2->extra_repr() == "8, 8, kernel_size=(3, 3), stride=(1, 1), scale=" +
                                   py_float(converted->get_buffer("_scale_0").item<double>()) + ", zero_point=" +
                                   std::to_string(converted->get_buffer("_zero_point_0").item<int64_t>()) +
                                   ", padding=(1, 1)");
  CHECK(optimized->code().find("torch.ops.quantized.add") == std::string::npos);
  CHECK(count(optimized->code(), "self.conv2(") == 1);
  NoGradGuard no_grad;
  for (const Tensor& x : {testing::tensor_of(data.at("input")), randn({3, 3, 8, 8}) * 2.0}) {
    const Tensor expected = (*converted)(x);
    CHECK(equal((*optimized)(x), expected));
  }
  // The state dict keeps the conv's own qparams beside the add's.
  const auto state = optimized->get_submodule("conv2")->state_dict();
  REQUIRE(state.size() == 6);
  CHECK(state[4].first == "conv_scale");
  const auto conv = std::dynamic_pointer_cast<tl::ao::nn::quantized::Conv2d>(converted->get_submodule("conv2"));
  CHECK(state[4].second.item<double>() == conv->scale());
}

TEST_CASE("optimize_for_inference of a converted graph plans its u8 activations in the arena") {
  const testing::Json data = testing::convert_cases().at("small");
  const auto converted = convert_fx(testing::calibrated(testing::small_case(data), data));
  const auto optimized = std::dynamic_pointer_cast<fx::InferenceGraphModule>(
      fx::optimize_for_inference(converted, {.example_input_shape = {2, 3, 8, 8}}));
  REQUIRE(optimized != nullptr);
  // The quantized convs, the fused conv-add and the linears write into the arena (3 of their results are planned
  // at this shape).
  const fx::ArenaStats stats = optimized->arena_stats({2, 3, 8, 8});
  CHECK(stats.activations == 3);
  CHECK(stats.planned_bytes > 0);
  NoGradGuard no_grad;
  for (int run = 0; run < 2; ++run) {
    const Tensor x = randn({2, 3, 8, 8});
    const Tensor in_arena = (*optimized)(x);
    CHECK(equal(in_arena, optimized->GraphModule::forward(tl::nn::Inputs(*optimized, TensorList{x}))[0]));
    CHECK(equal(in_arena, (*converted)(x)));
  }
}

// #33's line for a value computed twice: at least 99% of the integers equal, the others within one quantum.
void check_line(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.shape() == expected.shape());
  CHECK(actual.q_scale() == expected.q_scale());
  CHECK(actual.q_zero_point() == expected.q_zero_point());
  const Tensor d = (actual.int_repr().to(kLong) - expected.int_repr().to(kLong)).abs();
  CHECK(d.max().item<int64_t>() <= 1);
  CHECK((d == 0).sum().item<double>() >= 0.99 * static_cast<double>(d.numel()));
}

TEST_CASE("optimize_for_inference of converted resnet18: eight QuantizedConvAddReLU2d, the converted integers") {
  manual_seed(33);
  auto model = models::resnet18();
  model->eval();
  auto prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), {randn({1, 3, 32, 32})});
  NoGradGuard no_grad;
  (*prepared)(randn({2, 3, 32, 32}));
  const auto converted = convert_fx(prepared);
  const auto optimized = fx::optimize_for_inference(converted, {.example_input_shape = {1, 3, 32, 32}});
  const std::string text = optimized->str();
  CHECK(count(text, "QuantizedConvAddReLU2d(") == 8);
  CHECK(optimized->code().find("torch.ops.quantized.add_relu") == std::string::npos);
  // Each fused block output against the add_relu it replaces. oneDNN's sum post-op rounds as that add does but for
  // rare near-ties (at this input, in layer4, where the convs' spatial size is 1x1: 9 of 30,720 integers, by one).
  const Tensor x = randn({2, 3, 32, 32});
  testing::Recorder unfused_values(converted), fused_values(optimized);
  const Tensor expected = unfused_values.run(x);
  const Tensor logits = fused_values.run(x);
  const char* blocks[] = {"layer1_0", "layer1_1", "layer2_0", "layer2_1",
                          "layer3_0", "layer3_1", "layer4_0", "layer4_1"};
  for (int i = 0; i < 8; ++i) {
    CAPTURE(blocks[i]);
    const std::string add = i == 0 ? std::string("add_relu") : "add_relu_" + std::to_string(i);
    REQUIRE(unfused_values.values.count(add) == 1);
    check_line(fused_values.values.at(std::string(blocks[i]) + "_conv2"), unfused_values.values.at(add));
  }
  const double quantum =
      std::dynamic_pointer_cast<tl::ao::nn::quantized::Linear>(converted->get_submodule("fc"))->scale();
  CHECK((logits - expected).abs().max().item<double>() <= 2 * quantum);
  profiler::Profile prof;
  {
    auto running = prof.start();
    (*optimized)(x);
  }
  const std::string table = prof.key_averages().table();
  CHECK(table.find("quantized::conv2d_add_relu ") != std::string::npos);
  CHECK(table.find("quantized::add_relu ") == std::string::npos);
  // Without fuse_add the graph keeps its adds and computes the converted graph's integers exactly.
  const auto unfused =
      fx::optimize_for_inference(converted, {.fuse_add = false, .example_input_shape = {1, 3, 32, 32}});
  CHECK(count(unfused->code(), "torch.ops.quantized.add_relu") == 8);
  CHECK(equal((*unfused)(x), expected));
}

}  // namespace
}  // namespace tl::ao::quantization
