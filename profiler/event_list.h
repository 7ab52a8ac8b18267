// profiler/event_list.h — EventList: the events of one profile (or one scheduled window) with
// their tree built: cpu parents/children, self times, memory attribution and scope stacks.
// Invariant: an event's children lie inside its interval, so self time is never negative.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "profiler/event.h"
#include "profiler/key_averages.h"
#include "profiler/table.h"

namespace tl::profiler {

/// What the events were recorded with (the table's optional columns follow from it).
struct EventListInfo {
  bool record_shapes = false;
  bool profile_memory = false;
  bool with_stack = false;
  bool with_flops = false;
  int64_t process_id = 0;
  /// Name of each thread that recorded events, for the trace's thread_name metadata.
  std::vector<std::pair<uint64_t, std::string>> thread_names;
  /// Time spent inside the profiler's own hooks while recording (not part of any event's self
  /// time attribution, reported on its own).
  int64_t profiler_overhead_ns = 0;
  /// Bounds of the recorded window on the monotonic clock.
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
};

class EventList {
 public:
  EventList() = default;
  /// Builds the tree. `events` are in start order per thread and each event's `parent` (an
  /// index, or -1) precedes it and encloses it; `memory_events[i].parent` likewise. Derived
  /// fields of the events are (re)computed. Throws tl::Error when a parent index is invalid.
  EventList(std::vector<FunctionEvent> events, std::vector<MemoryEvent> memory_events, EventListInfo info);

  /// For events whose nesting is unknown (loaded from a trace): sorts them by (start, longest
  /// first), finds each one's parent per thread by interval containment as PyTorch's
  /// _populate_cpu_children does (a partial overlap is no nesting), attaches each memory event
  /// to the innermost event of its thread open at its time, then builds the tree.
  static EventList from_intervals(std::vector<FunctionEvent> events, std::vector<MemoryEvent> memory_events,
                                  EventListInfo info);

  const std::vector<FunctionEvent>& events() const { return events_; }
  const std::vector<MemoryEvent>& memory_events() const { return memory_events_; }
  const EventListInfo& info() const { return info_; }
  size_t size() const { return events_.size(); }
  bool empty() const { return events_.empty(); }
  const FunctionEvent& operator[](size_t i) const { return events_[i]; }
  auto begin() const { return events_.begin(); }
  auto end() const { return events_.end(); }

  /// Sum of all function events' self CPU times (the table footer).
  int64_t self_cpu_time_total_ns() const;
  /// Time spent in the profiler's hooks while recording these events.
  int64_t profiler_overhead_ns() const { return info_.profiler_overhead_ns; }

  KeyAverages key_averages(const KeyAveragesOptions& options = {}) const;
  /// One row per function event (no grouping; same-named only children folded as key_averages
  /// folds them), like PyTorch's prof.table().
  std::string table(const TableOptions& options = {}) const;
  TableColumns table_columns() const { return {info_.profile_memory, info_.with_flops}; }

  /// Writes a Chrome trace JSON file (see chrome_trace.h), gzip-compressed when `path` ends in ".gz",
  /// through tl::FileWriter: throws tl::Error if it cannot, leaving an existing file unchanged.
  void export_chrome_trace(const std::string& path) const;
  /// with_stack: event `index`'s stack as PyTorch shows its Python stack, innermost first: the user
  /// frames of its `frames` ("models/my_module.cpp(70): tl::models::MyModule::forward") and the
  /// enclosing RecordFunction and module scopes, each inside the frame that opened it (ProfilerStep
  /// scopes excluded so steps group together); empty without with_stack. Symbolized when first
  /// asked for (the table's Source Location, grouping by stack, an export), for every event at once;
  /// thread-safe. Throws tl::Error for an index out of range.
  const std::vector<std::string>& stack(size_t index) const;
  /// Event `index`'s stack entries, innermost first: the user frames of its `frames` (see
  /// source_frames.h) and the names of the enclosing events `include` accepts, each placed inside
  /// the frame it was opened from (where its own frames leave its caller's); without frames, the
  /// names alone. Symbolizes on first use of an address.
  std::vector<std::string> stack_entries(size_t index, bool (*include)(const FunctionEvent&)) const;

  /// Writes folded stacks for flame graphs (see stacks.h) through tl::FileWriter, like
  /// export_chrome_trace.
  void export_stacks(const std::string& path, const std::string& metric = "self_cpu_time_total") const;

 private:
  void build_tree();
  void attribute_memory();

  std::vector<FunctionEvent> events_;
  std::vector<MemoryEvent> memory_events_;
  EventListInfo info_;
  struct Stacks {
    std::once_flag filled;
    std::vector<std::vector<std::string>> entries;
  };
  /// stack()'s entries, computed once; copies of the list share them (their events are the same).
  std::shared_ptr<Stacks> stacks_ = std::make_shared<Stacks>();
};

}  // namespace tl::profiler
