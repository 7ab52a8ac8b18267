// tests/fx/test_resolved_call.cpp — a node's call is resolved when the node is made and again when its
// arguments change (op, style, typed arguments, inputs, getitem index, out=); an unresolvable node
// keeps its error for whoever compiles or runs it, and every executor reads the one resolution.
#include <doctest/doctest.h>

#include "core/op_args.h"
#include "core/op_kind.h"
#include "fx/graph_module.h"
#include "fx/interpreter.h"
#include "nn/activation.h"
#include "nn/container.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

TEST_CASE("resolved call: an op's style, typed arguments and inputs, read when the node is made") {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* t = g.call_method(OpKind::Transpose, {x, int64_t{0}}, {{"dim1", int64_t{1}}});
  CHECK(t->call().op == OpKind::Transpose);
  CHECK(t->call().style == CallStyle::Method);
  CHECK(t->call().args.as<TransposeArgs>().dim0 == 0);
  CHECK(t->call().args.as<TransposeArgs>().dim1 == 1);
  CHECK(t->call().inputs == std::vector<Node*>{x});
  CHECK(t->call().out_input == -1);
  // 2.0 - x is operator.sub(2.0, x): Python runs rsub(x, 2.0).
  Node* rsub = g.call_function(OpKind::Rsub, {2.0, x}, {}, CallStyle::ReflectedOperator);  // Python's order
  CHECK(rsub->target() == "operator.sub");
  CHECK(rsub->call().op == OpKind::Rsub);
  CHECK(rsub->call().style == CallStyle::ReflectedOperator);
  CHECK(rsub->call().args.as<RsubArgs>().other->to<double>() == 2.0);
  CHECK(rsub->call().inputs == std::vector<Node*>{x});
  // An optional tensor not given is a None input; the out= of a kernel with one is the last input.
  Node* conv = g.call_function(OpKind::MkldnnConvolution, {x, y, Argument()});
  CHECK(conv->call().inputs == std::vector<Node*>{x, y, nullptr, nullptr, nullptr});
  CHECK(conv->call().out_input == 4);
  CHECK(g.placeholder("z")->call().inputs.empty());
  Node* max_node = g.call_function(OpKind::Max, {x, int64_t{1}});
  Node* item = g.getitem(max_node, -1);
  CHECK_FALSE(item->call().op.has_value());
  CHECK(item->call().inputs == std::vector<Node*>{max_node});
  CHECK(item->call().key.tuple_index() == -1);
  Node* out = g.output(Argument::list({Argument(item), Argument(), Argument(t)}, true));
  CHECK(out->call().inputs == std::vector<Node*>{item, nullptr, t});
}

TEST_CASE("resolved call: rebuilt on every edit; a bad node keeps its error until it is edited right") {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* t = g.call_method(OpKind::Transpose, {x}, {{"dim0", "a"}, {"dim1", int64_t{0}}});
  CHECK_THROWS_WITH_AS(t->call(), "aten::transpose: argument 'dim0' (int) cannot take 'a'", Error);
  CHECK_THROWS_WITH_AS(t->call(), "aten::transpose: argument 'dim0' (int) cannot take 'a'", Error);
  t->update_kwarg("dim0", int64_t{1});
  CHECK(t->call().args.as<TransposeArgs>().dim0 == 1);
  t->replace_input_with(x, y);
  CHECK(t->call().inputs == std::vector<Node*>{y});
  Node* item = g.getitem(t, 0);
  item->update_arg(1, 2.5);
  CHECK_THROWS_WITH_AS(item->call(), "GraphModule: getitem 'getitem' cannot index with 2.5; an index is an int, a slice, "
                                     "None, Ellipsis, a bool, a node, a list of ints, or a tuple of these", Error);
  // A refused edit changes nothing, its resolution included.
  CHECK_THROWS_AS(t->update_kwarg("bogus", int64_t{1}), Error);
  CHECK(t->call().args.as<TransposeArgs>().dim0 == 1);
}

TEST_CASE("resolved call: the Interpreter reads it too, so a call_module keyword is refused as the plan refuses it") {
  auto root = std::make_shared<nn::Sequential>(std::make_shared<nn::ReLU>());
  auto graph = std::make_unique<Graph>();
  Node* x = graph->placeholder("x");
  Node* relu_node = graph->call_module("0", {x});
  graph->output(relu_node);
  auto gm = std::make_shared<GraphModule>(*root, std::move(graph));
  const Tensor input = from_vector<float>({-1, 2}, {2});
  CHECK_TENSOR_CLOSE(Interpreter(gm).run(input), relu(input), 0.0, 0.0);
  relu_node->update_kwarg("inplace", true);
  const char* refused = "GraphModule: call_module '0' takes no keyword arguments, got 1";
  CHECK_THROWS_WITH_AS(gm->recompile(), refused, Error);
  CHECK_THROWS_WITH_AS(Interpreter(gm).run(input), doctest::Contains(refused), Error);
}

}  // namespace
}  // namespace tl::fx
