// tests/fx/test_graph.cpp — the Graph/Node verbs passes are written with: naming, use-def
// bookkeeping, insertion points, erase refusal, lint, dead code elimination, copy, printing.
#include <doctest/doctest.h>

#include "core/op_kind.h"
#include "fx/graph.h"
#include "fx/namespace.h"
#include "fx/schema.h"
#include "fx/value.h"

namespace tl::fx {
namespace {

// x -> relu -> add(relu, x) -> output
struct Small {
  Graph g;
  Node* x = g.placeholder("x");
  Node* relu = g.call_function(OpKind::Relu, {x});
  Node* add = g.call_function(OpKind::Add, {relu, x}, {}, CallStyle::Operator);
  Node* out = g.output(add);
};

TEST_CASE("graph: node names follow FX's rules") {
  Graph g;
  Node* x = g.placeholder("x");
  CHECK(g.call_function(OpKind::Add, {x, x}, {}, CallStyle::Operator)->name() == "add");
  CHECK(g.call_function(OpKind::Add, {x, x}, {}, CallStyle::Operator)->name() == "add_1");
  CHECK(g.call_module("layer1.0.relu", {x})->name() == "layer1_0_relu");
  CHECK(g.call_module("layer1.0.relu", {x})->name() == "layer1_0_relu_1");
  CHECK(g.call_function(OpKind::Flatten, {x, 1})->target() == "torch.flatten");
  // Python builtins are never value names: sum -> sum_1, max -> max_1; and "input" -> "input_1".
  CHECK(g.call_method(OpKind::Sum, {x})->name() == "sum_1");
  CHECK(g.call_function(OpKind::Max, {x})->name() == "max_1");
  CHECK(g.placeholder("input")->name() == "input_1");
  // A candidate that already ends in a number continues from it.
  CHECK(g.create_node(Opcode::CallModule, "add_7", {x})->name() == "add_7");
  CHECK(g.create_node(Opcode::CallModule, "add_7", {x})->name() == "add_8");
}

TEST_CASE("graph: users are kept in sync when args change") {
  Small s;
  CHECK(s.x->users() == std::vector<Node*>{s.relu, s.add});
  CHECK(s.add->all_input_nodes() == std::vector<Node*>{s.relu, s.x});
  s.add->update_arg(1, s.relu);  // add(relu, relu): x loses add as a user, relu keeps one entry
  CHECK(s.x->users() == std::vector<Node*>{s.relu});
  CHECK(s.relu->users() == std::vector<Node*>{s.add});
  s.add->set_args({s.x, s.x});
  CHECK(s.relu->num_users() == 0);
  CHECK(s.x->users() == std::vector<Node*>{s.relu, s.add});
  s.add->update_kwarg("alpha", s.relu);
  CHECK(s.relu->users() == std::vector<Node*>{s.add});
  CHECK_THROWS_WITH_AS(s.add->update_arg(5, 1), "update_arg: index 5 out of range for node 'add' with 2 args", Error);
}

TEST_CASE("graph: replace_all_uses_with and erase refusal") {
  Small s;
  CHECK_THROWS_WITH_AS(s.g.erase_node(s.relu),
                       "erase_node: tried to erase node 'relu' but it still has 1 user(s) in the graph: add", Error);
  const std::vector<Node*> changed = s.relu->replace_all_uses_with(s.x);
  CHECK(changed == std::vector<Node*>{s.add});
  CHECK(s.add->args()[0].node() == s.x);
  s.g.erase_node(s.relu);
  CHECK(s.relu->erased());
  CHECK(s.g.size() == 3);
  CHECK_THROWS_WITH_AS(s.g.erase_node(s.relu), "erase_node: node 'relu' was already erased", Error);
  s.g.lint();
}

TEST_CASE("graph: nodes can be erased while iterating") {
  Small s;
  std::vector<std::string> visited;
  for (Node* n : s.g.nodes()) {
    visited.push_back(n->name());
    if (n == s.relu) {
      n->replace_all_uses_with(s.x);
      s.g.erase_node(n);
    }
  }
  CHECK(visited == std::vector<std::string>{"x", "relu", "add", "output"});
}

TEST_CASE("graph: inserting_before / inserting_after place new nodes") {
  Small s;
  {
    auto guard = s.g.inserting_after(s.x);
    s.g.call_function(OpKind::Neg, {s.x});
    s.g.call_function(OpKind::Exp, {s.x});
  }
  {
    auto guard = s.g.inserting_before(s.out);
    s.g.call_function(OpKind::Tanh, {s.add});
  }
  std::vector<std::string> names;
  for (Node* n : s.g.nodes()) names.push_back(n->name());
  CHECK(names == std::vector<std::string>{"x", "neg", "exp", "relu", "add", "tanh", "output"});
  // Guards restored: the insertion point is the end again, which is after the output.
  CHECK_THROWS_WITH_AS(s.g.call_function(OpKind::Sigmoid, {s.x}),
                       "fx: node 'sigmoid' cannot be inserted after the output node 'output' (insert before it with "
                       "inserting_before)",
                       Error);
  CHECK(s.g.size() == 7);
}

TEST_CASE("graph: edits that would break topological order are refused, changing nothing") {
  SUBCASE("use before definition") {
    Small s;
    const std::string before = s.g.str();
    auto guard = s.g.inserting_before(s.relu);
    CHECK_THROWS_WITH_AS(s.g.call_function(OpKind::Neg, {s.add}),
                         "fx: node 'neg' cannot use 'add', which comes after it (a graph stays in topological order)",
                         Error);
    CHECK(s.g.str() == before);
    CHECK(s.g.call_function(OpKind::Neg, {s.x})->name() == "neg");  // the name was not taken by the refusal
  }
  SUBCASE("a node after the output") {
    Small s;
    CHECK_THROWS_WITH_AS(s.g.call_function(OpKind::Neg, {s.x}),
                         "fx: node 'neg' cannot be inserted after the output node 'output' (insert before it with "
                         "inserting_before)",
                         Error);
    CHECK(s.g.size() == 4);
    s.g.lint();
  }
  SUBCASE("a second output, or an output before other nodes") {
    Small s;
    CHECK_THROWS_WITH_AS(s.g.output(s.x), "fx: the graph already has an output node 'output'", Error);
    Graph g;
    Node* x = g.placeholder("x");
    auto guard = g.inserting_before(x);
    CHECK_THROWS_WITH_AS(g.output(Argument()), "fx: the output node must be the last node, but 'x' would follow it",
                         Error);
  }
  SUBCASE("the output node cannot be erased") {
    Small s;
    CHECK_THROWS_WITH_AS(s.g.erase_node(s.out),
                         "erase_node: 'output' is the graph's output node; change what the graph returns with "
                         "update_arg(0, value) instead",
                         Error);
    s.g.lint();
  }
  SUBCASE("no output") {
    Graph g;
    g.placeholder("x");
    CHECK_THROWS_WITH_AS(g.lint(), "lint: the graph has no output node", Error);
  }
}

TEST_CASE("graph: a refused argument edit leaves args and users as they were") {
  Small s;
  Small other;
  const std::string before = s.g.str();
  const std::vector<Node*> x_users = s.x->users();
  CHECK_THROWS_WITH_AS(s.add->set_args({s.relu, other.x}),
                       "fx: node 'add' cannot use 'x', which belongs to another graph", Error);
  CHECK_THROWS_WITH_AS(s.relu->set_args({s.add}),
                       "fx: node 'relu' cannot use 'add', which comes after it (a graph stays in topological order)",
                       Error);
  CHECK_THROWS_WITH_AS(s.relu->update_arg(0, s.relu), "fx: node 'relu' cannot use itself", Error);
  CHECK_THROWS_WITH_AS(s.add->update_kwarg("alpha", other.relu),
                       "fx: node 'add' cannot use 'relu', which belongs to another graph", Error);
  CHECK_THROWS_WITH_AS(s.relu->replace_input_with(s.x, s.add),
                       "fx: node 'relu' cannot use 'add', which comes after it (a graph stays in topological order)",
                       Error);
  CHECK(s.g.str() == before);
  CHECK(s.x->users() == x_users);
  CHECK(other.x->users() == std::vector<Node*>{other.relu, other.add});
  CHECK(other.relu->users() == std::vector<Node*>{other.add});
  s.g.lint();
  other.g.lint();
  // A null node is None, as in Python.
  s.add->set_args({s.relu, static_cast<Node*>(nullptr)});
  CHECK(s.add->args()[1].is_none());
  CHECK(s.x->users() == std::vector<Node*>{s.relu});
}

// PyTorch raises TypeError("relu() got an unexpected keyword argument 'foo'") when such a call runs;
// a node is refused when it is made or edited, so it never reaches recompile().
TEST_CASE("graph: a keyword argument the op does not take is refused, naming the op and the argument") {
  Small s;
  const std::string before = s.g.str();
  const std::vector<Node*> x_users = s.x->users();
  const char* unknown = "aten::relu: got an unexpected keyword argument 'foo' (arguments: self)";
  {
    auto guard = s.g.inserting_before(s.out);
    CHECK_THROWS_WITH_AS(s.g.call_function(OpKind::Relu, {s.x}, {{"foo", 1}}), unknown, Error);
    CHECK_THROWS_WITH_AS(s.g.call_method(OpKind::Relu, {s.x}, {{"foo", s.relu}}), unknown, Error);
    CHECK_THROWS_WITH_AS(s.g.call_function(OpKind::Transpose, {s.x, 0, 1}, {{"dim0", 1}}),
                         "aten::transpose: got multiple values for argument 'dim0'", Error);
  }
  CHECK_THROWS_WITH_AS(s.relu->update_kwarg("foo", 1), unknown, Error);
  CHECK_THROWS_WITH_AS(s.relu->set_kwargs({{"foo", s.x}}), unknown, Error);
  CHECK_THROWS_WITH_AS(s.add->update_kwarg("alpah", 2),
                       "aten::add: got an unexpected keyword argument 'alpah' (arguments: self, other, alpha)", Error);
  CHECK_THROWS_WITH_AS(s.add->set_kwargs({{"alpha", 2}, {"alpha", 3}}),
                       "aten::add: got multiple values for keyword argument 'alpha'", Error);
  CHECK(s.g.str() == before);
  CHECK(s.x->users() == x_users);
  CHECK(s.relu->kwargs().empty());
  CHECK(s.add->kwargs().empty());
  s.add->update_kwarg("alpha", 2);  // a keyword the op takes
  CHECK(s.add->kwargs().size() == 1);
  s.g.lint();
  // The binding every runner uses refuses it too.
  CHECK_THROWS_WITH_AS(from_fx_args(OpKind::Relu, {s.x}, {{"foo", 1}}, [](Node*) { return Tensor(); }), unknown, Error);
}

TEST_CASE("graph: an erased node cannot be edited, a null replacement and a bad input name are refused") {
  Small s;
  Node* neg = nullptr;
  {
    auto guard = s.g.inserting_before(s.out);
    neg = s.g.call_function(OpKind::Neg, {s.x});
  }
  s.g.erase_node(neg);
  const std::string before = s.g.str();
  CHECK_THROWS_WITH_AS(neg->set_args({s.x}), "fx: node 'neg' was erased; its arguments cannot change", Error);
  CHECK_THROWS_WITH_AS(s.relu->replace_all_uses_with(nullptr),
                       "replace_all_uses_with: node 'relu' was given a null replacement", Error);
  CHECK_THROWS_WITH_AS(s.add->replace_input_with(s.x, nullptr),
                       "replace_input_with: node 'add' was given a null replacement", Error);
  CHECK(s.g.str() == before);
  CHECK(s.x->users() == std::vector<Node*>{s.relu, s.add});
  s.g.lint();
  CHECK_THROWS_WITH_AS(s.g.placeholder("x"), "placeholder: the graph already has an input named 'x'", Error);
  CHECK_THROWS_WITH_AS(s.g.placeholder("a b"), "placeholder: 'a b' is not a Python identifier", Error);
  CHECK(s.g.str() == before);
}

TEST_CASE("graph: replace_all_uses_with is all or nothing, and the replacement keeps its own use") {
  Small s;
  const std::string before = s.g.str();
  // x's users are relu and add; add comes after relu, but relu comes before add: refused as a whole.
  CHECK_THROWS_WITH_AS(s.x->replace_all_uses_with(s.add),
                       "fx: node 'relu' cannot use 'add', which comes after it (a graph stays in topological order)",
                       Error);
  CHECK(s.g.str() == before);
  CHECK(s.x->users() == std::vector<Node*>{s.relu, s.add});
  // FX's idiom: a node inserted after x, reading x, takes over x's other users.
  Node* neg = nullptr;
  {
    auto guard = s.g.inserting_after(s.x);
    neg = s.g.call_function(OpKind::Neg, {s.x});
  }
  CHECK(s.x->replace_all_uses_with(neg) == std::vector<Node*>{s.relu, s.add});
  CHECK(s.x->users() == std::vector<Node*>{neg});
  CHECK(s.add->args()[1].node() == neg);
  s.g.lint();
}

TEST_CASE("graph: eliminate_dead_code keeps outputs, placeholders and ops that write an argument") {
  Small s;
  Node* dead = nullptr;
  {
    auto guard = s.g.inserting_before(s.out);
    dead = s.g.call_function(OpKind::Neg, {s.x});
    s.g.call_function(OpKind::Exp, {s.relu});                 // dead
    s.g.call_method(OpKind::Add_, {s.relu, s.x});             // in-place: kept
    s.g.call_function(OpKind::ToDense, {s.relu});             // out= not passed: writes nothing, dead
    s.g.call_function(OpKind::ToDense, {s.relu}, {{"out", Argument(s.x)}});  // writes its out=: kept
  }
  s.g.erase_node(dead);
  CHECK(s.g.eliminate_dead_code());
  std::vector<std::string> names;
  for (Node* n : s.g.nodes()) names.push_back(n->name());
  CHECK(names == std::vector<std::string>{"x", "relu", "add", "add_", "to_dense_1", "output"});
  CHECK_FALSE(s.g.eliminate_dead_code());
}

TEST_CASE("graph: prints as FX does and copies faithfully") {
  Small s;
  s.x->set_type_expr("torch.Tensor");
  const std::string expected =
      "graph():\n"
      "    %x : torch.Tensor [#users=2] = placeholder[target=x]\n"
      "    %relu : [#users=1] = call_function[target=torch.relu](args = (%x,), kwargs = {})\n"
      "    %add : [#users=1] = call_function[target=operator.add](args = (%relu, %x), kwargs = {})\n"
      "    return add";
  CHECK(s.g.str() == expected);
  std::unique_ptr<Graph> copy = s.g.copy();
  CHECK(copy->str() == expected);
  CHECK(copy->find_nodes(Opcode::CallFunction).size() == 2);
  CHECK(copy->find_nodes(Opcode::CallFunction, std::string("operator.add")).size() == 1);
  Node* copied_x = copy->find_nodes(Opcode::Placeholder).at(0);
  CHECK(copied_x != s.x);
  CHECK(copied_x->num_users() == 2);
}

TEST_CASE("graph: argument printing covers lists, tuples, kwargs and Python literals") {
  Graph g;
  Node* x = g.placeholder("x");
  Node* cat = g.call_function(OpKind::Cat, {Argument::list({x, x}), 1});
  Node* clamp = g.call_function(OpKind::Clamp, {x}, {{"min", 1e-05}, {"max", Argument()}});
  Node* full = g.call_function(OpKind::Full, {Argument::int_list({2, 3}), 0.5}, {{"dtype", DType::Float64}});
  CHECK(cat->format() == "%cat : [#users=0] = call_function[target=torch.cat](args = ([%x, %x], 1), kwargs = {})");
  CHECK(clamp->format() ==
        "%clamp : [#users=0] = call_function[target=torch.clamp](args = (%x,), kwargs = {min: 1e-05, max: None})");
  CHECK(full->format() ==
        "%full : [#users=0] = call_function[target=torch.full](args = ([2, 3], 0.5), kwargs = {dtype: torch.float64})");
  CHECK(repr_arg(Argument(1e16)) == "1e+16");
  CHECK(repr_arg(Argument(123456.0)) == "123456.0");
  CHECK(repr_arg(Argument(0.1)) == "0.1");
  CHECK(repr_arg(Argument("same")) == "'same'");
}

// Expected tables: Graph.print_tabular() of PyTorch 1.13 with python3-tabulate 0.8.9, printed by
// tests/fx/gen_fx_printing_cases.py (the symbolic traces of its M and AddRelu).
TEST_CASE("graph: tabular() is print_tabular's table") {
  Graph g;
  Node* x = g.placeholder("x");
  Node* conv = g.call_module("conv", {x});
  Node* add = g.call_function(OpKind::Add, {conv, x}, {}, CallStyle::Operator);
  Node* relu = g.call_method(OpKind::Relu, {add});
  g.output(g.call_method(OpKind::Flatten, {relu}, {{"start_dim", int64_t{1}}}));
  CHECK(g.tabular() ==
        "opcode         name     target                   args        kwargs\n"
        "-------------  -------  -----------------------  ----------  ----------------\n"
        "placeholder    x        x                        ()          {}\n"
        "call_module    conv     conv                     (x,)        {}\n"
        "call_function  add      <built-in function add>  (conv, x)   {}\n"
        "call_method    relu     relu                     (add,)      {}\n"
        "call_method    flatten  flatten                  (relu,)     {'start_dim': 1}\n"
        "output         output   output                   (flatten,)  {}");
}

TEST_CASE("graph: tabular() of the fuser tutorial's traced model") {
  Graph g;
  Node* v = g.placeholder("x");
  for (const char* target : {"conv1", "bn1", "conv2", "nested.0", "nested.1", "wrapped.mod"})
    v = g.call_module(target, {v});
  g.output(v);
  CHECK(g.tabular() ==
        "opcode       name         target       args            kwargs\n"
        "-----------  -----------  -----------  --------------  --------\n"
        "placeholder  x            x            ()              {}\n"
        "call_module  conv1        conv1        (x,)            {}\n"
        "call_module  bn1          bn1          (conv1,)        {}\n"
        "call_module  conv2        conv2        (bn1,)          {}\n"
        "call_module  nested_0     nested.0     (conv2,)        {}\n"
        "call_module  nested_1     nested.1     (nested_0,)     {}\n"
        "call_module  wrapped_mod  wrapped.mod  (nested_1,)     {}\n"
        "output       output       output       (wrapped_mod,)  {}");
}

TEST_CASE("graph: a torch.* target prints as its builtin, without Python's address") {
  Graph g;
  Node* x = g.placeholder("x");
  g.output(g.call_function(OpKind::Relu, {x}));
  CHECK(g.tabular().find("call_function  relu    <built-in method relu of type object>  (x,)") != std::string::npos);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: fx::Namespace is UniqueNames and fx::Value is NodeValue for one more version") {
  static_assert(std::is_same_v<Value, NodeValue>);
  Namespace names;
  CHECK(names.create_name("add") == "add");
  CHECK(names.create_name("add") == "add_1");
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl::fx
