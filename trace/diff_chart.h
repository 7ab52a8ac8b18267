// trace/diff_chart.h — TraceDiff charts as self-contained SVG (no script, no external font or
// file): horizontal grouped bars of control, test and their difference for each row of a DiffTable.
#pragma once

#include <cstddef>
#include <string>

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

}  // namespace tl::trace
