// fx/traced_shape.h — graphs traced on an example's shape: a forward that reads its input's shape (which torch.fx's
// tracer refuses) traced with the example's sizes as constants of the graph, which then runs that shape only.
#pragma once

#include <memory>
#include <string>

#include "fx/graph_module.h"

namespace tl::fx {

/// The meta key of a placeholder whose example's sizes are constants of the graph (a Shape): the traced forward
/// read its input's shape (shufflenet's `x.size()`, vit's `n, c, h, w = x.shape`). trace_for_shape sets it; a
/// retrace of the GraphModule (what a pass does) and graph copies keep it.
inline constexpr const char* kTracedShape = "traced_shape";

/// Throws tl::Error naming both shapes when `placeholder` holds a kTracedShape that `input` (not a proxy) has
/// not; `module` names the caller ("ShuffleNetV2.forward"). GraphModule, Interpreter and the optimized module
/// check every input so before running anything.
void check_traced_shape(const Node& placeholder, const Tensor& input, const std::string& module);

/// `module` traced for inputs of `example_input_shape` (what optimize_for_inference traces; give its result to
/// fuse_conv_bn): `module` itself when it is a GraphModule, its symbolic_trace when its forward traces without
/// examples (a graph for every shape), else — the forward reads a traced value's shape, which symbolic_trace
/// refuses as torch.fx does — its trace on zeros of `example_input_shape` with each placeholder's kTracedShape
/// set, so the graph refuses another shape rather than compute with the example's sizes. Shares `module`'s
/// submodules and tensors, as symbolic_trace does. With no shape given (empty), the symbolic trace's error is
/// thrown. (symbolic_trace with example inputs sets no kTracedShape: a forward may read shapes yet build a
/// graph for every shape, as an LSTM's zero states made from its input do.)
std::shared_ptr<GraphModule> trace_for_shape(const std::shared_ptr<nn::Module>& module, const Shape& example_input_shape);

}  // namespace tl::fx
