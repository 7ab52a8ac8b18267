// fx/graph_module.h — a Module whose forward() is a Graph. As torch.fx's GraphModule, it holds the
// very submodules and tensors of its root that the graph refers to (a pass that changes them works on
// a copy), and runs the graph through an execution plan (fx/execution_plan.h) rebuilt by recompile().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fx/execution_plan.h"
#include "fx/graph.h"
#include "nn/module.h"

namespace tl::fx {

class GraphModule : public nn::Module {
 public:
  /// Registers, from `root`, every module a call_module node targets and every parameter or buffer a
  /// get_attr node fetches, under the same dotted paths, then compiles the plan. They are root's own
  /// (the same modules and tensors, requires_grad as it is), as torch.fx's GraphModule(root, graph)
  /// holds them: training either module trains both. Intermediate levels are new plain `Module`s, so
  /// set_submodule() on this module leaves root's tree alone. `constants` (top-level names) are
  /// registered as buffers first. Throws tl::Error if a target exists neither in `root` nor among the
  /// constants.
  GraphModule(const nn::Module& root, std::unique_ptr<Graph> graph, std::string class_name = "GraphModule",
              const std::vector<std::pair<std::string, Tensor>>& constants = {});
  ~GraphModule() override;
  /// Shares the submodules and tensors and the compiled plan, copies the graph as it is now (edits not
  /// yet recompiled included): the copy runs, prints and recompiles as the original would. Never
  /// compiles, so it works whenever the original does; clone() is the deep copy, compiled.
  GraphModule(const GraphModule& other);

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }
  /// Lints the graph against this module and rebuilds the execution plan; call after editing it.
  /// Throws tl::Error if the graph cannot run (lint, unknown ops, bad arguments), keeping the previous
  /// plan: the module goes on computing what it computed before the edit.
  virtual void recompile();
  /// The Python source FX generated for forward() at the last successful recompile(), as PyTorch's
  /// gm.code: graph edits show only once recompiled.
  std::string code() const;
  /// GraphModule.__str__: the repr, the code, then "# To see more debug info, please use
  /// `graph_module.print_readable()`", newline-separated.
  std::string str() const override;

  using nn::Module::forward;
  TensorList forward(nn::Inputs inputs) override;
  std::string type_name() const override { return class_name_; }
  /// The placeholders and annotations of the graph as last compiled, so calls are checked against
  /// the plan that runs them and retracing reproduces them.
  nn::ForwardSignature forward_signature() const override;
  bool is_leaf() const override { return false; }
  /// A deep copy (graph, submodules, tensors) compiled from the graph as it is now, edits not yet
  /// recompiled included, as PyTorch's deepcopy builds a new GraphModule from the graph. Throws
  /// tl::Error, as recompile() does, when that graph does not compile.
  std::shared_ptr<nn::Module> clone() const override;
  /// The parameter, buffer or constant at `qualified_name` ("layer1.0.conv1.weight").
  Tensor fetch_attr(const std::string& qualified_name) const;
  /// The module a call_module node `n` calls, if it is an M; nullptr for other nodes or types.
  template <typename M>
  std::shared_ptr<M> module_at(const Node* n) const {
    if (n == nullptr || n->op() != Opcode::CallModule) return nullptr;
    return std::dynamic_pointer_cast<M>(get_submodule(n->target()));
  }

 protected:
  /// The plan compiled at the last successful recompile().
  std::shared_ptr<const ExecutionPlan> plan() const { return plan_; }
  /// clone() for a GraphModule type M (this must be an M): clone_as<M>(), then recompile() on the copy.
  template <class M>
  std::shared_ptr<nn::Module> clone_compiled() const {
    std::shared_ptr<nn::Module> copy = clone_as<M>();
    static_cast<M&>(*copy).recompile();
    return copy;
  }

 private:
  void register_target(const nn::Module& root, const std::string& target, bool is_module);
  std::unique_ptr<Graph> graph_;
  std::string class_name_;
  std::shared_ptr<const ExecutionPlan> plan_;
};

}  // namespace tl::fx
