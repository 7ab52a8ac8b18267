// nn/module_hook.cpp — the per-thread module-hook stack, run the way dispatch runs op hooks, and a
// module's own hooks around its forward().
#include "nn/module_hook.h"

#include <algorithm>
#include <atomic>

#include "autograd/node.h"
#include "core/autograd_meta.h"
#include "core/grad_mode.h"
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

/// PyTorch's BackwardHook (torch/utils/hooks.py): the module's inputs and outputs pass through identity
/// nodes ("BackwardHookFunctionBackward"); the outputs' node records grad_output, the inputs' node calls
/// the hooks with grad_input and passes on what they return. The hooks and the module are captured at
/// the call, as PyTorch captures them.
struct BackwardHookState {
  Module* module = nullptr;
  std::weak_ptr<Module> owner;  ///< empty for a module not owned by a shared_ptr
  bool owned = false;
  std::vector<FullBackwardHook> hooks;
  size_t n_inputs = 0;
  bool inputs_wrapped = false;
  std::optional<TensorList> grad_output;

  /// The module, or nullptr when it was owned and is gone.
  Module* alive() const { return owned && owner.expired() ? nullptr : module; }
};

class BackwardHookNode final : public autograd::Node {
 public:
  BackwardHookNode(std::shared_ptr<BackwardHookState> state, bool is_input) : state_(std::move(state)), is_input_(is_input) {}
  std::string name() const override { return "BackwardHookFunctionBackward"; }
  TensorList apply(TensorList grads) override { return is_input_ ? input_side(std::move(grads)) : output_side(std::move(grads)); }

 private:
  TensorList output_side(TensorList grads) {
    BackwardHookState& s = *state_;
    s.grad_output = grads;
    if (s.inputs_wrapped) return grads;
    // No input requires grad: the hooks run here, with grad_input all None, and may not replace it.
    Module* module = s.alive();
    const TensorList grad_input(s.n_inputs);
    for (const FullBackwardHook& hook : s.hooks) {
      if (module == nullptr) break;
      const std::optional<TensorList> res = hook(*module, grad_input, grads);
      TL_CHECK(!res || std::none_of(res->begin(), res->end(), [](const Tensor& t) { return t.defined(); }),
               "Backward hook for Modules where no input requires gradient should always return None or None for "
               "all gradients.");
    }
    s.grad_output.reset();
    return grads;
  }

  TensorList input_side(TensorList grad_input) {
    BackwardHookState& s = *state_;
    Module* module = s.alive();
    // No grad_output: the gradient reached the inputs without passing through the outputs.
    if (!s.grad_output || module == nullptr) return grad_input;
    for (const FullBackwardHook& hook : s.hooks) {
      std::optional<TensorList> res = hook(*module, grad_input, *s.grad_output);
      if (!res) continue;
      TL_CHECK(res->size() == grad_input.size(), "Backward hook returned an invalid number of grad_input, got ",
               res->size(), ", but expected ", grad_input.size());
      for (size_t i = 0; i < res->size(); ++i) {
        const Tensor& g = (*res)[i];
        TL_CHECK(!g.defined() || !next_edges[i].valid() || g.shape() == output_meta[i].shape,
                 "Function BackwardHookFunctionBackward returned an invalid gradient at index ", i, " - got ",
                 g.shape(), " but expected shape compatible with ", output_meta[i].shape);
      }
      grad_input = std::move(*res);
    }
    s.grad_output.reset();
    return grad_input;
  }

  std::shared_ptr<BackwardHookState> state_;
  bool is_input_;
};

/// The tensors of `values` passed through a new identity node (aliases whose grad_fn it is), when one
/// requires grad; `values` unchanged (nullptr returned) otherwise.
std::shared_ptr<BackwardHookNode> wrap(TensorList& values, const std::shared_ptr<BackwardHookState>& state, bool is_input) {
  const bool any = std::any_of(values.begin(), values.end(), [](const Tensor& t) { return t.defined() && t.requires_grad(); });
  if (!any) return nullptr;
  auto node = std::make_shared<BackwardHookNode>(state, is_input);
  for (size_t i = 0; i < values.size(); ++i) {
    const Tensor& t = values[i];
    node->next_edges.push_back(t.defined() ? autograd::gradient_edge(t) : autograd::Edge{});
    node->output_meta.push_back(t.defined() ? autograd::TensorInfo{t.shape(), t.dtype(), true} : autograd::TensorInfo{});
  }
  node->retained.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i].defined() || !node->next_edges[i].valid()) continue;
    Tensor alias = values[i].detach();
    AutogradMeta& meta = TensorImplAccess::ensure_meta(alias);
    meta.requires_grad = true;
    meta.grad_fn = node;
    meta.output_nr = static_cast<uint32_t>(i);
    values[i] = std::move(alias);
  }
  return node;
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
  std::shared_ptr<BackwardHookState> backward;
  if (!hooks.backward.empty() && GradMode::is_enabled()) {
    backward = std::make_shared<BackwardHookState>();
    backward->module = &module;
    backward->owner = module.weak_from_this();
    backward->owned = !backward->owner.expired();
    for (const auto& entry : hooks.backward) backward->hooks.push_back(entry.second);
    backward->n_inputs = input.size();
    backward->inputs_wrapped = wrap(input, backward, true) != nullptr;
  }
  TensorList output = module.forward(Inputs(module, input));
  for (const auto& [id, hook] : hooks.forward)
    if (std::optional<TensorList> replaced = hook(module, input, output)) output = std::move(*replaced);
  if (backward) wrap(output, backward, false);
  return output;
}

}  // namespace

ModuleHook::~ModuleHook() = default;

void ModuleHooks::remove(uint64_t id) {
  erase_id(forward_pre, id);
  erase_id(forward, id);
  erase_id(backward, id);
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
