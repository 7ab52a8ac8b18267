// nn/module_hook.cpp — the per-thread module-hook stack, run the way dispatch runs op hooks.
#include "nn/module_hook.h"

#include "core/hook_stack.h"
#include "nn/module.h"

namespace tl::nn {
namespace {

thread_local HookStack<ModuleHook> t_module_hooks;

}  // namespace

ModuleHook::~ModuleHook() = default;

void push_module_hook(ModuleHook* hook) { t_module_hooks.push(hook, "push_module_hook"); }

void pop_module_hook(ModuleHook* hook) { t_module_hooks.pop(hook, "pop_module_hook"); }

bool has_module_hooks() { return !t_module_hooks.empty(); }

TensorList call_with_module_hooks(Module& module, const TensorList& inputs) {
  return t_module_hooks.run<TensorList>([&](ModuleHook& h) { h.before(module, inputs); },
                                        [&](ModuleHook& h, TensorList& out) { return h.intercept(module, inputs, out); },
                                        [&] { return module.forward(Inputs(module, inputs)); },
                                        [&](ModuleHook& h, const TensorList* out) { h.after(module, out); });
}

}  // namespace tl::nn
