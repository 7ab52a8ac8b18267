// tests/models/test_vit.cpp — VisionTransformer (vit_b_16, vit_b_32; vit_l_16, vit_l_32 and vit_h_14 with
// TL_ZOO_ALL_VARIANTS=1) against torchvision 0.14 (tests/reference/make_zoo_inception_vit_references.py):
// print(model), state_dict keys, shapes and seeded initial values, eval logits at 224x224 (batch 1 and 3;
// nn.MultiheadAttention with batch_first and need_weights=False inside), options, and the errors for a wrong
// image size, a non-sequence input and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/generator.h"
#include "fx/graph_module.h"
#include "fx/tracer.h"
#include "models/vision_transformer.h"
#include "nn/attention.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::parameter_count;
using testing::zoo_reference;

/// zoo_model_mismatch with the head rule before the logits: "" when print(model), the parameter count,
/// the seeded state_dict and the logits at 224x224 all equal torchvision's.
std::string vit_mismatch(const std::string& name, const std::function<std::shared_ptr<nn::Module>()>& make,
                         int64_t parameters) {
  manual_seed(0);
  const std::shared_ptr<nn::Module> model = make();
  std::string out;
  if (parameter_count(*model) != parameters)
    out += name + ": " + std::to_string(parameter_count(*model)) + " parameters\n";
  if (nn::repr(*model) + "\n" != zoo_reference("zoo_inception_vit", name, "repr"))
    out += name + ": print(model) differs from torchvision's\n";
  const std::string state =
      testing::state_dict_mismatch(*model, zoo_reference("zoo_inception_vit", name, "state_dict"));
  if (!state.empty()) out += name + ": " + state + "\n";
  testing::apply_vit_head_rule(*model);
  model->eval();
  const std::string logits = testing::logits_mismatch(*model, zoo_reference("zoo_inception_vit", name, "logits"));
  if (!logits.empty()) out += name + ": " + logits + "\n";
  return out;
}

/// A two-layer ViT small enough for the option and error checks (16 features, 2 heads, 32x32 images).
std::shared_ptr<VisionTransformer> tiny_vit(int64_t patch_size,
                                            const VisionTransformerOptions& options = {.image_size = 32}) {
  return std::make_shared<VisionTransformer>(patch_size, 2, 2, 16, 32, options);
}

TEST_CASE("vit_b_32: print, state_dict, seeded initial weights and eval logits at 224 equal torchvision's") {
  CHECK(vit_mismatch("vit_b_32", [] { return vit_b_32(); }, 88224232) == "");
}

// The >60M-parameter variants; vit_b_16 also costs four times vit_b_32's forward (196 patches, not 49).
TEST_CASE("vit_b_16: print, state_dict, seeded initial weights and eval logits at 224 equal torchvision's" *
          doctest::skip(testing::skip_heavy_variants())) {
  CHECK(vit_mismatch("vit_b_16", [] { return vit_b_16(); }, 86567656) == "");
}

TEST_CASE("vit_l_16 and vit_l_32: print, state_dict, seeded initial weights and eval logits at 224 equal torchvision's" *
          doctest::skip(testing::skip_heavy_variants())) {
  CHECK(vit_mismatch("vit_l_32", [] { return vit_l_32(); }, 306535400) == "");
  CHECK(vit_mismatch("vit_l_16", [] { return vit_l_16(); }, 304326632) == "");
}

TEST_CASE("vit_h_14: print, state_dict, seeded initial weights and eval logits at 224 equal torchvision's" *
          doctest::skip(testing::skip_heavy_variants())) {
  CHECK(vit_mismatch("vit_h_14", [] { return vit_h_14(); }, 632045800) == "");
}

TEST_CASE("vit: options as torchvision's (image_size, representation_size, dropout, attention_dropout)") {
  auto model = tiny_vit(8, {.image_size = 48, .dropout = 0.1, .attention_dropout = 0.2, .num_classes = 5,
                            .representation_size = 12});
  CHECK(model->get_parameter("encoder.pos_embedding").shape() == Shape{1, 37, 16});
  CHECK(nn::repr(*model->get_submodule("heads")) ==
        "Sequential(\n"
        "  (pre_logits): Linear(in_features=16, out_features=12, bias=True)\n"
        "  (act): Tanh()\n"
        "  (head): Linear(in_features=12, out_features=5, bias=True)\n"
        ")");
  CHECK(nn::repr(*model->get_submodule("encoder.layers.encoder_layer_1.mlp")) ==
        "MLPBlock(\n"
        "  (0): Linear(in_features=16, out_features=32, bias=True)\n"
        "  (1): GELU(approximate='none')\n"
        "  (2): Dropout(p=0.1, inplace=False)\n"
        "  (3): Linear(in_features=32, out_features=16, bias=True)\n"
        "  (4): Dropout(p=0.1, inplace=False)\n"
        ")");
  CHECK(std::dynamic_pointer_cast<nn::MultiheadAttention>(
            model->get_submodule("encoder.layers.encoder_layer_0.self_attention"))
            ->options()
            .dropout() == 0.2);
  model->eval();
  CHECK((*model)(randn({2, 3, 48, 48})).shape() == Shape{2, 5});
  CHECK_THROWS_WITH_AS(tiny_vit(7), "Input shape indivisible by patch size! (image_size 32, patch_size 7)", Error);
}

TEST_CASE("vit: torchvision.ops.MLP's layers, inplace and norm_layer as torchvision's") {
  CHECK(nn::repr(ops::MLP({.in_channels = 4, .hidden_channels = {8, 2}})) ==
        "MLP(\n"
        "  (0): Linear(in_features=4, out_features=8, bias=True)\n"
        "  (1): ReLU(inplace=True)\n"
        "  (2): Dropout(p=0.0, inplace=True)\n"
        "  (3): Linear(in_features=8, out_features=2, bias=True)\n"
        "  (4): Dropout(p=0.0, inplace=True)\n"
        ")");
  const ops::NormLayer layer_norm = [](int64_t n) -> std::shared_ptr<nn::Module> {
    return std::make_shared<nn::LayerNorm>(Shape{n});
  };
  CHECK(nn::repr(ops::MLP({.in_channels = 4, .hidden_channels = {8, 6, 2}, .norm_layer = layer_norm,
                           .inplace = std::nullopt})) ==
        "MLP(\n"
        "  (0): Linear(in_features=4, out_features=8, bias=True)\n"
        "  (1): LayerNorm((8,), eps=1e-05, elementwise_affine=True)\n"
        "  (2): ReLU()\n"
        "  (3): Dropout(p=0.0, inplace=False)\n"
        "  (4): Linear(in_features=8, out_features=6, bias=True)\n"
        "  (5): LayerNorm((6,), eps=1e-05, elementwise_affine=True)\n"
        "  (6): ReLU()\n"
        "  (7): Dropout(p=0.0, inplace=False)\n"
        "  (8): Linear(in_features=6, out_features=2, bias=True)\n"
        "  (9): Dropout(p=0.0, inplace=False)\n"
        ")");
  CHECK_THROWS_WITH_AS(ops::MLP({.in_channels = 4}), "MLP: hidden_channels must name at least one layer", Error);
}

TEST_CASE("vit: a wrong image size or input rank is refused with torchvision's texts; another variant's checkpoint loads nothing") {
  auto model = tiny_vit(8);
  model->eval();
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 3, 30, 32})), "Wrong image height! Expected 32 but got 30!", Error);
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 3, 32, 40})), "Wrong image width! Expected 32 but got 40!", Error);
  CHECK_THROWS_WITH_AS((*model)(zeros({3, 32, 32})),
                       "VisionTransformer: expected an input (N, C, H, W), got [3, 32, 32]", Error);
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 4, 32, 32})),
                       "conv2d: input [1, 4, 32, 32] has 4 channels but weight [16, 3, 8, 8] with groups=1 expects 3"
                       " (in module 'conv_proj' (Conv2d) of VisionTransformer)",
                       Error);
  CHECK_THROWS_WITH_AS((*model->get_submodule("encoder"))(zeros({17, 16})),
                       "Expected (batch_size, seq_length, hidden_dim) got torch.Size([17, 16])", Error);

  // Another patch size: the same keys, other shapes (conv_proj.weight, pos_embedding).
  auto other = tiny_vit(16);
  const nn::StateDict before = model->state_dict();
  std::vector<Tensor> copies;
  for (const auto& [name, t] : before) copies.push_back(t.clone());
  CHECK_THROWS_WITH_AS(model->load_state_dict(other->state_dict()),
                       "Error(s) in loading state_dict for VisionTransformer:\n\tsize mismatch for conv_proj.weight: "
                       "copying a param with shape [16, 3, 16, 16] from checkpoint, the shape in current model is "
                       "[16, 3, 8, 8].\n\tsize mismatch for encoder.pos_embedding: copying a param with shape "
                       "[1, 5, 16] from checkpoint, the shape in current model is [1, 17, 16].",
                       Error);
  const nn::StateDict after = model->state_dict();
  REQUIRE(after.size() == copies.size());
  for (size_t i = 0; i < after.size(); ++i) CHECK_TENSOR_CLOSE(after[i].second, copies[i], 0.0, 0.0);
}

TEST_CASE("vit: symbolic_trace refuses the shape read of _process_input, as torch.fx does") {
  // torch.fx: TraceError "Proxy object cannot be iterated" at `n, c, h, w = x.shape`.
  CHECK_THROWS_WITH_AS(fx::symbolic_trace(tiny_vit(8)),
                       doctest::Contains("%x is a traced value (a Proxy) in VisionTransformer.forward"), Error);
}

}  // namespace
}  // namespace tl::models
