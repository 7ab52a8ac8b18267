// fx/execution_plan.h — a graph compiled once for running: each node to a step (its resolved call,
// the value slots of its inputs, the slots whose last use it is), run by one loop with node error
// context. GraphModule::forward runs it as it is; the optimized module runs the same plan
// with hooks that add its arena and record its layouts. Interpreter is the overridable slow path over
// the same use-def data (Graph::last_uses).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "fx/graph.h"
#include "fx/value.h"
#include "nn/module.h"

namespace tl::fx {

class GraphModule;

/// One node, compiled. A step's value goes to the slot with the step's own index.
struct PlanStep {
  const Node* node = nullptr;
  Opcode op = Opcode::Output;
  const ResolvedCall* call = nullptr;  ///< the node's call (Node::call()): op, style, arguments, out=
  std::vector<int64_t> inputs;  ///< the slots of call->inputs (-1 for None)
  int64_t index = 0;            ///< placeholder position
  std::vector<int64_t> frees;   ///< slots whose last use this step is
};

/// What a caller adds to a run: a result buffer per step and a look at each value.
class StepHooks {
 public:
  virtual ~StepHooks() = default;
  /// A tensor for the step to write its result into (an arena view), or an undefined tensor.
  virtual Tensor out_for(size_t /*step*/) { return {}; }
  /// Runs a call_module step. The default calls the module and ignores `out`.
  virtual NodeValue call_module(size_t step, nn::Module& module, const TensorList& args, const Tensor& out);
  /// Sees each step's value once it is computed.
  virtual void produced(size_t /*step*/, const NodeValue& /*value*/) {}
};

class ExecutionPlan {
 public:
  /// Compiles `gm`'s graph: lints it against `gm`, checks every op's arguments against its schema and
  /// records last uses. Throws tl::Error when the graph cannot run. The steps point into a copy of the
  /// graph that the plan owns, so later edits of `gm`'s graph do not change what the plan runs, and
  /// copies of `gm` can share the plan.
  explicit ExecutionPlan(const GraphModule& gm);

  /// The graph as compiled (what the steps point into).
  const Graph& graph() const { return *graph_; }
  const std::vector<PlanStep>& steps() const { return steps_; }
  size_t num_placeholders() const { return placeholders_; }
  /// The placeholders' names and annotations and the output's annotation.
  const nn::ForwardSignature& signature() const { return signature_; }

  /// Runs the plan on `gm` (the module it was compiled from, or a copy with the same tree): one input
  /// per placeholder. Modules and attributes are looked up at each call, as FX does, so set_submodule()
  /// takes effect without a recompile. A failing node's error gains "while executing <node>" context.
  TensorList run(const GraphModule& gm, std::span<const Tensor> inputs, StepHooks* hooks = nullptr) const;

 private:
  std::unique_ptr<const Graph> graph_;  ///< the graph as compiled; steps_' nodes live here
  std::vector<PlanStep> steps_;
  size_t placeholders_ = 0;
  nn::ForwardSignature signature_;
};

}  // namespace tl::fx
