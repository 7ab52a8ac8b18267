// tests/models/test_vgg.cpp — the VGG family against torchvision 0.14 (tests/reference/zoo_classic.json.gz):
// print(model), state_dict, parameter count and eval logits on seeded weights at 224x224 and 33x35, and
// torch.fx's graph and code, for vgg11; the other builders at 33x35 with TL_ZOO_ALL_VARIANTS=1; another
// variant's state_dict refused; bad configs.
#include <doctest/doctest.h>

#include "models/vgg.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/tensor_check.h"

namespace tl::models {
namespace {

using testing::zoo_case;

// Building a VGG draws 240M+ numbers (default init, then torchvision's): vgg11 is built once.
const testing::SeededModel& shared_vgg11() {
  static const testing::SeededModel m =
      testing::build_seeded(zoo_case("vgg", "vgg11"), [] { return vgg11({.num_classes = 10}); }, true);
  return m;
}

TEST_CASE("vgg11: print(model), state_dict, parameters, logits at 224x224 and 33x35 and the FX trace equal torchvision's") {
  const testing::ZooCase c = zoo_case("vgg", "vgg11");
  testing::check_structure(*shared_vgg11().model, c);
  testing::check_logits(shared_vgg11(), c);
  testing::check_trace(shared_vgg11().model, c);
}

TEST_CASE("vgg: every other builder's print(model), state_dict, parameters and logits at 33x35 equal torchvision's" *
          doctest::skip(testing::skip_heavy_variants())) {
  using Builder = std::shared_ptr<VGG> (*)(const VGGOptions&);
  const std::pair<const char*, Builder> builders[] = {{"vgg11_bn", vgg11_bn}, {"vgg13", vgg13}, {"vgg13_bn", vgg13_bn},
                                                      {"vgg16", vgg16},       {"vgg16_bn", vgg16_bn}, {"vgg19", vgg19},
                                                      {"vgg19_bn", vgg19_bn}};
  for (const auto& [name, builder] : builders) {
    const Builder build = builder;
    testing::check_builder(zoo_case("vgg", name), [build] { return build({.num_classes = 10}); });
  }
}

TEST_CASE("vgg11 refuses vgg11_bn's state_dict (BatchNorm2d entries where vgg11 has its second conv)") {
  // vgg11_bn's keys and shapes without its classifier's 120M draws: its features, then vgg11's classifier.
  nn::StateDict bn_dict;
  for (const auto& [name, t] : vgg_features('A', true)->state_dict()) bn_dict.emplace_back("features." + name, t);
  for (const auto& [name, t] : shared_vgg11().model->state_dict())
    if (name.rfind("features.", 0) != 0) bn_dict.emplace_back(name, t);
  testing::check_refuses_state_dict(*shared_vgg11().model, bn_dict, "features.3.weight");
}

TEST_CASE("vgg: an unknown configuration and a wrong channel count throw") {
  CHECK_THROWS_WITH_AS(vgg_features('C', false), "vgg: unknown configuration 'C', expected 'A', 'B', 'D' or 'E'", Error);
  CHECK_THROWS_WITH_AS((*shared_vgg11().model)(randn({1, 1, 33, 35})),
                       "conv2d: input [1, 1, 33, 35] has 1 channels but weight [64, 3, 3, 3] with groups=1 expects 3"
                       " (in module 'features.0' (Conv2d) of VGG)",
                       Error);
}

}  // namespace
}  // namespace tl::models
