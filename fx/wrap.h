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
  /// The Python parameter names, in order, which keyword arguments bind to; empty for positional arguments only.
  std::vector<std::string> params;
};

/// An argument of a call to a wrapped function: a tensor, or a constant (a number, string, bool, ...).
using WrappedArg = std::variant<Tensor, Argument>;

/// A keyword argument of a call to a wrapped function: `name=value`.
using WrappedKwarg = std::pair<std::string, WrappedArg>;

/// Registers `fn` under `qualified_name` ("torchvision.ops.stochastic_depth.stochastic_depth"), as
/// torch.fx.wrap does when its module is imported: in the registry of named calls (core/named_call.h). With
/// `params` (the Python parameter names), a call's keyword arguments bind to their positions, as Python binds
/// them, before `fn` sees them in parameter order (every parameter up to the last given one must be given);
/// without, it takes positional arguments only. Returns the entry (it lives for the program). Throws tl::Error
/// when the name is wrapped or registered already.
const WrappedFunction& wrap(const std::string& qualified_name,
                            std::function<Tensor(const TensorList&, const std::vector<Argument>&)> fn,
                            std::vector<std::string> params = {});
/// The function wrapped under `target`, or nullptr.
const WrappedFunction* find_wrapped(const std::string& target);
/// Calls `f` as a named call: while this thread traces symbolically and a tensor argument is a traced value,
/// the tracer records a call_function node (args in order, then `kwargs` as keywords, as the caller wrote them;
/// tensors as their nodes) and returns its traced value; otherwise f.fn runs now. Throws tl::Error for keywords
/// `f` has no parameter of, or a parameter given twice.
Tensor call_wrapped(const WrappedFunction& f, const std::vector<WrappedArg>& args,
                    const std::vector<WrappedKwarg>& kwargs = {});
/// torch.fx's read of a module's parameter (`self.layer_scale` in Python): while this thread traces a module
/// holding `t` among its parameters, the traced value of a get_attr node of `t`, made at the trace's first read
/// of it (later reads share it, as torch.fx's parameter_proxy_cache does), so the node stands where Python reads
/// the attribute rather than where the tensor is first used; otherwise `t` itself. A model calls it where that
/// order shows in the graph (ConvNeXt's `self.layer_scale * self.block(input)`) or where a wrapped function
/// takes only parameters and buffers (swin's relative position bias), which torch.fx records as a node.
Tensor getattr(const Tensor& t);
/// Arguments the Python source passes by keyword to the op call it stands beside (torchvision's
/// `x.flatten(start_dim=1)`): while it lives and this thread traces symbolically, the next op recorded on a traced
/// value takes its arguments of these schema names as keywords, in the schema's order (fx::to_fx_args); eager calls
/// run as they would without it. Every argument of that op after the first named one must be named too.
class KeywordArguments {
 public:
  explicit KeywordArguments(std::vector<std::string> names);
  ~KeywordArguments();
  KeywordArguments(const KeywordArguments&) = delete;
  KeywordArguments& operator=(const KeywordArguments&) = delete;

 private:
  std::vector<std::string> names_;
  const std::vector<std::string>* previous_;
};
/// The name FX's generated code calls a wrapped function by: "torchvision_ops_stochastic_depth_stochastic_depth".
std::string wrapped_global_name(const std::string& qualified_name);

/// A named call's argument as FX records it: a tensor as `tensor_argument` gives it (its node, a get_attr),
/// an int list as a tuple (Python callers write sizes as tuples, and modules keep them so: (1, 1), (96,)) or,
/// boxed as a ListArg, as a list ([7, 7]),
/// an index list as operator.getitem's key (fx/getitem.h), any other value as itself.
Argument named_call_argument(const ScopeArg& arg, const std::function<Argument(const Tensor&)>& tensor_argument);
/// The reverse, to run a node: a node as `resolve` gives its tensor, a tuple of ints as an AttrValue's Shape, a
/// list of ints as a ListArg,
/// None, numbers, strings and dtypes as themselves. Throws tl::Error naming `target` for any other value.
ScopeArg boxed_argument(const Argument& arg, const std::function<Tensor(Node*)>& resolve, const std::string& target);

}  // namespace tl::fx
