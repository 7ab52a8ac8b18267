// core/named_call.h — named calls: a Python function that symbolic tracing records as one call_function node
// whose target is its qualified name (torch.nn.functional.relu, operator.getitem, a torch.fx.wrap'ped function)
// instead of the ops it runs, with its arguments boxed as the caller wrote them (positional and keyword); and
// the one registry that runs a target by name from such arguments, as graphs run these nodes.
#pragma once

#include <concepts>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/boxing.h"
#include "core/record_function.h"

namespace tl {

/// A keyword argument of a named call: `name=value`.
struct KeywordArg {
  std::string name;
  ScopeArg value;
};

/// One call of a named function: its qualified Python name and its arguments as the caller wrote them.
struct NamedCall {
  std::string_view target;             ///< "torch.nn.functional.relu"
  std::span<const ScopeArg> args;      ///< positional, in order
  std::span<const KeywordArg> kwargs;  ///< keyword, in the order written
};

/// A named call's arguments, owned: what a wrapper boxes when a hook may take the call.
struct BoxedCall {
  std::vector<ScopeArg> args;
  std::vector<KeywordArg> kwargs;
};

/// What a registered function computes from a call's arguments (one tensor, or a tuple of them).
using NamedFunction = std::function<TensorList(const NamedCall& call)>;

/// Registers `fn` as what `target` computes, for the program's lifetime. Throws tl::Error when `target` is
/// registered already.
void register_named_function(const std::string& target, NamedFunction fn);
/// The function registered under `target`, or nullptr. The pointer stays valid for the program.
const NamedFunction* find_named_function(std::string_view target);
/// Calls `call.target` as Python code calls the function: offered to the calling thread's hooks first (so a
/// graph that runs the call while being traced records it again as one node), else run by its registered
/// function. Throws tl::Error naming the target when none is registered.
TensorList run_named_call(const NamedCall& call);
/// The same with the function already looked up (`fn`, registered under call.target): an FX node resolves it once.
TensorList run_named_call(const NamedFunction& fn, const NamedCall& call);

namespace detail {
std::optional<Tensor> intercept_boxed(std::string_view target, const BoxedCall& call);
}  // namespace detail

/// A wrapper's tracing entry: with no hook on the calling thread, nullopt at the cost of one check (the
/// wrapper runs its own code); otherwise `target` called with box()'s arguments is offered to the hooks
/// (dispatch::intercept_call), and the value the hook made is returned when one took it. Throws tl::Error
/// naming the target when nothing is registered under it (a graph could not run the node).
template <std::invocable Box>
std::optional<Tensor> intercept_named_call(std::string_view target, const Box& box) {
  if (!dispatch::has_hooks()) return std::nullopt;
  return detail::intercept_boxed(target, box());
}

/// A named call's arguments bound to its Python parameters, as Python binds a call: the i-th parameter takes
/// the i-th positional argument or the keyword argument of its name. Throws tl::Error naming the target for
/// more positional arguments than parameters, an unknown keyword, or a parameter given twice.
class BoundArgs {
 public:
  BoundArgs(const NamedCall& call, std::initializer_list<std::string_view> params);

  /// Parameter i's argument, or nullptr when the call leaves it to its default.
  const ScopeArg* find(size_t i) const { return bound_.at(i); }
  /// Parameter i as a tensor: undefined when absent or None; tl::Error naming it for another value.
  Tensor tensor(size_t i) const;
  /// Parameter i as a non-tensor value, or nullptr when absent; tl::Error naming it for a tensor.
  const AttrValue* value(size_t i) const;
  /// Parameter i read as T (core/boxing.h's conversions: an int for a float, None for an optional), or
  /// `fallback` when absent.
  template <typename T>
  T get(size_t i, T fallback) const {
    if (const AttrValue* v = value(i)) detail::unbox(*v, fallback, target_.c_str(), params_.at(i));
    return fallback;
  }

 private:
  std::string target_;
  std::vector<std::string_view> params_;
  std::vector<const ScopeArg*> bound_;
};

}  // namespace tl
