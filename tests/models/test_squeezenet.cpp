// tests/models/test_squeezenet.cpp — SqueezeNet 1.0 and 1.1 against torchvision 0.14
// (tests/reference/zoo_classic.json.gz): print(model), state_dict, parameter count, eval logits on seeded
// weights at 37x39 (where the ceil-mode pools round up) and, for 1_1, 224x224; torch.fx's graph and code
// (torch.cat in each Fire); the other version's state_dict refused; an unknown version.
#include <doctest/doctest.h>

#include "models/squeezenet.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"

namespace tl::models {
namespace {

using testing::zoo_case;

const testing::SeededModel& shared_squeezenet1_1() {
  static const testing::SeededModel m = testing::build_seeded(
      zoo_case("squeezenet", "squeezenet1_1"), [] { return squeezenet1_1({.num_classes = 10}); }, true);
  return m;
}

TEST_CASE("squeezenet1_1: print(model), state_dict, parameters, logits at 224x224 and 37x39 and the FX trace equal torchvision's") {
  const testing::ZooCase c = zoo_case("squeezenet", "squeezenet1_1");
  testing::check_structure(*shared_squeezenet1_1().model, c);
  testing::check_logits(shared_squeezenet1_1(), c);
  testing::check_trace(shared_squeezenet1_1().model, c);
}

TEST_CASE("squeezenet1_0: print(model), state_dict, parameters and logits at 37x39 equal torchvision's; 1_1 refuses its state_dict") {
  const testing::SeededModel m =
      testing::check_builder(zoo_case("squeezenet", "squeezenet1_0"), [] { return squeezenet1_0({.num_classes = 10}); });
  // 1_0's features.6 is a MaxPool2d where 1_1 has a Fire.
  testing::check_refuses_state_dict(*shared_squeezenet1_1().model, m.model->state_dict(), "features.6.squeeze.weight");
}

TEST_CASE("squeezenet: an unknown version and a wrong channel count throw") {
  CHECK_THROWS_WITH_AS(SqueezeNet("1_2"), "Unsupported SqueezeNet version 1_2: 1_0 or 1_1 expected", Error);
  CHECK_THROWS_WITH_AS((*shared_squeezenet1_1().model)(randn({1, 2, 37, 39})),
                       "conv2d: input [1, 2, 37, 39] has 2 channels but weight [64, 3, 3, 3] with groups=1 expects 3"
                       " (in module 'features.0' (Conv2d) of SqueezeNet)",
                       Error);
}

}  // namespace
}  // namespace tl::models
