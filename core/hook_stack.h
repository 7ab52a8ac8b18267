// core/hook_stack.h — a per-thread stack of hooks and the one way hooks run around a call: every
// before() bottom to top, the topmost intercepting hook or the body, every after() top to bottom
// (also when the call threw). Used by the op dispatch point and by Module::operator().
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

#include "core/error.h"

namespace tl {

template <typename Hook>
class HookStack {
 public:
  /// Hooks a thread may have installed at once; a call snapshots them on the stack, since a hook
  /// may install or remove hooks while it runs.
  static constexpr size_t kMaxHooks = 16;

  bool empty() const { return hooks_.empty(); }

  void push(Hook* hook, const char* what) {
    TL_INTERNAL_ASSERT(hook != nullptr, what, ": null hook");
    TL_CHECK(hooks_.size() < kMaxHooks, what, ": a thread can have at most ", kMaxHooks, " hooks installed");
    hooks_.push_back(hook);
  }

  void pop(Hook* hook, const char* what) {
    auto it = std::find(hooks_.rbegin(), hooks_.rend(), hook);
    TL_INTERNAL_ASSERT(it != hooks_.rend(), what, ": hook not installed on this thread");
    hooks_.erase(std::next(it).base());
  }

  /// before(hook); intercept(hook, outputs) -> bool; body() -> Outputs; after(hook, const Outputs*).
  template <typename Outputs, typename Before, typename Intercept, typename Body, typename After>
  Outputs run(const Before& before, const Intercept& intercept, const Body& body, const After& after) const {
    std::array<Hook*, kMaxHooks> snapshot;
    const size_t count = hooks_.size();
    std::copy(hooks_.begin(), hooks_.end(), snapshot.begin());
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
  std::vector<Hook*> hooks_;
};

}  // namespace tl
