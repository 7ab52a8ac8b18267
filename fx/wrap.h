// fx/wrap.h — torch.fx.wrap: free functions that symbolic tracing records as one call_function node
// (target: the function's qualified Python name) instead of tracing through them, as torchvision wraps
// stochastic_depth. Graphs run such a node by looking its target up here; generated code names it as FX
// does (the qualified name with '.' -> '_', declared by a torch.fx._symbolic_trace.wrap line).
#pragma once

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"
#include "fx/argument.h"

namespace tl::fx {

/// A wrapped function: its qualified Python name and what it computes from the tensors among its
/// arguments (in argument order) and the arguments (a node, or None outside a graph, where a tensor goes).
struct WrappedFunction {
  std::string qualified_name;
  std::function<Tensor(const TensorList& tensors, const std::vector<Argument>& args)> fn;
};

/// An argument of a call to a wrapped function: a tensor, or a constant (a number, string, bool, ...).
using WrappedArg = std::variant<Tensor, Argument>;

/// Registers `fn` under `qualified_name` ("torchvision.ops.stochastic_depth.stochastic_depth"), as
/// torch.fx.wrap does when its module is imported, and returns the entry (it lives for the program).
/// Throws tl::Error when the name is registered already.
const WrappedFunction& wrap(const std::string& qualified_name,
                            std::function<Tensor(const TensorList&, const std::vector<Argument>&)> fn);
/// The function registered under `target`, or nullptr.
const WrappedFunction* find_wrapped(const std::string& target);
/// Calls `f`: while this thread traces symbolically and a tensor argument is a traced value, records a
/// call_function node (args in order, tensors as their nodes) and returns its traced value; otherwise runs
/// f.fn now.
Tensor call_wrapped(const WrappedFunction& f, const std::vector<WrappedArg>& args);
/// The name FX's generated code calls a wrapped function by: "torchvision_ops_stochastic_depth_stochastic_depth".
std::string wrapped_global_name(const std::string& qualified_name);

}  // namespace tl::fx
