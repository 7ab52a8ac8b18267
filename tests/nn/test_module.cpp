// tests/nn/test_module.cpp — Module bookkeeping: registration rules, PyTorch's iteration order and
// de-duplication, dotted paths and their errors, train/eval, apply, the call path and its hooks (per
// thread and per module, with PyTorch's replacement rules and RemovableHandle), clone, to(dtype),
// zero_grad, requires_grad_, the class name a module prints without overriding type_name().
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/generator.h"
#include "core/storage.h"
#include "nn/clone_memo.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "nn/module.h"
#include "nn/module_hook.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/allocation_limit.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

/// A user-defined module with one parameter, one buffer and whatever children a test adds.
class Node : public Module {
 public:
  explicit Node(std::string name = "Node") : name_(std::move(name)) {
    register_parameter("w", zeros({2}));
    register_buffer("buf", zeros({1}));
  }
  std::string type_name() const override { return name_; }
  std::shared_ptr<Module> clone() const override { return clone_as<Node>(); }
  Tensor forward(const Tensor& x) override {
    Tensor out = x;
    for (const auto& [name, child] : registered_children()) out = (*child)(out);
    return out;
  }

 private:
  std::string name_;
};

/// Two inputs, two outputs: only forward(TensorList) is overridden.
class Pair : public Module {
 public:
  std::string type_name() const override { return "Pair"; }
  TensorList forward(Inputs inputs) override { return {inputs[1], inputs[0]}; }
  ForwardSignature forward_signature() const override { return {{"a", "b"}, {}, ""}; }
};

class NoForward : public Module {
 public:
  std::string type_name() const override { return "NoForward"; }
};

std::vector<std::string> names_of(const std::vector<Module::NamedTensor>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.first);
  return out;
}

std::vector<std::string> names_of(const std::vector<Module::NamedModule>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.first);
  return out;
}

/// root(Node) -> a(Node) -> c(Node); root -> b(Node).
std::shared_ptr<Node> small_tree() {
  auto root = std::make_shared<Node>("Root");
  auto a = root->register_module("a", std::make_shared<Node>("A"));
  a->register_module("c", std::make_shared<Node>("C"));
  root->register_module("b", std::make_shared<Node>("B"));
  return root;
}

TEST_CASE("module: registration keeps order, replaces in place, and None is kept but not iterated") {
  Node m;
  m.register_parameter("v", ones({3}));
  m.register_parameter("none", Tensor());
  CHECK(names_of(m.named_parameters()) == std::vector<std::string>{"w", "v"});
  CHECK(m.has_parameter("none"));
  CHECK_FALSE(m.parameter("none").defined());

  Tensor replacement = ones({5});
  m.register_parameter("w", replacement);
  CHECK(names_of(m.named_parameters()) == std::vector<std::string>{"w", "v"});
  CHECK(m.parameter("w").is_same(replacement));
  CHECK(m.has_buffer("buf"));
  CHECK_FALSE(m.has_buffer("w"));
  CHECK_FALSE(m.has_child("w"));
}

TEST_CASE("module: bad names and names used by another kind are rejected") {
  Node m;
  CHECK_THROWS_WITH_AS(m.register_parameter("", zeros({1})), "Node: parameter name can't be empty string \"\"", Error);
  CHECK_THROWS_WITH_AS(m.register_buffer("a.b", zeros({1})), "Node: buffer name can't contain \".\", got: \"a.b\"",
                       Error);
  CHECK_THROWS_WITH_AS(m.register_buffer("w", zeros({1})), "Node: attribute 'w' already exists (as a parameter)",
                       Error);
  CHECK_THROWS_WITH_AS(m.register_module("buf", std::make_shared<Node>()),
                       "Node: attribute 'buf' already exists (as a buffer)", Error);
  m.register_module("child", std::make_shared<Node>());
  CHECK_THROWS_WITH_AS(m.register_parameter("child", zeros({1})),
                       "Node: attribute 'child' already exists (as a module)", Error);
  CHECK_THROWS_WITH_AS(m.register_module("x", std::shared_ptr<Node>()),
                       "Node: cannot register a null module as 'x'", Error);
}

TEST_CASE("module: direct access to an absent entry names the module and what it has") {
  Node m;
  CHECK_THROWS_WITH_AS(m.parameter("weight"), "Node has no parameter 'weight' (parameters: w)", Error);
  CHECK_THROWS_WITH_AS(m.buffer("running_mean"), "Node has no buffer 'running_mean' (buffers: buf)", Error);
  CHECK_THROWS_WITH_AS(m.child("conv1"), "Node has no child 'conv1' (children: none)", Error);
}

TEST_CASE("module: named_modules is pre-order with dotted paths, self first") {
  auto root = small_tree();
  CHECK(names_of(root->named_modules()) == std::vector<std::string>{"", "a", "a.c", "b"});
  CHECK(root->named_modules()[0].second.get() == root.get());
  CHECK(names_of(root->named_children()) == std::vector<std::string>{"a", "b"});
  CHECK(root->modules().size() == 4);
  CHECK(root->children().size() == 2);
  CHECK(names_of(root->named_parameters()) == std::vector<std::string>{"w", "a.w", "a.c.w", "b.w"});
  CHECK(names_of(root->named_buffers()) == std::vector<std::string>{"buf", "a.buf", "a.c.buf", "b.buf"});
  CHECK(names_of(root->named_parameters(/*recurse=*/false)) == std::vector<std::string>{"w"});
  CHECK(root->parameters().size() == 4);
  CHECK(root->buffers(false).size() == 1);
}

TEST_CASE("module: a shared module or tensor is listed once, under its first path") {
  auto root = small_tree();
  auto shared = root->child("a");
  root->register_module("again", shared);
  root->get_submodule("b")->register_parameter("tied", root->get_parameter("a.w"));
  CHECK(names_of(root->named_modules()) == std::vector<std::string>{"", "a", "a.c", "b"});
  CHECK(names_of(root->named_children()) == std::vector<std::string>{"a", "b"});
  CHECK(names_of(root->named_parameters()) == std::vector<std::string>{"w", "a.w", "a.c.w", "b.w"});
}

TEST_CASE("module: dotted paths reach submodules, parameters and buffers") {
  auto root = small_tree();
  CHECK(root->get_submodule("") == root);
  CHECK(root->get_submodule("a.c")->type_name() == "C");
  CHECK(root->get_parameter("a.c.w").is_same(root->child("a")->child("c")->parameter("w")));
  CHECK(root->get_buffer("b.buf").is_same(root->child("b")->buffer("buf")));
  CHECK(root->get_parameter("w").is_same(root->parameter("w")));
}

TEST_CASE("module: path errors name the first missing component") {
  auto root = small_tree();
  CHECK_THROWS_WITH_AS(root->get_submodule("z.c"), "unknown module path: 'z' in 'z.c' (Root has no child 'z')", Error);
  CHECK_THROWS_WITH_AS(root->get_submodule("a.x.y"), "unknown module path: 'a.x' in 'a.x.y' (A has no child 'x')",
                       Error);
  CHECK_THROWS_WITH_AS(root->get_parameter("a.c.v"), "unknown parameter: 'a.c.v' (C has no parameter 'v')", Error);
  CHECK_THROWS_WITH_AS(root->get_buffer("a.w"), "unknown buffer: 'a.w' (A has no buffer 'w')", Error);
  CHECK_THROWS_WITH_AS(root->get_parameter("q.w"), "unknown module path: 'q' in 'q.w' (Root has no child 'q')", Error);
}

TEST_CASE("module: set_submodule replaces in place or adds; intermediate components must exist") {
  auto root = small_tree();
  auto replacement = std::make_shared<Node>("New");
  root->set_submodule("a.c", replacement);
  CHECK(root->get_submodule("a.c") == replacement);
  root->set_submodule("a", std::make_shared<Identity>());
  CHECK(names_of(root->named_modules()) == std::vector<std::string>{"", "a", "b"});
  root->set_submodule("b.extra", std::make_shared<Identity>());
  CHECK(names_of(root->named_modules()) == std::vector<std::string>{"", "a", "b", "b.extra"});
  CHECK_THROWS_WITH_AS(root->set_submodule("x.y", replacement),
                       "unknown module path: 'x' in 'x.y' (Root has no child 'x')", Error);
  CHECK_THROWS_WITH_AS(root->set_submodule("", replacement),
                       "set_submodule: the path is empty (the root module cannot be replaced)", Error);
}

TEST_CASE("module: train/eval reach every descendant; apply visits children first") {
  auto root = small_tree();
  CHECK(root->is_training());
  root->eval();
  for (const auto& m : root->modules()) CHECK_FALSE(m->is_training());
  root->child("a")->train();
  CHECK_FALSE(root->is_training());
  CHECK(root->get_submodule("a.c")->is_training());
  CHECK_FALSE(root->child("b")->is_training());

  std::vector<std::string> order;
  root->apply([&](Module& m) { order.push_back(m.type_name()); });
  CHECK(order == std::vector<std::string>{"C", "A", "B", "Root"});
}

TEST_CASE("module: call path defaults and their errors") {
  Pair pair;
  const Tensor a = zeros({1}), b = ones({2});
  const TensorList out = pair({a, b});
  REQUIRE(out.size() == 2);
  CHECK(out[0].is_same(b));
  CHECK(out[1].is_same(a));

  NoForward none;
  CHECK_THROWS_WITH_AS(none(a), "Module [NoForward] is missing the required \"forward\" function", Error);
  Node node;
  CHECK_THROWS_WITH_AS(node(TensorList{a, b}),
                       "Node.forward takes 1 input(s) (x), got 2; a module taking other inputs declares them by "
                       "overriding forward_signature()",
                       Error);
  CHECK_THROWS_WITH_AS(static_cast<Module&>(node).forward(Inputs(node, TensorList{a, b})), "Node: forward takes one input tensor, got 2",
                       Error);
  // A module declaring two inputs is never called with another count (its forward reads inputs[1]).
  CHECK_THROWS_WITH_AS(pair(TensorList{a}),
                       "Pair.forward takes 2 input(s) (a, b), got 1; a module taking other inputs declares them by "
                       "overriding forward_signature()",
                       Error);
  CHECK(node(a).is_same(a));
}

/// Returns None (an undefined tensor) whatever it gets.
class ReturnsNone : public Module {
 public:
  std::string type_name() const override { return "ReturnsNone"; }
  Tensor forward(const Tensor&) override { return Tensor(); }
};

/// Calls its first child, and when that throws, its second: a module that handles a child's error itself.
class Fallback : public Module {
 public:
  Fallback(std::shared_ptr<Module> first, std::shared_ptr<Module> second) {
    register_module("first", std::move(first));
    register_module("second", std::move(second));
  }
  std::string type_name() const override { return "Fallback"; }
  Tensor forward(const Tensor& x) override {
    try {
      return submodule("first")(x);
    } catch (const Error&) {
      return submodule("second")(x);
    }
  }
};

TEST_CASE("module: an error inside a model names the innermost module that raised it, once") {
  // The layer called on its own: the op's message only.
  auto conv = std::make_shared<Conv2d>(Conv2dOptions{.in_channels = 3, .out_channels = 4, .kernel_size = 1});
  const std::string conv_error =
      "conv2d: input [1, 2, 5, 5] has 2 channels but weight [4, 3, 1, 1] with groups=1 expects 3";
  CHECK_THROWS_WITH_AS((*conv)(ones({1, 2, 5, 5})), conv_error.c_str(), Error);
  // Nested: its path from the module first called, its type and the outermost type, added once.
  Sequential model(std::make_shared<ReLU>(), std::make_shared<Sequential>(std::make_shared<Identity>(), conv));
  CHECK_THROWS_WITH_AS(model(ones({1, 2, 5, 5})), (conv_error + " (in module '1.1' (Conv2d) of Sequential)").c_str(),
                       Error);
  // A module that catches a child's error and calls another child: the second error names the second child.
  auto narrow = std::make_shared<Linear>(4, 2);
  Sequential handled(std::make_shared<Fallback>(conv, narrow));
  CHECK_THROWS_WITH_AS(handled(ones({1, 2, 5, 5})),
                       "matmul: self of size [1, 2, 5, 5] and other of size [4, 2] cannot be multiplied (5 vs 4 in the"
                       " contracted dimension) (in module '0.second' (Linear) of Sequential)",
                       Error);
  CHECK(handled(ones({1, 3, 5, 4})).shape() == Shape{1, 4, 5, 4});  // the first child runs again
}

TEST_CASE("module: an undefined input is refused before forward runs, naming the module's type, path and input") {
  auto linear = std::make_shared<Linear>(2, 2);
  CHECK_THROWS_WITH_AS((*linear)(Tensor()), "Linear.forward: input 0 (x) is undefined (None)", Error);
  Pair pair;
  CHECK_THROWS_WITH_AS(pair({ones({1}), Tensor()}), "Pair.forward: input 1 (b) is undefined (None)", Error);

  // Inside a tree, the path from the module first called.
  auto bn = std::make_shared<BatchNorm2d>(BatchNorm2dOptions{.num_features = 2});
  auto inner = std::make_shared<Sequential>(std::make_shared<ReturnsNone>(), bn);
  Sequential outer(std::make_shared<ReLU>(), inner);
  CHECK_THROWS_WITH_AS(outer(ones({1, 2, 3, 3})),
                       "BatchNorm2d.forward: input 0 (x) is undefined (None)"
                       " (in module '1.1' (BatchNorm2d) of Sequential)",
                       Error);
  CHECK(bn->buffer("num_batches_tracked").item<int64_t>() == 0);  // its forward never ran
  CHECK_THROWS_WITH_AS((*inner)(ones({1, 2, 3, 3})),
                       "BatchNorm2d.forward: input 0 (x) is undefined (None)"
                       " (in module '1' (BatchNorm2d) of Sequential)",
                       Error);
  // The call stack unwound: a module called on its own is the first again.
  CHECK_THROWS_WITH_AS((*bn)(Tensor()), "BatchNorm2d.forward: input 0 (x) is undefined (None)", Error);
  CHECK((*linear)(ones({1, 2})).shape() == Shape{1, 2});
}

/// Reads a second input without declaring it, unless told to declare it.
class ReadsTwo : public Module {
 public:
  bool declares_two = false;
  std::string type_name() const override { return "ReadsTwo"; }
  TensorList forward(Inputs in) override { return {in[0] + in[1]}; }
  ForwardSignature forward_signature() const override {
    return declares_two ? ForwardSignature{{"a", "b"}, {}, ""} : ForwardSignature{};
  }
};

TEST_CASE("module: forward reading past its declared inputs is a tl::Error naming the module, index and signature") {
  ReadsTwo m;
  const Tensor a = ones({2}), b = full({2}, 2.0);
  CHECK_THROWS_WITH_AS(m(TensorList{a}),
                       "ReadsTwo.forward read input 1, but forward_signature() declares 1 input(s) (x); a module "
                       "taking more inputs declares them by overriding forward_signature()",
                       Error);
  m.declares_two = true;  // the module is left as it was: declared, the same call path works
  CHECK_TENSOR_CLOSE(m(TensorList{a, b})[0], full({2}, 3.0), 0.0, 0.0);
}

struct Recorder : ModuleHook {
  std::vector<std::string> events;
  std::string intercept_type;
  void before(Module& m, const TensorList& in) override {
    events.push_back("before " + m.type_name() + " " + std::to_string(in.size()));
  }
  bool intercept(Module& m, const TensorList& in, TensorList& out) override {
    if (m.type_name() != intercept_type) return false;
    out = {in[0], in[0]};
    return true;
  }
  void after(Module& m, const TensorList* out) override {
    events.push_back((out ? "after " : "failed ") + m.type_name());
  }
};

TEST_CASE("module hooks: nested calls are seen in order, on the installing thread only") {
  auto root = small_tree();
  Recorder rec;
  {
    ModuleHookGuard guard(&rec);
    (*root)(zeros({1}));
  }
  (*root)(zeros({1}));
  std::thread other([&] { (*root)(zeros({1})); });
  other.join();
  CHECK(rec.events == std::vector<std::string>{"before Root 1", "before A 1", "before C 1", "after C", "after A",
                                               "before B 1", "after B", "after Root"});
}

TEST_CASE("module hooks: intercept replaces forward; a throwing forward reports failure and rethrows") {
  auto root = small_tree();
  Recorder rec;
  rec.intercept_type = "A";
  ModuleHookGuard guard(&rec);
  // A's interception returns two outputs, which the one-tensor call path of Root rejects.
  CHECK_THROWS_WITH_AS((*root)(zeros({1})), "A: forward returned 2 outputs, but a single-tensor call expects one",
                       Error);
  const TensorList two = (*root->child("a"))(TensorList{zeros({1})});
  CHECK(two.size() == 2);

  Recorder inner;
  ModuleHookGuard inner_guard(&inner);
  NoForward none;
  CHECK_THROWS_AS(none(zeros({1})), Error);
  CHECK(inner.events == std::vector<std::string>{"before NoForward 1", "failed NoForward"});
}

/// A user module that overrides nothing but forward: its printed name comes from the C++ class.
class Doubler : public Module {
 public:
  Doubler() { register_parameter("scale", full({1}, 2.0)); }
  Tensor forward(const Tensor& x) override { return x * parameter("scale"); }
  std::shared_ptr<Module> clone() const override { return clone_as<Doubler>(); }
};

template <class T>
class Boxed : public Module {};

TEST_CASE("module: a module without type_name() prints its C++ class name without namespaces") {
  Doubler d;
  CHECK(d.type_name() == "Doubler");
  CHECK(repr(d) == "Doubler()");
  CHECK(Boxed<int>().type_name() == "Boxed<int>");
  CHECK(class_name(typeid(Linear)) == "Linear");
  Sequential seq(std::make_shared<Doubler>());
  CHECK(repr(seq) == "Sequential(\n  (0): Doubler()\n)");
}

TEST_CASE("module: named_modules takes PyTorch's prefix and remove_duplicate") {
  auto root = small_tree();
  root->register_module("again", root->child("a"));
  CHECK(names_of(root->named_modules("model")) == std::vector<std::string>{"model", "model.a", "model.a.c", "model.b"});
  CHECK(names_of(root->named_modules("", false)) == std::vector<std::string>{"", "a", "a.c", "b", "again", "again.c"});
  CHECK(root->named_modules("", false)[4].second.get() == root->child("a").get());
}

TEST_CASE("module: zero_grad zeroes every .grad in place, or clears it with set_to_none") {
  auto root = small_tree();
  Tensor w = root->get_parameter("a.c.w");
  w.mutable_grad() = from_vector<float>({NAN, 3}, {2});
  const Tensor grad_object = w.grad();
  Tensor history = ones({2}).requires_grad_();
  root->get_parameter("b.w").mutable_grad() = (history * 2.0);  // a .grad with autograd history
  Tensor leaf_grad = ones({2}).requires_grad_();
  root->get_parameter("w").mutable_grad() = leaf_grad;
  root->zero_grad();
  CHECK(w.grad().is_same(grad_object));
  CHECK_TENSOR_CLOSE(w.grad(), zeros({2}), 0.0, 0.0);  // NaN too: zero_, not mul_(0)
  CHECK(root->get_parameter("b.w").grad().grad_fn_name().empty());
  CHECK_TENSOR_CLOSE(root->get_parameter("b.w").grad(), zeros({2}), 0.0, 0.0);
  CHECK_FALSE(root->get_parameter("w").grad().requires_grad());
  CHECK_FALSE(root->get_parameter("a.w").grad().defined());  // no .grad stays none

  root->zero_grad(/*set_to_none=*/true);
  for (const Tensor& p : root->parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("module: requires_grad_ sets every parameter's flag, or changes none when one cannot") {
  auto root = small_tree();
  CHECK(&root->requires_grad_(false) == root.get());
  for (const Tensor& p : root->parameters()) CHECK_FALSE(p.requires_grad());
  root->child("a")->requires_grad_();
  CHECK(root->get_parameter("a.c.w").requires_grad());
  CHECK_FALSE(root->get_parameter("b.w").requires_grad());

  root->get_submodule("b")->register_parameter("steps", zeros({1}, DType::Int64));
  CHECK_THROWS_WITH_AS(root->requires_grad_(true),
                       "Root.requires_grad_: only Tensors of floating point dtype can require gradients, got a "
                       "parameter of dtype torch.int64",
                       Error);
  CHECK_FALSE(root->get_parameter("w").requires_grad());  // unchanged
  CHECK_NOTHROW(root->requires_grad_(false));
}

TEST_CASE("module hooks: forward pre-hooks and forward hooks run in order and may replace input and output") {
  auto root = std::make_shared<Node>("Root");
  auto child = root->register_module("d", std::make_shared<Doubler>());
  std::vector<std::string> log;
  RemovableHandle pre1 = child->register_forward_pre_hook([&](Module& m, const TensorList& in) {
    log.push_back("pre1 " + m.type_name());
    return in[0] + 1.0;  // a Tensor replaces the input (as a list of one)
  });
  RemovableHandle pre2 = child->register_forward_pre_hook([&](Module&, const TensorList& in) {
    log.push_back("pre2 sees " + std::to_string(in[0].item<float>()));
  });
  RemovableHandle post = child->register_forward_hook([&](Module&, const TensorList& in, const TensorList& out) {
    log.push_back("post " + std::to_string(in[0].item<float>()) + " -> " + std::to_string(out[0].item<float>()));
    return std::optional<TensorList>(TensorList{out[0] * 10.0});
  });
  CHECK(pre1.id() < pre2.id());
  CHECK((*root)(full({1}, 1.0)).item<float>() == 40.0f);  // ((1 + 1) * 2) * 10, through the parent's forward
  CHECK(log == std::vector<std::string>{"pre1 Doubler", "pre2 sees 2.000000", "post 2.000000 -> 4.000000"});

  pre1.remove();
  pre1.remove();  // a second remove does nothing
  post.remove();
  log.clear();
  CHECK((*child)(full({1}, 1.0)).item<float>() == 2.0f);
  CHECK(log == std::vector<std::string>{"pre2 sees 1.000000"});
  pre2.remove();
  CHECK(child->own_hooks()->empty());
}

TEST_CASE("module hooks: a replaced input is checked, a throwing hook propagates, handles outlive modules") {
  auto d = std::make_shared<Doubler>();
  RemovableHandle bad = d->register_forward_pre_hook([](Module&, const TensorList&) { return TensorList{}; });
  CHECK_THROWS_WITH_AS((*d)(ones({1})), doctest::Contains("Doubler.forward takes 1 input(s) (x), got 0"), Error);
  bad.remove();
  RemovableHandle thrower = d->register_forward_hook([](Module&, const TensorList&, const TensorList&) {
    TL_CHECK(false, "hook failed");
  });
  CHECK_THROWS_WITH_AS((*d)(ones({1})), "hook failed", Error);
  d.reset();
  CHECK_NOTHROW(thrower.remove());  // the module is gone: nothing to remove
}

TEST_CASE("module hooks: a full backward hook gets grad_input and grad_output and may replace grad_input") {
  manual_seed(3);
  auto fc = std::make_shared<Linear>(3, 2);
  const Tensor x = randn({4, 3}).requires_grad_();
  const Tensor c = randn({4, 2});
  TensorList seen_input, seen_output;
  int calls = 0;
  RemovableHandle h = fc->register_full_backward_hook([&](Module& m, const TensorList& grad_input, const TensorList& grad_output) {
    CHECK(&m == fc.get());
    ++calls;
    seen_input = grad_input;
    seen_output = grad_output;
    return TensorList{grad_input[0] * 2.0};
  });
  const Tensor y = (*fc)(x);
  CHECK(y.grad_fn_name() == "BackwardHookFunctionBackward");
  (y * c).sum().backward();
  CHECK(calls == 1);
  REQUIRE(seen_output.size() == 1);
  REQUIRE(seen_input.size() == 1);
  const Tensor weight = fc->parameter("weight");
  CHECK_TENSOR_CLOSE(seen_output[0], c, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(seen_input[0], c.mm(weight), 1e-6, 1e-6);  // d(sum(y * c)) / dx = c W
  CHECK_TENSOR_CLOSE(x.grad(), c.mm(weight) * 2.0, 1e-6, 1e-6);  // the replacement flowed on
  CHECK_TENSOR_CLOSE(weight.grad(), c.t().mm(x), 1e-6, 1e-6);   // parameters are not inputs

  h.remove();
  Tensor(x).mutable_grad() = Tensor();
  (*fc)(x).mul(c).sum().backward();
  CHECK(calls == 1);
  CHECK_TENSOR_CLOSE(x.grad(), c.mm(weight), 1e-6, 1e-6);
}

TEST_CASE("module hooks: with no input requiring grad the backward hook runs at the outputs, with grad_input None") {
  auto fc = std::make_shared<Linear>(3, 2);
  TensorList seen_input, seen_output;
  RemovableHandle h = fc->register_full_backward_hook([&](Module&, const TensorList& grad_input, const TensorList& grad_output) {
    seen_input = grad_input;
    seen_output = grad_output;
  });
  (*fc)(ones({4, 3})).sum().backward();
  REQUIRE(seen_input.size() == 1);
  CHECK_FALSE(seen_input[0].defined());
  CHECK_TENSOR_CLOSE(seen_output[0], ones({4, 2}), 0.0, 0.0);
  h.remove();
  fc->register_full_backward_hook([](Module&, const TensorList&, const TensorList& grad_output) { return grad_output; });
  CHECK_THROWS_WITH_AS((*fc)(ones({4, 3})).sum().backward(),
                       "Backward hook for Modules where no input requires gradient should always return None or None "
                       "for all gradients.",
                       Error);
}

TEST_CASE("module hooks: a backward hook returning the wrong number or shape of gradients is a tl::Error") {
  auto fc = std::make_shared<Linear>(3, 2);
  const Tensor x = ones({4, 3}).requires_grad_();
  RemovableHandle h = fc->register_full_backward_hook([](Module&, const TensorList&, const TensorList&) { return TensorList{}; });
  CHECK_THROWS_WITH_AS((*fc)(x).sum().backward(),
                       "Backward hook returned an invalid number of grad_input, got 0, but expected 1", Error);
  h.remove();
  fc->register_full_backward_hook([](Module&, const TensorList&, const TensorList&) { return ones({3}); });
  CHECK_THROWS_WITH_AS((*fc)(x).sum().backward(),
                       "Function BackwardHookFunctionBackward returned an invalid gradient at index 0 - got [3] but "
                       "expected shape compatible with [4, 3]",
                       Error);
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("module hooks: a clone keeps copies of the hooks; the handle removes only the original's") {
  auto d = std::make_shared<Doubler>();
  int calls = 0;
  RemovableHandle h = d->register_forward_hook([&](Module&, const TensorList&, const TensorList&) { ++calls; });
  auto copy = std::make_shared<Sequential>(d)->clone();
  (*copy)(ones({1}));
  CHECK(calls == 1);
  h.remove();
  (*copy)(ones({1}));
  (*d)(ones({1}));
  CHECK(calls == 2);
}

TEST_CASE("module: clone is deep, keeps sharing inside the copy and keeps the training flag") {
  auto root = small_tree();
  root->get_submodule("b")->register_parameter("tied", root->get_parameter("a.w"));
  root->get_submodule("a.c")->eval();
  auto copy = root->clone();
  CHECK(copy->type_name() == "Root");
  CHECK(names_of(copy->named_modules()) == names_of(root->named_modules()));
  CHECK(copy->get_submodule("a") != root->get_submodule("a"));
  CHECK_FALSE(copy->get_submodule("a.c")->is_training());
  CHECK(copy->get_parameter("b.tied").is_same(copy->get_parameter("a.w")));
  CHECK_FALSE(copy->get_parameter("a.w").is_same(root->get_parameter("a.w")));

  init::constant_(copy->get_parameter("a.w"), 7.0);
  init::constant_(copy->get_buffer("a.c.buf"), 3.0);
  CHECK(root->get_parameter("a.w").data<float>()[0] == 0.0f);
  CHECK(root->get_buffer("a.c.buf").data<float>()[0] == 0.0f);
  CHECK(copy->get_parameter("b.tied").data<float>()[1] == 7.0f);
}

TEST_CASE("module: clone from a memo takes the memo's modules and tensors as their copies, copies the rest") {
  auto root = small_tree();
  root->get_submodule("b")->register_parameter("tied", root->get_parameter("a.w"));
  auto replacement = std::make_shared<Node>("Replacement");
  const Tensor w_copy = ones({2});
  CloneMemo memo;
  memo.modules[root->get_submodule("a.c").get()] = replacement;
  memo.tensors.emplace_back(root->get_parameter("a.w"), w_copy);
  auto copy = clone(*root, memo);
  CHECK(copy->get_submodule("a.c") == replacement);
  CHECK(copy->get_parameter("a.w").is_same(w_copy));
  CHECK(copy->get_parameter("b.tied").is_same(w_copy));
  CHECK(copy->get_submodule("a") != root->get_submodule("a"));
  CHECK_FALSE(copy->get_buffer("b.buf").is_same(root->get_buffer("b.buf")));
  CHECK(memo.modules.at(root->get_submodule("b").get()) == copy->get_submodule("b"));
  // A clone that throws leaves no memo behind: the next plain clone copies everything.
  root->get_submodule("a")->register_module("plain", std::make_shared<NoForward>());
  CloneMemo fresh;
  CHECK_THROWS_WITH_AS(clone(*root, fresh), doctest::Contains("NoForward: clone() is not implemented"), Error);
  root->get_submodule("a")->register_module("plain", std::make_shared<Node>("Plain"));
  auto again = root->clone();
  CHECK(again->get_submodule("a.c") != replacement);
  CHECK_FALSE(again->get_parameter("a.w").is_same(w_copy));
}

TEST_CASE("module: clone of a module that does not implement it says how to") {
  NoForward none;
  CHECK_THROWS_WITH_AS(none.clone(),
                       "NoForward: clone() is not implemented; override it as `return clone_as<NoForward>();`", Error);
  auto root = small_tree();
  root->register_module("plain", std::make_shared<NoForward>());
  CHECK_THROWS_WITH_AS(root->clone(), doctest::Contains("NoForward: clone() is not implemented"), Error);
}

TEST_CASE("module: to(dtype) converts floating-point parameters and buffers in place, recursively") {
  manual_seed(40);
  Sequential net(std::make_shared<Conv2d>(3, 4, 3), std::make_shared<BatchNorm2d>(BatchNorm2dOptions{.num_features = 4}),
                 std::make_shared<ReLU>());
  net.register_parameter("tied", net.get_parameter("0.weight"));
  init::uniform_(net.get_buffer("1.running_mean"), -1.0, 1.0);
  net.eval();
  const StateDict before = net.state_dict();
  StateDict before_values;
  for (const auto& [name, t] : before) before_values.emplace_back(name, t.clone());
  const Tensor x = randn({2, 3, 6, 6});
  const Tensor expected = net(x);

  CHECK(&net.to(DType::Float64) == &net);
  const StateDict after = net.state_dict();
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    INFO(after[i].first);
    const bool integral = after[i].first == "1.num_batches_tracked";
    // Parameters keep their identity (PyTorch's param.data = ...); buffers are replaced, as PyTorch's.
    const bool parameter = net.has_parameter(after[i].first) || after[i].first.ends_with("weight") ||
                           after[i].first.ends_with("bias");
    CHECK(after[i].second.dtype() == (integral ? DType::Int64 : DType::Float64));
    CHECK(after[i].second.is_same(before[i].second) == (integral || parameter));
    CHECK(equal(after[i].second.to(before_values[i].second.dtype()), before_values[i].second));
  }
  CHECK(net.get_parameter("tied").is_same(net.get_parameter("0.weight")));
  CHECK(net.clone()->get_parameter("0.bias").dtype() == DType::Float64);
  const Tensor out = net(x.to(DType::Float64));
  CHECK(out.dtype() == DType::Float64);
  CHECK_TENSOR_CLOSE(out, expected, 1e-5, 1e-5);

  net.to(DType::Float32);
  CHECK(net.get_parameter("0.weight").dtype() == DType::Float32);
  CHECK(net.get_buffer("1.running_var").dtype() == DType::Float32);
  CHECK(equal(net.get_parameter("0.weight"), before_values[0].second));
  CHECK_THROWS_WITH_AS(net.to(DType::Int64),
                       "nn.Module.to only accepts floating point dtypes, but got desired dtype=torch.int64", Error);
}

TEST_CASE("module: set_data, what to(dtype) converts parameters with, refuses what PyTorch refuses and changes nothing") {
  Tensor p = ones({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(p.set_data(zeros({2}, DType::Int64)),
                       "data set to a tensor that requires gradients must be floating point or complex dtype, got "
                       "torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(p.set_data(Tensor()), "set_data: the new data is undefined (None)", Error);
  CHECK_THROWS_WITH_AS(Tensor().set_data(p), "set_data: the tensor is undefined (None)", Error);
  CHECK(p.dtype() == DType::Float32);
  CHECK(p.sum().item<float>() == 2);
  const Tensor alias = p;
  const Tensor data = zeros({3}, DType::Float64);
  p.set_data(data);
  CHECK(alias.shape() == Shape{3});
  CHECK(alias.dtype() == DType::Float64);
  CHECK(alias.requires_grad());
  CHECK(alias.is_leaf());
  CHECK(alias.storage() == data.storage());
}

using ScopedLimit = testing::ScopedAllocationLimit;

/// Four float parameters of 1000 elements in a tree, and one shared between two modules.
std::shared_ptr<Node> four_blocks() {
  auto root = small_tree();
  for (const char* name : {"p0", "p1"}) root->register_parameter(name, randn({1000}));
  auto child = root->get_submodule("a.c");
  child->register_parameter("p2", randn({1000}));
  child->register_parameter("p3", root->get_parameter("p0"));
  root->get_submodule("b")->register_buffer("p4", randn({1000}));
  return root;
}

/// Every tensor of `m` by name, with (handle, value copy).
std::vector<std::pair<std::string, std::pair<Tensor, Tensor>>> snapshot(const Module& m) {
  std::vector<std::pair<std::string, std::pair<Tensor, Tensor>>> out;
  for (const auto& [name, t] : m.state_dict()) out.push_back({name, {t, t.clone()}});
  return out;
}

void check_unchanged(const Module& m, const std::vector<std::pair<std::string, std::pair<Tensor, Tensor>>>& before) {
  const StateDict after = m.state_dict();
  REQUIRE(after.size() == before.size());
  for (size_t i = 0; i < after.size(); ++i) {
    INFO(after[i].first);
    CHECK(after[i].first == before[i].first);
    CHECK(after[i].second.is_same(before[i].second.first));
    CHECK(after[i].second.dtype() == DType::Float32);
    CHECK_TENSOR_CLOSE(after[i].second, before[i].second.second, 0.0, 0.0);
  }
}

TEST_CASE("module: a to(dtype) that fails half way leaves every tensor as it was") {
  manual_seed(41);
  auto net = four_blocks();
  const auto before = snapshot(*net);
  {
    // Room for one Float64 copy of a block (8000 bytes), not for two.
    ScopedLimit limit(allocator_stats().bytes_in_use + 12000);
    CHECK_THROWS_WITH_AS(net->to(DType::Float64), doctest::Contains("bytes would exceed the allocation limit of"),
                         Error);
  }
  check_unchanged(*net, before);
  CHECK(net->get_parameter("a.c.p3").is_same(net->get_parameter("p0")));
  // With room, the same call converts everything and keeps the sharing.
  net->to(DType::Float64);
  for (const auto& [name, t] : net->state_dict()) CHECK(t.dtype() == DType::Float64);
  CHECK(net->get_parameter("a.c.p3").is_same(net->get_parameter("p0")));
}

TEST_CASE("module: a to(dtype) that fails converting a gradient leaves parameters and gradients as they were") {
  manual_seed(44);
  auto net = four_blocks();
  for (const char* name : {"p0", "p1"}) net->get_parameter(name).mutable_grad() = ones({1000});
  const Tensor grad = net->get_parameter("p1").grad();
  const auto before = snapshot(*net);
  {
    // Room for Float64 copies of p0, its gradient and p1 (8000 bytes each), not for p1's gradient.
    ScopedLimit limit(allocator_stats().bytes_in_use + 28000);
    CHECK_THROWS_WITH_AS(net->to(DType::Float64), doctest::Contains("bytes would exceed the allocation limit of"),
                         Error);
  }
  check_unchanged(*net, before);
  CHECK(net->get_parameter("p1").grad().is_same(grad));
  CHECK(grad.dtype() == DType::Float32);
  CHECK(grad.sum().item<float>() == 1000);
}

TEST_CASE("module: a load_state_dict that fails converting half way leaves every tensor as it was") {
  manual_seed(42);
  auto net = four_blocks();
  const auto before = snapshot(*net);
  StateDict dict;
  for (const auto& [name, t] : net->state_dict()) dict.emplace_back(name, randn(t.shape()).to(DType::Float64));
  {
    // Room for one Float32 conversion of a block (4000 bytes), not for two.
    ScopedLimit limit(allocator_stats().bytes_in_use + 6000);
    CHECK_THROWS_WITH_AS(net->load_state_dict(dict), doctest::Contains("bytes would exceed the allocation limit of"),
                         Error);
  }
  check_unchanged(*net, before);
  net->load_state_dict(dict);
  const StateDict loaded = net->state_dict();
  for (size_t i = 0; i < loaded.size(); ++i) {
    INFO(loaded[i].first);
    // p0 and a.c.p3 are one tensor: the later key's values win.
    if (loaded[i].first != "p0") CHECK_TENSOR_CLOSE(loaded[i].second, dict[i].second.to(DType::Float32), 0.0, 0.0);
  }
}

}  // namespace
}  // namespace tl::nn
