// core/text_table.cpp — padding and joining of fixed-width columns.
#include "core/text_table.h"

#include <utility>

#include "core/error.h"

namespace tl {

void TextTable::add_column(std::string header, size_t width, bool left) {
  headers_.push_back(std::move(header));
  widths_.push_back(width);
  left_.push_back(left);
}

size_t TextTable::line_length() const {
  size_t n = 0;
  for (size_t w : widths_) n += w + kSpacing;
  return n == 0 ? 0 : n - kSpacing;
}

std::string TextTable::row(const std::vector<std::string>& cells) const {
  TL_INTERNAL_ASSERT(cells.size() <= widths_.size(), "a row of ", cells.size(), " cells for ", widths_.size(),
                     " columns");
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    const size_t pad = widths_[i] > cells[i].size() ? widths_[i] - cells[i].size() : 0;
    if (!left_[i]) line.append(pad, ' ');
    line += cells[i];
    if (left_[i]) line.append(pad, ' ');
    line.append(kSpacing, ' ');
  }
  return line;
}

std::string TextTable::rule(char fill) const {
  std::string line;
  for (size_t w : widths_) line.append(w, fill).append(kSpacing, ' ');
  return line;
}

}  // namespace tl
