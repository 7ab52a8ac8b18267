// tests/models/test_resnext.cpp — ResNeXt and Wide ResNet (ResNet with groups / width_per_group) against
// torchvision 0.14 (tests/reference/zoo_classic.json.gz): print(model), state_dict, parameter count, eval
// logits on seeded weights at 224x224 and 33x35 and torch.fx's graph and code for resnext50_32x4d; the
// other builders at 33x35 with TL_ZOO_ALL_VARIANTS=1; another variant's state_dict refused; options the
// builders or BasicBlock refuse.
#include <doctest/doctest.h>

#include "models/resnet.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"

namespace tl::models {
namespace {

using testing::zoo_case;

const testing::SeededModel& shared_resnext50() {
  static const testing::SeededModel m = testing::build_seeded(
      zoo_case("resnext", "resnext50_32x4d"), [] { return resnext50_32x4d({.num_classes = 10}); }, true);
  return m;
}

TEST_CASE("resnext50_32x4d: print(model), state_dict, parameters, logits at 224x224 and 33x35 and the FX trace equal torchvision's") {
  const testing::ZooCase c = zoo_case("resnext", "resnext50_32x4d");
  testing::check_structure(*shared_resnext50().model, c);
  testing::check_logits(shared_resnext50(), c);
  testing::check_trace(shared_resnext50().model, c);
}

TEST_CASE("resnext / wide_resnet: every other builder's print(model), state_dict, parameters and logits at 33x35 equal torchvision's" *
          doctest::skip(testing::skip_heavy_variants())) {
  using Builder = std::shared_ptr<ResNet> (*)(const ResNetOptions&);
  const std::pair<const char*, Builder> builders[] = {{"resnext101_32x8d", resnext101_32x8d},
                                                      {"resnext101_64x4d", resnext101_64x4d},
                                                      {"wide_resnet50_2", wide_resnet50_2},
                                                      {"wide_resnet101_2", wide_resnet101_2}};
  for (const auto& [name, builder] : builders) {
    const Builder build = builder;
    testing::check_builder(zoo_case("resnext", name), [build] { return build({.num_classes = 10}); });
  }
}

TEST_CASE("resnext50_32x4d refuses the state_dict of a ResNeXt with one block per stage") {
  const ResNet shallow(ResNet::Block::Bottleneck, {1, 1, 1, 1}, {.num_classes = 10, .groups = 32, .width_per_group = 4});
  testing::check_refuses_state_dict(*shared_resnext50().model, shallow.state_dict(), "layer1.1.conv1.weight");
}

TEST_CASE("resnext: a builder refuses another groups or width_per_group; BasicBlock refuses both, as torchvision") {
  CHECK_THROWS_WITH_AS(resnext50_32x4d({.groups = 8}), "The parameter 'groups' expected value 32 but got 8 instead.",
                       Error);
  CHECK_THROWS_WITH_AS(wide_resnet50_2({.width_per_group = 32}),
                       "The parameter 'width_per_group' expected value 128 but got 32 instead.", Error);
  CHECK_THROWS_WITH_AS(ResNet(ResNet::Block::Basic, {1, 1, 1, 1}, {.groups = 2}),
                       "BasicBlock only supports groups=1 and base_width=64", Error);
  CHECK_THROWS_WITH_AS((*shared_resnext50().model)(randn({1, 1, 33, 35})),
                       "conv2d: input [1, 1, 33, 35] has 1 channels but weight [64, 3, 7, 7] with groups=1 expects 3"
                       " (in module 'conv1' (Conv2d) of ResNet)",
                       Error);
}

}  // namespace
}  // namespace tl::models
