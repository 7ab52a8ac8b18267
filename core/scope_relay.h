// core/scope_relay.h — scopes opened by work that one thread queues and another runs (a process group's worker
// running a collective): the queuing thread captures stand-ins of its relaying observers, the running thread
// installs them while it runs the work, and its RecordFunction scopes land in the queuing thread's profile under
// the running thread's own id. PyTorch carries its profiler's thread-local state into c10d's worker threads
// (at::wrapPropagateTLSState) for the same purpose.
#pragma once

#include <memory>
#include <vector>

#include "core/record_function.h"

namespace tl {

/// An observer that can record scopes opened on other threads (the profiler's recorder implements it).
class ScopeRelay {
 public:
  virtual ~ScopeRelay() = default;
  /// A ScopeObserver that one other thread installs while it runs one piece of work queued here. It records,
  /// thread-safely, into what this relay records; once this relay has stopped recording it records nothing,
  /// so it may outlive the relay.
  virtual std::shared_ptr<ScopeObserver> observer_for_other_thread() = 0;
};

/// Adds `relay` on the calling thread (core/hook_stack.h); throws tl::Error when 16 are installed.
void push_scope_relay(ScopeRelay* relay);
/// Removes `relay`; it must be installed on this thread (an internal error otherwise).
void pop_scope_relay(ScopeRelay* relay);

/// The stand-ins a piece of work carries from the thread that queued it to the thread that runs it.
class CarriedScopes {
 public:
  /// A stand-in of each relay installed on the calling thread, bottom to top; empty, and allocation-free, when
  /// none is.
  static CarriedScopes capture();
  bool empty() const { return observers_.empty(); }

  /// RAII on the running thread: installs the stand-ins as its scope observers for its lifetime.
  class Installed {
   public:
    explicit Installed(const CarriedScopes& scopes);
    ~Installed();
    Installed(const Installed&) = delete;
    Installed& operator=(const Installed&) = delete;

   private:
    const CarriedScopes& scopes_;
    size_t pushed_ = 0;
  };

 private:
  std::vector<std::shared_ptr<ScopeObserver>> observers_;
};

}  // namespace tl
