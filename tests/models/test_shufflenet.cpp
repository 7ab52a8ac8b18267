// tests/models/test_shufflenet.cpp — ShuffleNetV2 x0.5 ... x2.0 against torchvision 0.14
// (tests/reference/make_zoo_mobile_references.py): print(model), state_dict and seeded initial values
// (PyTorch's default init), eval logits, channel_shuffle, and what symbolic tracing does (refuses, as torch.fx).
#include <doctest/doctest.h>

#include <string>

#include "fx/tracer.h"
#include "models/shufflenet.h"
#include "models/vision_ops.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::parameter_count;

TEST_CASE("shufflenet: print, state_dict, seeded initial weights and eval logits equal torchvision's") {
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "shufflenet_v2_x0_5", [] { return shufflenet_v2_x0_5(); }, 1366792) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "shufflenet_v2_x1_0", [] { return shufflenet_v2_x1_0(); }, 2278604) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "shufflenet_v2_x1_5", [] { return shufflenet_v2_x1_5(); }, 3503624) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "shufflenet_v2_x2_0", [] { return shufflenet_v2_x2_0(); }, 7393996) == "");
  CHECK(parameter_count(*shufflenet_v2_x0_5({.num_classes = 10})) == 1366792 - 990 * 1025);  // fc 1024 -> 10
}

TEST_CASE("channel_shuffle: channel g * (C / groups) + i goes to i * groups + g") {
  const Tensor x = arange(0, 6, 1).reshape({1, 6, 1, 1});
  CHECK_TENSOR_CLOSE(ops::channel_shuffle(x, 2).flatten(), from_vector<float>({0, 3, 1, 4, 2, 5}, {6}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(ops::channel_shuffle(x, 3).flatten(), from_vector<float>({0, 2, 4, 1, 3, 5}, {6}), 0.0, 0.0);
  CHECK_THROWS_WITH_AS(ops::channel_shuffle(x, 4), "channel_shuffle: 6 channels cannot be split into 4 groups", Error);
  CHECK_THROWS_WITH_AS(ops::channel_shuffle(x.flatten(), 2),
                       "channel_shuffle: expected a 4-D input (N, C, H, W), got [6]", Error);
}

TEST_CASE("shufflenet: symbolic tracing fails as torch.fx's does (channel_shuffle reads the proxy's size)") {
  CHECK_THROWS_WITH_AS(fx::symbolic_trace(shufflenet_v2_x0_5()), doctest::Contains("shape is unknown"), Error);
}

TEST_CASE("shufflenet: bad arguments and another variant's checkpoint are refused, nothing loaded") {
  CHECK_THROWS_WITH_AS(shufflenetv2::InvertedResidual(24, 48, 4), "illegal stride value", Error);
  CHECK_THROWS_WITH_AS(shufflenetv2::InvertedResidual(24, 116, 1),
                       "Invalid combination of stride 1, inp 24 and oup 116 values. If stride == 1 then inp should be "
                       "equal to oup // 2 << 1.",
                       Error);
  auto model = shufflenet_v2_x1_0();
  const Tensor before = model->get_parameter("fc.weight").clone();
  CHECK_THROWS_WITH_AS(model->load_state_dict(shufflenet_v2_x0_5()->state_dict()),
                       doctest::Contains("Error(s) in loading state_dict for ShuffleNetV2:\n\tsize mismatch for "
                                         "stage2.0.branch1.2.weight: copying a param with shape [24, 24, 1, 1] from "
                                         "checkpoint, the shape in current model is [58, 24, 1, 1]."),
                       Error);
  CHECK_TENSOR_CLOSE(model->get_parameter("fc.weight"), before, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::models
