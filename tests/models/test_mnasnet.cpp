// tests/models/test_mnasnet.cpp — MNASNet 0.5 ... 1.3 against torchvision 0.14
// (tests/reference/make_zoo_mobile_references.py): print(model), state_dict and seeded initial values,
// eval logits, FX code, options, and the errors for a bad alpha and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>

#include "fx/tracer.h"
#include "models/mnasnet.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::parameter_count;
using testing::zoo_reference;

TEST_CASE("mnasnet: print, state_dict, seeded initial weights and eval logits equal torchvision's") {
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "mnasnet0_5", [] { return mnasnet0_5(); }, 2218512) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "mnasnet0_75", [] { return mnasnet0_75(); }, 3170208) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "mnasnet1_0", [] { return mnasnet1_0(); }, 4383312) == "");
  CHECK(testing::zoo_model_mismatch("zoo_mobile", "mnasnet1_3", [] { return mnasnet1_3(); }, 6282256) == "");
}

TEST_CASE("mnasnet: BatchNorm momentum as Python prints 1 - 0.9997, options") {
  auto small = mnasnet0_5();
  CHECK(nn::repr(*small->get_submodule("layers.1")) ==
        "BatchNorm2d(16, eps=1e-05, momentum=0.00029999999999996696, affine=True, track_running_stats=True)");
  auto ten = mnasnet0_5({.num_classes = 10, .dropout = 0.5});
  CHECK(parameter_count(*ten) == 950322);
  CHECK(nn::repr(*ten->get_submodule("classifier.0")) == "Dropout(p=0.5, inplace=True)");
}

TEST_CASE("mnasnet: symbolic_trace gives torch.fx's code") {
  CHECK(fx::symbolic_trace(mnasnet0_5())->code() == zoo_reference("zoo_mobile", "mnasnet0_5", "code"));
}

TEST_CASE("mnasnet: bad arguments and another variant's checkpoint are refused, nothing loaded") {
  CHECK_THROWS_WITH_AS(MNASNet(0.0), "alpha should be greater than 0.0 instead of 0.0", Error);
  CHECK_THROWS_WITH_AS(mnasnet::InvertedResidual(8, 8, 7, 1, 3), "kernel_size should be 3 or 5 instead of 7", Error);
  auto model = mnasnet0_75();
  const Tensor before = model->get_parameter("layers.0.weight").clone();
  CHECK_THROWS_WITH_AS(model->load_state_dict(mnasnet0_5()->state_dict()),
                       doctest::Contains("Error(s) in loading state_dict for MNASNet:\n\tsize mismatch for "
                                         "layers.0.weight: copying a param with shape [16, 3, 3, 3] from checkpoint, "
                                         "the shape in current model is [24, 3, 3, 3]."),
                       Error);
  CHECK_TENSOR_CLOSE(model->get_parameter("layers.0.weight"), before, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::models
