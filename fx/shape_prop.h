// fx/shape_prop.h — runs a GraphModule on example inputs and records each node's output shape
// and dtype in its meta ("tensor_meta"), as torch.fx.passes.shape_prop.ShapeProp.
#pragma once

#include "fx/interpreter.h"

namespace tl::fx {

class ShapeProp : public Interpreter {
 public:
  using Interpreter::Interpreter;
  /// Runs the graph on `inputs`, filling node meta; returns the outputs.
  TensorList propagate(const TensorList& inputs) { return run(inputs); }
  Value run_node(Node& n) override;
};

/// The graph printed with each node's shape and dtype after its name, e.g.
/// "%conv1 : [num_users=1] [5, 64, 112, 112] torch.float32 = call_module[target=conv1](...)".
std::string graph_with_shapes(const Graph& graph);

}  // namespace tl::fx
