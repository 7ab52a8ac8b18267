// tests/models/test_zoo_op_tree.cpp — the profiler's op tree of one eval forward of a few model families against
// PyTorch 1.13's (tests/reference/op_tree_zoo.txt, from tests/reference/make_op_tree_references.py): the names,
// the nesting and the Input Shapes of every op, line for line, but for the events op_tree_util.h's kNotMirrored
// lists. Depthwise and grouped convolutions, squeeze-excitation, Hardswish / Hardsigmoid / SiLU and stochastic depth
// in eval are what these add to ResNet18's tree (tests/profiler/test_op_tree.cpp); convnext adds channels-last
// activations (a permuted LayerNorm's output, and the convolution and mul results that keep its layout).
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <string>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/convnext.h"
#include "models/efficientnet.h"
#include "models/mobilenet.h"
#include "models/regnet.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/profiler/op_tree_util.h"

namespace tl::models {
namespace {

using profiler::testing::check_same_tree;
using profiler::testing::our_tree;
using profiler::testing::reference_tree;

void check_family(const std::string& name, const std::function<std::shared_ptr<nn::Module>()>& make) {
  CAPTURE(name);
  manual_seed(0);
  std::shared_ptr<nn::Module> model = make();
  model->eval();
  const Tensor x = randn({2, 3, 64, 64});
  NoGradGuard no_grad;
  (*model)(x);  // warm-up, as the reference's
  profiler::Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    (*model)(x);
  }
  check_same_tree(our_tree(prof.events()), reference_tree("op_tree_zoo.txt", "# " + name));
}

TEST_CASE("zoo op tree: mobilenet_v3_small's eval forward records ATen's ops, nesting and Input Shapes") {
  check_family("mobilenet_v3_small", [] { return mobilenet_v3_small(); });
}

TEST_CASE("zoo op tree: efficientnet_b0's eval forward records ATen's ops, nesting and Input Shapes") {
  check_family("efficientnet_b0", [] { return efficientnet_b0(); });
}

TEST_CASE("zoo op tree: regnet_y_400mf's eval forward records ATen's ops, nesting and Input Shapes") {
  check_family("regnet_y_400mf", [] { return regnet_y_400mf(); });
}

TEST_CASE("zoo op tree: convnext_tiny's eval forward records ATen's ops, nesting and Input Shapes") {
  check_family("convnext_tiny", [] { return convnext_tiny(); });
}

}  // namespace
}  // namespace tl::models
