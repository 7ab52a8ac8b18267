// trace/diff_chart.h — TraceDiff charts as self-contained SVG (no script, no external font or
// file): horizontal grouped bars of control, test and their difference for each row of a DiffTable.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "trace/trace_diff.h"

namespace tl::trace {

struct ChartOptions {
  std::string title;            ///< empty: "Op count comparison" / "Op duration comparison"
  size_t max_label_chars = 44;  ///< longer labels end in an ellipsis; the full label is a tooltip
  int width = 1000;             ///< pixels; the height follows from the number of rows
  bool self_duration = false;   ///< visualize_duration_diff(): exclusive instead of inclusive time

  /// Throws tl::Error naming the option and its value unless max_label_chars > 0 and width > 0.
  void validate() const;
};

/// One group of three bars (control, test, test - control) per row, in the table's row order, as
/// HTA's visualize_counts_diff; pass a sorted head() of the table (a few dozen rows at most read
/// well). Values are per iteration when the table is. Bars carry <title> tooltips with exact values.
/// Both charts throw tl::Error for invalid options (see ChartOptions::validate).
std::string visualize_counts_diff(const DiffTable& table, const ChartOptions& options = {});

/// The same for durations, in us, ms or s chosen from the largest value.
std::string visualize_duration_diff(const DiffTable& table, const ChartOptions& options = {});

/// Writes the three charts of `table`'s top `top` rows into `dir` (created when missing), in this order:
/// counts_diff.svg (rows by |diff_counts|), duration_diff.svg (|diff_duration|) and
/// self_duration_diff.svg (|diff_self_duration|), each through tl::write_file; returns their paths.
/// Throws tl::Error starting with `what` (e.g. "--svg") when `top` is 0, `dir` cannot be created or a
/// file cannot be written; the charts written before a failed one stay, the failed one keeps its old
/// content.
std::vector<std::filesystem::path> write_diff_charts(const DiffTable& table, const std::filesystem::path& dir,
                                                     size_t top, const std::string& what);

}  // namespace tl::trace
