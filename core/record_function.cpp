// core/record_function.cpp — the per-thread scope observer and the calling thread's id.
#include "core/record_function.h"

#include <sys/syscall.h>
#include <unistd.h>

namespace tl {
namespace {

thread_local ScopeObserver* t_observer = nullptr;

}  // namespace

ScopeObserver* set_scope_observer(ScopeObserver* observer) {
  ScopeObserver* previous = t_observer;
  t_observer = observer;
  return previous;
}

ScopeObserver* scope_observer() { return t_observer; }

uint64_t current_thread_id() {
  // gettid is a system call; cache it per thread since every event and every backward node asks.
  thread_local const uint64_t tid = static_cast<uint64_t>(syscall(SYS_gettid));
  return tid;
}

void RecordFunction::end() {
  if (id_ == 0) return;
  // Scope ids are unique per thread, so an observer installed since at the same address ignores it.
  if (scope_observer() == observer_) observer_->close_scope(id_);
  id_ = 0;
}

}  // namespace tl
