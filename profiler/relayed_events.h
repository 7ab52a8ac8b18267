// profiler/relayed_events.h — (internal) the events other threads record for one profile: the scopes of work its
// thread queued and another thread ran (core/scope_relay.h), such as a process group's gloo:all_reduce, each on the
// thread that ran it. Stand-ins collect a piece of work's scopes on their thread and hand them over, complete,
// under a mutex; the recording thread takes them with its own window.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/record_function.h"
#include "profiler/event.h"

namespace tl::profiler::detail {

/// Thread-safe.
class RelayedEvents : public std::enable_shared_from_this<RelayedEvents> {
 public:
  /// Whether stand-ins record: true while the recorder is installed and enabled.
  void set_recording(bool recording);
  /// A stand-in for one piece of work on another thread (ScopeRelay::observer_for_other_thread); null when not
  /// recording.
  std::shared_ptr<ScopeObserver> stand_in();
  /// Appends the events that started in [start_ns, end_ns] to `events` (ending at end_ns at the latest; a parent
  /// left out makes its children top-level) and their threads to `thread_names`, then forgets every event.
  void take(int64_t start_ns, int64_t end_ns, std::vector<FunctionEvent>& events,
            std::vector<std::pair<uint64_t, std::string>>& thread_names);
  /// Forgets every event.
  void clear();

 private:
  friend class StandIn;
  bool recording();
  /// A stand-in's finished scopes, parents indexing into `group`.
  void add(std::vector<FunctionEvent> group);

  std::mutex mutex_;
  bool recording_ = false;
  std::vector<FunctionEvent> events_;  ///< groups in the order they finished; parents index into events_
  std::vector<std::pair<uint64_t, std::string>> threads_;
};

}  // namespace tl::profiler::detail
