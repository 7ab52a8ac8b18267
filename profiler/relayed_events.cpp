// profiler/relayed_events.cpp — the stand-in observer a worker thread installs, and the hand-over of its scopes. A
// stand-in's scopes nest on its one thread; it hands them over whenever its outermost scope closes, so the events
// of one thread arrive in start order, as EventList wants them.
#include "profiler/relayed_events.h"

#include <algorithm>

#include "profiler/clock.h"

namespace tl::profiler::detail {

class StandIn final : public ScopeObserver {
 public:
  explicit StandIn(std::shared_ptr<RelayedEvents> target) : target_(std::move(target)) {}
  ~StandIn() override {
    if (!open_.empty()) close_from(0);
  }

  uint64_t open_scope(std::string_view name, RecordScope scope, const ScopeLink& link, const ScopeInputs*) override {
    if (!target_->recording()) return 0;
    FunctionEvent& e = group_.emplace_back();
    e.name = std::string(name);
    e.kind = scope == RecordScope::Function ? EventKind::Function : EventKind::UserAnnotation;
    e.thread = current_thread_id();
    e.parent = open_.empty() ? -1 : static_cast<int64_t>(open_.back().index);
    e.sequence_nr = link.sequence_nr;
    e.forward_thread = link.forward_thread;
    open_.push_back({++t_next_id, group_.size() - 1});
    e.start_ns = now_ns();
    return open_.back().id;
  }

  void close_scope(uint64_t id) override {
    for (size_t i = open_.size(); i-- > 0;) {
      if (open_[i].id != id) continue;
      close_from(i);
      break;
    }
  }

 private:
  struct Open {
    uint64_t id;
    size_t index;
  };
  // Ids unique per thread (as the recorder's), so a scope of an earlier stand-in never matches.
  static thread_local uint64_t t_next_id;

  void close_from(size_t position) {
    const int64_t end = now_ns();
    for (size_t i = position; i < open_.size(); ++i) group_[open_[i].index].end_ns = end;
    open_.resize(position);
    if (open_.empty()) target_->add(std::exchange(group_, {}));
  }

  std::shared_ptr<RelayedEvents> target_;
  std::vector<FunctionEvent> group_;
  std::vector<Open> open_;
};

thread_local uint64_t StandIn::t_next_id = 0;

void RelayedEvents::set_recording(bool recording) {
  std::lock_guard<std::mutex> lock(mutex_);
  recording_ = recording;
}

bool RelayedEvents::recording() {
  std::lock_guard<std::mutex> lock(mutex_);
  return recording_;
}

std::shared_ptr<ScopeObserver> RelayedEvents::stand_in() {
  if (!recording()) return nullptr;
  return std::make_shared<StandIn>(shared_from_this());
}

void RelayedEvents::add(std::vector<FunctionEvent> group) {
  if (group.empty()) return;
  const uint64_t thread = group.front().thread;
  std::string name = current_thread_id() == thread ? current_thread_name() : std::string();
  std::lock_guard<std::mutex> lock(mutex_);
  if (!recording_) return;
  const auto offset = static_cast<int64_t>(events_.size());
  for (FunctionEvent& e : group) {
    if (e.parent >= 0) e.parent += offset;
    events_.push_back(std::move(e));
  }
  if (std::none_of(threads_.begin(), threads_.end(), [&](const auto& t) { return t.first == thread; }))
    threads_.emplace_back(thread, std::move(name));
}

void RelayedEvents::take(int64_t start_ns, int64_t end_ns, std::vector<FunctionEvent>& events,
                         std::vector<std::pair<uint64_t, std::string>>& thread_names) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<int64_t> remap(events_.size(), -1);
  for (size_t i = 0; i < events_.size(); ++i) {
    FunctionEvent& e = events_[i];
    if (e.start_ns < start_ns || e.start_ns > end_ns) continue;
    remap[i] = static_cast<int64_t>(events.size());
    e.end_ns = std::min(e.end_ns, end_ns);
    e.parent = e.parent >= 0 ? remap[static_cast<size_t>(e.parent)] : -1;
    events.push_back(std::move(e));
  }
  for (auto& thread : threads_)
    if (std::none_of(thread_names.begin(), thread_names.end(), [&](const auto& t) { return t.first == thread.first; }))
      thread_names.push_back(std::move(thread));
  events_.clear();
  threads_.clear();
}

void RelayedEvents::clear() {
  std::lock_guard<std::mutex> lock(mutex_);
  events_.clear();
  threads_.clear();
}

}  // namespace tl::profiler::detail
