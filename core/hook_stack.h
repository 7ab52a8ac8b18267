// core/hook_stack.h — a per-thread stack of hooks, the one way observers are installed: the op dispatch
// point's hooks, Module::operator()'s, the allocation hooks and the scope observers. Around a call: every
// before() bottom to top, the topmost intercepting hook or the body, every after() top to bottom (also
// when the call threw); for a notification, every hook bottom to top. A fixed array, so a thread_local
// stack needs no construction or destruction: a release at thread exit still finds it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>

#include "core/error.h"

namespace tl {

template <typename Hook>
class HookStack {
 public:
  /// Hooks a thread may have installed at once; a call snapshots them on the stack, since a hook
  /// may install or remove hooks while it runs.
  static constexpr size_t kMaxHooks = 16;

  bool empty() const { return size_ == 0; }
  /// The hook pushed last, or nullptr.
  Hook* top() const { return size_ == 0 ? nullptr : hooks_[size_ - 1]; }
  bool contains(const Hook* hook) const { return std::find(hooks_.begin(), hooks_.begin() + size_, hook) != hooks_.begin() + size_; }

  void push(Hook* hook, const char* what) {
    TL_INTERNAL_ASSERT(hook != nullptr, what, ": null hook");
    TL_CHECK(size_ < kMaxHooks, what, ": a thread can have at most ", kMaxHooks, " hooks installed");
    hooks_[size_++] = hook;
  }

  /// Removes the topmost entry of `hook`, which must be installed.
  void pop(Hook* hook, const char* what) {
    size_t i = size_;
    while (i > 0 && hooks_[i - 1] != hook) --i;
    TL_INTERNAL_ASSERT(i > 0, what, ": hook not installed on this thread");
    std::copy(hooks_.begin() + i, hooks_.begin() + size_, hooks_.begin() + (i - 1));
    --size_;
  }

  /// Calls fn(hook) on every hook, bottom to top.
  template <typename Fn>
  void for_each(const Fn& fn) const {
    std::array<Hook*, kMaxHooks> snapshot;
    const size_t count = size_;
    std::copy_n(hooks_.begin(), count, snapshot.begin());
    for (size_t i = 0; i < count; ++i) fn(*snapshot[i]);
  }

  /// before(hook); intercept(hook, outputs) -> bool; body() -> Outputs; after(hook, const Outputs*).
  template <typename Outputs, typename Before, typename Intercept, typename Body, typename After>
  Outputs run(const Before& before, const Intercept& intercept, const Body& body, const After& after) const {
    std::array<Hook*, kMaxHooks> snapshot;
    const size_t count = size_;
    std::copy_n(hooks_.begin(), count, snapshot.begin());
    size_t entered = 0;
    Outputs outputs;
    try {
      for (; entered < count; ++entered) before(*snapshot[entered]);
      bool intercepted = false;
      for (size_t i = count; i-- > 0 && !intercepted;) intercepted = intercept(*snapshot[i], outputs);
      if (!intercepted) outputs = body();
    } catch (...) {
      for (size_t i = entered; i-- > 0;) after(*snapshot[i], static_cast<const Outputs*>(nullptr));
      throw;
    }
    for (size_t i = count; i-- > 0;) after(*snapshot[i], &outputs);
    return outputs;
  }

 private:
  std::array<Hook*, kMaxHooks> hooks_{};
  size_t size_ = 0;
};

/// RAII: installs `hook` on the calling thread for the current scope with `push`, removes it with `pop`
/// (the guard each hook kind names: dispatch::HookGuard, AllocationHookGuard, ...).
template <typename Hook, void (*Push)(Hook*), void (*Pop)(Hook*)>
class ScopedHook {
 public:
  explicit ScopedHook(Hook* hook) : hook_(hook) { Push(hook); }
  ~ScopedHook() { Pop(hook_); }
  ScopedHook(const ScopedHook&) = delete;
  ScopedHook& operator=(const ScopedHook&) = delete;

 private:
  Hook* hook_;
};

}  // namespace tl
