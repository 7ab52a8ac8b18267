// core/record_function.h — named scopes any layer can open for the profiler (PyTorch's
// at::RecordFunction): user code, the autograd engine and the optimizers all open them here, and the
// profiler installs a per-thread observer that records them. Unobserved, a scope costs one
// thread-local read and builds no name and no argument list.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "core/dispatch.h"
#include "core/hook_stack.h"

namespace tl {

/// Who opened a scope (PyTorch's RecordScope); the profiler maps it to an event kind and a trace category.
enum class RecordScope : uint8_t {
  /// The runtime's own work: "autograd::engine::evaluate_function: MulBackward0", "MulBackward0".
  /// A "cpu_op" in traces and a table row, like an op.
  Function,
  /// User code, and library code PyTorch writes in Python: "LINEAR PASS", "Optimizer.step#SGD.step".
  /// A "user_annotation" in traces.
  UserScope,
};

/// Ties a backward scope to the forward op that recorded its node: PyTorch's "Sequence number" and
/// "Fwd thread id". The default links nothing.
struct ScopeLink {
  int64_t sequence_nr = -1;     ///< the node's sequence number, or -1
  uint64_t forward_thread = 0;  ///< current_thread_id() of the thread that recorded the node, or 0
};

/// A tensor argument known by its sizes and dtype only: one the kernel has not made (yet), such as the
/// result ATen allocates before the reduction that fills it.
struct TensorType {
  Shape sizes;
  DType dtype;
};

/// A list of ints the caller wrote as Python's list (`[7, 7]`: swin's List[int] window_size passed to a
/// torch.fx.wrap'ped function), where an AttrValue holding a Shape is a tuple (`(3, 3)`: torch.nn.functional's
/// callers). FX records each as written. `items` holds the Shape, so a callee reads either the same way.
struct ListArg {
  AttrValue items;
};

/// A boxed argument: a tensor (undefined for None), a tensor's type, any other value, a list of ints written as
/// a list, or an index list (the key of Python's x[...], operator.getitem's second argument). It is one argument
/// of the ATen op a Function scope stands for (a kernel's "aten::convolution" inside aten::conv2d; the profiler
/// shows them as an op's Input Shapes, one entry per argument of PyTorch's schema for that op) and of a named
/// call (core/named_call.h: F.relu(x, inplace=True)).
using ScopeArg = std::variant<Tensor, TensorType, AttrValue, ListArg, std::vector<indexing::TensorIndex>>;
using ScopeArgs = std::vector<ScopeArg>;

/// A scope's arguments, built only when an observer asks (a non-owning reference to a callable that
/// returns ScopeArgs; it lives as long as the RecordFunction constructor call that made it).
class ScopeInputs {
 public:
  template <std::invocable Fn>
  explicit ScopeInputs(const Fn& fn)
      : fn_(&fn), call_([](const void* f) -> ScopeArgs { return (*static_cast<const Fn*>(f))(); }) {}
  ScopeArgs operator()() const { return call_(fn_); }

 private:
  const void* fn_;
  ScopeArgs (*call_)(const void*);
};

/// Records the scopes opened on the thread it is installed on (the profiler's recorder implements it).
class ScopeObserver {
 public:
  virtual ~ScopeObserver() = default;
  /// Opens a scope now; returns its id (unique on this thread), or 0 when nothing was recorded.
  /// `inputs` (may be null) gives the arguments of the op the scope stands for, if the observer wants them.
  virtual uint64_t open_scope(std::string_view name, RecordScope scope, const ScopeLink& link,
                              const ScopeInputs* inputs) = 0;
  /// Closes scope `id` and every scope opened inside it that is still open; unknown ids are ignored.
  virtual void close_scope(uint64_t id) = 0;
};

/// Adds `observer` on top of the calling thread's scope observers (core/hook_stack.h): every observer
/// installed opens and closes each scope. Throws tl::Error when the thread already has 16 installed.
void push_scope_observer(ScopeObserver* observer);
/// Removes `observer`; it must be installed on this thread (an internal error otherwise).
void pop_scope_observer(ScopeObserver* observer);
/// The calling thread's topmost observer, or null when no scope is observed.
ScopeObserver* scope_observer();

/// RAII: installs a scope observer for the current scope on the current thread.
using ScopeObserverGuard = ScopedHook<ScopeObserver, push_scope_observer, pop_scope_observer>;

/// Deprecated in 0.2.0, removed in 0.3.0: replaces the calling thread's topmost observer by `observer`
/// (null removes it) and returns the one replaced, the single-slot form of push/pop_scope_observer.
[[deprecated("tl::set_scope_observer is tl::push_scope_observer / pop_scope_observer (or ScopeObserverGuard)")]]
ScopeObserver* set_scope_observer(ScopeObserver* observer);

/// The calling thread's operating-system id (gettid): the `tid` its events carry in a trace.
uint64_t current_thread_id();

/// An RAII scope, recorded by every observer installed on the calling thread:
///   {
///     tl::RecordFunction scope("MASK INDICES");
///     ...   // ops here are the scope's children; its self time is what they leave over
///   }
/// Scopes must nest; one closed early (end(), or destroyed out of order) also closes the scopes
/// opened inside it, so events always nest. A scope closes only on the observers that opened it, and
/// only on those still installed.
class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name, RecordScope scope = RecordScope::UserScope, const ScopeLink& link = {}) {
    if (scope_observer() != nullptr) open(name, scope, link, nullptr);
  }
  /// Calls `name()` only when the thread is observed: a name built per call (the engine's
  /// "autograd::engine::evaluate_function: " + node name) costs nothing when no profile runs.
  template <std::invocable NameFn>
  RecordFunction(NameFn&& name, RecordScope scope, const ScopeLink& link = {}) {
    if (scope_observer() != nullptr) open(name(), scope, link, nullptr);
  }
  /// A Function scope for an ATen op that a kernel's work stands in for, with that op's arguments,
  /// built only when observed:
  ///   RecordFunction scope("aten::convolution", [&] { return ScopeArgs{x, w, b, stride, ...}; });
  /// The profiler records it as it records a dispatched op (a "cpu_op", with Input Shapes).
  template <std::invocable InputsFn>
    requires std::same_as<std::invoke_result_t<InputsFn>, ScopeArgs>
  RecordFunction(std::string_view name, const InputsFn& inputs) {
    if (scope_observer() != nullptr) {
      const ScopeInputs lazy(inputs);
      open(name, RecordScope::Function, {}, &lazy);
    }
  }
  ~RecordFunction() { end(); }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

  /// Closes the scope now (PyTorch's __exit__); later calls and the destructor do nothing.
  void end() {
    if (opened_ != 0) close();
  }

 private:
  /// Opens the scope on every installed observer, bottom to top.
  void open(std::string_view name, RecordScope scope, const ScopeLink& link, const ScopeInputs* inputs);
  /// Closes it, top to bottom, on each observer that opened it and is still installed.
  void close();

  static constexpr size_t kMaxObservers = 16;  ///< as many as a thread can install (core/hook_stack.h)
  struct Opened {
    ScopeObserver* observer;
    uint64_t id;
  };
  std::array<Opened, kMaxObservers> scopes_;  ///< the first opened_ are set
  size_t opened_ = 0;
};

}  // namespace tl
