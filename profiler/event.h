// profiler/event.h — the records a profile produces: function events (ops, user scopes, module
// scopes, profiler steps) that nest per thread, memory events, and per-key averages of them.
// Times are monotonic nanoseconds; a child event always lies inside its parent's interval.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/shape.h"

namespace tl::profiler {

/// What opened an event: decides its Chrome trace category and whether it is a table row.
enum class EventKind : uint8_t {
  Op,              ///< an op through the dispatch point ("aten::addmm"); category "cpu_op"
  Function,        ///< a runtime scope (RecordScope::Function: "autograd::engine::evaluate_function:
                   ///< MulBackward0", "MulBackward0"); category "cpu_op", a table row like an op
  UserAnnotation,  ///< a user scope (RecordScope::UserScope: "LINEAR PASS", "Optimizer.step#SGD.step");
                   ///< category "user_annotation"
  ProfilerStep,    ///< "ProfilerStep#N" opened by Profile::step(); category "user_annotation"
  Module,          ///< a module call ("nn.Module: Linear_0"); category "python_function". Like
                   ///< PyTorch's Python frames it is a stack entry, not a table row, and it is
                   ///< transparent for self time and memory (its children count for its parent).
};

/// Kineto's trace category for `kind`: "cpu_op", "user_annotation" or "python_function".
const char* event_category(EventKind kind);

/// One timed interval on one thread.
struct FunctionEvent {
  std::string name;  ///< "aten::addmm", "LINEAR PASS", "ProfilerStep#3", "nn.Module: Linear_0"
  EventKind kind = EventKind::Op;
  uint64_t thread = 0;  ///< OS thread id
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  /// Index (in the EventList) of the innermost enclosing event of any kind, or -1.
  int64_t parent = -1;
  /// record_shapes: one entry per schema argument, in schema order; non-tensor arguments and
  /// None give [] (PyTorch's "Input Shapes").
  std::vector<Shape> input_shapes;
  /// record_shapes: kineto's "Input type" per argument ("float", "Scalar", "Int", "" ...).
  std::vector<std::string> input_types;
  /// with_flops: PyTorch's estimate for this op (see flops.h); 0 when it has none or when an op
  /// nested inside it already counted them (the innermost op that computes owns the flops).
  int64_t flops = 0;
  /// PyTorch's "Sequence number": of the backward node autograd recorded for this op (a forward op,
  /// forward_thread 0), or of the node a backward scope runs (forward_thread set); -1 for neither.
  int64_t sequence_nr = -1;
  /// PyTorch's "Fwd thread id" of a backward scope: the thread that ran the forward op (its `thread`
  /// there); 0 for every other event.
  uint64_t forward_thread = 0;

  /// with_stack: the C++ return addresses of the code that opened the event, innermost first (see
  /// profiler/source_frames.h); empty for events loaded from a trace.
  std::vector<uint64_t> frames;
  /// Kineto's further args of the event, each as its key and its JSON text: a record_param_comms scope's
  /// {"Collective name", "\"allreduce\""}, {"In msg nelems", "4"}, ... (profiler/comms_meta.h); empty for others.
  std::vector<std::pair<std::string, std::string>> extra_meta;

  // ---- derived by EventList from the above ----
  /// Nearest enclosing event that is not a Module scope, or -1 (PyTorch's cpu_parent).
  int64_t cpu_parent = -1;
  std::vector<int64_t> cpu_children;
  /// Duration minus the durations of cpu_children; never negative.
  int64_t self_cpu_time_total_ns = 0;
  /// Bytes allocated minus bytes freed on this thread while the event was open (children included).
  int64_t cpu_memory_usage = 0;
  /// cpu_memory_usage minus the children's.
  int64_t self_cpu_memory_usage = 0;

  int64_t cpu_time_total_ns() const { return end_ns - start_ns; }
  /// Events that become table rows: everything except Module scopes.
  bool is_function() const { return kind != EventKind::Module; }
};

/// One allocation (bytes > 0) or release (bytes < 0) of tensor storage on the profiled thread.
struct MemoryEvent {
  int64_t time_ns = 0;
  uint64_t thread = 0;
  int64_t bytes = 0;
  /// Bytes in use by all Storage objects of the process right after this event.
  int64_t total_allocated = 0;
  uint64_t address = 0;
  /// Index of the innermost event open at that moment, or -1 (PyTorch shows these as "[memory]").
  int64_t parent = -1;
};

/// The name PyTorch gives memory events that happen outside every event.
inline constexpr const char* kMemoryEventName = "[memory]";

/// Aggregate of the function events sharing one key (name, plus input shapes and stack prefix
/// when grouped by them): one row of a key_averages() table.
struct FunctionEventAvg {
  std::string key;
  int64_t count = 0;
  int64_t cpu_time_total_ns = 0;
  int64_t self_cpu_time_total_ns = 0;
  int64_t cpu_memory_usage = 0;
  int64_t self_cpu_memory_usage = 0;
  int64_t flops = 0;
  /// PyTorch's str(input_shapes) ("[[128, 500], [10, 500], [10]]"); empty when not recorded
  /// or not grouped by shape.
  std::string input_shapes;
  /// The first event's stack, cut to group_by_stack_n entries (empty when not grouped).
  std::vector<std::string> stack;
  /// True when the first event of the group had no cpu_parent.
  bool is_top_level = true;

  /// Average CPU time per call.
  double cpu_time_ns() const { return count == 0 ? 0.0 : static_cast<double>(cpu_time_total_ns) / count; }
  /// Adds `event`'s times, memory, flops and count; the first event added also sets `is_top_level`.
  /// The caller sets `key`, `input_shapes` and `stack`.
  void add(const FunctionEvent& event);
};

/// PyTorch's str() of a list of shapes: "[[128, 500], [], [10]]".
std::string shapes_to_string(const std::vector<Shape>& shapes);

}  // namespace tl::profiler
