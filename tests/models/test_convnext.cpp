// tests/models/test_convnext.cpp — ConvNeXt against torchvision 0.14 (tests/reference/make_zoo_modern_references.py):
// print(model), state_dict and seeded initial values, eval logits (67x67 for each builder, 224x224 for tiny) with
// the LayerNorms and layer_scales set by the script's layer_norm_rule, torch.fx's code, LayerNorm2d, options, and
// the errors for a wrong input and another variant's checkpoint.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "core/generator.h"
#include "fx/tracer.h"
#include "models/convnext.h"
#include "nn/functional.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

// zoo_model_mismatch with layer_norm_rule applied before the logits.
std::string convnext_mismatch(const std::string& name, const std::function<std::shared_ptr<nn::Module>()>& make,
                              int64_t parameters) {
  manual_seed(0);
  const std::shared_ptr<nn::Module> model = make();
  std::string out;
  if (testing::parameter_count(*model) != parameters)
    out += name + ": " + std::to_string(testing::parameter_count(*model)) + " parameters\n";
  if (nn::repr(*model) + "\n" != testing::zoo_reference("zoo_modern", name, "repr"))
    out += name + ": print(model) differs from torchvision's\n";
  const std::string state = testing::state_dict_mismatch(*model, testing::zoo_reference("zoo_modern", name, "state_dict"));
  if (!state.empty()) out += name + ": " + state + "\n";
  testing::apply_layer_norm_rule(*model);
  model->eval();
  const std::string logits = testing::logits_mismatch(*model, testing::zoo_reference("zoo_modern", name, "logits"));
  if (!logits.empty()) out += name + ": " + logits + "\n";
  return out;
}

TEST_CASE("convnext: print, state_dict, seeded initial weights and eval logits equal torchvision's") {
  CHECK(convnext_mismatch("convnext_tiny", [] { return convnext_tiny(); }, 28589128) == "");
  // Above 30M parameters only with TL_ZOO_ALL_VARIANTS=1: their initial draws dominate the suite's time.
  if (testing::skip_heavy_variants()) return;
  CHECK(convnext_mismatch("convnext_small", [] { return convnext_small(); }, 50223688) == "");
  CHECK(convnext_mismatch("convnext_base", [] { return convnext_base(); }, 88591464) == "");
  CHECK(convnext_mismatch("convnext_large", [] { return convnext_large(); }, 197767336) == "");
}

// LayerNorm2d's x.permute(0, 2, 3, 1) records its dims as varargs, as Python writes them; a CNBlock's layer_scale is
// fetched before its block (fx::getattr), as Python reads self.layer_scale first; F.layer_norm is torch.fx's one
// node (a named call).
TEST_CASE("convnext: symbolic_trace gives torch.fx's code; the GraphModule runs as eager") {
  auto model = convnext_tiny();
  auto traced = fx::symbolic_trace(model);
  CHECK(traced->code() == testing::zoo_reference("zoo_modern", "convnext_tiny", "code"));
  testing::apply_layer_norm_rule(*model);
  model->eval();
  traced = fx::symbolic_trace(model);
  const Tensor x = testing::zoo_input(1, 35);
  CHECK_TENSOR_CLOSE((*traced)(x), (*model)(x), 1e-6, 1e-6);
}

// One model for both cases: building a ConvNeXt (28M initial draws) is most of their time.
TEST_CASE("convnext: options (num_classes, layer_scale, stochastic_depth_prob); a wrong channel count and another "
          "variant's checkpoint are refused") {
  auto model = convnext_tiny({.num_classes = 10, .stochastic_depth_prob = 0.3, .layer_scale = 0.5});
  CHECK(testing::parameter_count(*model) == 27827818);
  // block 14 of 18: 0.3 * 14 / 17
  CHECK(nn::repr(*model->get_submodule("features.5.8.stochastic_depth")) ==
        "StochasticDepth(p=0.24705882352941178, mode=row)");
  CHECK_TENSOR_CLOSE(model->get_parameter("features.5.8.layer_scale"), full({384, 1, 1}, 0.5), 0.0, 0.0);
  CHECK(nn::repr(*model->get_submodule("classifier")) ==
        "Sequential(\n"
        "  (0): LayerNorm2d((768,), eps=1e-06, elementwise_affine=True)\n"
        "  (1): Flatten(start_dim=1, end_dim=-1)\n"
        "  (2): Linear(in_features=768, out_features=10, bias=True)\n"
        ")");
  model->eval();
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 4, 32, 32})),
                       "conv2d: input [1, 4, 32, 32] has 4 channels but weight [96, 3, 4, 4] with groups=1 expects 3"
                       " (in module 'features.0.0' (Conv2d) of ConvNeXt)",
                       Error);
  // A ConvNeXt with three stages, the third of 3 blocks where tiny's has 9.
  const ConvNeXt fewer({{96, 192, 3}, {192, 384, 3}, {384, std::nullopt, 3}});
  testing::check_refuses_state_dict(*model, fewer.state_dict(), "features.5.3.layer_scale");
}

TEST_CASE("LayerNorm2d: F.layer_norm over the channels of (N, C, H, W); the ops' errors for other inputs") {
  LayerNorm2d norm(nn::LayerNormOptions{.normalized_shape = {3}, .eps = 1e-6});
  const Tensor x = testing::zoo_input(2, 5);
  const Tensor expected =
      nn::functional::layer_norm(x.permute({0, 2, 3, 1}), {3}, {}, {}, 1e-6).permute({0, 3, 1, 2});
  CHECK_TENSOR_CLOSE(norm(x), expected, 1e-6, 1e-6);
  CHECK(nn::repr(norm) == "LayerNorm2d((3,), eps=1e-06, elementwise_affine=True)");
  CHECK_THROWS_WITH_AS(norm(zeros({2, 3, 5})),
                       "permute: number of dimensions in the tensor input does not match the length of the desired "
                       "ordering of dimensions i.e. input.dim() = 3 is not equal to len(dims) = 4",
                       Error);
  CHECK_THROWS_WITH_AS(norm(zeros({2, 4, 5, 5})),
                       doctest::Contains("given normalized_shape=[3], expected input with shape [*, normalized_shape], "
                                         "but got input of size [2, 5, 5, 4]"),
                       Error);
}

TEST_CASE("Permute: torch.permute(x, dims), a view; prints as torchvision's") {
  ops::Permute permute(Shape{0, 2, 3, 1});
  const Tensor x = testing::zoo_input(2, 3);
  const Tensor y = permute(x);
  CHECK(y.shape() == Shape{2, 3, 3, 3});
  CHECK(y.storage() == x.storage());
  CHECK_TENSOR_CLOSE(y, x.permute({0, 2, 3, 1}), 0.0, 0.0);
  CHECK(nn::repr(permute) == "Permute()");
}


}  // namespace
}  // namespace tl::models
