// tests/fx/test_interpreter.cpp — the Interpreter and GraphModule give eager's results on
// ResNet18/50 and the toy model, free values after their last use, and report failing nodes.
#include <doctest/doctest.h>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "fx/interpreter.h"
#include "fx/shape_prop.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "models/toy_fuser.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

TEST_CASE("Interpreter and GraphModule equal eager on resnet18, resnet50 and M") {
  manual_seed(0);
  std::vector<std::pair<std::shared_ptr<nn::Module>, Shape>> cases = {
      {models::resnet18(), {2, 3, 64, 64}}, {models::resnet50(), {1, 3, 64, 48}}, {models::toy_fuser_model(), {2, 1, 5, 7}}};
  // Named members, not a structured binding: clang 14 cannot capture one in CAPTURE/INFO.
  for (auto& entry : cases) {
    auto& model = entry.first;
    auto& shape = entry.second;
    CAPTURE(model->type_name());
    model->eval();
    Tensor x = randn(shape);
    Tensor eager = (*model)(x);
    auto traced = symbolic_trace(model);
    CHECK_TENSOR_CLOSE((*traced)(x), eager, 0.0, 0.0);
    Interpreter interp(traced);
    CHECK_TENSOR_CLOSE(interp.run(x), eager, 0.0, 0.0);
  }
}

class CountingInterpreter : public Interpreter {
 public:
  using Interpreter::Interpreter;
  int modules = 0, functions = 0;
  NodeValue call_module(Node& n) override {
    ++modules;
    return Interpreter::call_module(n);
  }
  NodeValue call_function(Node& n) override {
    ++functions;
    return Interpreter::call_function(n);
  }
};

TEST_CASE("Interpreter: every node kind goes through its overridable method") {
  auto model = models::resnet18();
  model->eval();
  CountingInterpreter interp(symbolic_trace(model));
  interp.run(randn({1, 3, 32, 32}));
  CHECK(interp.modules == 60);   // 20 conv + 20 bn + 17 relu + maxpool + avgpool + fc
  CHECK(interp.functions == 9);  // 8 adds + flatten
}

class PeakTracker : public Interpreter {
 public:
  using Interpreter::Interpreter;
  int64_t peak = 0;
  NodeValue run_node(Node& n) override {
    NodeValue v = Interpreter::run_node(n);
    peak = std::max(peak, allocator_stats().bytes_in_use);
    return v;
  }
};

TEST_CASE("Interpreter: values are freed after their last use") {
  // A chain of 12 elementwise ops on 1 MB tensors: keeping every value would hold 12 MB.
  auto chain = std::make_shared<nn::Sequential>();
  for (int i = 0; i < 12; ++i) chain->append(std::make_shared<nn::ReLU>());
  Tensor x = randn({256, 1024});
  const int64_t before = allocator_stats().bytes_in_use;
  PeakTracker interp(symbolic_trace(chain));
  interp.run(x);
  CHECK(interp.peak - before <= 3 * x.nbytes());
  CHECK(allocator_stats().bytes_in_use - before < x.nbytes());
}

TEST_CASE("Interpreter and GraphModule: a failing node is named in the error") {
  auto model = models::resnet18();
  auto traced = symbolic_trace(model);
  Interpreter interp(traced);
  const char* expected =
      "while executing %conv1 : [#users=1] = call_module[target=conv1](args = (%x,), kwargs = {}): ";
  CHECK_THROWS_WITH_AS(interp.run(randn({1, 4, 32, 32})), doctest::Contains(expected), Error);
  CHECK_THROWS_WITH_AS((*traced)(randn({1, 4, 32, 32})), doctest::Contains(expected), Error);
  CHECK_THROWS_WITH_AS(interp.run(TensorList{}), doctest::Contains("missing input for placeholder 'x'"), Error);
  CHECK_THROWS_WITH_AS((*traced)(TensorList{}),
                       "ResNet.forward takes 1 input(s) (x), got 0; a module taking other inputs declares them by "
                       "overriding forward_signature()",
                       Error);
}

TEST_CASE("ShapeProp fills every node's shape and dtype") {
  auto traced = symbolic_trace(models::resnet18());
  ShapeProp(traced).propagate({randn({2, 3, 64, 64})});
  for (Node* n : traced->graph().nodes()) {
    if (n->op() == Opcode::Output) continue;
    CAPTURE(n->name());
    REQUIRE(n->tensor_meta() != nullptr);
    CHECK(n->tensor_meta()->dtype == DType::Float32);
  }
  CHECK(traced->graph().find_nodes(Opcode::CallModule, std::string("fc")).at(0)->tensor_meta()->shape == Shape{2, 1000});
  CHECK(graph_with_shapes(traced->graph()).find("%maxpool : [#users=2] [2, 64, 16, 16] torch.float32 = call_module") !=
        std::string::npos);
}

TEST_CASE("GraphModule: recompile after a graph edit; clone is deep") {
  auto traced = symbolic_trace(models::toy_fuser_model());
  traced->eval();
  Tensor x = randn({1, 1, 4, 4});
  Graph& g = traced->graph();
  Node* out = g.output_node();
  Node* result = out->args()[0].node();
  {
    auto guard = g.inserting_before(out);
    Node* doubled = g.call_function(OpKind::Mul, {result, 2.0}, {}, CallStyle::Operator);
    out->update_arg(0, doubled);
  }
  Tensor before = (*traced)(x);
  traced->recompile();
  CHECK_TENSOR_CLOSE((*traced)(x), before * 2.0, 1e-6, 1e-6);
  auto copy = std::static_pointer_cast<GraphModule>(traced->clone());
  {
    NoGradGuard no_grad;
    copy->get_parameter("conv1.weight").mul_(0.0);
  }
  CHECK_FALSE(equal((*copy)(x), (*traced)(x)));
  CHECK(copy->code() == traced->code());
}

}  // namespace
}  // namespace tl::fx
