// tests/fx/test_inference_linear.cpp — MkldnnLinear and mkldnn_linear against the eager Linear (+ GELU): with and
// without bias, over batch dims and strided input; optimize_for_inference folding Linear -> GELU, planning a new
// shape, keeping eager's NaN, naming the op as PyTorch's profiler does; repacking after an in-place weight change;
// bad input refused with nothing written.
#include <doctest/doctest.h>

#include <cmath>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_args.h"
#include "fx/passes/inference_linear.h"
#include "fx/passes/optimize_for_inference.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

std::shared_ptr<nn::Linear> eval_linear(int64_t in, int64_t out, bool bias) {
  auto linear = std::make_shared<nn::Linear>(in, out, bias);
  linear->eval();
  return linear;
}

/// ConvNeXt's pointwise MLP on a conv's output: the (N, H, W, C) permute of the conv's result (strided), Linear ->
/// GELU -> Linear over the channels, permuted back.
class PointwiseMlp : public nn::Module {
 public:
  explicit PointwiseMlp(bool bias) {
    register_module("conv", std::make_shared<nn::Conv2d>(
                                nn::Conv2dOptions{.in_channels = 3, .out_channels = 8, .kernel_size = 3, .padding = 1}));
    register_module("fc1", std::make_shared<nn::Linear>(8, 19, bias));
    register_module("act", std::make_shared<nn::GELU>());
    register_module("fc2", std::make_shared<nn::Linear>(19, 5, bias));
  }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    const Tensor y = submodule("conv")(x).permute({0, 2, 3, 1});
    return submodule("fc2")(submodule("act")(submodule("fc1")(y))).permute({0, 3, 1, 2});
  }
  std::string type_name() const override { return "PointwiseMlp"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<PointwiseMlp>(); }
};

std::shared_ptr<nn::Module> pointwise_mlp(bool bias) {
  manual_seed(bias ? 41 : 42);
  auto model = std::make_shared<PointwiseMlp>(bias);
  model->eval();
  return model;
}

TEST_CASE("MkldnnLinear: matches the eager Linear with and without bias, GELU folded or not, over batch dims") {
  manual_seed(40);
  for (const bool bias : {true, false}) {
    for (const bool gelu : {false, true}) {
      CAPTURE(bias);
      CAPTURE(gelu);
      auto linear = eval_linear(37, 29, bias);
      auto fused = std::make_shared<MkldnnLinear>(*linear, gelu);
      CHECK(fused->extra_repr() == std::string("in_features=37, out_features=29, bias=") + (bias ? "True" : "False") +
                                       (gelu ? ", post_ops=[gelu]" : ""));
      const Tensor strided = randn({37, 6}).t();  // (6, 37), rows 1 element apart
      for (const Tensor& x : {randn({37}), randn({5, 37}), randn({2, 3, 4, 37}), strided}) {
        CAPTURE(x.shape());
        const Tensor eager = (*linear)(x);
        const Tensor expected = gelu ? tl::gelu(eager) : eager;
        const Tensor got = (*fused)(x);
        CHECK(got.is_contiguous());
        CHECK_TENSOR_CLOSE(got, expected, 1e-5, 1e-5);
        CHECK_TENSOR_CLOSE((*fused)(x), expected, 1e-5, 1e-5);  // the weight packed for this shape, reused
      }
    }
  }
}

TEST_CASE("optimize_for_inference: Linear -> GELU folds into MkldnnLinear, matches eager and plans each new shape") {
  for (const bool bias : {true, false}) {
    CAPTURE(bias);
    auto model = pointwise_mlp(bias);
    auto optimized = optimize_for_inference(model, {.example_input_shape = {1, 3, 9, 9}});
    const std::string code = optimized->code();
    INFO(code);
    const std::string b = bias ? "True" : "False";
    CHECK(optimized->get_submodule("fc1")->extra_repr() == "in_features=8, out_features=19, bias=" + b + ", post_ops=[gelu]");
    CHECK(optimized->get_submodule("fc2")->extra_repr() == "in_features=19, out_features=5, bias=" + b);
    CHECK(code.find("act") == std::string::npos);  // the GELU is folded
    // The prepared shape, a new one (new primitive, weights packed again, a new plan), the first one again.
    for (const Shape& shape : {Shape{1, 3, 9, 9}, Shape{2, 3, 12, 10}, Shape{1, 3, 9, 9}}) {
      CAPTURE(shape);
      const Tensor x = randn(shape);
      const Tensor expected = (*model)(x);
      CHECK_TENSOR_CLOSE((*optimized)(x), expected, 1e-4, 1e-5);
      CHECK_TENSOR_CLOSE((*optimized)(x), expected, 1e-4, 1e-5);  // in the arena
    }
    auto unfused = optimize_for_inference(model, {.inference_linear = false, .example_input_shape = {}});
    CHECK(unfused->get_submodule("fc1")->type_name() == "Linear");
    CHECK(unfused->code().find("act") != std::string::npos);
  }
}

TEST_CASE("optimize_for_inference: NaN and inf through MkldnnLinear (+ GELU) come out where eager puts them") {
  auto model = pointwise_mlp(true);
  auto optimized = optimize_for_inference(model, {.example_input_shape = {1, 3, 7, 7}});
  for (const float special : {NAN, INFINITY, -INFINITY}) {
    CAPTURE(special);
    Tensor x = randn({1, 3, 7, 7});
    x.data<float>()[2 * 7 + 3] = special;  // one pixel of channel 0
    const Tensor expected = (*model)(x);
    const Tensor got = (*optimized)(x);
    CHECK(any(isnan(expected)).item<bool>());  // the conv and the GELU (of -inf) spread NaN: not a vacuous check
    CHECK(equal(isnan(got), isnan(expected)));
    CHECK(equal(isinf(got), isinf(expected)));
    CHECK_TENSOR_CLOSE(got, expected, 1e-4, 1e-5);
  }
}

TEST_CASE("optimize_for_inference: the profiler names the folded Linear aten::mkldnn_linear, as PyTorch's does") {
  auto model = pointwise_mlp(true);
  auto optimized = optimize_for_inference(model, {.example_input_shape = {1, 3, 9, 9}});
  const Tensor x = randn({1, 3, 9, 9});
  profiler::Profile prof;
  {
    auto running = prof.start();
    (*optimized)(x);
  }
  const std::string table = prof.key_averages().table({.sort_by = "count"});
  INFO(table);
  CHECK(table.find("aten::mkldnn_linear") != std::string::npos);
  CHECK(table.find("aten::addmm") == std::string::npos);
  CHECK(table.find("aten::gelu") == std::string::npos);
}

TEST_CASE("MkldnnLinear: a weight changed in place is packed again") {
  auto model = pointwise_mlp(true);
  auto optimized = optimize_for_inference(model, {.example_input_shape = {}});
  const Tensor x = randn({2, 3, 6, 6});
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-4, 1e-5);  // packs the weights for this shape
  {
    NoGradGuard no_grad;
    model->get_parameter("fc1.weight").mul_(-0.5);
    optimized->get_parameter("fc1.weight").mul_(-0.5);
  }
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-4, 1e-5);
}

TEST_CASE("mkldnn_linear: bad input is refused before anything is written") {
  manual_seed(43);
  NoGradGuard no_grad;  // as MkldnnLinear runs: an out= with inputs that require grad is refused by autograd first
  auto linear = eval_linear(6, 4, true);
  const Tensor w = linear->parameter("weight"), b = linear->parameter("bias");
  const Tensor x = randn({3, 6});
  Tensor out = full({3, 4}, 7.0);
  auto call = [&](const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& into) {
    return dispatch::call<OpKind::MkldnnLinear>({input, weight, bias, into}, {.gelu = false, .weight_size = {}});
  };
  CHECK_THROWS_WITH_AS(call(randn({3, 5}), w, b, out),
                       "mkldnn_linear: input [3, 5] has 5 features but weight [4, 6] expects 6", Error);
  CHECK_THROWS_WITH_AS(call(x, w, randn({5}), out),
                       "mkldnn_linear: expected a contiguous float32 bias of shape [4], got [5] torch.float32", Error);
  CHECK_THROWS_WITH_AS(call(x, w, b, full({3, 5}, 7.0)),
                       "mkldnn_linear: expected out of shape [3, 4] and dtype torch.float32, got [3, 5] torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(call(x, randn({24}), b, out),
                       "mkldnn_linear: a 1-D weight must be a tensor mkldnn_reorder_linear_weight returned, got [24] "
                       "torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(call(x.to(DType::Float64), w, b, out),
                       "mkldnn_linear: expected a float32 input, got [3, 6] torch.float64", Error);
  CHECK(equal(out, full({3, 4}, 7.0)));  // nothing written by the refused calls
  const Tensor packed = dispatch::call<OpKind::MkldnnReorderLinearWeight>({w}, {.input_size = x.shape(), .bias = true});
  CHECK_THROWS_WITH_AS(
      dispatch::call<OpKind::MkldnnLinear>({x, packed, b, out}, {.gelu = false, .weight_size = {4, 5}}),
      "mkldnn_linear: weight_size [4, 5] does not match the prepacked weight's size [4, 6]", Error);
  CHECK_THROWS_WITH_AS(dispatch::call<OpKind::MkldnnReorderLinearWeight>({w}, {.input_size = {3, 5}, .bias = true}),
                       "mkldnn_reorder_linear_weight: input_size [3, 5] does not give rows of the 6 features weight [4, "
                       "6] expects",
                       Error);
  const Tensor into_out = call(x, packed, b, out);
  CHECK(into_out.raw_data() == out.raw_data());
  CHECK_TENSOR_CLOSE(out, (*linear)(x), 1e-5, 1e-5);
  auto training = eval_linear(6, 4, true);
  training->train();
  CHECK_THROWS_WITH_AS(MkldnnLinear(*training, false), "MkldnnLinear: the linear is in training mode; call eval() first",
                       Error);
  auto fused = std::make_shared<MkldnnLinear>(*linear, true);
  CHECK_THROWS_WITH_AS((*fused)(randn({2, 5})), "MkldnnLinear: expected a float32 input (..., 6), got [2, 5] torch.float32",
                       Error);
}

}  // namespace
}  // namespace tl::fx
