// tests/models/test_regnet.cpp — RegNet X and Y against torchvision 0.14
// (tests/reference/make_zoo_modern_references.py): print(model), state_dict and seeded initial values, eval
// logits (67x67 for each builder, 224x224 for both 400mf), torch.fx's code, BlockParams' stage derivation,
// options, and the errors for a wrong input and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>

#include "fx/tracer.h"
#include "models/regnet.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::zoo_model_mismatch;

TEST_CASE("regnet: print, state_dict, seeded initial weights and eval logits equal torchvision's (X)") {
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_x_400mf", [] { return regnet_x_400mf(); }, 5495976) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_x_800mf", [] { return regnet_x_800mf(); }, 7259656) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_x_1_6gf", [] { return regnet_x_1_6gf(); }, 9190136) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_x_3_2gf", [] { return regnet_x_3_2gf(); }, 15296552) == "");
  // Above 30M parameters only with TL_ZOO_ALL_VARIANTS=1: their initial draws dominate the suite's time.
  if (testing::skip_heavy_variants()) return;
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_x_8gf", [] { return regnet_x_8gf(); }, 39572648) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_x_16gf", [] { return regnet_x_16gf(); }, 54278536) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_x_32gf", [] { return regnet_x_32gf(); }, 107811560) == "");
}

TEST_CASE("regnet: print, state_dict, seeded initial weights and eval logits equal torchvision's (Y)") {
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_400mf", [] { return regnet_y_400mf(); }, 4344144) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_800mf", [] { return regnet_y_800mf(); }, 6432512) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_1_6gf", [] { return regnet_y_1_6gf(); }, 11202430) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_3_2gf", [] { return regnet_y_3_2gf(); }, 19436338) == "");
  if (testing::skip_heavy_variants()) return;
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_8gf", [] { return regnet_y_8gf(); }, 39381472) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_16gf", [] { return regnet_y_16gf(); }, 83590140) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_32gf", [] { return regnet_y_32gf(); }, 145046770) == "");
  CHECK(zoo_model_mismatch("zoo_modern", "regnet_y_128gf", [] { return regnet_y_128gf(); }, 644812894) == "");
}

TEST_CASE("regnet: symbolic_trace gives torch.fx's code, x.flatten(start_dim=1) with its keyword") {
  for (const char* name : {"regnet_x_400mf", "regnet_y_400mf"}) {
    CAPTURE(name);
    const std::string code = fx::symbolic_trace(std::string(name) == "regnet_x_400mf" ? regnet_x_400mf()
                                                                                       : regnet_y_400mf())
                                 ->code();
    CHECK(code == testing::zoo_reference("zoo_modern", name, "code"));
  }
}

TEST_CASE("regnet: BlockParams.from_init_params derives torchvision's stages") {
  const regnet::BlockParams y = regnet::BlockParams::from_init_params(16, 48, 27.89, 2.09, 8, 1.0, 0.25);
  CHECK(y.depths == std::vector<int64_t>{1, 3, 6, 6});
  CHECK(y.widths == std::vector<int64_t>{48, 104, 208, 440});
  CHECK(y.group_widths == std::vector<int64_t>{8, 8, 8, 8});
  CHECK(y.strides == std::vector<int64_t>{2, 2, 2, 2});
  CHECK(y.se_ratio == 0.25);
  const regnet::BlockParams x = regnet::BlockParams::from_init_params(23, 320, 69.86, 2.0, 168);
  CHECK(x.depths == std::vector<int64_t>{2, 7, 13, 1});
  CHECK(x.widths == std::vector<int64_t>{336, 672, 1344, 2520});
  CHECK(!x.se_ratio);
  CHECK_THROWS_WITH_AS(regnet::BlockParams::from_init_params(16, 50, 27.89, 2.09, 8), "Invalid RegNet settings", Error);
  CHECK_THROWS_WITH_AS(regnet::BlockParams::from_init_params(16, 48, 27.89, 1.0, 8), "Invalid RegNet settings", Error);
}

TEST_CASE("regnet: options (num_classes, stem_width, activation, norm_layer)") {
  auto model = regnet_x_400mf({.num_classes = 10, .stem_width = 16, .activation = ops::activation<nn::SiLU>()});
  CHECK(testing::parameter_count(*model) == 5097498);
  CHECK(nn::repr(*model->get_submodule("stem")) ==
        "SimpleStemIN(\n"
        "  (0): Conv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)\n"
        "  (1): BatchNorm2d(16, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
        "  (2): SiLU(inplace=True)\n"
        ")");
  CHECK(nn::repr(*model->get_submodule("trunk_output.block1.block1-0.f.b.0")) ==
        "Conv2d(32, 32, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=2, bias=False)");
  auto custom = regnet_y_400mf({.norm_layer = ops::batch_norm2d(1e-3, 0.01)});
  CHECK(nn::repr(*custom->get_submodule("trunk_output.block4.block4-5.f.c.1")) ==
        "BatchNorm2d(440, eps=0.001, momentum=0.01, affine=True, track_running_stats=True)");
}

TEST_CASE("regnet: a wrong channel count is refused naming the shapes; another variant's checkpoint loads nothing") {
  auto y = regnet_y_400mf();
  y->eval();
  CHECK_THROWS_WITH_AS((*y)(zeros({1, 1, 32, 32})),
                       "conv2d: input [1, 1, 32, 32] has 1 channels but weight [32, 3, 3, 3] with groups=1 expects 3"
                       " (in module 'stem.0' (Conv2d) of RegNet)",
                       Error);
  testing::check_refuses_state_dict(*regnet_y_800mf(), y->state_dict(), "trunk_output.block3.block3-6.f.a.0.weight");
  testing::check_refuses_state_dict(*regnet_x_400mf(), y->state_dict(), "trunk_output.block3.block3-6.f.a.0.weight");
}

}  // namespace
}  // namespace tl::models
