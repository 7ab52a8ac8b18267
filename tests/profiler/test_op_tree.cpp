// tests/profiler/test_op_tree.cpp — our op events against ATen's: the names, the nesting and the Input
// Shapes of a ResNet18 and a MyModule inference forward equal PyTorch 1.13's, line for line
// (tests/reference/op_tree_*.txt, from tests/reference/make_op_tree_references.py), but for the
// events op_tree_util.h's kNotMirrored lists.
#include <doctest/doctest.h>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/my_module.h"
#include "models/resnet.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "op_tree_util.h"

namespace tl::profiler {
namespace {

using testing::check_same_tree;
using testing::our_tree;
using testing::reference_tree;

template <typename Run>
EventList profile_forward(Run run) {
  NoGradGuard no_grad;
  run();  // warm-up, as the reference's
  Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    run();
  }
  return prof.events();
}

TEST_CASE("op tree: a ResNet18 inference forward records ATen's ops, nesting and Input Shapes") {
  manual_seed(0);
  auto model = models::resnet18();
  model->eval();
  const Tensor x = randn({2, 3, 64, 64});
  const EventList events = profile_forward([&] { (*model)(x); });
  check_same_tree(our_tree(events), reference_tree("op_tree_resnet18.txt", ""));
}

TEST_CASE("op tree: MyModule's forward records ATen's ops, nesting and Input Shapes") {
  for (const bool use_nonzero : {false, true}) {
    CAPTURE(use_nonzero);
    manual_seed(0);
    models::MyModule module({.in_features = 500, .out_features = 10, .use_nonzero = use_nonzero});
    const Tensor input = rand({8, 500}), mask = rand({6, 6, 6});
    const EventList events = profile_forward([&] { module({input, mask}); });
    check_same_tree(our_tree(events), reference_tree("op_tree_my_module.txt",
                                                     use_nonzero ? "# use_nonzero=True" : "# use_nonzero=False"));
  }
}

}  // namespace
}  // namespace tl::profiler
