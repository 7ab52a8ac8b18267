// fx/shape_prop.h — runs a GraphModule on example inputs and records each node's output shape,
// dtype, strides and memory format in its meta ("tensor_meta"), as torch.fx.passes.shape_prop.ShapeProp.
#pragma once

#include "fx/interpreter.h"

namespace tl::fx {

class ShapeProp : public Interpreter {
 public:
  using Interpreter::Interpreter;
  /// Runs the graph on `inputs`, filling node meta; returns the outputs.
  TensorList propagate(const TensorList& inputs) { return run(inputs); }
  NodeValue run_node(Node& n) override;
};

/// "torch.contiguous_format", "torch.channels_last", "torch.channels_last_3d".
const char* memory_format_name(MemoryFormat format);
/// Tensor.is_contiguous(memory_format=format): dense with strides decreasing in the format's dimension
/// order (N, C, H, W / N, H, W, C / N, D, H, W, C), size-1 dimensions ignored; an empty tensor is always contiguous_format.
/// The channels-last formats need 4 / 5 dimensions.
bool is_contiguous(const Shape& shape, const Strides& strides, MemoryFormat format);
/// _extract_tensor_metadata: shape, dtype, strides and the first format `t` is contiguous in, tried in
/// the order contiguous, channels_last, channels_last_3d. (PyTorch 1.13 tries them in a set's
/// iteration order, which varies between runs, so an (N, C, 1, 1) tensor may get either there.)
TensorMeta extract_tensor_metadata(const Tensor& t);

/// The graph printed with each node's shape and dtype after its name, e.g.
/// "%conv1 : [#users=1] [5, 64, 112, 112] torch.float32 = call_module[target=conv1](...)".
std::string graph_with_shapes(const Graph& graph);

}  // namespace tl::fx
