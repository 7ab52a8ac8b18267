// fx/traced_shape.cpp — the traced-shape check and the pass's choice between a symbolic and an example trace.
#include "fx/traced_shape.h"

#include <any>
#include <optional>

#include "fx/tracer.h"
#include "ops/ops.h"

namespace tl::fx {

void check_traced_shape(const Node& placeholder, const Tensor& input, const std::string& module) {
  const auto it = placeholder.meta().find(kTracedShape);
  if (it == placeholder.meta().end() || !input.defined() || input.is_proxy()) return;
  const Shape& traced = std::any_cast<const Shape&>(it->second);
  TL_CHECK(input.shape() == traced, module, ": input '", placeholder.target(), "' has shape ", input.shape(),
           ", but the graph was traced on an example of shape ", traced,
           ", whose sizes it holds as constants (the traced forward reads its input's shape); trace again with an "
           "example of shape ", input.shape());
}

std::shared_ptr<GraphModule> trace_for_shape(const std::shared_ptr<nn::Module>& module, const Shape& example_input_shape) {
  TL_CHECK(module != nullptr, "symbolic_trace: module is null");
  if (auto gm = std::dynamic_pointer_cast<GraphModule>(module)) return gm;
  std::optional<TracedGraph> traced;
  try {
    traced = Tracer().trace(*module);
  } catch (const Error&) {
    if (example_input_shape.empty()) throw;
  }
  if (!traced) {
    // The forward read a shape (or data, which fails here again): its sizes become the example's.
    traced = Tracer().trace(*module, TensorList{zeros(example_input_shape)});
    for (Node* placeholder : traced->graph->find_nodes(Opcode::Placeholder))
      placeholder->meta()[kTracedShape] = example_input_shape;
  }
  return std::make_shared<GraphModule>(*module, std::move(traced->graph), module->type_name(), traced->constants);
}

}  // namespace tl::fx
