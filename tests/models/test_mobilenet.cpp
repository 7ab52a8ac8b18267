// tests/models/test_mobilenet.cpp — MobileNetV2 and MobileNetV3 against torchvision 0.14
// (tests/reference/make_zoo_mobile_references.py): print(model) byte for byte, state_dict keys, shapes and
// seeded initial values, eval logits (odd size for every variant, 224 for the cheapest), FX code, options,
// and the errors for a wrong input and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/generator.h"
#include "fx/tracer.h"
#include "models/mobilenet.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::parameter_count;
using testing::zoo_reference;

TEST_CASE("mobilenet: print, state_dict, seeded initial weights and eval logits equal torchvision's") {
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "mobilenet_v2", [] { return mobilenet_v2(); }, 3504872) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "mobilenet_v3_small", [] { return mobilenet_v3_small(); }, 2542856) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "mobilenet_v3_large", [] { return mobilenet_v3_large(); }, 5483032) == "");
}

TEST_CASE("mobilenet: symbolic_trace gives torch.fx's code (MobileNetV2's F.adaptive_avg_pool2d one node)") {
  CHECK(fx::symbolic_trace(mobilenet_v2())->code() == zoo_reference("zoo_mobile", "mobilenet_v2", "code"));
  CHECK(fx::symbolic_trace(mobilenet_v3_small())->code() == zoo_reference("zoo_mobile", "mobilenet_v3_small", "code"));
}

TEST_CASE("mobilenet: options as torchvision's (num_classes, width_mult, reduced_tail, dilated, dropout)") {
  CHECK(parameter_count(*mobilenet_v2({.num_classes = 10, .width_mult = 0.5})) == 700490);
  CHECK(parameter_count(*mobilenet_v3_small({.width_mult = 0.75, .reduced_tail = true})) == 752848);
  auto dilated = mobilenet_v3_large({.dilated = true, .dropout = 0.5});
  CHECK(nn::repr(*dilated->get_submodule("features.13.block.1")) ==
        "Conv2dNormActivation(\n"
        "  (0): Conv2d(672, 672, kernel_size=(5, 5), stride=(1, 1), padding=(4, 4), dilation=(2, 2), groups=672, "
        "bias=False)\n"
        "  (1): BatchNorm2d(672, eps=0.001, momentum=0.01, affine=True, track_running_stats=True)\n"
        "  (2): Hardswish()\n"
        ")");
  CHECK(nn::repr(*dilated->get_submodule("classifier.2")) == "Dropout(p=0.5, inplace=True)");
  CHECK(ops::make_divisible(32 * 0.5, 8) == 16);
  CHECK(ops::make_divisible(1280 * 0.35, 8) == 448);
  CHECK(ops::make_divisible(13.0, 8) == 16);  // 8 would lose more than 10%
}

TEST_CASE("mobilenet: a wrong channel count is refused naming the shapes; another variant's checkpoint loads nothing") {
  auto small = mobilenet_v3_small();
  small->eval();
  CHECK_THROWS_WITH_AS((*small)(zeros({1, 4, 32, 32})),
                       "conv2d: input [1, 4, 32, 32] has 4 channels but weight [16, 3, 3, 3] with groups=1 expects 3"
                       " (in module 'features.0.0' (Conv2d) of MobileNetV3)",
                       Error);
  auto large = mobilenet_v3_large();
  const Tensor before = large->get_parameter("features.0.0.weight").clone();
  const nn::StateDict other = small->state_dict();
  CHECK_THROWS_WITH_AS(large->load_state_dict(other),
                       doctest::Contains("Error(s) in loading state_dict for MobileNetV3:\n\tMissing key(s) in "
                                         "state_dict: \"features.1.block.1.0.weight\""),
                       Error);
  CHECK_THROWS_WITH_AS(large->load_state_dict(other),
                       doctest::Contains("\tUnexpected key(s) in state_dict: \"features.1.block.1.fc1.weight\""), Error);
  CHECK_TENSOR_CLOSE(large->get_parameter("features.0.0.weight"), before, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(mobilenetv2::InvertedResidual(8, 8, 3, 6, ops::batch_norm2d()),
                       "stride should be 1 or 2 insted of 3", Error);
}

}  // namespace
}  // namespace tl::models
