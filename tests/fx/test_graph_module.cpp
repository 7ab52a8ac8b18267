// tests/fx/test_graph_module.cpp — GraphModule's strong guarantee: a failed recompile() keeps the
// previous plan (and a copy runs it too), a successful one replaces every compiled plan (the optimized
// module's per-shape ones too); code() is the last compiled code, clone() and the Interpreter read the
// graph as it is now, with tl::Error for bad nodes.
#include <doctest/doctest.h>

#include <sstream>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "fx/codegen.h"
#include "fx/interpreter.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "models/toy_fuser.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

using testing::compare_tensors;

std::shared_ptr<GraphModule> traced_toy() {
  manual_seed(0);
  auto model = models::toy_fuser_model();
  model->eval();
  return symbolic_trace(model);
}

Node* output_value(GraphModule& gm) { return gm.graph().output_node()->args()[0].node(); }

/// The traced toy model, an input, what it gives, its code and its returned node, before a test edits it.
struct Toy {
  std::shared_ptr<GraphModule> gm = traced_toy();
  Tensor x = randn({2, 1, 5, 5});
  Tensor before = (*gm)(x);
  std::string code_before = gm->code();
  Node* last = output_value(*gm);
};

TEST_CASE("GraphModule: a failed recompile keeps the working module") {
  Toy toy;
  auto& [gm, x, before, code_before, last] = toy;
  Node* add = nullptr;
  {
    auto guard = gm->graph().inserting_before(gm->graph().output_node());
    add = gm->graph().call_function(OpKind::Add, {last}, {}, CallStyle::Operator);  // one operand short
  }
  gm->graph().output_node()->update_arg(0, add);
  CHECK_THROWS_AS(gm->recompile(), Error);
  CHECK_TENSOR_CLOSE((*gm)(x), before, 0.0, 0.0);
  // Undoing the edit makes the graph compile again, to the same code.
  gm->graph().output_node()->update_arg(0, last);
  gm->graph().erase_node(add);
  gm->recompile();
  CHECK(gm->code() == code_before);
  CHECK_TENSOR_CLOSE((*gm->clone())(x), before, 0.0, 0.0);
}

TEST_CASE("GraphModule: after a failed recompile a copy runs the last plan, and clone() refuses the graph") {
  Toy toy;
  auto& [gm, x, before, code_before, last] = toy;
  {
    auto guard = gm->graph().inserting_before(gm->graph().output_node());
    Node* t = gm->graph().call_method(OpKind::Transpose, {last}, {{"dim0", "a"}, {"dim1", 0}});
    gm->graph().output_node()->update_arg(0, t);
  }
  const char* refusal = "aten::transpose: argument 'dim0' (int) cannot take 'a'";
  CHECK_THROWS_WITH_AS(gm->recompile(), refusal, Error);
  CHECK(gm->code() == code_before);
  // A plain copy shares the plan: it runs and prints what the original last compiled, and refuses to
  // recompile the edited graph with the original's error.
  GraphModule shared(*gm);
  GraphModule kept(*gm);
  CHECK_TENSOR_CLOSE(shared(x), before, 0.0, 0.0);
  CHECK(shared.code() == code_before);
  CHECK(shared.forward_signature().arg_names == gm->forward_signature().arg_names);
  CHECK_THROWS_WITH_AS(shared.recompile(), refusal, Error);
  CHECK_TENSOR_CLOSE(shared(x), before, 0.0, 0.0);
  // clone() compiles the graph as it is now, as PyTorch's deepcopy does: the same refusal, the
  // original as it was.
  CHECK_THROWS_WITH_AS(gm->clone(), refusal, Error);
  CHECK_TENSOR_CLOSE((*gm)(x), before, 0.0, 0.0);
  // The copy's graph is its own: fixing it there leaves the original broken, and the original's plan
  // outlives the original itself in a copy that shares it.
  Node* copy_out = shared.graph().output_node();
  Node* t = copy_out->args()[0].node();
  copy_out->update_arg(0, t->args()[0]);
  shared.graph().erase_node(t);
  shared.recompile();
  CHECK_TENSOR_CLOSE(shared(x), before, 0.0, 0.0);
  CHECK_TENSOR_CLOSE((*shared.clone())(x), before, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(gm->recompile(), refusal, Error);
  gm.reset();
  CHECK_TENSOR_CLOSE(kept(x), before, 0.0, 0.0);
}

// PyTorch's GraphModule: `code` is the source generated at the last recompile(), and deepcopy builds a
// GraphModule from the current graph, compiling it.
TEST_CASE("GraphModule: code() is the last compiled code; clone() compiles the graph as it is now") {
  Toy toy;
  auto& [gm, x, before, code_before, last] = toy;
  {
    auto guard = gm->graph().inserting_before(gm->graph().output_node());
    gm->graph().output_node()->update_arg(0, gm->graph().call_function(OpKind::Neg, {last}));
  }
  CHECK(gm->code() == code_before);  // edited, not recompiled
  CHECK(gm->str().find("neg") == std::string::npos);
  auto copy = std::static_pointer_cast<GraphModule>(gm->clone());
  CHECK_TENSOR_CLOSE((*copy)(x), neg(before), 0.0, 0.0);
  CHECK(copy->code() == python_code(gm->graph()));
  CHECK(copy->code().find("neg = torch.neg(wrapped_mod)") != std::string::npos);
  CHECK_TENSOR_CLOSE((*gm)(x), before, 0.0, 0.0);  // the original still runs what it compiled
  gm->recompile();
  CHECK(gm->code() == copy->code());
  CHECK_TENSOR_CLOSE((*gm)(x), neg(before), 0.0, 0.0);
}

TEST_CASE("GraphModule: recompile refuses a call of the module itself") {
  auto gm = traced_toy();
  {
    auto guard = gm->graph().inserting_before(gm->graph().output_node());
    gm->graph().call_module("", {output_value(*gm)});
  }
  CHECK_THROWS_WITH_AS(gm->recompile(), "GraphModule: call_module '_' would call the GraphModule itself", Error);
}

TEST_CASE("GraphModule: a successful recompile replaces the optimized module's per-shape plans") {
  auto gm = traced_toy();
  auto fast = optimize_for_inference(gm, {.example_input_shape = {}});
  const Tensor x = randn({1, 1, 6, 6});
  const Tensor before = (*fast)(x);  // compiles the plan for this shape
  CHECK_TENSOR_CLOSE(before, (*gm)(x), 1e-5, 1e-6);
  Node* last = output_value(*fast);
  {
    auto guard = fast->graph().inserting_before(fast->graph().output_node());
    fast->graph().output_node()->update_arg(0, fast->graph().call_function(OpKind::Neg, {last}));
  }
  CHECK_TENSOR_CLOSE((*fast)(x), before, 0.0, 0.0);  // not recompiled yet: the old plan runs
  fast->recompile();
  CHECK_TENSOR_CLOSE((*fast)(x), neg(before), 0.0, 0.0);
}

TEST_CASE("GraphModule: set_submodule takes effect at the next call, as in FX") {
  auto gm = traced_toy();
  Interpreter interp(gm);
  const Tensor x = randn({1, 1, 4, 4});
  auto conv = std::dynamic_pointer_cast<nn::Conv2d>(gm->get_submodule("conv1")->clone());
  {
    NoGradGuard no_grad;
    conv->parameter("weight").copy_(zeros(conv->parameter("weight").shape()));
    conv->parameter("bias").copy_(zeros(conv->parameter("bias").shape()));
  }
  const Tensor before = (*gm)(x);
  gm->set_submodule("conv1", conv);
  const Tensor after = (*gm)(x);
  CHECK(compare_tensors(after, before, 0.0, 0.0) != "");  // the zeroed conv1 runs
  CHECK_TENSOR_CLOSE(after, interp.run(x), 0.0, 0.0);
}

TEST_CASE("GraphModule: an argument of the wrong type is a user error naming it") {
  auto gm = traced_toy();
  {
    auto guard = gm->graph().inserting_before(gm->graph().output_node());
    Node* t = gm->graph().call_method(OpKind::Transpose, {output_value(*gm)}, {{"dim0", "a"}, {"dim1", 0}});
    gm->graph().output_node()->update_arg(0, t);
  }
  CHECK_THROWS_WITH_AS(gm->recompile(), "aten::transpose: argument 'dim0' (int) cannot take 'a'", Error);
}

// Returns its input's relu and an undefined tensor (None), as a forward with an optional result does.
class WithNone : public nn::Module {
 public:
  using nn::Module::forward;
  TensorList forward(nn::Inputs inputs) override { return {relu(inputs[0]), Tensor()}; }
  std::string type_name() const override { return "WithNone"; }
};

TEST_CASE("GraphModule: a None result stays in its place; a constant result is refused, the module kept") {
  auto gm = symbolic_trace(std::make_shared<WithNone>());
  const Tensor x = from_vector<float>({-1, 2}, {2});
  for (const TensorList& out : {(*gm)(TensorList{x}), Interpreter(gm).run(TensorList{x})}) {
    REQUIRE(out.size() == 2);  // as eager: (relu, None)
    CHECK_TENSOR_CLOSE(out[0], relu(x), 0.0, 0.0);
    CHECK_FALSE(out[1].defined());
  }
  Node* relu_node = gm->graph().output_node()->args()[0].as_list().items[0].node();
  gm->graph().output_node()->update_arg(0, Argument::list({Argument(relu_node), Argument(3.0)}, true));
  const std::string refused = "GraphModule: the graph returns the constant 3.0; forward() returns tensors, so each "
                              "result must be a node or None";
  CHECK_THROWS_WITH_AS(gm->recompile(), refused.c_str(), Error);
  CHECK((*gm)(TensorList{x}).size() == 2);  // the last compiled graph still runs
  CHECK_THROWS_WITH_AS(Interpreter(gm).run(TensorList{x}), doctest::Contains(refused.c_str()), Error);
}

// max over dim 1, then an element of its (values, indices) result taken by index.
std::shared_ptr<GraphModule> max_element(int64_t index) {
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  Node* max_node = graph->call_function(OpKind::Max, {x, int64_t{1}});
  graph->output(Argument::list({Argument(graph->getitem(max_node, index)), Argument(max_node)}, true));
  return std::make_shared<GraphModule>(nn::Sequential(), std::move(graph));
}

TEST_CASE("GraphModule and Interpreter: one getitem (Python's indexing) and one flattening of the results") {
  const Tensor x = from_vector<float>({1, 5, 3, 2}, {2, 2});
  const auto [values, indices] = x.max(1);
  for (int64_t index : {0, 1, -1, -2}) {
    auto gm = max_element(index);
    const Tensor& expected = index == 0 || index == -2 ? values : indices;
    for (const TensorList& out : {(*gm)(TensorList{x}), Interpreter(gm).run(TensorList{x})}) {
      REQUIRE(out.size() == 3);  // the element, then the tuple flattened
      CHECK_TENSOR_CLOSE(out[0], expected, 0.0, 0.0);
      CHECK_TENSOR_CLOSE(out[1], values, 0.0, 0.0);
      CHECK_TENSOR_CLOSE(out[2], indices, 0.0, 0.0);
    }
  }
  for (int64_t index : {2, -3}) {
    auto gm = max_element(index);
    const std::string expected = "getitem: index " + std::to_string(index) + " out of range for 2 values";
    CHECK_THROWS_WITH_AS((*gm)(TensorList{x}), doctest::Contains(expected.c_str()), Error);
    CHECK_THROWS_WITH_AS(Interpreter(gm).run(TensorList{x}), doctest::Contains(expected.c_str()), Error);
  }
}

TEST_CASE("GraphModule::fetch_attr: a dotted path as nn::Module resolves it, the whole path quoted") {
  auto model = models::resnet18();
  auto gm = symbolic_trace(model);
  CHECK(gm->fetch_attr("layer1.0.conv1.weight").is_same(model->get_parameter("layer1.0.conv1.weight")));
  CHECK(gm->fetch_attr("bn1.running_mean").is_same(model->get_buffer("bn1.running_mean")));
  CHECK_THROWS_WITH_AS(gm->fetch_attr("layer9.0.weight"),
                       "unknown module path: 'layer9' in 'layer9.0.weight' (ResNet has no child 'layer9')", Error);
  CHECK_THROWS_WITH_AS(gm->fetch_attr("conv1.bias_"),
                       "get_attr: 'conv1.bias_' is not a parameter or buffer of the GraphModule", Error);
}

TEST_CASE("Interpreter: reads the graph as it is at each run") {
  auto gm = traced_toy();
  Interpreter interp(gm);
  const Tensor x = randn({1, 1, 4, 4});
  const Tensor before = interp.run(x);
  // x's last use moves to the new node: an Interpreter that kept the old last uses would have freed it.
  Node* placeholder = gm->graph().find_nodes(Opcode::Placeholder).at(0);
  {
    auto guard = gm->graph().inserting_before(gm->graph().output_node());
    Node* add = gm->graph().call_function(OpKind::Add, {output_value(*gm), placeholder}, {}, CallStyle::Operator);
    gm->graph().output_node()->update_arg(0, add);
  }
  CHECK_TENSOR_CLOSE(interp.run(x), before + x, 0.0, 0.0);
}

TEST_CASE("GraphModule: the code of a node without its operands is a tl::Error; code() keeps the last compiled") {
  auto gm = traced_toy();
  const std::string code_before = gm->code();
  {
    auto guard = gm->graph().inserting_before(gm->graph().output_node());
    gm->graph().call_method(OpKind::Neg, {});
  }
  CHECK_THROWS_WITH_AS(python_code(gm->graph()), "code: call_method node 'neg' has no self argument", Error);
  CHECK_THROWS_AS(gm->recompile(), Error);
  CHECK(gm->code() == code_before);
}

// Expected: str(symbolic_trace(M().eval())) in PyTorch 1.13 (GraphModule.__str__: the module repr,
// the code and a reminder), printed by tests/fx/gen_fx_printing_cases.py.
TEST_CASE("GraphModule: print(gm) shows the repr, then the code, as PyTorch's __str__") {
  const std::string expected =
      "M(\n  (conv1): Conv2d(1, 1, kernel_size=(1, 1), stride=(1, 1))\n  (bn1): BatchNorm2d(1, eps=1e-05, "
      "momentum=0.1, affine=True, track_running_stats=True)\n  (conv2): Conv2d(1, 1, kernel_size=(1, 1), stride=(1, "
      "1))\n  (nested): Module(\n    (0): BatchNorm2d(1, eps=1e-05, momentum=0.1, affine=True, "
      "track_running_stats=True)\n    (1): Conv2d(1, 1, kernel_size=(1, 1), stride=(1, 1))\n  )\n  (wrapped): "
      "Module(\n    (mod): BatchNorm2d(1, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n  "
      ")\n)\n\n\n\ndef forward(self, x):\n    conv1 = self.conv1(x);  x = None\n    bn1 = self.bn1(conv1);  "
      "conv1 = None\n    conv2 = self.conv2(bn1);  bn1 = None\n    nested_0 = getattr(self.nested, \"0\")(conv2);  "
      "conv2 = None\n    nested_1 = getattr(self.nested, \"1\")(nested_0);  nested_0 = None\n    wrapped_mod = "
      "self.wrapped.mod(nested_1);  nested_1 = None\n    return wrapped_mod\n    \n# To see more debug info, "
      "please use `graph_module.print_readable()`";
  auto gm = traced_toy();
  CHECK(gm->str() == expected);
  std::ostringstream printed;
  printed << *gm;
  CHECK(printed.str() == expected + "\n");
  // A GraphModule inside another module prints as its repr only, as Python's repr of a child does.
  CHECK(nn::repr(*gm) == expected.substr(0, expected.find("\n\n\n\ndef")));
}

}  // namespace
}  // namespace tl::fx
