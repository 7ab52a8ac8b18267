// core/text_table.h — fixed-width text columns: the one place table cells are padded, aligned and
// joined (the profiler's key_averages tables, fx's tabulate summaries). A cell is never cut.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tl {

/// Columns of fixed widths, each left- or right-aligned; every cell is followed by two spaces, as
/// torch.autograd.profiler_util prints "{:>W}  ". Lines carry no newline.
class TextTable {
 public:
  static constexpr size_t kSpacing = 2;

  void add_column(std::string header, size_t width, bool left = false);
  size_t size() const { return widths_.size(); }
  /// The characters of a line of full-width cells, without the last cell's trailing spaces.
  size_t line_length() const;
  /// `cells` (at most size()), each padded to its column's width by its alignment and followed by
  /// two spaces; a cell wider than its column shifts the rest of the line.
  std::string row(const std::vector<std::string>& cells) const;
  /// row() of the headers.
  std::string header_row() const { return row(headers_); }
  /// Each column's width of `fill`, followed by two spaces: "-----  ----  ".
  std::string rule(char fill = '-') const;

 private:
  std::vector<std::string> headers_;
  std::vector<size_t> widths_;
  std::vector<bool> left_;
};

}  // namespace tl
