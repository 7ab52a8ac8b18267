// core/record_function.cpp — the per-thread scope observers, a scope opened and closed on each, and the
// calling thread's id.
#include "core/record_function.h"

#include <sys/syscall.h>
#include <unistd.h>

#include "core/hook_stack.h"

namespace tl {
namespace {

thread_local HookStack<ScopeObserver> t_observers;

}  // namespace

void push_scope_observer(ScopeObserver* observer) { t_observers.push(observer, "push_scope_observer"); }

void pop_scope_observer(ScopeObserver* observer) { t_observers.pop(observer, "pop_scope_observer"); }

ScopeObserver* scope_observer() { return t_observers.top(); }

ScopeObserver* set_scope_observer(ScopeObserver* observer) {
  ScopeObserver* previous = t_observers.top();
  if (previous) t_observers.pop(previous, "set_scope_observer");
  if (observer) t_observers.push(observer, "set_scope_observer");
  return previous;
}

uint64_t current_thread_id() {
  // gettid is a system call; cache it per thread since every event and every backward node asks.
  thread_local const uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));
  return tid;
}

void RecordFunction::open(std::string_view name, RecordScope scope, const ScopeLink& link, const ScopeInputs* inputs) {
  static_assert(kMaxObservers == HookStack<ScopeObserver>::kMaxHooks);
  t_observers.for_each([&](ScopeObserver& observer) {
    if (const uint64_t id = observer.open_scope(name, scope, link, inputs); id != 0) scopes_[opened_++] = {&observer, id};
  });
}

void RecordFunction::close() {
  // Scope ids are unique per thread, so an observer installed since at the same address ignores it.
  while (opened_ > 0) {
    const Opened& s = scopes_[--opened_];
    if (t_observers.contains(s.observer)) s.observer->close_scope(s.id);
  }
}

}  // namespace tl
