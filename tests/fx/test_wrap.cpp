// tests/fx/test_wrap.cpp — torch.fx.wrap: a wrapped function traces as one call_function node named by
// its qualified name, generated code declares and calls it as FX's does, GraphModule, the Interpreter and
// traced example inputs run it, and misuse is refused.
#include <doctest/doctest.h>

#include "fx/interpreter.h"
#include "fx/tracer.h"
#include "fx/wrap.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

// x * scale + shift, wrapped as "mylib.ops.scale_shift" (a Python module's function).
const WrappedFunction& scale_shift_fn() {
  static const WrappedFunction& f = wrap("mylib.ops.scale_shift", [](const TensorList& t, const std::vector<Argument>& a) {
    return t[0] * std::get<double>(a[1].value()) + std::get<double>(a[2].value());
  });
  return f;
}

Tensor scale_shift(const Tensor& x, double scale, double shift) {
  return call_wrapped(scale_shift_fn(), {x, Argument(scale), Argument(shift)});
}

class Net : public nn::Module {
 public:
  Net() { register_module("relu", std::make_shared<nn::ReLU>()); }
  Tensor forward(const Tensor& x) override { return scale_shift(submodule("relu")(x), 2.0, 0.5) + x; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Net>(); }
};

TEST_CASE("fx::wrap: traced as one call_function node, declared and called in the code as torch.fx does") {
  auto net = std::make_shared<Net>();
  auto gm = symbolic_trace(net);
  CHECK(gm->graph().str() ==
        "graph():\n"
        "    %x : [#users=2] = placeholder[target=x]\n"
        "    %relu : [#users=1] = call_module[target=relu](args = (%x,), kwargs = {})\n"
        "    %scale_shift : [#users=1] = call_function[target=mylib.ops.scale_shift](args = (%relu, 2.0, 0.5), kwargs "
        "= {})\n"
        "    %add : [#users=1] = call_function[target=operator.add](args = (%scale_shift, %x), kwargs = {})\n"
        "    return add");
  CHECK(gm->code() ==
        "\ntorch.fx._symbolic_trace.wrap(\"mylib_ops_scale_shift\")\n\n"
        "def forward(self, x):\n"
        "    relu = self.relu(x)\n"
        "    scale_shift = mylib_ops_scale_shift(relu, 2.0, 0.5);  relu = None\n"
        "    add = scale_shift + x;  scale_shift = x = None\n"
        "    return add\n"
        "    ");
  const Tensor x = from_vector<float>({-1, 0, 1, 2}, {4});
  const Tensor expected = from_vector<float>({-0.5, 0.5, 3.5, 6.5}, {4});
  CHECK_TENSOR_CLOSE((*net)(x), expected, 0.0, 0.0);
  CHECK_TENSOR_CLOSE((*gm)(x), expected, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(Interpreter(gm).run({x}), expected, 0.0, 0.0);
  auto with_shapes = symbolic_trace(net, {x});
  CHECK(std::any_cast<TensorMeta>(with_shapes->graph().find_nodes(Opcode::CallFunction)[0]->meta().at("tensor_meta"))
            .shape == Shape{4});
}

TEST_CASE("fx::wrap: a name registered twice, and keyword arguments to a function wrapped without parameter names, are refused") {
  scale_shift_fn();
  CHECK_THROWS_WITH_AS(wrap("mylib.ops.scale_shift", {}), "fx::wrap: 'mylib.ops.scale_shift' is wrapped already", Error);
  auto gm = symbolic_trace(std::make_shared<Net>());
  Node* call = gm->graph().find_nodes(Opcode::CallFunction)[0];
  CHECK(call->target() == "mylib.ops.scale_shift");
  call->update_kwarg("shift", 1.0);
  CHECK_THROWS_WITH_AS(gm->recompile(),
                       doctest::Contains("'scale_shift' calls the wrapped function mylib.ops.scale_shift, which takes "
                                         "positional arguments only"),
                       Error);
  CHECK(find_wrapped("mylib.ops.other") == nullptr);
  CHECK(wrapped_global_name("torchvision.ops.stochastic_depth.stochastic_depth") ==
        "torchvision_ops_stochastic_depth_stochastic_depth");
}

// An argument's ints, from a list or a tuple.
Shape ints_of(const Argument& a) {
  Shape out;
  for (const Argument& item : a.as_list().items) out.push_back(std::get<int64_t>(item.value()));
  return out;
}

// x viewed as `size`, times the number of ints in `reps`: wrapped as "mylib.ops.view_times", called with `size`
// written as a list and `reps` as a tuple.
const WrappedFunction& view_times_fn() {
  static const WrappedFunction& f = wrap("mylib.ops.view_times", [](const TensorList& t, const std::vector<Argument>& a) {
    return t[0].reshape(ints_of(a[1])) * static_cast<double>(ints_of(a[2]).size());
  });
  return f;
}

class ListTupleNet : public nn::Module {
 public:
  std::string type_name() const override { return "ListTupleNet"; }
  Tensor forward(const Tensor& x) override {
    const Argument reps = Argument::list({Argument(int64_t{1}), Argument(int64_t{1}), Argument(int64_t{1})}, /*is_tuple=*/true);
    return call_wrapped(view_times_fn(), {x, Argument::int_list({2, 3}), reps});
  }
};

TEST_CASE("fx::wrap: an int list stays a list and a tuple a tuple, when traced and when its graph is traced again") {
  auto gm = symbolic_trace(std::make_shared<ListTupleNet>());
  const std::string node =
      "    %view_times : [#users=1] = call_function[target=mylib.ops.view_times](args = (%x, [2, 3], (1, 1, 1)), "
      "kwargs = {})\n";
  CHECK(gm->graph().str().find(node) != std::string::npos);
  auto again = symbolic_trace(gm);
  CHECK(again->graph().str() == gm->graph().str());
  const Tensor x = from_vector<float>({0, 1, 2, 3, 4, 5}, {6});
  const Tensor expected = from_vector<float>({0, 3, 6, 9, 12, 15}, {2, 3});
  CHECK_TENSOR_CLOSE((*gm)(x), expected, 0.0, 0.0);
  CHECK_TENSOR_CLOSE((*again)(x), expected, 0.0, 0.0);
}

// x * scale + shift with its Python parameter names, called as `scale_shift_kw(x, 2.0, shift=0.5)`.
const WrappedFunction& scale_shift_kw_fn() {
  static const WrappedFunction& f = wrap(
      "mylib.ops.scale_shift_kw",
      [](const TensorList& t, const std::vector<Argument>& a) {
        return t[0] * std::get<double>(a[1].value()) + std::get<double>(a[2].value());
      },
      {"x", "scale", "shift"});
  return f;
}

class KeywordNet : public nn::Module {
 public:
  std::string type_name() const override { return "KeywordNet"; }
  Tensor forward(const Tensor& x) override { return call_wrapped(scale_shift_kw_fn(), {x, Argument(2.0)}, {{"shift", Argument(0.5)}}); }
};

TEST_CASE("fx::wrap: with its parameter names, keyword arguments are recorded as keywords and bound to their positions") {
  auto net = std::make_shared<KeywordNet>();
  auto gm = symbolic_trace(net);
  CHECK(gm->code() ==
        "\ntorch.fx._symbolic_trace.wrap(\"mylib_ops_scale_shift_kw\")\n\n"
        "def forward(self, x):\n"
        "    scale_shift_kw = mylib_ops_scale_shift_kw(x, 2.0, shift = 0.5);  x = None\n"
        "    return scale_shift_kw\n"
        "    ");
  const Tensor x = from_vector<float>({-1, 0, 1, 2}, {4});
  const Tensor expected = from_vector<float>({-1.5, 0.5, 2.5, 4.5}, {4});
  CHECK_TENSOR_CLOSE((*net)(x), expected, 0.0, 0.0);
  CHECK_TENSOR_CLOSE((*gm)(x), expected, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(Interpreter(gm).run({x}), expected, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(call_wrapped(scale_shift_kw_fn(), {x}, {{"shift", Argument(0.5)}}),
                       "mylib.ops.scale_shift_kw: missing argument 'scale'", Error);
  CHECK_THROWS_WITH_AS(call_wrapped(scale_shift_kw_fn(), {x, Argument(2.0)}, {{"scale", Argument(0.5)}}),
                       "mylib.ops.scale_shift_kw: got multiple values for argument 'scale'", Error);
  CHECK_THROWS_WITH_AS(call_wrapped(scale_shift_kw_fn(), {x, Argument(2.0)}, {{"offset", Argument(0.5)}}),
                       "mylib.ops.scale_shift_kw: got an unexpected keyword argument 'offset'", Error);
  CHECK_THROWS_WITH_AS(call_wrapped(scale_shift_fn(), {x, Argument(2.0)}, {{"shift", Argument(0.5)}}),
                       "mylib.ops.scale_shift: a wrapped function takes positional arguments only", Error);
}

// torch.fx records what the Python source passes by keyword as a keyword.
class Flattens : public nn::Module {
 public:
  Tensor forward(const Tensor& x) override {
    Tensor a;
    Tensor b;
    {
      const KeywordArguments keywords({"start_dim"});  // x.flatten(start_dim=1)
      a = x.flatten(1);
    }
    {
      const KeywordArguments keywords({"start_dim", "end_dim"});  // x.flatten(start_dim=0, end_dim=1)
      b = x.flatten(0, 1);
    }
    // One statement each, in Python's order (C++ leaves the order of an expression's operands open).
    const Tensor sum_a = a.sum();
    const Tensor sum_b = b.sum();
    const Tensor sums = sum_a + sum_b;
    const Tensor sum_c = x.flatten(1).sum();
    return sums + sum_c;
  }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Flattens>(); }
};

// Positional after a keyword, which Python cannot write.
class MisplacedKeyword : public nn::Module {
 public:
  Tensor forward(const Tensor& x) override {
    const KeywordArguments keywords({"start_dim"});
    return x.flatten(0, 1);
  }
};

TEST_CASE("fx::KeywordArguments: the next recorded op takes the named arguments as keywords, as torch.fx's code shows") {
  auto net = std::make_shared<Flattens>();
  auto gm = symbolic_trace(net);
  // torch.fx.symbolic_trace of the same forward written in Python.
  CHECK(gm->code() ==
        "\n\n\ndef forward(self, x):\n"
        "    flatten = x.flatten(start_dim = 1)\n"
        "    flatten_1 = x.flatten(start_dim = 0, end_dim = 1)\n"
        "    sum_1 = flatten.sum();  flatten = None\n"
        "    sum_2 = flatten_1.sum();  flatten_1 = None\n"
        "    add = sum_1 + sum_2;  sum_1 = sum_2 = None\n"
        "    flatten_2 = x.flatten(1);  x = None\n"
        "    sum_3 = flatten_2.sum();  flatten_2 = None\n"
        "    add_1 = add + sum_3;  add = sum_3 = None\n"
        "    return add_1\n    ");
  const Tensor x = randn({2, 3, 4});
  CHECK_TENSOR_CLOSE((*gm)(x), (*net)(x), 1e-5, 1e-6);
  CHECK_TENSOR_CLOSE(Interpreter(gm).run({x}), (*net)(x), 1e-5, 1e-6);
  CHECK_THROWS_WITH(symbolic_trace(std::make_shared<MisplacedKeyword>()),
                    doctest::Contains("argument 'end_dim' follows a keyword argument but is not one"));
}

}  // namespace
}  // namespace tl::fx
