// fx/tracer.h — symbolic tracing: runs a module's forward() on proxies and records what it does.
// Kernels never run (unless example inputs are given, in which case shapes are recorded too).
// Leaf modules become call_module nodes; other modules are traced through; ops become
// call_function / call_method nodes. Reading a proxy's data throws a tl::Error naming the module.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fx/graph_module.h"
#include "nn/module.h"

namespace tl::fx {

/// The meta key under which the tracer records, for every node, the dotted path of the module whose forward made
/// it ("" for the traced root's own; a call_module node's own path): PyTorch's QuantizationTracer's
/// node_name_to_scope, which names convert_fx's qparam attributes. A std::string.
inline constexpr const char* kModuleScope = "module_scope";

struct TracedGraph {
  std::unique_ptr<Graph> graph;
  std::vector<std::pair<std::string, Tensor>> constants;
};

class Tracer {
 public:
  virtual ~Tracer() = default;
  /// Whether `m` (at dotted `path` in the traced root) is recorded as a single call_module node.
  /// Default: the built-in nn layers (Module::is_leaf()).
  virtual bool is_leaf_module(const nn::Module& m, const std::string& path) const;

  /// Traces root.forward. `example_inputs` (optional) run the real kernels alongside, so every
  /// node's meta gets its TensorMeta (shape, dtype). Tensors the forward creates itself (not
  /// parameters or buffers) become constants named _tensor_constant0, 1, ... fetched by get_attr.
  TracedGraph trace(nn::Module& root, const std::optional<TensorList>& example_inputs = std::nullopt);
};

/// FX's symbolic_trace: a GraphModule of `root`, holding root's own submodules and tensors (see
/// GraphModule's constructor): training `root` changes what it computes, as in torch.fx.
std::shared_ptr<GraphModule> symbolic_trace(const std::shared_ptr<nn::Module>& root);
/// The same, with example inputs: node meta holds shapes and dtypes.
std::shared_ptr<GraphModule> symbolic_trace(const std::shared_ptr<nn::Module>& root, const TensorList& example_inputs);
/// What a pass rewrites, as the seed's fuser deep-copies before it traces: a clone() of `module` when it
/// already is a GraphModule, else of its symbolic trace (copies of the submodules and tensors the graph
/// refers to). The caller's module, and any module sharing with it, is never touched.
std::shared_ptr<GraphModule> graph_module_of(const std::shared_ptr<nn::Module>& module);

}  // namespace tl::fx
