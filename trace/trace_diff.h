// trace/trace_diff.h — TraceDiff (as in Holistic Trace Analysis): per-op counts and durations
// of a control and a test trace set, their differences, and a change category for each op.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace tl::trace {

/// How an op changed from control to test, by counts only, as HTA's ops_diff (durations never
/// decide, so timing noise produces no "changes"):
/// - Added: absent from control, present in test.
/// - Deleted: present in control, absent from test.
/// - Increased / Decreased: present in both, and the count (per iteration when normalised) went up / down.
/// - Unchanged: present in both with equal counts.
enum class Change { Added, Deleted, Increased, Decreased, Unchanged };

/// "added", "deleted", "increased", "decreased", "unchanged".
std::string_view change_name(Change change);

/// Which ProfilerStep iterations a side keeps when its step list is empty.
enum class Iterations {
  First,  ///< HTA's default: the lowest ProfilerStep#N number present in the side's (rank-filtered) traces
  All,    ///< every ProfilerStep
};

/// Which ranks a side keeps when its rank list is empty.
enum class Ranks {
  First,  ///< HTA's default: the lowest rank in the side's set (a trace without one is rank 0, as in HTA)
  All,    ///< every trace of the set
};

/// Which events compare_traces() counts, as HTA's DeviceType: an event is a GPU event when its args
/// carry a "stream" (OpEvent::stream != -1; in kineto's traces: kernel, gpu_memcpy, gpu_memset, and a
/// newer kineto's cuda_sync), a CPU event otherwise (cpu_op, user_annotation, cuda_runtime,
/// python_function, and gpu_user_annotation, which kineto writes without a stream).
enum class DeviceType { CPU, GPU, All };

/// "cpu", "gpu", "all".
std::string_view device_type_name(DeviceType device_type);

/// HTA's shorten_name, the name use_short_name compares by: `name` without its template arguments
/// ("<...>"), function arguments and comments ("(...)"), "->" and return type, which leaves the part
/// after the last space: "void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)" reads
/// "at::native::vectorized_elementwise_kernel". Unchanged: memory kernels (names starting "Memcpy",
/// "Memset", "hipMemcpy", "hipMemset" or "dma") and names without '<' and '('. Brackets are matched as
/// HTA matches them: a '>' or ')' drops everything back to its opening bracket, or to the start.
std::string short_name(std::string_view name);

/// What compare_traces() keeps and how it aggregates. Filters apply before counting. As HTA, events
/// outside every ProfilerStep span (start not in [step ts, ts + dur)) are left out; a trace without any
/// ProfilerStep is taken whole as one iteration (HTA refuses such a trace).
struct CompareOptions {
  bool group_by_category = false;     ///< one row per (name, cat) instead of per name
  bool group_by_input_shape = false;  ///< one row per (name, args "Input Dims")
  Iterations iterations = Iterations::First;  ///< used when control_steps / test_steps are empty
  /// Divide each side by its number of iterations, so sets with different iteration counts compare
  /// fairly. A side's iterations: the (trace, ProfilerStep) pairs kept. A ProfilerStep#N row is divided
  /// by the iterations that are step N, so it reads 1 call. With one trace and one iteration per side
  /// (the default on a single trace) means equal HTA's totals. Off: plain totals, as HTA.
  bool per_iteration = true;
  Ranks ranks = Ranks::First;  ///< used when control_ranks / test_ranks are empty
  /// Keep traces with these ranks (HTA's control_rank / test_rank); empty: `ranks`. A set may hold
  /// several traces of one rank (repeated runs, a tensorboard_trace_handler directory): all are kept.
  std::vector<int64_t> control_ranks, test_ranks;
  std::vector<int64_t> control_steps, test_steps;  ///< keep events inside these ProfilerStep#N (HTA's
                                                   ///< control_iteration / test_iteration); empty: `iterations`
  std::vector<std::string> categories;             ///< keep only these "cat" values; empty keeps all
  DeviceType device_type = DeviceType::All;        ///< HTA's device_type: CPU or GPU events only, or all
  /// HTA's use_short_name: one row per short_name() of the event names (all the template instances of
  /// a kernel in one row), also in ops_diff().
  bool use_short_name = false;

  /// Throws tl::Error naming the option and its value unless every rank and step is >= 0.
  void validate() const;
};

/// Counts and durations (microseconds) of one op on one side, or their difference.
struct OpStats {
  double counts = 0;
  double duration = 0;       ///< inclusive: the events' own durations summed
  double self_duration = 0;  ///< exclusive: minus the time of direct children on the same thread
};

/// One row of the comparison.
struct OpDiff {
  std::string name;
  std::string category;      ///< set only with group_by_category
  std::string input_shapes;  ///< set only with group_by_input_shape
  OpStats control, test;     ///< compared values: per iteration, or totals without per_iteration
  OpStats diff;              ///< test - control
  OpStats control_total, test_total;  ///< plain sums over each set, whatever per_iteration says
  Change change = Change::Unchanged;

  /// The name, plus " [category]" and " (input shapes)" when grouped by them.
  std::string label() const;
};

/// The result of compare_traces(): rows plus what they were computed from. The helpers return new
/// tables, so they chain like HTA's DataFrame calls:
/// `table.exclude({"ProfilerStep*"}).sort_values("diff_duration", false).head(10)`.
class DiffTable {
 public:
  std::vector<OpDiff> rows;
  std::string control_label, test_label;
  int64_t control_traces = 0, test_traces = 0;          ///< traces kept by the rank filter
  int64_t control_iterations = 1, test_iterations = 1;  ///< see CompareOptions::per_iteration
  std::vector<int64_t> control_steps, test_steps;       ///< the ProfilerStep numbers kept, ascending
  bool per_iteration = true;
  bool grouped_by_category = false, grouped_by_input_shape = false;
  DeviceType device_type = DeviceType::All;
  bool short_names = false;  ///< rows are named by short_name()

  /// Column names accepted by sort_values(): name, change, {control,test,diff}_counts,
  /// {control,test,diff}_duration, {control,test,diff}_self_duration, and abs_diff_counts,
  /// abs_diff_duration, abs_diff_self_duration (sort by magnitude of change).
  static const std::vector<std::string>& columns();

  /// Rows sorted by `column` (ties by label, ascending); throws tl::Error for an unknown column.
  DiffTable sort_values(std::string_view column, bool ascending = true) const;
  /// The first `n` rows.
  DiffTable head(size_t n) const;
  /// Rows whose name matches none of the glob patterns ('*', '?', '[abc]').
  DiffTable exclude(std::span<const std::string> patterns) const;
  DiffTable exclude(std::initializer_list<std::string> patterns) const;
  /// Rows whose name matches at least one of the glob patterns.
  DiffTable include(std::span<const std::string> patterns) const;
  /// Rows with the given change category.
  DiffTable only(Change change) const;

  /// A plain-text table: a header naming both sides, the normalisation and the device and name
  /// filters (when set), then one line per row
  /// with counts, inclusive and self durations (control, test, diff; adaptive us/ms/s units).
  /// The name column fits the widest label, so distinct rows never print the same name.
  std::string table() const;
  /// As table(), with a label longer than `name_width` shortened as the profiler's tables shorten
  /// names (tl::shorten_name: its start and "...", `name_width` bytes); throws tl::Error unless
  /// 1 <= name_width <= kMaxNameWidth.
  std::string table(size_t name_width) const;
  static constexpr size_t kMaxNameWidth = 4096;
  /// CSV with a header line; durations in microseconds, names quoted when needed.
  std::string to_csv() const;

 private:
  std::string format_table(size_t name_width) const;
};

std::ostream& operator<<(std::ostream& os, const DiffTable& table);

/// Compares two trace sets op by op; rows come sorted by name (then category, input shapes). Throws
/// tl::Error for invalid options (see CompareOptions::validate), a set without traces, when a rank or
/// step filter matches nothing in a set (the message lists what the set has), or when an op's durations
/// in a set add up past int64 nanoseconds.
DiffTable compare_traces(const TraceSet& control, const TraceSet& test, const CompareOptions& options = {});

/// The rows of a comparison split by change category (each list in the table's row order).
struct OpsDiff {
  std::vector<OpDiff> added, deleted, increased, decreased, unchanged;
};
OpsDiff ops_diff(const DiffTable& table);
OpsDiff ops_diff(const TraceSet& control, const TraceSet& test, const CompareOptions& options = {});

/// Shell-style glob match of the whole `text`: '*' any run, '?' one character, '[a-z]' / '[!a]' sets.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace tl::trace
