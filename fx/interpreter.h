// fx/interpreter.h — runs a GraphModule one node at a time, with every step overridable, as
// torch.fx.Interpreter. A value is dropped as soon as its last user has run.
//
//   run()
//     +-- run_node()
//           +-- placeholder()
//           +-- get_attr()
//           +-- call_function()
//           +-- call_module()
//           +-- call_method()
//           +-- output()
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "fx/graph_module.h"
#include "fx/schema.h"
#include "fx/value.h"

namespace tl::fx {

/// The graph's use-def information and modules are read at the start of every run(), so a graph
/// edited between runs is interpreted as it now is (FX reads them once, at construction).
class Interpreter {
 public:
  explicit Interpreter(std::shared_ptr<GraphModule> module);
  virtual ~Interpreter() = default;

  /// Runs the graph with one input per placeholder; returns the output's tensors. A failure in a
  /// node is rethrown as tl::Error with "while executing %name : ... = call_module[...]" context.
  virtual TensorList run(const TensorList& inputs);
  Tensor run(const Tensor& input);

  /// Evaluates one node (its inputs are already in the environment).
  virtual NodeValue run_node(Node& n);
  virtual NodeValue placeholder(Node& n);
  virtual NodeValue get_attr(Node& n);
  virtual NodeValue call_function(Node& n);
  virtual NodeValue call_module(Node& n);
  virtual NodeValue call_method(Node& n);
  virtual NodeValue output(Node& n);

  GraphModule& module() { return *module_; }
  const GraphModule& module() const { return *module_; }
  const std::shared_ptr<GraphModule>& module_ptr() const { return module_; }

 protected:
  /// The value computed for `n`; throws if it is not (or no longer) available.
  const NodeValue& env(const Node* n) const;
  /// The values of the nodes `n`'s call reads (Node::call().inputs), an undefined tensor for None: an
  /// op's tensor inputs in the kernel's order, call_module's arguments.
  TensorList fetch_inputs(const Node& n) const;
  /// Deprecated in 0.2.0, removed in 0.3.0: `n`'s call is resolved once (Node::call(): the op, its
  /// arguments struct, its inputs); fetch_inputs() gives the inputs' values.
  [[deprecated("Interpreter::fetch_op_arguments: use n.call() and fetch_inputs(n)")]]
  OpArguments fetch_op_arguments(const Node& n) const;
  [[deprecated("Interpreter::fetch_tensor_args is Interpreter::fetch_inputs")]]
  TensorList fetch_tensor_args(const Node& n) const;

 private:
  /// Reads last_uses_ and modules_ from the graph as it is now.
  void prepare();

  std::shared_ptr<GraphModule> module_;
  // For each node, the values whose last use it is (FX's user_to_last_uses), in argument order.
  std::unordered_map<const Node*, std::vector<const Node*>> last_uses_;
  // The module each call_module node calls, resolved once per run.
  std::unordered_map<const Node*, std::shared_ptr<nn::Module>> modules_;
  std::unordered_map<const Node*, NodeValue> env_;
  const TensorList* inputs_ = nullptr;
  size_t next_input_ = 0;
};

}  // namespace tl::fx
