// fx/wrap.h — named calls (core/named_call.h) in FX: torch.fx.wrap, which registers a free function that
// symbolic tracing records as one call_function node (target: its qualified Python name) instead of tracing
// through it, as torchvision wraps stochastic_depth; and the translation of a named call's boxed arguments to
// FX arguments and back. Generated code names a wrapped function as FX does (the qualified name with '.' ->
// '_', declared by a torch.fx._symbolic_trace.wrap line), any other named call by its qualified name.
#pragma once

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "core/named_call.h"
#include "core/tensor.h"
#include "fx/argument.h"

namespace tl::fx {

/// A wrapped function: its qualified Python name and what it computes from the tensors among its
/// arguments (in argument order) and the arguments (None where a tensor goes).
struct WrappedFunction {
  std::string qualified_name;
  std::function<Tensor(const TensorList& tensors, const std::vector<Argument>& args)> fn;
};

/// An argument of a call to a wrapped function: a tensor, or a constant (a number, string, bool, ...).
using WrappedArg = std::variant<Tensor, Argument>;

/// Registers `fn` under `qualified_name` ("torchvision.ops.stochastic_depth.stochastic_depth"), as
/// torch.fx.wrap does when its module is imported: in the registry of named calls (core/named_call.h), taking
/// positional arguments only. Returns the entry (it lives for the program). Throws tl::Error when the name is
/// wrapped or registered already.
const WrappedFunction& wrap(const std::string& qualified_name,
                            std::function<Tensor(const TensorList&, const std::vector<Argument>&)> fn);
/// The function wrapped under `target`, or nullptr.
const WrappedFunction* find_wrapped(const std::string& target);
/// Calls `f` as a named call: while this thread traces symbolically and a tensor argument is a traced value,
/// the tracer records a call_function node (args in order, tensors as their nodes) and returns its traced
/// value; otherwise f.fn runs now.
Tensor call_wrapped(const WrappedFunction& f, const std::vector<WrappedArg>& args);
/// The name FX's generated code calls a wrapped function by: "torchvision_ops_stochastic_depth_stochastic_depth".
std::string wrapped_global_name(const std::string& qualified_name);

/// A named call's argument as FX records it: a tensor as `tensor_argument` gives it (its node, a get_attr),
/// an int list as a tuple (Python callers write sizes as tuples, and modules keep them so: (1, 1), (96,)),
/// an index list as operator.getitem's key (fx/getitem.h), any other value as itself.
Argument named_call_argument(const ScopeArg& arg, const std::function<Argument(const Tensor&)>& tensor_argument);
/// The reverse, to run a node: a node as `resolve` gives its tensor, a list or tuple of ints as an int list,
/// None, numbers, strings and dtypes as themselves. Throws tl::Error naming `target` for any other value.
ScopeArg boxed_argument(const Argument& arg, const std::function<Tensor(Node*)>& resolve, const std::string& target);

}  // namespace tl::fx
