// tests/fx/test_graph_module_autograd.cpp — a traced GraphModule is differentiable like the module it
// came from: the same loss gives the same parameter gradients (it runs the same ops in the same order),
// and passes valid only in eval mode keep refusing a module in training mode.
#include <doctest/doctest.h>

#include "core/generator.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "nn/functional.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

TEST_CASE("a traced resnet18's parameter gradients equal the module's, in training mode") {
  manual_seed(0);
  auto model = models::resnet18({.num_classes = 10});
  model->train();
  // The GraphModule holds the traced module's own parameters and buffers, so the eager run is made on
  // a deep copy: each run accumulates gradients and updates running statistics of its own tensors.
  auto gm = fx::symbolic_trace(model->clone());
  gm->train();
  const Tensor x = randn({2, 3, 32, 32});
  const Tensor target = from_vector<int64_t>({3, 7}, {2});
  nn::functional::cross_entropy((*model)(x), target).backward();
  nn::functional::cross_entropy((*gm)(x), target).backward();
  const auto expected = model->named_parameters(), actual = gm->named_parameters();
  REQUIRE(actual.size() == expected.size());
  int compared = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO(expected[i].first);
    REQUIRE(actual[i].first == expected[i].first);
    REQUIRE(expected[i].second.grad().defined());
    const std::string diff = testing::compare_tensors(actual[i].second.grad(), expected[i].second.grad(), 0, 0);
    CHECK_MESSAGE(diff.empty(), diff);
    ++compared;
  }
  CHECK(compared == 62);
  for (const auto& entry : model->named_buffers()) {  // (clang 14 cannot capture a structured binding in INFO)
    INFO(entry.first);
    CHECK(testing::compare_tensors(gm->get_buffer(entry.first), entry.second, 0, 0).empty());
  }
}

TEST_CASE("eval-only passes refuse a module in training mode") {
  auto model = models::resnet18({.num_classes = 10});
  model->train();
  CHECK_THROWS_WITH_AS(fx::fuse_conv_bn(model), doctest::Contains("training mode; call eval() first"), Error);
  CHECK_THROWS_WITH_AS(fx::optimize_for_inference(model), doctest::Contains("training mode; call eval() first"), Error);
  CHECK(model->is_training());
}

}  // namespace
}  // namespace tl
