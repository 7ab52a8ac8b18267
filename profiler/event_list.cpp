// profiler/event_list.cpp — building the event tree: cpu parents skip Module scopes, self time
// is duration minus the children's (clamped at zero), memory goes to every enclosing event and,
// as self memory, to the innermost function event.
#include "profiler/event_list.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "core/error.h"
#include "profiler/source_frames.h"

namespace tl::profiler {

EventList::EventList(std::vector<FunctionEvent> events, std::vector<MemoryEvent> memory_events, EventListInfo info)
    : events_(std::move(events)), memory_events_(std::move(memory_events)), info_(std::move(info)) {
  build_tree();
  attribute_memory();
}

void EventList::build_tree() {
  const int64_t n = static_cast<int64_t>(events_.size());
  for (int64_t i = 0; i < n; ++i) {
    FunctionEvent& e = events_[i];
    TL_CHECK(e.parent >= -1 && e.parent < i, "EventList: event ", i, " (", e.name, ") has parent ", e.parent,
             "; a parent must be an earlier event or -1");
    e.cpu_children.clear();
    e.cpu_memory_usage = 0;
    e.self_cpu_memory_usage = 0;
    int64_t p = e.parent;
    while (p >= 0 && !events_[p].is_function()) p = events_[p].parent;
    e.cpu_parent = p;
    if (e.is_function() && p >= 0) events_[p].cpu_children.push_back(i);
  }
  for (FunctionEvent& e : events_) {
    int64_t children_ns = 0;
    for (int64_t c : e.cpu_children) children_ns += events_[c].cpu_time_total_ns();
    // Children of a well-nested event fit inside it; the clamp guards traces loaded from elsewhere.
    e.self_cpu_time_total_ns = std::max<int64_t>(0, e.cpu_time_total_ns() - children_ns);
  }
}

void EventList::attribute_memory() {
  const int64_t n = static_cast<int64_t>(events_.size());
  for (size_t i = 0; i < memory_events_.size(); ++i) {
    const MemoryEvent& m = memory_events_[i];
    TL_CHECK(m.parent >= -1 && m.parent < n, "EventList: memory event ", i, " has parent ", m.parent, " but there are ",
             n, " events");
    bool self_assigned = false;
    for (int64_t p = m.parent; p >= 0; p = events_[p].parent) {
      events_[p].cpu_memory_usage += m.bytes;
      if (!self_assigned && events_[p].is_function()) {
        events_[p].self_cpu_memory_usage += m.bytes;
        self_assigned = true;
      }
    }
  }
}

namespace {

bool is_stack_scope(const FunctionEvent& e) {
  return e.kind == EventKind::UserAnnotation || e.kind == EventKind::Module;
}

// Where a scope sits among an event's own frames: inside own frame `frame` (innermost first), just
// outside its inlined call `inlined` (innermost first within the frame).
struct Placement {
  size_t frame = 0;
  size_t inlined = 0;
};

// The two stacks share their outer frames up to the frame whose calls differ: the scope was opened
// from that frame, and within it from the innermost function the two inlined-call chains share.
// Innermost when either has no frames.
Placement place(const std::vector<uint64_t>& own, const std::vector<uint64_t>& scope) {
  if (own.empty() || scope.empty()) return {};
  size_t shared = 0;
  while (shared < own.size() && shared < scope.size() &&
         own[own.size() - 1 - shared] == scope[scope.size() - 1 - shared])
    ++shared;
  if (shared >= own.size() || shared >= scope.size()) return {};
  const size_t frame = own.size() - 1 - shared;
  const std::vector<SourceFrame>& mine = symbolize(own[frame]);
  const std::vector<SourceFrame>& theirs = symbolize(scope[scope.size() - 1 - shared]);
  size_t common = 1;
  while (common < mine.size() && common < theirs.size() &&
         mine[mine.size() - 1 - common].function == theirs[theirs.size() - 1 - common].function)
    ++common;
  return {frame, mine.size() - common};
}

}  // namespace

std::vector<std::string> EventList::stack_entries(size_t index, bool (*include)(const FunctionEvent&)) const {
  const FunctionEvent& e = events_[index];
  struct Placed {
    Placement at;
    const std::string* name;
  };
  std::vector<Placed> scopes;  // innermost first
  for (int64_t p = e.parent; p >= 0; p = events_[p].parent)
    if (include(events_[p])) scopes.push_back({place(e.frames, events_[p].frames), &events_[p].name});
  std::stable_sort(scopes.begin(), scopes.end(), [](const Placed& a, const Placed& b) {
    return std::pair(a.at.frame, a.at.inlined) < std::pair(b.at.frame, b.at.inlined);
  });
  std::vector<std::string> out;
  auto next = scopes.begin();
  for (size_t k = 0; k < e.frames.size(); ++k) {
    const std::vector<SourceFrame>& chain = symbolize(e.frames[k]);
    for (size_t j = 0; j < chain.size(); ++j) {
      for (; next != scopes.end() && next->at.frame == k && next->at.inlined == j; ++next) out.push_back(*next->name);
      if (!chain[j].library) out.push_back(chain[j].str());
    }
  }
  for (; next != scopes.end(); ++next) out.push_back(*next->name);
  return out;
}

const std::vector<std::string>& EventList::stack(size_t index) const {
  TL_CHECK(index < events_.size(), "EventList::stack: event ", index, " out of range for ", events_.size(), " events");
  std::call_once(stacks_->filled, [this] {
    std::vector<std::vector<std::string>> entries(events_.size());
    if (info_.with_stack)
      for (size_t i = 0; i < events_.size(); ++i) entries[i] = stack_entries(i, is_stack_scope);
    stacks_->entries = std::move(entries);
  });
  return stacks_->entries[index];
}

namespace {

// PyTorch's _populate_cpu_children on one thread's events (indices sorted by start, longest first).
void nest_by_intervals(std::vector<FunctionEvent>& events, const std::vector<int64_t>& order) {
  std::vector<int64_t> open;
  for (int64_t i : order) {
    FunctionEvent& e = events[i];
    e.parent = -1;
    while (!open.empty()) {
      const FunctionEvent& top = events[open.back()];
      if (e.start_ns >= top.end_ns || e.end_ns > top.end_ns) {
        open.pop_back();
      } else {
        e.parent = open.back();
        break;
      }
    }
    open.push_back(i);
  }
}

// Innermost event of the memory event's thread whose [start, end] holds its time.
void attach_memory(const std::vector<FunctionEvent>& events, const std::vector<int64_t>& order,
                   std::vector<MemoryEvent>& memory, const std::vector<size_t>& memory_order) {
  std::vector<int64_t> open;
  size_t next = 0;
  for (size_t mi : memory_order) {
    MemoryEvent& m = memory[mi];
    while (next < order.size() && events[order[next]].start_ns <= m.time_ns) {
      const int64_t i = order[next++];
      while (!open.empty() && open.back() != events[i].parent) open.pop_back();
      open.push_back(i);
    }
    while (!open.empty() && events[open.back()].end_ns < m.time_ns) open.pop_back();
    m.parent = open.empty() ? -1 : open.back();
  }
}

}  // namespace

EventList EventList::from_intervals(std::vector<FunctionEvent> events, std::vector<MemoryEvent> memory_events,
                                    EventListInfo info) {
  std::stable_sort(events.begin(), events.end(), [](const FunctionEvent& a, const FunctionEvent& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  });
  std::stable_sort(memory_events.begin(), memory_events.end(),
                   [](const MemoryEvent& a, const MemoryEvent& b) { return a.time_ns < b.time_ns; });
  std::map<uint64_t, std::vector<int64_t>> by_thread;
  for (int64_t i = 0; i < static_cast<int64_t>(events.size()); ++i) by_thread[events[i].thread].push_back(i);
  std::map<uint64_t, std::vector<size_t>> memory_by_thread;
  for (size_t i = 0; i < memory_events.size(); ++i) memory_by_thread[memory_events[i].thread].push_back(i);
  for (auto& [thread, order] : by_thread) nest_by_intervals(events, order);
  for (auto& [thread, memory_order] : memory_by_thread) {
    static const std::vector<int64_t> kNone;
    auto it = by_thread.find(thread);
    attach_memory(events, it == by_thread.end() ? kNone : it->second, memory_events, memory_order);
  }
  return EventList(std::move(events), std::move(memory_events), std::move(info));
}

int64_t EventList::self_cpu_time_total_ns() const {
  int64_t total = 0;
  for (const FunctionEvent& e : events_)
    if (e.is_function()) total += e.self_cpu_time_total_ns;
  return total;
}

}  // namespace tl::profiler
