// tests/fx/test_tracer.cpp — symbolic tracing: the ResNet18 and toy-model graphs and code match
// PyTorch's byte for byte; naming, targets, leaves, constants, example inputs and proxy errors.
#include <doctest/doctest.h>

#include <any>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "fx/getitem.h"
#include "fx/traced_shape.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "models/toy_fuser.h"
#include "nn/functional.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "optim/sgd.h"
#include "fx/interpreter.h"
#include "tests/support/reference_files.h"
#include "tests/support/reflected_forms.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

using testing::between;
using testing::read_reference;
using testing::strip_trailing_newlines;

TEST_CASE("symbolic_trace: ResNet18's graph and code equal PyTorch's") {
  auto traced = symbolic_trace(models::resnet18());
  CHECK(traced->graph().str() == strip_trailing_newlines(read_reference("resnet18_graph.txt")));
  CHECK(traced->code() == read_reference("resnet18_code.txt"));
  CHECK(traced->type_name() == "ResNet");
}

TEST_CASE("symbolic_trace: the fuser seed's M prints as in PyTorch") {
  const std::string ref = read_reference("toy_fuser_model.txt");
  auto traced = symbolic_trace(models::toy_fuser_model());
  CHECK(traced->graph().str() ==
        between(ref, "print(symbolic_trace(model).graph):\n", "\n\nsymbolic_trace(model).code:"));
  CHECK(traced->code() == between(ref, "symbolic_trace(model).code:\n", "\n\nfuse(model).code:"));
}

// A module reused at two call sites, a name that collides with an op's, a method, a function,
// operators and a scalar argument.
class Naming : public nn::Module {
 public:
  Naming() {
    register_module("relu", std::make_shared<nn::ReLU>());
    register_module("add", std::make_shared<nn::Identity>());
  }
  std::string type_name() const override { return "Naming"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    Tensor a = submodule("relu")(x);
    Tensor b = submodule("relu")(a);
    Tensor c = submodule("add")(b + a);  // the module "add" takes the name first, the op gets add_1
    Tensor d = c.flatten(1) * 2.0;
    return tl::relu(d).sum({1});
  }
};

TEST_CASE("symbolic_trace: FX naming rules and targets for functions, methods and operators") {
  auto traced = symbolic_trace(std::make_shared<Naming>());
  const std::string expected =
      "graph():\n"
      "    %x : [#users=1] = placeholder[target=x]\n"
      "    %relu : [#users=2] = call_module[target=relu](args = (%x,), kwargs = {})\n"
      "    %relu_1 : [#users=1] = call_module[target=relu](args = (%relu,), kwargs = {})\n"
      "    %add : [#users=1] = call_function[target=operator.add](args = (%relu_1, %relu), kwargs = {})\n"
      "    %add_1 : [#users=1] = call_module[target=add](args = (%add,), kwargs = {})\n"
      "    %flatten : [#users=1] = call_method[target=flatten](args = (%add_1, 1), kwargs = {})\n"
      "    %mul : [#users=1] = call_function[target=operator.mul](args = (%flatten, 2.0), kwargs = {})\n"
      "    %relu_2 : [#users=1] = call_function[target=torch.relu](args = (%mul,), kwargs = {})\n"
      "    %sum_1 : [#users=1] = call_method[target=sum](args = (%relu_2, [1]), kwargs = {})\n"
      "    return sum_1";
  CHECK(traced->graph().str() == expected);
  CHECK(traced->code() ==
        "\n\n\ndef forward(self, x):\n"
        "    relu = self.relu(x);  x = None\n"
        "    relu_1 = self.relu(relu)\n"
        "    add = relu_1 + relu;  relu_1 = relu = None\n"
        "    add_1 = self.add(add);  add = None\n"
        "    flatten = add_1.flatten(1);  add_1 = None\n"
        "    mul = flatten * 2.0;  flatten = None\n"
        "    relu_2 = torch.relu(mul);  mul = None\n"
        "    sum_1 = relu_2.sum([1]);  relu_2 = None\n"
        "    return sum_1\n"
        "    ");
}

// make_reflected_references.py's Reflected: numbers on the left of operators and one-int reductions.
class Reflected : public nn::Module {
 public:
  std::string type_name() const override { return "Reflected"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    const Tensor a = 2.0 - x, b = 2 * x, c = 1.0 / x, d = 2 + x;
    const Tensor lt = 2 < x, eq = 2 == x;
    // One op per statement: C++ leaves the order of an expression's operands open, Python goes left to right.
    const Tensor ab = a * b, cd = c - d, sum = ab + cd;
    const Tensor lt_f = lt.to(DType::Float32), sum0 = x.sum(0), lt_sum = lt_f * sum0, sum2 = sum + lt_sum;
    const Tensor eq_f = eq.to(DType::Float32), mean0 = x.mean(0), eq_mean = eq_f * mean0;
    return sum2 + eq_mean;
  }
};

TEST_CASE("symbolic_trace: a number on the left stays there, as torch.fx records it (reflected_operators.json)") {
  const nlohmann::json ref = testing::reflected_reference();
  const nlohmann::json& expected = ref.at("traced");
  auto module = std::make_shared<Reflected>();
  auto traced = symbolic_trace(module);
  CHECK(traced->graph().str() == strip_trailing_newlines(expected.at("graph")));
  CHECK(traced->code() == expected.at("code").get<std::string>());
  CHECK(traced->graph().tabular() + "\n" == expected.at("tabular").get<std::string>());

  const Tensor x = testing::reference_input(ref, "x", DType::Float32);
  const Tensor eager = (*module)(x);
  CHECK_TENSOR_CLOSE(eager, testing::reference_tensor(expected.at("output")), 1e-6, 0);
  CHECK_TENSOR_CLOSE((*traced)(x), eager, 0, 0);
  CHECK_TENSOR_CLOSE(Interpreter(traced).run(TensorList{x})[0], eager, 0, 0);
  CHECK(symbolic_trace(traced)->code() == traced->code());  // traced again, the numbers stay on the left
}

TEST_CASE("GraphModule: an operator node with a number first runs Python's reflected operator") {
  auto gm = symbolic_trace(std::make_shared<Reflected>());
  Graph& g = gm->graph();
  Node* x = g.find_nodes(Opcode::Placeholder).at(0);
  Node* out = g.output_node();
  Node* sub = nullptr;
  Node* lt = nullptr;
  {
    auto guard = g.inserting_before(out);
    sub = g.call_function(OpKind::Sub, {3.0, x}, {}, CallStyle::Operator);
  }
  out->update_arg(0, Argument(sub));
  g.eliminate_dead_code();
  gm->recompile();
  const Tensor in = from_vector<float>({1.5f, -2.0f}, {2});
  CHECK_TENSOR_CLOSE((*gm)(in), 3.0 - in, 0, 0);
  CHECK(gm->code().find("sub_2 = 3.0 - x") != std::string::npos);
  {
    auto guard = g.inserting_before(out);
    lt = g.call_function(OpKind::Lt, {int64_t{2}, x}, {}, CallStyle::Operator);
  }
  out->update_arg(0, Argument(lt));
  CHECK_THROWS_WITH_AS(gm->recompile(), doctest::Contains("operator.lt with a number first (2) has no reflected op"), Error);
}

// A backward op's bool[3] output_mask: carried as 1 / 0 (core/schema.h), written as Python's bools.
class MaskedBackward : public nn::Module {
 public:
  std::string type_name() const override { return "MaskedBackward"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    const Tensor ones = tl::ones({3});
    return std::get<0>(native_batch_norm_backward(x, x, ones, ones, ones, {}, {}, false, 1e-5, {true, false, true}));
  }
};

TEST_CASE("symbolic_trace: a bool list argument prints as bools and runs again as traced") {
  const Tensor x = randn({2, 3, 4});
  auto traced = symbolic_trace(std::make_shared<MaskedBackward>(), {x});
  CHECK(traced->code().find("False, 1e-05, [True, False, True])") != std::string::npos);
  const Tensor ones = tl::ones({3});
  const Tensor eager = std::get<0>(native_batch_norm_backward(x, x, ones, ones, ones, {}, {}, false, 1e-5, {true, true, true}));
  CHECK(equal((*traced)(x), eager));
}

class ReadsData : public nn::Module {
 public:
  std::string type_name() const override { return "ReadsData"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    if (x.sum().item<double>() > 0) return x;  // control flow on a traced value
    return -x;
  }
};

class ReadsShape : public nn::Module {
 public:
  std::string type_name() const override { return "ReadsShape"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override { return x.view({x.size(0), -1}); }
};

TEST_CASE("symbolic_trace: using a proxy's data or shape is a clear error") {
  CHECK_THROWS_WITH_AS(symbolic_trace(std::make_shared<ReadsData>()),
                       doctest::Contains("symbolic tracing: %sum_1 is a traced value (a Proxy) in ReadsData.forward"), Error);
  CHECK_THROWS_WITH_AS(symbolic_trace(std::make_shared<ReadsShape>()),
                       doctest::Contains("its shape is unknown while tracing symbolically"), Error);
}

TEST_CASE("symbolic_trace: with example inputs shapes are known and recorded") {
  manual_seed(0);
  auto shape_model = std::make_shared<ReadsShape>();
  auto traced = symbolic_trace(shape_model, {randn({2, 3, 4})});
  Node* view = traced->graph().find_nodes(Opcode::CallMethod, std::string("view")).at(0);
  // Python writes x.view(n, -1): a method whose one argument is an int list records it as varargs.
  CHECK(view->args().size() == 3);
  CHECK(view->args().at(1) == Argument(int64_t{2}));
  CHECK(view->args().at(2) == Argument(int64_t{-1}));
  CHECK(traced->code().find("view = x.view(2, -1)") != std::string::npos);
  REQUIRE(view->tensor_meta() != nullptr);
  CHECK(view->tensor_meta()->shape == Shape{2, 12});
}

TEST_CASE("trace_for_shape: a graph holding an example's sizes runs that shape only, and says so naming both") {
  manual_seed(0);
  CHECK_THROWS_WITH_AS(trace_for_shape(std::make_shared<ReadsShape>(), {}),
                       doctest::Contains("its shape is unknown while tracing symbolically"), Error);
  auto traced = trace_for_shape(std::make_shared<ReadsShape>(), {2, 3, 4});
  const Node* x = traced->graph().find_nodes(Opcode::Placeholder).at(0);
  REQUIRE(x->meta().count(kTracedShape) == 1);
  CHECK(std::any_cast<Shape>(x->meta().at(kTracedShape)) == Shape{2, 3, 4});
  const Tensor same = randn({2, 3, 4});
  CHECK_TENSOR_CLOSE((*traced)(same), same.view({2, 12}), 0.0, 0.0);
  // [2, 12] from [2, 4, 3] would be a silent wrong answer: the view's sizes are the example's constants.
  CHECK_THROWS_WITH_AS((*traced)(randn({2, 4, 3})),
                       "ReadsShape.forward: input 'x' has shape [2, 4, 3], but the graph was traced on an example of "
                       "shape [2, 3, 4], whose sizes it holds as constants (the traced forward reads its input's "
                       "shape); trace again with an example of shape [2, 4, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(Interpreter(traced).run(randn({5, 3, 4})), doctest::Contains("has shape [5, 3, 4]"), Error);
  // Its retrace (what optimize_for_inference does after rewriting) holds the same shape.
  TracedGraph retraced = Tracer().trace(*traced);
  CHECK(std::any_cast<Shape>(retraced.graph->find_nodes(Opcode::Placeholder).at(0)->meta().at(kTracedShape)) ==
        Shape{2, 3, 4});
  // A forward that reads no shape traces symbolically: its graph serves every shape.
  auto general = trace_for_shape(std::make_shared<nn::ReLU>(), {2, 3});
  CHECK(general->graph().find_nodes(Opcode::Placeholder).at(0)->meta().count(kTracedShape) == 0);
  CHECK((*general)(randn({4})).shape() == Shape{4});
}

// x.max(1)[0]: only the element used gets its getitem. With reads_indices, it reads the other's data.
class MaxValues : public nn::Module {
 public:
  bool reads_indices = false;
  std::string type_name() const override { return "MaxValues"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    if (!reads_indices) return x.max(1).values;
    auto [values, indices] = x.max(1);
    return indices.item<int64_t>() > 0 ? x : values;
  }
};

// r = torch.min(x, 1); y = torch.relu(x); return r[1], y, r[0]: each getitem is made where it is used.
class MinUsedLater : public nn::Module {
 public:
  std::string type_name() const override { return "MinUsedLater"; }
  using nn::Module::forward;
  TensorList forward(nn::Inputs in) override {
    auto [values, indices] = min(in[0], 1);
    const Tensor y = relu(in[0]);
    return {indices, y, values};
  }
};

// Expected: PyTorch 1.13's graphs and code of the same modules (tests/fx/gen_fx_printing_cases.py).
TEST_CASE("symbolic_trace: a multi-output op gets a getitem for each element used, where it is first used") {
  auto max_values = symbolic_trace(std::make_shared<MaxValues>());
  CHECK(max_values->graph().str() ==
        "graph():\n    %x : [#users=1] = placeholder[target=x]\n    %max_1 : [#users=1] = call_method[target=max](args "
        "= (%x, 1), kwargs = {})\n    %getitem : [#users=1] = call_function[target=operator.getitem](args = (%max_1, "
        "0), kwargs = {})\n    return getitem");
  CHECK(max_values->code() ==
        "\n\n\ndef forward(self, x):\n    max_1 = x.max(1);  x = None\n    getitem = max_1[0];  max_1 = None\n    "
        "return getitem\n    ");
  auto min_later = symbolic_trace(std::make_shared<MinUsedLater>());
  CHECK(min_later->graph().str() ==
        "graph():\n    %x : [#users=2] = placeholder[target=x]\n    %min_1 : [#users=2] = "
        "call_function[target=torch.min](args = (%x, 1), kwargs = {})\n    %relu : [#users=1] = "
        "call_function[target=torch.relu](args = (%x,), kwargs = {})\n    %getitem : [#users=1] = "
        "call_function[target=operator.getitem](args = (%min_1, 1), kwargs = {})\n    %getitem_1 : [#users=1] = "
        "call_function[target=operator.getitem](args = (%min_1, 0), kwargs = {})\n    return (getitem, relu, "
        "getitem_1)");
  CHECK(min_later->code() ==
        "\n\n\ndef forward(self, x):\n    min_1 = torch.min(x, 1)\n    relu = torch.relu(x);  x = None\n    getitem "
        "= min_1[1]\n    getitem_1 = min_1[0];  min_1 = None\n    return (getitem, relu, getitem_1)\n    ");
  const Tensor x = randn({2, 3});
  const TensorList eager = MinUsedLater()(TensorList{x}), traced = (*min_later)(TensorList{x});
  REQUIRE(traced.size() == 3);
  for (size_t i = 0; i < 3; ++i) CHECK(equal(traced[i], eager[i]));
  // With example inputs, a getitem made on use still records its element's shape.
  auto with_shapes = symbolic_trace(std::make_shared<MaxValues>(), {randn({2, 3, 4})});
  Node* getitem = with_shapes->graph().find_nodes(Opcode::CallFunction, std::string("operator.getitem")).at(0);
  REQUIRE(getitem->tensor_meta() != nullptr);
  CHECK(getitem->tensor_meta()->shape == Shape{2, 4});
  CHECK(with_shapes->graph().find_nodes(Opcode::CallFunction, std::string("operator.getitem")).size() == 1);
}

// gen_fx_printing_cases.py's Indexing: Python's x[...] in its forms.
class Indexing : public nn::Module {
 public:
  std::string type_name() const override { return "Indexing"; }
  using nn::Module::forward;
  TensorList forward(nn::Inputs in) override {
    using namespace indexing;
    const Tensor& x = in[0];
    const Tensor a = x.index({Slice(), 0});
    const Tensor b = x.index({Ellipsis, Slice(1, 3), None});
    const Tensor c = x.index({in[1]});
    const Tensor d = x[0];
    const Tensor e = x.index({x > 0});
    const Tensor g = x.index({true, Slice(), Slice(None, None, 2), -1});
    return {a, b, c, d, e, g};
  }
  nn::ForwardSignature forward_signature() const override { return nn::ForwardSignature{{"x", "i"}, {}, ""}; }
};

// Expected: torch.fx's graph and code of the same module (tests/fx/gen_fx_printing_cases.py).
TEST_CASE("symbolic_trace: x[...] is one operator.getitem with Python's key, and runs as the eager indexing") {
  auto traced = symbolic_trace(std::make_shared<Indexing>());
  CHECK(traced->graph().str() ==
        "graph():\n    %x : [#users=7] = placeholder[target=x]\n    %i : [#users=1] = placeholder[target=i]\n    "
        "%getitem : [#users=1] = call_function[target=operator.getitem](args = (%x, (slice(None, None, None), 0)), "
        "kwargs = {})\n    %getitem_1 : [#users=1] = call_function[target=operator.getitem](args = (%x, (Ellipsis, "
        "slice(1, 3, None), None)), kwargs = {})\n    %getitem_2 : [#users=1] = "
        "call_function[target=operator.getitem](args = (%x, %i), kwargs = {})\n    %getitem_3 : [#users=1] = "
        "call_function[target=operator.getitem](args = (%x, 0), kwargs = {})\n    %gt : [#users=1] = "
        "call_function[target=operator.gt](args = (%x, 0), kwargs = {})\n    %getitem_4 : [#users=1] = "
        "call_function[target=operator.getitem](args = (%x, %gt), kwargs = {})\n    %getitem_5 : [#users=1] = "
        "call_function[target=operator.getitem](args = (%x, (True, slice(None, None, None), slice(None, None, 2), "
        "-1)), kwargs = {})\n    return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5)");
  CHECK(traced->code() ==
        "\n\n\ndef forward(self, x, i):\n    getitem = x[(slice(None, None, None), 0)]\n    getitem_1 = x[(Ellipsis, "
        "slice(1, 3, None), None)]\n    getitem_2 = x[i];  i = None\n    getitem_3 = x[0]\n    gt = x > 0\n    "
        "getitem_4 = x[gt];  gt = None\n    getitem_5 = x[(True, slice(None, None, None), slice(None, None, 2), -1)];  "
        "x = None\n    return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5)\n    ");
  const TensorList inputs{randn({3, 4, 5}), from_vector<int64_t>({2, 0, 2}, {3})};
  const TensorList eager = Indexing()(inputs);
  for (const TensorList& got : {(*traced)(inputs), Interpreter(traced).run(inputs)}) {
    REQUIRE(got.size() == eager.size());
    for (size_t k = 0; k < eager.size(); ++k) CHECK(equal(got[k], eager[k]));
  }
  // With example inputs each getitem records its value's shape; a bad index fails as the eager one does.
  auto with_shapes = symbolic_trace(std::make_shared<Indexing>(), inputs);
  Node* b = with_shapes->graph().find_nodes(Opcode::CallFunction, std::string("operator.getitem")).at(1);
  REQUIRE(b->tensor_meta() != nullptr);
  CHECK(b->tensor_meta()->shape == Shape{3, 4, 2, 1});
  CHECK_THROWS_WITH_AS((*traced)(TensorList{randn({2, 4, 5}), inputs[1]}),
                       doctest::Contains("index 2 is out of bounds for dimension 0 with size 2"), Error);
}

TEST_CASE("getitem: a key no index takes is refused, naming the node; a tuple takes an int only") {
  Graph g;
  Node* x = g.placeholder("x");
  Node* item = g.getitem(x, Argument::list({Argument(int64_t{0}), Argument(2.5)}, true));
  CHECK_THROWS_WITH_AS(item->call(), "GraphModule: getitem 'getitem' cannot index with 2.5; an index is an int, a "
                                     "slice, None, Ellipsis, a bool, a node, a list of ints, or a tuple of these", Error);
  Node* max_node = g.call_function(OpKind::Max, {x, int64_t{1}});
  Node* sliced = g.getitem(max_node, indexing::Slice());
  CHECK_THROWS_WITH_AS(getitem(call_result({randn({2}), randn({2})}), sliced->call().key, {}),
                       "getitem: a tuple of 2 values takes an integer index", Error);
}

TEST_CASE("symbolic_trace: reading an element of a multi-output op names the element") {
  auto reads = std::make_shared<MaxValues>();
  reads->reads_indices = true;  // an element not used before
  CHECK_THROWS_WITH_AS(symbolic_trace(reads),
                       doctest::Contains("symbolic tracing: element 1 of %max_1 is a traced value (a Proxy) in "
                                         "MaxValues.forward"),
                       Error);
}

class AllLeaves : public Tracer {
 public:
  bool is_leaf_module(const nn::Module&, const std::string&) const override { return false; }
};

TEST_CASE("Tracer: is_leaf_module decides what is traced through; parameters become get_attr") {
  auto conv = std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 2, .out_channels = 3, .kernel_size = 3, .padding = 1});
  auto seq = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{conv});
  TracedGraph traced = AllLeaves().trace(*seq);
  const std::string expected =
      "graph():\n"
      "    %x : [#users=1] = placeholder[target=x]\n"
      "    %_0_weight : [#users=1] = get_attr[target=0.weight]\n"
      "    %_0_bias : [#users=1] = get_attr[target=0.bias]\n"
      "    %conv2d : [#users=1] = call_function[target=torch.conv2d](args = (%x, %_0_weight, %_0_bias, [1, 1], [1, 1]), kwargs = {})\n"
      "    return conv2d";
  CHECK(traced.graph->str() == expected);
  CHECK(traced.constants.empty());
}

class UsesConstant : public nn::Module {
 public:
  std::string type_name() const override { return "UsesConstant"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override { return x + tl::ones({3}); }
};

TEST_CASE("symbolic_trace: tensors made inside forward become constants") {
  auto traced = symbolic_trace(std::make_shared<UsesConstant>());
  Node* c = traced->graph().find_nodes(Opcode::GetAttr).at(0);
  CHECK(c->target() == "_tensor_constant0");
  CHECK(traced->has_buffer("_tensor_constant0"));
  CHECK(equal(traced->fetch_attr("_tensor_constant0"), tl::ones({3})));
}

// torch.fx's symbolic_trace gives a GraphModule holding the root's own submodules and parameters, so
// training either one trains both; only the levels in between are the GraphModule's own.
TEST_CASE("symbolic_trace: the GraphModule shares the root's submodules and parameters, as torch.fx does") {
  manual_seed(0);
  auto model = models::toy_fuser_model();
  model->eval();
  auto traced = symbolic_trace(model);
  CHECK(traced->get_submodule("conv1") == model->get_submodule("conv1"));
  CHECK(traced->get_submodule("nested.0") == model->get_submodule("nested.0"));
  CHECK(traced->get_submodule("nested") != model->get_submodule("nested"));
  CHECK(traced->get_submodule("nested")->type_name() == "Module");
  CHECK(traced->get_parameter("conv1.weight").is_same(model->get_parameter("conv1.weight")));
  const nn::StateDict state = traced->state_dict();  // the same keys, aliasing the root's tensors
  REQUIRE(state.size() == model->state_dict().size());
  for (size_t i = 0; i < state.size(); ++i) {
    CHECK(state[i].first == model->state_dict()[i].first);
    CHECK(state[i].second.is_same(model->state_dict()[i].second));
  }
  // One SGD step of the original: the traced module computes what the trained original computes.
  const Tensor x = randn({2, 1, 4, 4});
  const Tensor before = (*model)(x);
  optim::SGD trains_model(model->parameters(), {.lr = 0.5});
  (*model)(x).sum().backward();
  trains_model.step();
  const Tensor trained = (*model)(x);
  CHECK(testing::compare_tensors(trained, before, 0.0, 0.0) != "");
  CHECK_TENSOR_CLOSE((*traced)(x), trained, 0.0, 0.0);
  // And a step through the traced module trains the original.
  optim::SGD trains_traced(traced->parameters(), {.lr = 0.5});
  trains_traced.zero_grad();
  (*traced)(x).sum().backward();
  trains_traced.step();
  CHECK(testing::compare_tensors((*model)(x), trained, 0.0, 0.0) != "");
  CHECK_TENSOR_CLOSE((*model)(x), (*traced)(x), 0.0, 0.0);
}

TEST_CASE("GraphModule: a parameter fetched by get_attr is the root's own, its requires_grad kept") {
  auto model = models::toy_fuser_model();
  model->get_parameter("conv2.weight").requires_grad_(false);  // frozen
  TracedGraph traced = AllLeaves().trace(*model);
  GraphModule gm(*model, std::move(traced.graph), "M", traced.constants);
  REQUIRE(gm.graph().find_nodes(Opcode::GetAttr, std::string("conv2.weight")).size() == 1);
  CHECK(gm.get_parameter("conv2.weight").is_same(model->get_parameter("conv2.weight")));
  CHECK_FALSE(model->get_parameter("conv2.weight").requires_grad());
  CHECK(gm.get_parameter("conv1.weight").requires_grad());
  const Tensor x = randn({1, 1, 4, 4});
  CHECK_TENSOR_CLOSE(gm(x), (*model)(x), 0.0, 0.0);
}

// Reads a second input without declaring it.
class ReadsTwo : public nn::Module {
 public:
  bool declares_two = false;
  std::string type_name() const override { return "ReadsTwo"; }
  using nn::Module::forward;
  TensorList forward(nn::Inputs in) override { return {in[0] + in[1]}; }
  nn::ForwardSignature forward_signature() const override {
    return declares_two ? nn::ForwardSignature{{"a", "b"}, {}, ""} : nn::ForwardSignature{};
  }
};

// Calls a ReadsTwo child, which tracing goes through (it is not a leaf).
class CallsReadsTwo : public nn::Module {
 public:
  CallsReadsTwo() { register_module("inner", std::make_shared<ReadsTwo>()); }
  std::string type_name() const override { return "CallsReadsTwo"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override { return submodule("inner")(x); }
};

TEST_CASE("symbolic_trace: a forward reading past its declared inputs is a tl::Error, never a read past them") {
  auto m = std::make_shared<ReadsTwo>();
  const char* message = "ReadsTwo.forward read input 1, but forward_signature() declares 1 input(s) (x); a module "
                        "taking more inputs declares them by overriding forward_signature()";
  CHECK_THROWS_WITH_AS(symbolic_trace(m), message, Error);
  CHECK_THROWS_WITH_AS(symbolic_trace(m, {randn({2})}), message, Error);
  CHECK_THROWS_WITH_AS(symbolic_trace(std::make_shared<CallsReadsTwo>()), message, Error);
  // Nothing stays installed: eager calls run kernels, and the declared module traces.
  const Tensor x = from_vector<float>({-1, 2}, {2});
  CHECK_TENSOR_CLOSE(nn::ReLU()(x), relu(x), 0.0, 0.0);
  m->declares_two = true;
  auto traced = symbolic_trace(m);
  CHECK_TENSOR_CLOSE((*traced)(TensorList{x, x})[0], x + x, 0.0, 0.0);
}

TEST_CASE("symbolic_trace: modules that are not submodules of the root are refused") {
  class Stray : public nn::Module {
   public:
    std::string type_name() const override { return "Stray"; }
    using nn::Module::forward;
    Tensor forward(const Tensor& x) override { return nn::ReLU()(x); }
  };
  CHECK_THROWS_WITH_AS(symbolic_trace(std::make_shared<Stray>()),
                       doctest::Contains("a ReLU module called in Stray.forward is not a submodule of the traced Stray"),
                       Error);
}

// Writes x in place and reads it afterwards, as torchvision's BasicConv2d does through F.relu(x, inplace=True)
// (whose C++ form hands back the tensor it was given).
class WritesThenReads : public nn::Module {
 public:
  std::string type_name() const override { return "WritesThenReads"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    Tensor y = x * 2.0;
    y.relu_();
    return y + 1.0;
  }
};

// The same through F::relu(y, inplace=true), its result not used: a named call that writes its argument.
class WritesThroughFunctional : public nn::Module {
 public:
  std::string type_name() const override { return "WritesThroughFunctional"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    Tensor y = x * 2.0;
    nn::functional::relu(y, /*inplace=*/true);
    return y + 1.0;
  }
};

TEST_CASE("symbolic_trace: a value written in place stands for the write from then on") {
  // Before, `add` read %mul, so a pass handing relu_ a copy (a layout change) lost the write.
  auto traced = symbolic_trace(std::make_shared<WritesThenReads>());
  CHECK(traced->code() ==
        "\n\n\ndef forward(self, x):\n"
        "    mul = x * 2.0;  x = None\n"
        "    relu_ = mul.relu_();  mul = None\n"
        "    add = relu_ + 1.0;  relu_ = None\n"
        "    return add\n    ");
  const Tensor x = randn({2, 3});
  CHECK_TENSOR_CLOSE((*traced)(x), WritesThenReads().forward(x), 0.0, 0.0);
  auto functional = symbolic_trace(std::make_shared<WritesThroughFunctional>());
  CHECK(functional->code() ==
        "\n\n\ndef forward(self, x):\n"
        "    mul = x * 2.0;  x = None\n"
        "    relu = torch.nn.functional.relu(mul, inplace = True);  mul = None\n"
        "    add = relu + 1.0;  relu = None\n"
        "    return add\n    ");
  CHECK_TENSOR_CLOSE((*functional)(x), WritesThenReads().forward(x), 0.0, 0.0);
}

// The same model twice: children reached through typed handles, and by name.
class ByHandle : public nn::Module {
 public:
  ByHandle() {
    conv = register_module("conv", std::make_shared<nn::Conv2d>(1, 2, 3));
    bn = register_module("bn", std::make_shared<nn::BatchNorm2d>(2));
  }
  std::string type_name() const override { return "Net"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override { return tl::relu(bn(conv(x)) + conv(x)); }
  nn::ModuleHandle<nn::Conv2d> conv;
  nn::ModuleHandle<nn::BatchNorm2d> bn;
};

class ByName : public nn::Module {
 public:
  ByName() {
    register_module("conv", std::make_shared<nn::Conv2d>(1, 2, 3));
    register_module("bn", std::make_shared<nn::BatchNorm2d>(2));
  }
  std::string type_name() const override { return "Net"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    return tl::relu(submodule("bn")(submodule("conv")(x)) + submodule("conv")(x));
  }
};

TEST_CASE("symbolic_trace: a module calling its children through handles traces as one using submodule()") {
  auto by_handle = symbolic_trace(std::make_shared<ByHandle>());
  auto by_name = symbolic_trace(std::make_shared<ByName>());
  CHECK(by_handle->graph().str() == by_name->graph().str());
  CHECK(by_handle->code() == by_name->code());
  CHECK(by_handle->graph().str().find("call_module[target=conv]") != std::string::npos);
}

}  // namespace
}  // namespace tl::fx
