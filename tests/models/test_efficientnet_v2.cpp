// tests/models/test_efficientnet_v2.cpp — EfficientNetV2-S/M/L against torchvision 0.14
// (tests/reference/make_zoo_modern_references.py): print(model), state_dict and seeded initial values, eval
// logits (67x67 for each builder, 224x224 for v2_s), torch.fx's code, options, FusedMBConv's check, and the
// errors for a wrong input and another variant's checkpoint.
#include <doctest/doctest.h>

#include "fx/tracer.h"
#include "models/efficientnet.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

TEST_CASE("efficientnet_v2: print, state_dict, seeded initial weights and eval logits equal torchvision's") {
  CHECK(testing::zoo_model_mismatch("zoo_modern", "efficientnet_v2_s", [] { return efficientnet_v2_s(); }, 21458488) == "");
  // Above 30M parameters only with TL_ZOO_ALL_VARIANTS=1: their initial draws dominate the suite's time.
  if (testing::skip_heavy_variants()) return;
  CHECK(testing::zoo_model_mismatch("zoo_modern", "efficientnet_v2_m", [] { return efficientnet_v2_m(); }, 54139356) == "");
  CHECK(testing::zoo_model_mismatch("zoo_modern", "efficientnet_v2_l", [] { return efficientnet_v2_l(); }, 118515272) ==
        "");
}

TEST_CASE("efficientnet_v2: symbolic_trace gives torch.fx's code") {
  CHECK(fx::symbolic_trace(efficientnet_v2_s())->code() == testing::zoo_reference("zoo_modern", "efficientnet_v2_s", "code"));
}

// One model for both: building it (21M initial draws) is most of their time.
TEST_CASE("efficientnet_v2: options (num_classes, stochastic_depth_prob; dropout and norm_layer refused), FusedMBConv's "
          "check, a wrong channel count and another variant's checkpoint refused") {
  auto model = efficientnet_v2_s({.num_classes = 10, .stochastic_depth_prob = 0.4});
  CHECK(testing::parameter_count(*model) == 20190298);
  CHECK(nn::repr(*model->get_submodule("classifier.0")) == "Dropout(p=0.2, inplace=True)");
  // block 39 of 40: 0.4 * 39 / 40
  CHECK(nn::repr(*model->get_submodule("features.6.14.stochastic_depth")) == "StochasticDepth(p=0.39, mode=row)");
  CHECK(nn::repr(*model->get_submodule("features.2.0.block.1.1")) ==
        "BatchNorm2d(48, eps=0.001, momentum=0.1, affine=True, track_running_stats=True)");
  CHECK_THROWS_WITH_AS(efficientnet_v2_m({.dropout = 0.1}), "_efficientnet() got multiple values for argument 'dropout'",
                       Error);
  CHECK_THROWS_WITH_AS(efficientnet_v2_l({.norm_layer = ops::batch_norm2d()}),
                       "torchvision.models.efficientnet._efficientnet() got multiple values for keyword argument "
                       "'norm_layer'",
                       Error);
  CHECK_THROWS_WITH_AS(efficientnet::FusedMBConv({4, 3, 3, 24, 48, 1, true}, 0.0, ops::batch_norm2d()),
                       "illegal stride value", Error);
  model->eval();
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 4, 32, 32})),
                       "conv2d: input [1, 4, 32, 32] has 4 channels but weight [24, 3, 3, 3] with groups=1 expects 3"
                       " (in module 'features.0.0' (Conv2d) of EfficientNet)",
                       Error);
  testing::check_refuses_state_dict(*model, efficientnet_b0()->state_dict(), "features.1.1.block.0.0.weight");
}


}  // namespace
}  // namespace tl::models
