// core/dispatch.cpp — attribute lookup and the per-thread hook stack around a kernel call.
#include "core/dispatch.h"

#include <algorithm>

namespace tl {
namespace {

thread_local std::vector<DispatchHook*> t_hooks;

}  // namespace

bool Attrs::is_none(std::string_view name) const {
  const AttrValue* v = find(name);
  return v == nullptr || std::holds_alternative<std::monostate>(*v);
}

Scalar Attrs::scalar(std::string_view name) const {
  const AttrValue* v = find(name);
  TL_INTERNAL_ASSERT(v != nullptr, "attribute '", name, "' missing");
  if (auto* b = std::get_if<bool>(v)) return *b;
  if (auto* i = std::get_if<int64_t>(v)) return *i;
  if (auto* d = std::get_if<double>(v)) return *d;
  TL_INTERNAL_ASSERT(false, "attribute '", name, "' is not a number");
  return false;
}

const AttrValue* Attrs::find(std::string_view name) const {
  for (const Item& item : items_)
    if (item.name == name) return &item.value;
  return nullptr;
}

namespace dispatch {

bool has_hooks() { return !t_hooks.empty(); }

TensorList call_with_hooks(const OpCall& call, KernelFn kernel) {
  // Copy: a hook may install or remove hooks while it runs.
  const std::vector<DispatchHook*> hooks = t_hooks;
  size_t entered = 0;
  TensorList outputs;
  try {
    for (; entered < hooks.size(); ++entered) hooks[entered]->before(call);
    bool intercepted = false;
    for (auto it = hooks.rbegin(); it != hooks.rend() && !intercepted; ++it)
      intercepted = (*it)->intercept(call, outputs);
    if (!intercepted) outputs = kernel(call.inputs, call.attrs);
  } catch (...) {
    for (size_t i = entered; i-- > 0;) hooks[i]->after(call, nullptr);
    throw;
  }
  for (size_t i = hooks.size(); i-- > 0;) hooks[i]->after(call, &outputs);
  return outputs;
}

void push_hook(DispatchHook* hook) { t_hooks.push_back(hook); }

void pop_hook(DispatchHook* hook) {
  auto it = std::find(t_hooks.rbegin(), t_hooks.rend(), hook);
  TL_INTERNAL_ASSERT(it != t_hooks.rend(), "pop_hook: hook not installed on this thread");
  t_hooks.erase(std::next(it).base());
}

}  // namespace dispatch
}  // namespace tl
