// tests/fx/test_subgraph_rewriter.cpp — replace_pattern against PyTorch 1.13's on the same modules
// (tests/reference/subgraph_rewriter.json, made by tests/reference/make_subgraph_rewriter_references.py):
// the code before and after and the matches; refused patterns and replacements leave the module as it was.
#include <doctest/doctest.h>

#include <array>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/op_kind.h"
#include "fx/passes/subgraph_rewriter.h"
#include "fx/tracer.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"

namespace tl::fx {
namespace {

using Body = std::function<TensorList(nn::Inputs)>;

// A module whose forward() is `body` over the named inputs, as the reference's Python functions.
class Fn : public nn::Module {
 public:
  Fn(std::vector<std::string> names, Body body) : names_(std::move(names)), body_(std::move(body)) {}
  using nn::Module::forward;
  TensorList forward(nn::Inputs inputs) override { return body_(inputs); }
  nn::ForwardSignature forward_signature() const override { return {names_, {}, ""}; }
  std::string type_name() const override { return "Fn"; }

 private:
  std::vector<std::string> names_;
  Body body_;
};

std::shared_ptr<GraphModule> trace(std::vector<std::string> names, Body body) {
  return symbolic_trace(std::make_shared<Fn>(std::move(names), std::move(body)));
}

Tensor cat2(const Tensor& a, const Tensor& b) { return cat(std::array<Tensor, 2>{a, b}); }

struct Case {
  std::shared_ptr<GraphModule> module, pattern, replacement;
};

// The reference's modules, patterns and replacements, by case name.
std::map<std::string, Case> cases() {
  std::map<std::string, Case> c;
  c["docstring"] = {
      trace({"x", "w1", "w2"},
            [](nn::Inputs in) {
              const Tensor m1 = cat2(in[1], in[2]).sum();
              const Tensor m2 = cat2(in[1], in[2]).sum();
              const Tensor left = in[0] + max(m1);  // C++ leaves the order of operands open: name them
              return TensorList{left + max(m2)};
            }),
      trace({"w1", "w2"}, [](nn::Inputs in) { return TensorList{cat2(in[0], in[1]).sum()}; }),
      trace({"w1", "w2"}, [](nn::Inputs in) { return TensorList{stack(std::array<Tensor, 2>{in[0], in[1]})}; })};
  const auto double_relu = [] { return trace({"x"}, [](nn::Inputs in) { return TensorList{relu(relu(in[0]))}; }); };
  const auto to_sigmoid = [] { return trace({"x"}, [](nn::Inputs in) { return TensorList{sigmoid(in[0])}; }); };
  c["overlap"] = {trace({"x"}, [](nn::Inputs in) { return TensorList{relu(relu(relu(in[0])))}; }), double_relu(),
                  to_sigmoid()};
  c["leak"] = {trace({"x"},
                     [](nn::Inputs in) {
                       const Tensor y = relu(in[0]);
                       return TensorList{neg(y) + y};
                     }),
               trace({"x"}, [](nn::Inputs in) { return TensorList{neg(relu(in[0]))}; }), to_sigmoid()};
  c["constant"] = {trace({"a"}, [](nn::Inputs in) { return TensorList{in[0] * 3.0 + 2.0}; }),
                   trace({"x", "y"}, [](nn::Inputs in) { return TensorList{in[0] + in[1]}; }),
                   trace({"x", "y"}, [](nn::Inputs in) { return TensorList{sub(in[0], in[1])}; })};
  c["two_anchors"] = {
      trace({"x", "y"},
            [](nn::Inputs in) {
              const Tensor a = relu(in[0]);
              const Tensor left = a * neg(in[0]);
              const Tensor b = relu(in[1]);
              const Tensor right = b * neg(in[0]);
              return TensorList{left + right};
            }),
      trace({"x"},
            [](nn::Inputs in) {
              const Tensor a = relu(in[0]);
              return TensorList{a, neg(in[0])};
            }),
      trace({"x"}, [](nn::Inputs in) {
        const Tensor a = tanh(in[0]);
        return TensorList{a, sigmoid(in[0])};
      })};
  return c;
}

// PyTorch's spelling of a matched value: "%name" for a node, repr() for a constant.
std::string value_text(const Argument& v) { return v.is_node() ? "%" + v.node()->name() : repr_arg(v); }

TEST_CASE("replace_pattern: the code and matches equal PyTorch 1.13's") {
  const nlohmann::json reference = nlohmann::json::parse(testing::read_reference("subgraph_rewriter.json"));
  std::map<std::string, Case> modules = cases();
  REQUIRE(reference["cases"].size() == modules.size());
  for (const auto& expected : reference["cases"]) {
    const std::string name = expected["name"];
    CAPTURE(name);
    Case& c = modules.at(name);
    CHECK(c.module->code() == expected["code_before"].get<std::string>());
    const std::vector<subgraph_rewriter::Match> matches =
        subgraph_rewriter::replace_pattern(*c.module, c.pattern->graph(), c.replacement->graph());
    CHECK(c.module->code() == expected["code_after"].get<std::string>());
    REQUIRE(matches.size() == expected["matches"].size());
    for (size_t i = 0; i < matches.size(); ++i) {
      CHECK(matches[i].anchor->name() == expected["matches"][i]["anchor"].get<std::string>());
      std::vector<std::vector<std::string>> nodes_map;
      for (const auto& entry : matches[i].nodes_map) nodes_map.push_back({entry.first->name(), value_text(entry.second)});
      CHECK(nodes_map == expected["matches"][i]["nodes_map"].get<std::vector<std::vector<std::string>>>());
    }
    c.module->graph().lint(c.module.get());
  }
}

TEST_CASE("replace_pattern: the rewritten module computes the replacement's function") {
  Case c = cases().at("docstring");
  const Tensor x = randn({1}), w1 = randn({2, 3}), w2 = randn({2, 3});
  subgraph_rewriter::replace_pattern(*c.module, c.pattern->graph(), c.replacement->graph());
  const Tensor stacked = stack(std::array<Tensor, 2>{w1, w2});
  const Tensor expected = x + max(stacked) + max(stacked);
  CHECK(allclose((*c.module)({x, w1, w2})[0], expected));
}

TEST_CASE("replace_pattern: no match leaves the code as it was (PyTorch 1.13 raises KeyError)") {
  auto module = trace({"x"}, [](nn::Inputs in) { return TensorList{relu(in[0])}; });
  auto pattern = trace({"x"}, [](nn::Inputs in) { return TensorList{tanh(in[0])}; });
  auto replacement = trace({"x"}, [](nn::Inputs in) { return TensorList{neg(in[0])}; });
  const std::string before = module->code();
  CHECK(subgraph_rewriter::replace_pattern(*module, pattern->graph(), replacement->graph()).empty());
  CHECK(module->code() == before);
}

TEST_CASE("replace_pattern: a refused pattern or replacement changes nothing") {
  Case c = cases().at("docstring");
  const std::string before = c.module->code();
  const std::string graph_before = c.module->graph().str();
  auto one_input = trace({"w1"}, [](nn::Inputs in) { return TensorList{stack(std::array<Tensor, 1>{in[0]})}; });
  CHECK_THROWS_WITH_AS(subgraph_rewriter::replace_pattern(*c.module, c.pattern->graph(), one_input->graph()),
                       "replace_pattern: the replacement takes 1 inputs but the pattern 2", Error);
  auto two_outputs = trace({"w1", "w2"}, [](nn::Inputs in) { return TensorList{in[0], in[1]}; });
  CHECK_THROWS_WITH_AS(subgraph_rewriter::replace_pattern(*c.module, c.pattern->graph(), two_outputs->graph()),
                       "replace_pattern: the replacement returns 2 values but the pattern 1", Error);
  // The replacement returns its input w1 (a node of gm); the rewrite is fine, but it calls a module gm lacks.
  auto with_module = symbolic_trace(std::make_shared<Fn>(std::vector<std::string>{"w1", "w2"}, [](nn::Inputs in) {
    return TensorList{in[0]};
  }));
  Graph& g = with_module->graph();
  Node* w1 = g.find_nodes(Opcode::Placeholder)[0];
  Node* call = [&] {
    auto guard = g.inserting_before(g.output_node());
    return g.call_module("not_in_gm", {w1});
  }();
  g.output_node()->update_arg(0, call);
  CHECK_THROWS_WITH_AS(subgraph_rewriter::replace_pattern(*c.module, c.pattern->graph(), g),
                       doctest::Contains("not_in_gm"), Error);
  CHECK(c.module->code() == before);
  CHECK(c.module->graph().str() == graph_before);
  const Tensor x = randn({1}), a = randn({2}), b = randn({2});
  CHECK(allclose((*c.module)({x, a, b})[0], x + max(cat2(a, b).sum()) + max(cat2(a, b).sum())));

  Case constant = cases().at("constant");
  const std::string constant_before = constant.module->code();
  auto returns_y = trace({"x", "y"}, [](nn::Inputs in) { return TensorList{in[1]}; });
  CHECK_THROWS_WITH_AS(subgraph_rewriter::replace_pattern(*constant.module, constant.pattern->graph(), returns_y->graph()),
                       "replace_pattern: the replacement returns the constant 2.0 in place of node 'add'", Error);
  CHECK(constant.module->code() == constant_before);

  Graph dead;
  Node* p = dead.placeholder("x");
  dead.call_function(OpKind::Relu, {p});
  dead.output(Argument(p));
  CHECK_THROWS_WITH_AS(subgraph_rewriter::replace_pattern(*c.module, dead, c.replacement->graph()),
                       "SubgraphMatcher: the pattern has dead code: 'relu' has no users", Error);
}

TEST_CASE("replace_pattern: gm's own graph as the pattern or the replacement is refused, gm unchanged") {
  auto module = trace({"x"}, [](nn::Inputs in) { return TensorList{neg(relu(in[0]))}; });
  auto relu_pattern = trace({"x"}, [](nn::Inputs in) { return TensorList{relu(in[0])}; });
  const std::string before = module->code();
  CHECK_THROWS_WITH_AS(subgraph_rewriter::replace_pattern(*module, module->graph(), relu_pattern->graph()),
                       "replace_pattern: the pattern is the module's own graph; pass a copy (graph().copy())", Error);
  CHECK_THROWS_WITH_AS(subgraph_rewriter::replace_pattern(*module, relu_pattern->graph(), module->graph()),
                       "replace_pattern: the replacement is the module's own graph; pass a copy (graph().copy())", Error);
  CHECK(module->code() == before);
  const auto copy = module->graph().copy();
  CHECK(subgraph_rewriter::replace_pattern(*module, relu_pattern->graph(), *copy).size() == 1);
}

}  // namespace
}  // namespace tl::fx
