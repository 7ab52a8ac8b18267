// core/scope_relay.cpp — the per-thread relays, and stand-ins captured from them and installed elsewhere.
#include "core/scope_relay.h"

#include "core/hook_stack.h"

namespace tl {
namespace {

thread_local HookStack<ScopeRelay> t_relays;

}  // namespace

void push_scope_relay(ScopeRelay* relay) { t_relays.push(relay, "push_scope_relay"); }

void pop_scope_relay(ScopeRelay* relay) { t_relays.pop(relay, "pop_scope_relay"); }

CarriedScopes CarriedScopes::capture() {
  CarriedScopes carried;
  t_relays.for_each([&](ScopeRelay& relay) {
    if (auto observer = relay.observer_for_other_thread()) carried.observers_.push_back(std::move(observer));
  });
  return carried;
}

CarriedScopes::Installed::Installed(const CarriedScopes& scopes) : scopes_(scopes) {
  // All or none: a full observer stack on this thread leaves it as it was.
  try {
    for (; pushed_ < scopes_.observers_.size(); ++pushed_) push_scope_observer(scopes_.observers_[pushed_].get());
  } catch (...) {
    while (pushed_ > 0) pop_scope_observer(scopes_.observers_[--pushed_].get());
    throw;
  }
}

CarriedScopes::Installed::~Installed() {
  while (pushed_ > 0) pop_scope_observer(scopes_.observers_[--pushed_].get());
}

}  // namespace tl
