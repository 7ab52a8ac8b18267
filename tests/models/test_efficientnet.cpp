// tests/models/test_efficientnet.cpp — EfficientNet B0 ... B7 against torchvision 0.14
// (tests/reference/make_zoo_mobile_references.py): print(model), state_dict and seeded initial values,
// eval logits, options; StochasticDepth against PyTorch's draws; another variant's checkpoint refused.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "fx/tracer.h"
#include "models/efficientnet.h"
#include "models/vision_ops.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::parameter_count;

TEST_CASE("efficientnet: print, state_dict, seeded initial weights and eval logits equal torchvision's") {
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b0", [] { return efficientnet_b0(); }, 5288548) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b1", [] { return efficientnet_b1(); }, 7794184) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b2", [] { return efficientnet_b2(); }, 9109994) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b3", [] { return efficientnet_b3(); }, 12233232) == "");
}

TEST_CASE("efficientnet: the large variants (b4 ... b7, BatchNorm eps 0.001 from b5) equal torchvision's") {
  if (testing::reduced_for_sanitizer()) return;  // b0 ... b3 run the same layers
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b4", [] { return efficientnet_b4(); }, 19341616) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b5", [] { return efficientnet_b5(); }, 30389784) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b6", [] { return efficientnet_b6(); }, 43040704) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "efficientnet_b7", [] { return efficientnet_b7(); }, 66347960) == "");
}

TEST_CASE("efficientnet: symbolic_trace gives torch.fx's code (stochastic_depth as the wrapped function it is)") {
  auto model = efficientnet_b0();
  CHECK(fx::symbolic_trace(model)->code() == testing::zoo_reference("zoo_mobile", "efficientnet_b0", "code"));
  // Traced in eval mode, the calls record training=False, and the GraphModule computes what eager does.
  testing::apply_bn_rule(*model);
  model->eval();
  auto traced = fx::symbolic_trace(model);
  CHECK(traced->code().find("stochastic_depth(features_2_1_block_3_1, 0.025, 'row', False)") != std::string::npos);
  const Tensor x = testing::zoo_input(1, 35);
  CHECK_TENSOR_CLOSE((*traced)(x), (*model)(x), 1e-6, 1e-6);
}

TEST_CASE("efficientnet: options (num_classes, stochastic_depth_prob); the builder's own dropout") {
  auto model = efficientnet_b0({.num_classes = 10, .stochastic_depth_prob = 0.4});
  CHECK(parameter_count(*model) == 4020358);
  CHECK(nn::repr(*model->get_submodule("classifier.0")) == "Dropout(p=0.2, inplace=True)");
  // block 15 of 16: 0.4 * 15 / 16
  CHECK(nn::repr(*model->get_submodule("features.7.0.stochastic_depth")) == "StochasticDepth(p=0.375, mode=row)");
}

TEST_CASE("efficientnet: another variant's checkpoint is refused with its missing keys, nothing loaded") {
  auto b1 = efficientnet_b1();
  const Tensor before = b1->get_parameter("features.0.0.weight").clone();
  CHECK_THROWS_WITH_AS(b1->load_state_dict(efficientnet_b0()->state_dict()),
                       doctest::Contains("Error(s) in loading state_dict for EfficientNet:\n\tMissing key(s) in "
                                         "state_dict: \"features.1.1.block.0.0.weight\""),
                       Error);
  CHECK_TENSOR_CLOSE(b1->get_parameter("features.0.0.weight"), before, 0.0, 0.0);
}

TEST_CASE("stochastic_depth: PyTorch's draws after a seed in training; the input itself in eval or for p = 0") {
  std::istringstream lines(testing::read_reference("zoo_mobile/stochastic_depth.txt"));
  manual_seed(7);
  const Tensor x = testing::zoo_input(6, 2);
  int cases = 0;
  for (std::string line; std::getline(lines, line); ++cases) {
    std::istringstream fields(line);
    double p = 0;
    std::string mode;
    fields >> p >> mode;
    std::vector<float> expected;
    for (double v = 0; fields >> v;) expected.push_back(static_cast<float>(v));
    CAPTURE(line.substr(0, 9));
    CHECK_TENSOR_CLOSE(ops::stochastic_depth(x, p, mode).flatten(), from_vector(expected, {x.numel()}), 1e-6, 1e-6);
  }
  CHECK(cases == 4);
  CHECK(ops::stochastic_depth(x, 0.5, "row", false).is_same(x));
  CHECK(ops::stochastic_depth(x, 0.0, "batch").is_same(x));
  ops::StochasticDepth layer(0.2, "row");
  layer.eval();
  CHECK(layer(x).is_same(x));
  CHECK(nn::repr(layer) == "StochasticDepth(p=0.2, mode=row)");
  CHECK_THROWS_WITH_AS(ops::StochasticDepth(1.5, "row"), "drop probability has to be between 0 and 1, but got 1.5", Error);
  CHECK_THROWS_WITH_AS(ops::stochastic_depth(x, 0.5, "col"), "mode has to be either 'batch' or 'row', but got col", Error);
}

}  // namespace
}  // namespace tl::models
