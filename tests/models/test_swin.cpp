// tests/models/test_swin.cpp — SwinTransformer (swin_t, swin_v2_t; swin_s, swin_b, swin_v2_s and swin_v2_b with
// TL_ZOO_ALL_VARIANTS=1) against torchvision 0.14 (tests/reference/make_zoo_swin_maxvit_references.py): print(model),
// state_dict keys, shapes and seeded initial values (buffers included), eval logits at 224x224 (batch 1 and 3) and
// of two small configurations at 45x45 (padded windows), torch.fx's graph and code with the wrapped functions, and
// the errors for a wrong input and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "fx/graph_module.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/tracer.h"
#include "models/swin_transformer.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/logits_check.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

const char* const kDir = "zoo_swin_maxvit";

/// The generator's small configurations: patch 4, embed_dim 16, depths [2, 2], heads [2, 4], window 3, 10 classes.
std::shared_ptr<SwinTransformer> small_swin(bool v2) {
  return std::make_shared<SwinTransformer>(Shape{4, 4}, 16, Shape{2, 2}, Shape{2, 4}, Shape{3, 3},
                                           SwinTransformerOptions{.num_classes = 10}, v2);
}

TEST_CASE("swin_t and swin_v2_t: print, state_dict, seeded initial weights and eval logits at 224 equal "
          "torchvision's") {
  CHECK(testing::zoo_model_mismatch(kDir, "swin_t", [] { return swin_t(); }, 28288354) == "");
  CHECK(testing::zoo_model_mismatch(kDir, "swin_v2_t", [] { return swin_v2_t(); }, 28351570) == "");
}

// Above 45M parameters: their initial draws and forwards dominate; only with TL_ZOO_ALL_VARIANTS=1.
TEST_CASE("swin_s, swin_b, swin_v2_s, swin_v2_b: as torchvision's" * doctest::skip(testing::skip_heavy_variants())) {
  CHECK(testing::zoo_model_mismatch(kDir, "swin_s", [] { return swin_s(); }, 49606258) == "");
  CHECK(testing::zoo_model_mismatch(kDir, "swin_b", [] { return swin_b(); }, 87768224) == "");
  CHECK(testing::zoo_model_mismatch(kDir, "swin_v2_s", [] { return swin_v2_s(); }, 49737442) == "");
  CHECK(testing::zoo_model_mismatch(kDir, "swin_v2_b", [] { return swin_v2_b(); }, 87930848) == "");
}

TEST_CASE("swin: padded and shifted windows at 45x45 (11x11 patches, window 3) give torchvision's logits") {
  CHECK(testing::zoo_model_mismatch(kDir, "swin_small", [] { return small_swin(false); }, 35654) == "");
  CHECK(testing::zoo_model_mismatch(kDir, "swin_v2_small", [] { return small_swin(true); }, 47590) == "");
}

// The small configurations: the tracing of swin_t and swin_v2_t is theirs, stage by stage (same blocks, shifted and
// not, patch merging), at a thirtieth of the initial draws.
TEST_CASE("swin: symbolic_trace's graph is torch.fx's: the wrapped functions with their keywords, the relative position "
          "bias computed from get_attr nodes") {
  for (const bool v2 : {false, true}) {
    const std::string name = v2 ? "swin_v2_small" : "swin_small";
    INFO(name);
    CHECK(fx::symbolic_trace(small_swin(v2))->graph().str() + "\n" == testing::zoo_reference(kDir, name, "graph"));
  }
}

TEST_CASE("swin: the traced GraphModule runs as eager (V1 and V2, padded and shifted windows), and follows its bias "
          "table") {
  for (bool v2 : {false, true}) {
    auto model = small_swin(v2);
    model->eval();
    auto traced = fx::symbolic_trace(model);
    const Tensor x = testing::zoo_input(2, 45);
    CHECK_TENSOR_CLOSE((*traced)(x), (*model)(x), 0.0, 0.0);
    // The bias is computed in the graph, from the module's own table (V1) or cpb_mlp (V2): changing it changes both.
    Tensor table = model->get_parameter(v2 ? "features.1.0.attn.cpb_mlp.0.weight"
                                                 : "features.1.0.attn.relative_position_bias_table");
    {
      NoGradGuard no_grad;
      table.add_(0.5);
    }
    CHECK_TENSOR_CLOSE((*traced)(x), (*model)(x), 0.0, 0.0);
  }
}

TEST_CASE("swin: optimize_for_inference of padded and shifted windows computes eager's logits") {
  // Traced on the example shape, the graph holds tensor constants of its own (_tensor_constant0): the optimized
  // module must keep them.
  auto model = small_swin(false);
  model->eval();
  const Tensor x = testing::zoo_input(2, 45);
  auto optimized = fx::optimize_for_inference(model, {.example_input_shape = x.shape()});
  CHECK_LOGITS_CLOSE((*optimized)(x), (*model)(x));
}

TEST_CASE("swin: options (num_classes, dropouts, stochastic_depth_prob, mlp_ratio) as torchvision's") {
  auto model = std::make_shared<SwinTransformer>(
      Shape{2, 2}, 8, Shape{1, 3}, Shape{1, 2}, Shape{2, 2},
      SwinTransformerOptions{.mlp_ratio = 2.5, .dropout = 0.1, .attention_dropout = 0.2, .stochastic_depth_prob = 0.3,
                             .num_classes = 5});
  // block 3 of 4: 0.3 * 3 / 3
  CHECK(nn::repr(*model->get_submodule("features.3.2.stochastic_depth")) ==
        "StochasticDepth(p=0.3, mode=row)");
  CHECK(nn::repr(*model->get_submodule("features.3.1.stochastic_depth")) ==
        "StochasticDepth(p=0.19999999999999998, mode=row)");
  CHECK(nn::repr(*model->get_submodule("features.3.1.mlp")) ==
        "MLP(\n"
        "  (0): Linear(in_features=16, out_features=40, bias=True)\n"
        "  (1): GELU(approximate='none')\n"
        "  (2): Dropout(p=0.1, inplace=False)\n"
        "  (3): Linear(in_features=40, out_features=16, bias=True)\n"
        "  (4): Dropout(p=0.1, inplace=False)\n"
        ")");
  const auto attn = std::dynamic_pointer_cast<swin::ShiftedWindowAttention>(model->get_submodule("features.3.1.attn"));
  REQUIRE(attn != nullptr);
  CHECK(attn->options().shift_size == Shape{1, 1});
  CHECK(attn->options().attention_dropout == 0.2);
  CHECK(model->get_buffer("features.1.0.attn.relative_position_index").dtype() == DType::Int64);
  model->eval();
  CHECK((*model)(randn({2, 3, 10, 14})).shape() == Shape{2, 5});
  CHECK_THROWS_WITH_AS(swin::ShiftedWindowAttention(
                           {.dim = 8, .window_size = {7}, .shift_size = {0, 0}, .num_heads = 2}),
                       "window_size and shift_size must be of length 2", Error);
}

TEST_CASE("swin: a wrong input is refused before the attention; another variant's checkpoint loads nothing") {
  auto model = small_swin(false);
  model->eval();
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 4, 45, 45})),
                       "conv2d: input [1, 4, 45, 45] has 4 channels but weight [16, 3, 4, 4] with groups=1 expects 3"
                       " (in module 'features.0.0' (Conv2d) of SwinTransformer)",
                       Error);
  CHECK_THROWS_WITH_AS(swin::shifted_window_attention(zeros({2, 3, 16}), zeros({48, 16}), zeros({16, 16}),
                                                      zeros({1, 2, 9, 9}), {{3, 3}, 2, {0, 0}}),
                       "shifted_window_attention: expected an input (B, H, W, C), got [2, 3, 16]", Error);
  CHECK_THROWS_WITH_AS(swin::patch_merging_pad(zeros({4, 16})),
                       "_patch_merging_pad: expected an input (..., H, W, C), got [4, 16]", Error);
  testing::check_refuses_state_dict(*model, small_swin(true)->state_dict(),
                                    "features.1.0.attn.relative_position_bias_table");
}

TEST_CASE("swin: _patch_merging_pad and _get_relative_position_bias as torchvision's") {
  // (1, 3, 3, 1) of 0..8: padded to 4x4, quarters (0,0) (1,0) (0,1) (1,1) of each 2x2 block.
  const Tensor x = arange(9).to(DType::Float32).reshape({1, 3, 3, 1});
  const Tensor merged = swin::patch_merging_pad(x);
  CHECK(merged.shape() == Shape{1, 2, 2, 4});
  CHECK_TENSOR_CLOSE(merged.reshape({16}),
                     from_vector<float>({0, 3, 1, 4, 2, 5, 0, 0, 6, 0, 7, 0, 8, 0, 0, 0}, {16}), 0.0, 0.0);
  // window 1x2: N = 2, table of (2 * 1 - 1) * (2 * 2 - 1) = 3 rows; index [[1, 0], [2, 1]].
  const Tensor table = from_vector<float>({10, 20, 30, 40, 50, 60}, {3, 2});
  const Tensor bias = swin::get_relative_position_bias(table, from_vector<int64_t>({1, 0, 2, 1}, {4}), {1, 2});
  CHECK_TENSOR_CLOSE(bias, from_vector<float>({30, 10, 50, 30, 40, 20, 60, 40}, {1, 2, 2, 2}), 0.0, 0.0);
}

}  // namespace
}  // namespace tl::models
