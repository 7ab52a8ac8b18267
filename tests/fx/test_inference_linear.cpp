// tests/fx/test_inference_linear.cpp — MkldnnLinear and mkldnn_linear against the eager Linear (+ GELU): with and
// without bias, over batch dims and strided input; optimize_for_inference folding Linear -> GELU and the linear op on
// get_attr weights (attention's projections), planning a new shape, keeping eager's NaN, naming the op as PyTorch's
// profiler does; repacking after an in-place weight change; bad input refused with nothing written.
#include <doctest/doctest.h>

#include <cmath>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_args.h"
#include "fx/passes/inference_linear.h"
#include "fx/passes/optimize_for_inference.h"
#include "nn/attention.h"
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

/// Self-attention over an image's pixels as vit's encoder block calls it (batch first, no weights returned), then
/// F.linear on the block's own parameters followed by F.gelu: in the traced graph every product is the linear op on
/// get_attr nodes. (N, 16, H, W) -> (N, H * W, 7).
class AttentionBlock : public nn::Module {
 public:
  AttentionBlock() {
    register_module("attn",
                    std::make_shared<nn::MultiheadAttention>(nn::MultiheadAttentionOptions(16, 4).batch_first(true)));
    register_parameter("head_weight", randn({7, 16}));
    register_parameter("head_bias", randn({7}));
  }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    auto& attention = dynamic_cast<nn::MultiheadAttention&>(*child("attn"));
    const Tensor seq = x.flatten(2).transpose(1, 2);
    const Tensor y = std::get<0>(attention.forward(seq, seq, seq, Tensor(), /*need_weights=*/false));
    return gelu(linear(y, parameter("head_weight"), parameter("head_bias")));
  }
  std::string type_name() const override { return "AttentionBlock"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<AttentionBlock>(); }
};

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

TEST_CASE("optimize_for_inference: the linear op on get_attr weights (attention's projections) folds into MkldnnLinear") {
  manual_seed(43);
  auto model = std::make_shared<AttentionBlock>();
  model->eval();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {2, 16, 1, 5}});
  const std::string code = optimized->code();
  INFO(code);
  // in_proj_weight and in_proj_bias as attn.in_proj; out_proj's weight and bias as the module out_proj; the head's
  // product with its GELU folded in.
  CHECK(optimized->get_submodule("attn.in_proj")->extra_repr() == "in_features=16, out_features=48, bias=True");
  CHECK(optimized->get_submodule("attn.out_proj")->extra_repr() == "in_features=16, out_features=16, bias=True");
  CHECK(optimized->get_submodule("head")->extra_repr() == "in_features=16, out_features=7, bias=True, post_ops=[gelu]");
  CHECK(code.find("torch.linear") == std::string::npos);
  CHECK(code.find("gelu") == std::string::npos);
  CHECK(code.find("in_proj_weight") == std::string::npos);  // its get_attr went with the op
  // (The traced forward reads its input's shape: the example's is the one it runs. Batch 2: the projections read a
  // transposed, non-contiguous input.)
  for (int call = 0; call < 2; ++call) {  // the recording run, then the plan's
    const Tensor x = randn({2, 16, 1, 5});
    CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-4, 1e-5);
  }
  // The MkldnnLinear shares the weight it was made from: an in-place change to the optimized module's weight is
  // packed again (the same change made to the model's).
  {
    NoGradGuard no_grad;
    for (const auto& m : std::vector<std::shared_ptr<nn::Module>>{model, optimized}) {
      m->get_parameter(m == model ? "head_weight" : "head.weight").mul_(0.5);
      m->get_parameter(m == model ? "attn.in_proj_weight" : "attn.in_proj.weight").mul_(2.0);
    }
  }
  const Tensor x = randn({2, 16, 1, 5});
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-4, 1e-5);
}

/// F.linear on weights whose module path is taken: `proj_weight` beside a parameter `proj`, and the weight of a
/// Linear that the forward also calls. (N, 6, 1, 1) -> (N, 4).
class TakenPaths : public nn::Module {
 public:
  TakenPaths() {
    register_parameter("proj_weight", randn({4, 6}));
    register_parameter("proj", randn({4}));
    register_module("fc", std::make_shared<nn::Linear>(6, 6));
  }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    const Tensor& fc_weight = child("fc")->parameter("weight");
    const Tensor flat = x.flatten(1);
    return linear(submodule("fc")(flat) + linear(flat, fc_weight), parameter("proj_weight"), parameter("proj"));
  }
  std::string type_name() const override { return "TakenPaths"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<TakenPaths>(); }
};

TEST_CASE("optimize_for_inference: the linear op stays eager where the MkldnnLinear's path is taken") {
  manual_seed(44);
  auto model = std::make_shared<TakenPaths>();
  model->eval();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {3, 6, 1, 1}});
  const std::string code = optimized->code();
  INFO(code);
  CHECK(optimized->get_submodule("fc")->type_name() == "MkldnnLinear");  // the called Linear itself folds
  // Its weight read by F.linear and proj_weight (its path "proj" is a parameter) stay the linear op.
  size_t ops = 0;
  for (size_t at = code.find("torch.linear"); at != std::string::npos; at = code.find("torch.linear", at + 1)) ++ops;
  CHECK(ops == 2);
  const Tensor x = randn({3, 6, 1, 1});
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-4, 1e-5);
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
