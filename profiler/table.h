// profiler/table.h — the profiler's summary table, laid out as torch.autograd.profiler_util
// prints it (columns, units, sort keys, widths, shortened names, "Self CPU time total" footer),
// minus its defects: the FLOPs column never shifts the Source Location column, a short column is
// never narrower than its header, and no value is negative where it cannot be.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/text_table.h"
#include "profiler/event.h"

namespace tl::profiler {

/// Arguments of PyTorch's EventList.table().
struct TableOptions {
  /// A key of table_sort_keys() (largest first); "" keeps the order in which keys first appeared.
  std::string sort_by;
  /// Rows printed at most, as PyTorch counts them: negative prints all, 0 none.
  int64_t row_limit = 100;
  /// Column widths at most, each > 0. A longer text is shortened as PyTorch does: a name of
  /// max_name_column_width - 3 bytes or more to its start and "..." (tl::shorten_name), a source
  /// location to "..." and its end (tl::shorten_path), input shapes cut without "...".
  int64_t max_src_column_width = 75;
  int64_t max_name_column_width = 55;
  int64_t max_shapes_column_width = 80;
  /// Printed between '=' lines above the table when not empty.
  std::string header;
  /// Only rows whose events have no enclosing event.
  bool top_level_events_only = false;

  /// Throws tl::Error naming the option and its value for a column width <= 0 or an unknown
  /// sort_by key.
  void validate() const;
};

/// The optional columns a profile's options call for.
struct TableColumns {
  bool profile_memory = false;  ///< "CPU Mem", "Self CPU Mem"
  bool with_flops = false;      ///< "Total FLOPs" (auto-scaled), when any row has flops
};

/// The table text, ending with "Self CPU time total: ...\n"; "" when `rows` is empty.
/// Throws tl::Error for invalid options (see TableOptions::validate), even when `rows` is empty.
std::string build_table(std::vector<FunctionEventAvg> rows, const TableOptions& options, const TableColumns& columns);

/// The accepted sort_by keys: PyTorch's attribute names (cpu_time is the average per call;
/// the CUDA keys are accepted and are zero on this CPU-only runtime).
const std::vector<std::string>& table_sort_keys();

/// PyTorch's _format_time on nanoseconds: "350.151us", "715.848ms", "5.212s".
std::string format_time(double ns);
/// PyTorch's _format_memory: "-520 b", "5.00 Kb", "-953.67 Mb", "1.50 Gb" (1024-based).
std::string format_memory(int64_t bytes);
/// PyTorch's _format_time_share: "87.88%", or "NaN" when the total is 0.
std::string format_time_share(int64_t part_ns, int64_t total_ns);

/// Deprecated in 0.2.0, removed in 0.3.0: tables shorten names with tl::shorten_name, PyTorch's rule (the
/// start and "...", not start and end around "..."); this calls it (CHANGELOG.md).
[[deprecated("tl::profiler::shorten is tl::shorten_name (core/text_table.h), which cuts as PyTorch does")]]
inline std::string shorten(std::string_view text, int64_t width) { return shorten_name(text, width); }

}  // namespace tl::profiler
