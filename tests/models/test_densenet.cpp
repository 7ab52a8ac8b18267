// tests/models/test_densenet.cpp — the DenseNet family against torchvision 0.14
// (tests/reference/zoo_classic.json.gz): print(model), state_dict, parameter count and eval logits on
// seeded weights at 65x67 for densenet121 and densenet169 (densenet161 and densenet201 with
// TL_ZOO_ALL_VARIANTS=1); densenet121 also at 224x224 and traced as torch.fx does (torch.cat over the block's
// list, F.relu and F.adaptive_avg_pool2d as one node each); another variant's state_dict refused; memory_efficient
// refused.
#include <doctest/doctest.h>

#include "models/densenet.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"

namespace tl::models {
namespace {

using testing::zoo_case;

const testing::SeededModel& shared_densenet121() {
  static const testing::SeededModel m = testing::build_seeded(
      zoo_case("densenet", "densenet121"), [] { return densenet121({.num_classes = 10}); }, true);
  return m;
}

TEST_CASE("densenet121: print(model), state_dict, parameters, logits at 224x224 and 65x67 and the FX trace equal torchvision's") {
  const testing::ZooCase c = zoo_case("densenet", "densenet121");
  testing::check_structure(*shared_densenet121().model, c);
  testing::check_logits(shared_densenet121(), c);
  // The whole trace: DenseNet.forward's F.relu(inplace=True) and F.adaptive_avg_pool2d are one node each.
  testing::check_trace(shared_densenet121().model, c);
}

TEST_CASE("densenet169: print(model), state_dict, parameters and logits at 65x67 equal torchvision's; it refuses densenet121's state_dict") {
  const testing::SeededModel m =
      testing::check_builder(zoo_case("densenet", "densenet169"), [] { return densenet169({.num_classes = 10}); });
  // densenet121's third block has 24 layers, densenet169's 32.
  testing::check_refuses_state_dict(*m.model, shared_densenet121().model->state_dict(),
                                    "features.denseblock3.denselayer25.norm1.weight");
}

TEST_CASE("densenet161 and densenet201: print(model), state_dict, parameters and logits at 65x67 equal torchvision's" *
          doctest::skip(testing::skip_heavy_variants())) {
  using Builder = std::shared_ptr<DenseNet> (*)(const DenseNetOptions&);
  const std::pair<const char*, Builder> builders[] = {{"densenet161", densenet161}, {"densenet201", densenet201}};
  for (const auto& [name, builder] : builders) {
    const Builder build = builder;
    testing::check_builder(zoo_case("densenet", name), [build] { return build({.num_classes = 10}); });
  }
}

TEST_CASE("densenet: memory_efficient and a wrong channel count throw") {
  CHECK_THROWS_WITH_AS(
      densenet121({.memory_efficient = true}),
      "DenseNet: memory_efficient=True (gradient checkpointing) is not supported; use memory_efficient=False", Error);
  CHECK_THROWS_WITH_AS((*shared_densenet121().model)(randn({1, 1, 65, 67})),
                       "conv2d: input [1, 1, 65, 67] has 1 channels but weight [64, 3, 7, 7] with groups=1 expects 3"
                       " (in module 'features.conv0' (Conv2d) of DenseNet)",
                       Error);
}

}  // namespace
}  // namespace tl::models
