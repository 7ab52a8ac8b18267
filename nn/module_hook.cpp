// nn/module_hook.cpp — the per-thread module-hook stack, run the way dispatch runs op hooks, and a
// module's own hooks around its forward().
#include "nn/module_hook.h"

#include <algorithm>
#include <atomic>

#include "core/hook_stack.h"
#include "nn/module.h"

namespace tl::nn {
namespace {

thread_local HookStack<ModuleHook> t_module_hooks;

template <class Hooks>
void erase_id(Hooks& hooks, uint64_t id) {
  hooks.erase(std::remove_if(hooks.begin(), hooks.end(), [&](const auto& entry) { return entry.first == id; }),
              hooks.end());
}

/// forward() between the module's own pre-hooks and forward hooks (PyTorch's _call_impl). The hook
/// lists are copied first: a hook may register or remove hooks while it runs.
TensorList forward_with_own_hooks(Module& module, const TensorList& inputs) {
  const std::shared_ptr<ModuleHooks>& own = module.own_hooks();
  if (!own || own->empty()) return module.forward(Inputs(module, inputs));
  const ModuleHooks hooks = *own;
  TensorList input = inputs;
  for (const auto& [id, hook] : hooks.forward_pre)
    if (std::optional<TensorList> replaced = hook(module, input)) {
      module.check_inputs(*replaced);
      input = std::move(*replaced);
    }
  TensorList output = module.forward(Inputs(module, input));
  for (const auto& [id, hook] : hooks.forward)
    if (std::optional<TensorList> replaced = hook(module, input, output)) output = std::move(*replaced);
  return output;
}

}  // namespace

ModuleHook::~ModuleHook() = default;

void ModuleHooks::remove(uint64_t id) {
  erase_id(forward_pre, id);
  erase_id(forward, id);
}

uint64_t ModuleHooks::next_id() {
  static std::atomic<uint64_t> next{0};
  return next++;
}

void RemovableHandle::remove() {
  if (const std::shared_ptr<ModuleHooks> hooks = hooks_.lock()) hooks->remove(id_);
}

void push_module_hook(ModuleHook* hook) { t_module_hooks.push(hook, "push_module_hook"); }

void pop_module_hook(ModuleHook* hook) { t_module_hooks.pop(hook, "pop_module_hook"); }

bool has_module_hooks() { return !t_module_hooks.empty(); }

TensorList call_with_module_hooks(Module& module, const TensorList& inputs) {
  return t_module_hooks.run<TensorList>([&](ModuleHook& h) { h.before(module, inputs); },
                                        [&](ModuleHook& h, TensorList& out) { return h.intercept(module, inputs, out); },
                                        [&] { return forward_with_own_hooks(module, inputs); },
                                        [&](ModuleHook& h, const TensorList* out) { h.after(module, out); });
}

}  // namespace tl::nn
