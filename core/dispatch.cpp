// core/dispatch.cpp — attribute lookup and the per-thread hook stack around a kernel call.
#include "core/dispatch.h"

#include "core/hook_stack.h"

namespace tl {
namespace {

thread_local HookStack<DispatchHook> t_hooks;
dispatch::AutogradFn g_autograd_fn = nullptr;

}  // namespace

bool Attrs::is_none(std::string_view name) const {
  const AttrValue* v = find(name);
  return v == nullptr || std::holds_alternative<std::monostate>(*v);
}

Scalar Attrs::scalar(std::string_view name) const {
  const AttrValue* v = find(name);
  TL_CHECK(v != nullptr, "argument '", name, "' is missing");
  if (auto* b = std::get_if<bool>(v)) return *b;
  if (auto* i = std::get_if<int64_t>(v)) return *i;
  if (auto* d = std::get_if<double>(v)) return *d;
  TL_CHECK(false, "argument '", name, "' is not a number");
  return false;
}

Shape Attrs::int_list(std::string_view name) const {
  if (const AttrValue* v = find(name); v && std::holds_alternative<int64_t>(*v)) return Shape{std::get<int64_t>(*v)};
  return get<Shape>(name);
}

const AttrValue* Attrs::find(std::string_view name) const {
  for (const Item& item : items_)
    if (item.name == name) return &item.value;
  return nullptr;
}

namespace dispatch {

void set_autograd_fn(AutogradFn fn) { g_autograd_fn = fn; }

AutogradFn autograd_fn() { return g_autograd_fn; }

bool has_hooks() { return !t_hooks.empty(); }

TensorList call_with_hooks(const OpCall& call, const std::function<TensorList()>& run) {
  return t_hooks.run<TensorList>([&](DispatchHook& h) { h.before(call); },
                                 [&](DispatchHook& h, TensorList& out) { return h.intercept(call, out); },
                                 run,
                                 [&](DispatchHook& h, const TensorList* out) { h.after(call, out); });
}

bool intercept_call(const NamedCall& call, TensorList& outputs) {
  bool taken = false;
  t_hooks.for_each([&](DispatchHook& h) { taken = taken || h.intercept_call(call, outputs); });
  return taken;
}

void push_hook(DispatchHook* hook) { t_hooks.push(hook, "push_hook"); }

void pop_hook(DispatchHook* hook) { t_hooks.pop(hook, "pop_hook"); }

}  // namespace dispatch
}  // namespace tl
