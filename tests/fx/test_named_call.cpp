// tests/fx/test_named_call.cpp — named calls (core/named_call.h): the torch.nn.functional functions torchvision's
// models call and x[...] trace as one call_function node each, with the graph and code torch.fx records
// (tests/fx/gen_named_calls.py); the GraphModule, Interpreter, ShapeProp, ProfilingInterpreter and tracing with
// example inputs run them as eager does; optimize_for_inference folds F.relu; the registry refuses misuse.
#include <doctest/doctest.h>

#include "core/generator.h"
#include "core/named_call.h"
#include "fx/interpreter.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/profiling_interpreter.h"
#include "fx/shape_prop.h"
#include "fx/tracer.h"
#include "nn/functional.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

namespace F = nn::functional;
using indexing::None;
using indexing::Slice;

// gen_named_calls.py's Functional, the F.* calls written as its Python writes them.
class Functional : public nn::Module {
 public:
  Functional() {
    register_parameter("weight", from_vector<float>({1.0f, 0.5f, 2.0f, -1.0f}, {4}));
    register_parameter("bias", from_vector<float>({0.1f, 0.0f, -0.2f, 0.3f}, {4}));
  }
  Tensor forward(const Tensor& x) override {
    const Tensor y = F::relu(x);
    const Tensor a = F::max_pool2d(y, 3, 2);
    const Tensor b = F::avg_pool2d(y, {.kernel_size = 3, .stride = 2});
    const Tensor c = F::avg_pool2d(y, 3, 2);
    Tensor s = F::relu(tl::cat({a, b, c}, 1), /*inplace=*/true);
    s = F::dropout(s, 0.2, is_training());
    s = F::layer_norm(s, {4}, parameter("weight"), parameter("bias"), 1e-3);
    const Tensor p = F::adaptive_avg_pool2d(s, {1, 1});
    const Tensor q = F::adaptive_avg_pool2d(s, 2);
    const Tensor flat = tl::flatten(p, 1);  // sequenced: C++ leaves the order of + open
    return flat + tl::flatten(q, 1).index({Slice(), Slice(None, 9)});
  }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Functional>(); }
};

std::shared_ptr<Functional> functional_model() {
  auto m = std::make_shared<Functional>();
  m->eval();
  return m;
}

TEST_CASE("named calls: F.relu, max_pool2d, avg_pool2d, dropout, layer_norm, adaptive_avg_pool2d and x[...] trace as torch.fx's nodes") {
  auto gm = symbolic_trace(functional_model());
  CHECK(gm->graph().str() ==
        "graph():\n    %x : [#users=1] = placeholder[target=x]\n    %relu : [#users=3] = call_function[target=torch.nn.functional.relu](args = (%x,), kwargs = {inplace: False})\n    %max_pool2d : [#users=1] = call_function[target=torch.nn.functional.max_pool2d](args = (%relu, 3), kwargs = {stride: 2, padding: 0, dilation: 1, ceil_mode: False, return_indices: False})\n    %avg_pool2d : [#users=1] = call_function[target=torch._C._nn.avg_pool2d](args = (%relu,), kwargs = {kernel_size: 3, stride: 2})\n    %avg_pool2d_1 : [#users=1] = call_function[target=torch._C._nn.avg_pool2d](args = (%relu, 3, 2), kwargs = {})\n    %cat : [#users=1] = call_function[target=torch.cat](args = ([%max_pool2d, %avg_pool2d, %avg_pool2d_1], 1), kwargs = {})\n    %relu_1 : [#users=1] = call_function[target=torch.nn.functional.relu](args = (%cat,), kwargs = {inplace: True})\n    %dropout : [#users=1] = call_function[target=torch.nn.functional.dropout](args = (%relu_1,), kwargs = {p: 0.2, training: False, inplace: False})\n    %weight : [#users=1] = get_attr[target=weight]\n    %bias : [#users=1] = get_attr[target=bias]\n    %layer_norm : [#users=2] = call_function[target=torch.nn.functional.layer_norm](args = (%dropout, (4,)), kwargs = {weight: %weight, bias: %bias, eps: 0.001})\n    %adaptive_avg_pool2d : [#users=1] = call_function[target=torch.nn.functional.adaptive_avg_pool2d](args = (%layer_norm, (1, 1)), kwargs = {})\n    %adaptive_avg_pool2d_1 : [#users=1] = call_function[target=torch.nn.functional.adaptive_avg_pool2d](args = (%layer_norm, 2), kwargs = {})\n    %flatten : [#users=1] = call_function[target=torch.flatten](args = (%adaptive_avg_pool2d, 1), kwargs = {})\n    %flatten_1 : [#users=1] = call_function[target=torch.flatten](args = (%adaptive_avg_pool2d_1, 1), kwargs = {})\n    %getitem : [#users=1] = call_function[target=operator.getitem](args = (%flatten_1, (slice(None, None, None), slice(None, 9, None))), kwargs = {})\n    %add : [#users=1] = call_function[target=operator.add](args = (%flatten, %getitem), kwargs = {})\n    return add");
  CHECK(gm->code() ==
        "\n\n\ndef forward(self, x):\n    relu = torch.nn.functional.relu(x, inplace = False);  x = None\n    max_pool2d = torch.nn.functional.max_pool2d(relu, 3, stride = 2, padding = 0, dilation = 1, ceil_mode = False, return_indices = False)\n    avg_pool2d = torch._C._nn.avg_pool2d(relu, kernel_size = 3, stride = 2)\n    avg_pool2d_1 = torch._C._nn.avg_pool2d(relu, 3, 2);  relu = None\n    cat = torch.cat([max_pool2d, avg_pool2d, avg_pool2d_1], 1);  max_pool2d = avg_pool2d = avg_pool2d_1 = None\n    relu_1 = torch.nn.functional.relu(cat, inplace = True);  cat = None\n    dropout = torch.nn.functional.dropout(relu_1, p = 0.2, training = False, inplace = False);  relu_1 = None\n    weight = self.weight\n    bias = self.bias\n    layer_norm = torch.nn.functional.layer_norm(dropout, (4,), weight = weight, bias = bias, eps = 0.001);  dropout = weight = bias = None\n    adaptive_avg_pool2d = torch.nn.functional.adaptive_avg_pool2d(layer_norm, (1, 1))\n    adaptive_avg_pool2d_1 = torch.nn.functional.adaptive_avg_pool2d(layer_norm, 2);  layer_norm = None\n    flatten = torch.flatten(adaptive_avg_pool2d, 1);  adaptive_avg_pool2d = None\n    flatten_1 = torch.flatten(adaptive_avg_pool2d_1, 1);  adaptive_avg_pool2d_1 = None\n    getitem = flatten_1[(slice(None, None, None), slice(None, 9, None))];  flatten_1 = None\n    add = flatten + getitem;  flatten = getitem = None\n    return add\n    ");
}

TEST_CASE("named calls: the GraphModule, Interpreter, ShapeProp, ProfilingInterpreter and an example trace give eager's values") {
  auto model = functional_model();
  manual_seed(3);
  const Tensor x = randn({2, 3, 9, 9});
  const Tensor eager = (*model)(x.clone());
  REQUIRE(eager.shape() == Shape{2, 9});
  auto gm = symbolic_trace(model);
  CHECK_TENSOR_CLOSE((*gm)(x.clone()), eager, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(Interpreter(gm).run(TensorList{x.clone()})[0], eager, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(ShapeProp(gm).propagate(TensorList{x.clone()})[0], eager, 0.0, 0.0);
  const Node* pool = gm->graph().find_nodes(Opcode::CallFunction)[1];
  REQUIRE(pool->name() == "max_pool2d");
  CHECK(std::any_cast<TensorMeta>(pool->meta().at("tensor_meta")).shape == Shape{2, 3, 4, 4});
  ProfilingInterpreter profiler(model);
  CHECK_TENSOR_CLOSE(profiler.run(TensorList{x.clone()})[0], eager, 0.0, 0.0);
  CHECK(profiler.summary().find("layer_norm") != std::string::npos);
  auto traced = symbolic_trace(model, {x.clone()});
  CHECK(traced->graph().str() == gm->graph().str());
  const Node* getitem = traced->graph().find_nodes(Opcode::CallFunction)[12];
  REQUIRE(getitem->name() == "getitem");
  CHECK(std::any_cast<TensorMeta>(getitem->meta().at("tensor_meta")).shape == Shape{2, 9});
  CHECK_TENSOR_CLOSE((*traced)(x.clone()), eager, 0.0, 0.0);
}

// gen_named_calls.py's Losses: forward(x, target, y).
class Losses : public nn::Module {
 public:
  nn::ForwardSignature forward_signature() const override { return {.arg_names = {"x", "target", "y"}}; }
  TensorList forward(nn::Inputs in) override {
    const Tensor nll = F::nll_loss(in[0].log_softmax(1), in[1]);  // sequenced: C++ leaves the order of + open
    return {nll + F::mse_loss(in[0], in[2], "sum")};
  }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Losses>(); }
};

TEST_CASE("named calls: F.nll_loss and F.mse_loss trace as torch.fx's nodes and run as eager") {
  auto model = std::make_shared<Losses>();
  auto gm = symbolic_trace(model);
  CHECK(gm->graph().str() ==
        "graph():\n    %x : [#users=2] = placeholder[target=x]\n    %target : [#users=1] = placeholder[target=target]\n    %y : [#users=1] = placeholder[target=y]\n    %log_softmax : [#users=1] = call_method[target=log_softmax](args = (%x, 1), kwargs = {})\n    %nll_loss : [#users=1] = call_function[target=torch.nn.functional.nll_loss](args = (%log_softmax, %target), kwargs = {weight: None, size_average: None, ignore_index: -100, reduce: None, reduction: mean})\n    %mse_loss : [#users=1] = call_function[target=torch.nn.functional.mse_loss](args = (%x, %y), kwargs = {size_average: None, reduce: None, reduction: sum})\n    %add : [#users=1] = call_function[target=operator.add](args = (%nll_loss, %mse_loss), kwargs = {})\n    return add");
  CHECK(gm->code() ==
        "\n\n\ndef forward(self, x, target, y):\n    log_softmax = x.log_softmax(1)\n    nll_loss = torch.nn.functional.nll_loss(log_softmax, target, weight = None, size_average = None, ignore_index = -100, reduce = None, reduction = 'mean');  log_softmax = target = None\n    mse_loss = torch.nn.functional.mse_loss(x, y, size_average = None, reduce = None, reduction = 'sum');  x = y = None\n    add = nll_loss + mse_loss;  nll_loss = mse_loss = None\n    return add\n    ");
  manual_seed(5);
  const Tensor x = randn({4, 3}), y = randn({4, 3});
  const Tensor target = from_vector<int64_t>({0, 2, 1, 2}, {4});
  const Tensor eager = (*model)(TensorList{x, target, y})[0];
  CHECK_TENSOR_CLOSE((*gm)(TensorList{x, target, y})[0], eager, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(Interpreter(gm).run(TensorList{x, target, y})[0], eager, 0.0, 0.0);
  const Tensor weight = ones({3});
  const ScopeArg args[] = {x.log_softmax(1), target};
  const KeywordArg legacy[] = {{"weight", weight}, {"reduce", AttrValue(true)}};
  CHECK_THROWS_WITH_AS(run_named_call(NamedCall{"torch.nn.functional.nll_loss", args, legacy}),
                       "torch.nn.functional.nll_loss: size_average and reduce are deprecated and not supported; use "
                       "reduction",
                       Error);
}

// torchvision's BasicConv2d ends so: conv, then F.relu(inplace=True).
class ConvRelu : public nn::Module {
 public:
  ConvRelu() {
    register_module("conv", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 3, .out_channels = 8,
                                                                           .kernel_size = 3, .padding = 1}));
  }
  Tensor forward(const Tensor& x) override { return F::relu(submodule("conv")(x), /*inplace=*/true); }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ConvRelu>(); }
};

TEST_CASE("named calls: optimize_for_inference folds F.relu into the conv before it, as it folds the relu op") {
  auto model = std::make_shared<ConvRelu>();
  model->eval();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {}});
  CHECK(optimized->graph().find_nodes(Opcode::CallFunction, std::string("torch.nn.functional.relu")).empty());
  CHECK(optimized->graph().find_nodes(Opcode::CallModule).size() == 1);
  manual_seed(7);
  const Tensor x = randn({2, 3, 10, 10});
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-4, 1e-5);
}

TEST_CASE("named calls: an unregistered target is refused, when called and when a graph runs it") {
  const Tensor x = ones({2});
  const ScopeArg args[] = {x};
  CHECK_THROWS_WITH_AS(run_named_call(NamedCall{"mylib.nothing", args, {}}),
                       "named call: no function is registered under 'mylib.nothing'", Error);
  CHECK_THROWS_WITH_AS(register_named_function("torch.nn.functional.relu", {}),
                       "register_named_function: 'torch.nn.functional.relu' is registered already", Error);
  auto graph = std::make_unique<Graph>();
  Node* in = graph->placeholder("x");
  graph->output(graph->create_node(Opcode::CallFunction, "mylib.nothing", {in}));
  CHECK_THROWS_WITH_AS(GraphModule(*functional_model(), std::move(graph)),
                       "lint: call_function node 'nothing' calls 'mylib.nothing', which is neither an op nor a "
                       "registered named call",
                       Error);
}

TEST_CASE("named calls: arguments bind as Python binds them; a wrong one is refused naming the function") {
  const Tensor x = from_vector<float>({-1.0f, 2.0f}, {2});
  const ScopeArg args[] = {x};
  const KeywordArg inplace[] = {{"inplace", AttrValue(false)}};
  CHECK_TENSOR_CLOSE(run_named_call(NamedCall{"torch.nn.functional.relu", args, inplace})[0],
                     from_vector<float>({0.0f, 2.0f}, {2}), 0.0, 0.0);
  const KeywordArg unknown[] = {{"in_place", AttrValue(false)}};
  CHECK_THROWS_WITH_AS(run_named_call(NamedCall{"torch.nn.functional.relu", args, unknown}),
                       "torch.nn.functional.relu: got an unexpected keyword argument 'in_place'", Error);
  const ScopeArg two[] = {x, AttrValue(true)};
  CHECK_THROWS_WITH_AS(run_named_call(NamedCall{"torch.nn.functional.relu", two, inplace}),
                       "torch.nn.functional.relu: got multiple values for argument 'inplace'", Error);
  const ScopeArg many[] = {x, AttrValue(true), AttrValue(true)};
  CHECK_THROWS_WITH_AS(run_named_call(NamedCall{"torch.nn.functional.relu", many, {}}),
                       "torch.nn.functional.relu: takes 2 arguments but 3 were given", Error);
  CHECK_THROWS_WITH_AS(run_named_call(NamedCall{"torch.nn.functional.max_pool2d", args, {}}),
                       "torch.nn.functional.max_pool2d: missing argument 'kernel_size'", Error);
  const ScopeArg not_a_tensor[] = {AttrValue(int64_t{1})};
  CHECK_THROWS_WITH_AS(run_named_call(NamedCall{"torch.nn.functional.relu", not_a_tensor, {}}),
                       "torch.nn.functional.relu: argument 'input' must be a tensor or None", Error);
  CHECK(equal(x, from_vector<float>({-1.0f, 2.0f}, {2})));
}

}  // namespace
}  // namespace tl::fx
