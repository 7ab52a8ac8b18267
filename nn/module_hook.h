// nn/module_hook.h — the hooks around Module::operator(), the second (and last) hook point after
// dispatch::call: per-thread observers (tracer, profiler) and a module's own PyTorch hooks
// (register_forward_pre_hook, ...), run in that nesting. With no hook a module call costs one branch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/hook_stack.h"

namespace tl::nn {

class Module;

/// hook(module, input) -> None or a replacement input (PyTorch's forward pre-hook).
using ForwardPreHook = std::function<std::optional<TensorList>(Module& module, const TensorList& input)>;
/// hook(module, input, output) -> None or a replacement output (PyTorch's forward hook).
using ForwardHook =
    std::function<std::optional<TensorList>(Module& module, const TensorList& input, const TensorList& output)>;
/// hook(module, grad_input, grad_output) -> None or a replacement grad_input (PyTorch's full backward
/// hook). Entries are undefined (None) for an input that does not require grad or a gradient that
/// did not flow.
using FullBackwardHook = std::function<std::optional<TensorList>(Module& module, const TensorList& grad_input,
                                                                 const TensorList& grad_output)>;

/// A hook's return value as PyTorch reads it: void or std::nullopt keeps the value, a Tensor or a
/// TensorList replaces it (a single tensor as a list of one, as PyTorch wraps a non-tuple).
template <class F, class... Args>
std::optional<TensorList> invoke_hook(const F& hook, Args&... args) {
  using R = std::invoke_result_t<const F&, Args&...>;
  if constexpr (std::is_void_v<R>) {
    hook(args...);
    return std::nullopt;
  } else if constexpr (std::is_convertible_v<R, Tensor>) {
    return TensorList{Tensor(hook(args...))};
  } else {
    return std::optional<TensorList>(hook(args...));
  }
}

/// A module's own hooks in registration order (PyTorch's _forward_pre_hooks, _forward_hooks and
/// _backward_hooks), each under the id its RemovableHandle removes.
struct ModuleHooks {
  std::vector<std::pair<uint64_t, ForwardPreHook>> forward_pre;
  std::vector<std::pair<uint64_t, ForwardHook>> forward;
  std::vector<std::pair<uint64_t, FullBackwardHook>> backward;

  bool empty() const { return forward_pre.empty() && forward.empty() && backward.empty(); }
  /// Removes the hook registered under `id`, if any.
  void remove(uint64_t id);
  /// A process-wide unique id (PyTorch's RemovableHandle.next_id).
  static uint64_t next_id();
};

/// torch.utils.hooks.RemovableHandle: remove() takes its hook off the module it was registered on; a
/// second remove(), or one after the module is gone, does nothing. A clone of the module keeps copies
/// of the hooks that this handle does not reach, as after copy.deepcopy in PyTorch.
class RemovableHandle {
 public:
  RemovableHandle() = default;
  RemovableHandle(std::weak_ptr<ModuleHooks> hooks, uint64_t id) : hooks_(std::move(hooks)), id_(id) {}
  void remove();
  uint64_t id() const { return id_; }

 private:
  std::weak_ptr<ModuleHooks> hooks_;
  uint64_t id_ = 0;
};

/// Sees every module call made on the thread that installed it (nested calls included).
class ModuleHook {
 public:
  virtual ~ModuleHook();
  virtual void before(Module& /*module*/, const TensorList& /*inputs*/) {}
  /// Return true and fill `outputs` to skip forward() (the tracer records a call_module node here).
  virtual bool intercept(Module& /*module*/, const TensorList& /*inputs*/, TensorList& /*outputs*/) {
    return false;
  }
  /// `outputs` is null when forward() (or an intercepting hook) threw.
  virtual void after(Module& /*module*/, const TensorList* /*outputs*/) {}
};

/// Adds `hook` on top of the calling thread's module-hook stack.
void push_module_hook(ModuleHook* hook);
/// Removes `hook`; it must be installed on this thread (an internal error otherwise).
void pop_module_hook(ModuleHook* hook);

/// RAII: installs a module hook for the current scope on the current thread.
using ModuleHookGuard = ScopedHook<ModuleHook, push_module_hook, pop_module_hook>;

/// True when the calling thread has a module hook installed.
bool has_module_hooks();
/// Module::operator()'s slow path: runs `module.forward(inputs)` through the calling thread's
/// hooks: every before (bottom to top), the topmost intercepting hook or the module's own hooks around
/// forward(), every after (top to bottom, also when it threw). The own hooks run as PyTorch's _call_impl
/// runs them: each forward pre-hook in order (a returned list replaces the input), forward(), each
/// forward hook in order (a returned list replaces the output). With full backward hooks (and grad
/// mode on) the inputs after the pre-hooks and the outputs after the forward hooks pass through identity
/// autograd nodes (BackwardHookFunctionBackward), so forward() sees, and the caller gets, aliases of
/// them; backward then calls the hooks with grad_input and grad_output. An intercepted call (the
/// tracer's call_module) runs none of them, as under FX's symbolic_trace.
TensorList call_with_module_hooks(Module& module, const TensorList& inputs);

}  // namespace tl::nn
