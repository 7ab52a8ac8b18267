// tests/fx/test_inference_plan.cpp — the optimized module's per-shape plans over the one execution
// plan: a graph with getitem now runs in the arena, and a module swapped in after a plan was recorded
// is called without the recorded result buffer (its layout may differ) and gives its own results, and
// each thread count has its plan.
#include <doctest/doctest.h>

#include <thread>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/parallel.h"
#include "fx/passes/inference_modules.h"
#include "fx/passes/optimize_for_inference.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

/// conv -> relu -> conv (+ residual) -> relu -> max over channels (getitem of a two-result op).
class Block : public nn::Module {
 public:
  Block() {
    register_module("conv1", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 3, .out_channels = 16, .kernel_size = 3, .padding = 1}));
    register_module("conv2", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 16, .out_channels = 16, .kernel_size = 3, .padding = 1}));
  }
  using nn::Module::forward;
  TensorList forward(nn::Inputs inputs) override {
    const Tensor h = relu(submodule("conv1")(inputs[0]));
    const Tensor y = relu(submodule("conv2")(h) + h);
    return {max(y, 1).values};
  }
  std::string type_name() const override { return "Block"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Block>(); }
};

std::shared_ptr<nn::Module> block() {
  manual_seed(3);
  auto m = std::make_shared<Block>();
  m->eval();
  return m;
}

TEST_CASE("inference plan: a graph with getitem runs in the arena and matches eager") {
  auto model = block();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {}});
  const Tensor x = randn({2, 3, 8, 8});
  const Tensor expected = (*model)(x);
  CHECK_TENSOR_CLOSE((*optimized)(x), expected, 1e-5, 1e-5);  // recording run
  CHECK_TENSOR_CLOSE((*optimized)(x), expected, 1e-5, 1e-5);  // in the arena
  const ArenaStats stats = optimized->arena_stats({2, 3, 8, 8});
  CHECK(stats.activations >= 2);
  CHECK(stats.planned_bytes > 0);
  CHECK(stats.planned_bytes <= stats.total_bytes);
}

TEST_CASE("inference plan: a plan per thread count, each repeating its results bit for bit and agreeing with eager") {
  auto model = block();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {}});
  const Tensor x = randn({2, 3, 32, 32});
  const Tensor expected = (*model)(x);
  Tensor by_threads[2];
  for (int threads : {1, 2}) {
    std::thread caller([&] {
      set_num_threads(threads);  // pinned: the module keeps this count
      by_threads[threads - 1] = (*optimized)(x);
      CHECK_TENSOR_CLOSE((*optimized)(x), by_threads[threads - 1], 0.0, 0.0);  // in this count's arena
    });
    caller.join();
  }
  // oneDNN may pick another kernel, and so another summation order, per thread count: equal up to rounding.
  CHECK_TENSOR_CLOSE(by_threads[0], expected, 1e-5, 1e-5);
  CHECK_TENSOR_CLOSE(by_threads[1], expected, 1e-5, 1e-5);
}

/// conv -> max over channels.
class Single : public nn::Module {
 public:
  Single() { register_module("conv", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 3, .out_channels = 16, .kernel_size = 3, .padding = 1})); }
  using nn::Module::forward;
  TensorList forward(nn::Inputs inputs) override { return {max(submodule("conv")(inputs[0]), 1).values}; }
  std::string type_name() const override { return "Single"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Single>(); }
};

std::shared_ptr<Single> single() {
  manual_seed(3);
  auto m = std::make_shared<Single>();
  m->eval();
  return m;
}

TEST_CASE("inference plan: a module swapped in after recording gives its own results") {
  auto model = single();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {}});
  const Tensor x = randn({2, 3, 8, 8});
  (*optimized)(x);  // records and plans this shape: the conv's 16 x 8 x 8 result in the arena
  std::string target;
  for (Node* n : optimized->graph().nodes())
    if (optimized->module_at<MkldnnConv2d>(n)) target = n->target();
  REQUIRE_FALSE(target.empty());
  // A stride-2 conv: its result no longer has the recorded layout.
  nn::Conv2d strided(nn::Conv2dOptions{.in_channels = 3, .out_channels = 16, .kernel_size = 3, .stride = 2, .padding = 1});
  strided.eval();
  optimized->set_submodule(target, std::make_shared<MkldnnConv2d>(strided, false, false, DType::Float32));
  const Tensor got = (*optimized)(x);
  CHECK(got.shape() == Shape{2, 4, 4});
  CHECK(equal(got, optimized->GraphModule::forward(nn::Inputs(*optimized, TensorList{x}))[0]));  // the plain plan, no arena
}

// The packed weight is derived from the module's weight: an in-place change of it (an optimizer step,
// load_state_dict) is seen at the next call, as it is by the eager module.
TEST_CASE("inference plan: a conv weight changed in place is packed again") {
  auto model = single();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {}});
  const Tensor x = randn({2, 3, 8, 8});
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-5, 1e-5);  // packs the weight for this shape
  {
    NoGradGuard no_grad;
    model->get_parameter("conv.weight").mul_(-0.5);
    optimized->get_parameter("conv.weight").mul_(-0.5);
  }
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-5, 1e-5);
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-5, 1e-5);  // in the arena
}

}  // namespace
}  // namespace tl::fx
