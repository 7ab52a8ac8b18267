// tests/models/test_alexnet.cpp — AlexNet against torchvision 0.14 (tests/reference/zoo_classic.json.gz):
// print(model), state_dict, parameter count, eval logits on seeded weights at 224x224 and 67x71, torch.fx's
// graph and code; a wrong channel count or too small an input.
#include <doctest/doctest.h>

#include "models/alexnet.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/tensor_check.h"

namespace tl::models {
namespace {

using testing::ZooCase;
using testing::zoo_case;

// Building AlexNet draws 61M numbers: the suite shares one instance, built by the generator's rule.
const testing::SeededModel& shared_alexnet() {
  static const testing::SeededModel m =
      testing::build_seeded(zoo_case("alexnet", "alexnet"), [] { return alexnet({.num_classes = 10}); }, true);
  return m;
}

TEST_CASE("alexnet: print(model), state_dict keys and shapes and the parameter count equal torchvision's") {
  testing::check_structure(*shared_alexnet().model, zoo_case("alexnet", "alexnet"));
  CHECK(shared_alexnet().model->get_submodule("classifier.0")->type_name() == "Dropout");
}

TEST_CASE("alexnet: eval logits at 224x224 and 67x71, batch 1 and 3, equal torchvision's on the same seed") {
  testing::check_logits(shared_alexnet(), zoo_case("alexnet", "alexnet"));
}

TEST_CASE("alexnet: symbolic_trace gives torch.fx's graph and code") {
  testing::check_trace(shared_alexnet().model, zoo_case("alexnet", "alexnet"));
}

TEST_CASE("alexnet: a wrong channel count or too small an input throws, naming the shapes; the model is unchanged") {
  nn::Module& model = *shared_alexnet().model;
  const Tensor before = model.get_parameter("features.0.weight").clone();
  CHECK_THROWS_WITH_AS(model(randn({1, 4, 67, 71})),
                       "conv2d: input [1, 4, 67, 71] has 4 channels but weight [64, 3, 11, 11] with groups=1 expects 3"
                       " (in module 'features.0' (Conv2d) of AlexNet)",
                       Error);
  CHECK_THROWS_AS(model(randn({1, 3, 40, 40})), Error);  // the third max pool gets a 1x1 input
  CHECK_TENSOR_CLOSE(model.get_parameter("features.0.weight"), before, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::models
