// core/record_function.h — named scopes any layer can open for the profiler (PyTorch's
// at::RecordFunction): user code, the autograd engine and the optimizers all open them here, and the
// profiler installs the one per-thread observer that records them. Unobserved, a scope costs one
// thread-local read and builds no name.
#pragma once

#include <concepts>
#include <cstdint>
#include <string_view>

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

/// Records the scopes opened on the thread it is installed on (the profiler's recorder implements it).
class ScopeObserver {
 public:
  virtual ~ScopeObserver() = default;
  /// Opens a scope now; returns its id (unique on this thread), or 0 when nothing was recorded.
  virtual uint64_t open_scope(std::string_view name, RecordScope scope, const ScopeLink& link) = 0;
  /// Closes scope `id` and every scope opened inside it that is still open; unknown ids are ignored.
  virtual void close_scope(uint64_t id) = 0;
};

/// Installs `observer` on the calling thread (null removes it); returns the observer it replaces.
ScopeObserver* set_scope_observer(ScopeObserver* observer);
/// The calling thread's observer, or null.
ScopeObserver* scope_observer();

/// The calling thread's operating-system id (gettid): the `tid` its events carry in a trace.
uint64_t current_thread_id();

/// An RAII scope, recorded by the calling thread's observer if it has one:
///   {
///     tl::RecordFunction scope("MASK INDICES");
///     ...   // ops here are the scope's children; its self time is what they leave over
///   }
/// Scopes must nest; one closed early (end(), or destroyed out of order) also closes the scopes
/// opened inside it, so events always nest. A scope closes only on the observer that opened it, and
/// only while that observer is still installed.
class RecordFunction {
 public:
  explicit RecordFunction(std::string_view name, RecordScope scope = RecordScope::UserScope, const ScopeLink& link = {})
      : observer_(scope_observer()) {
    if (observer_ != nullptr) id_ = observer_->open_scope(name, scope, link);
  }
  /// Calls `name()` only when the thread is observed: a name built per call (the engine's
  /// "autograd::engine::evaluate_function: " + node name) costs nothing when no profile runs.
  template <std::invocable NameFn>
  RecordFunction(NameFn&& name, RecordScope scope, const ScopeLink& link = {}) : observer_(scope_observer()) {
    if (observer_ != nullptr) id_ = observer_->open_scope(name(), scope, link);
  }
  ~RecordFunction() { end(); }
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

  /// Closes the scope now (PyTorch's __exit__); later calls and the destructor do nothing.
  void end();

 private:
  ScopeObserver* observer_;
  uint64_t id_ = 0;
};

}  // namespace tl
