// core/text_table.h — fixed-width text columns: the one place table cells are padded, aligned and
// joined (the profiler's key_averages tables, tabulate's tables of fx's summaries and print_tabular),
// and the one place a text is shortened for a column (PyTorch's rules). TextTable never cuts a cell.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
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

/// A name shortened as torch.autograd.profiler_util's tables shorten it for `max_width`: `text` when
/// it is shorter than `max_width - 3` bytes, otherwise `text[:max_width - 3] + "..."` with Python's
/// slice (a negative end counts from the back: `max_width` 1 keeps all but the last two bytes). So a
/// name of `max_width - 3` to `max_width` bytes gets "..." too, as PyTorch prints it. Widths count
/// bytes (Python counts characters); a cut never splits a UTF-8 sequence. Throws tl::Error for
/// `max_width` <= 0.
std::string shorten_name(std::string_view text, int64_t max_width);

/// A source location shortened as torch.autograd.profiler_util's trim_path does for `width`: `text`
/// when it fits, otherwise its last `width` bytes with the first three replaced by "..." (just the
/// last `width` bytes when `width` <= 3). A cut never splits a UTF-8 sequence. Throws tl::Error
/// for `width` <= 0.
std::string shorten_path(std::string_view text, int64_t width);

/// Python's tabulate.tabulate(rows, headers) in its default "simple" format, on TextTable's columns: a
/// column is as wide as its widest cell or its header plus two, a dashed rule under the headers, text
/// left-aligned, numbers right-aligned on their decimal points; each line stripped on the right.
std::string tabulate(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows);
/// Python's format(x, 'g').
std::string format_g(double x);

}  // namespace tl
