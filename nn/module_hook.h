// nn/module_hook.h — per-thread hooks around Module::operator(), the second (and last) hook point
// after dispatch::call. With no hook installed a module call costs one branch.
#pragma once

#include "core/dispatch.h"
#include "core/hook_stack.h"

namespace tl::nn {

class Module;

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
/// hooks: every before (bottom to top), the topmost intercepting hook or forward(), every after
/// (top to bottom, also when it threw).
TensorList call_with_module_hooks(Module& module, const TensorList& inputs);

}  // namespace tl::nn
