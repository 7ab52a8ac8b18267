// core/text_table.cpp — padding and joining of fixed-width columns, PyTorch's shortening, and tabulate's
// "simple" tables on top of them.
#include "core/text_table.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "core/error.h"

namespace tl {
namespace {

bool utf8_continuation(std::string_view text, size_t i) {
  return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80;
}

// The largest sequence boundary <= i, and the smallest >= i.
size_t boundary_down(std::string_view text, size_t i) {
  while (i > 0 && utf8_continuation(text, i)) --i;
  return i;
}
size_t boundary_up(std::string_view text, size_t i) {
  while (utf8_continuation(text, i)) ++i;
  return i;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end && *end == '\0';
}

// Digits after the decimal point, as tabulate counts them (-1 for integers).
int after_point(const std::string& s) {
  const size_t dot = s.find('.');
  if (dot != std::string::npos) return static_cast<int>(s.size() - dot - 1);
  const size_t e = s.find_first_of("eE");
  if (e != std::string::npos) return static_cast<int>(s.size() - e - 1);
  return -1;
}

}  // namespace

std::string shorten_name(std::string_view text, int64_t max_width) {
  TL_CHECK(max_width > 0, "shorten_name: max_width must be > 0, got ", max_width);
  const int64_t size = static_cast<int64_t>(text.size());
  const int64_t keep = max_width - 3;  // Python's name[:keep]
  if (size < keep) return std::string(text);
  const int64_t end = keep >= 0 ? keep : std::max<int64_t>(size + keep, 0);
  return std::string(text.substr(0, boundary_down(text, static_cast<size_t>(end)))) + "...";
}

std::string shorten_path(std::string_view text, int64_t width) {
  TL_CHECK(width > 0, "shorten_path: width must be > 0, got ", width);
  const int64_t size = static_cast<int64_t>(text.size());
  if (size <= width) return std::string(text);
  std::string_view tail = text.substr(boundary_up(text, static_cast<size_t>(size - width)));
  if (tail.size() <= 3) return std::string(tail);
  return "..." + std::string(tail.substr(boundary_up(tail, 3)));
}

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

std::string format_g(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string tabulate(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  const size_t cols = headers.size();
  std::vector<std::vector<std::string>> cells = rows;
  std::vector<size_t> width(cols);
  std::vector<bool> numeric(cols, !rows.empty());
  for (size_t c = 0; c < cols; ++c) {
    for (const auto& r : rows) numeric[c] = numeric[c] && is_number(r.at(c));
    if (numeric[c]) {  // pad right so the decimal points line up
      int max_after = -1;
      for (const auto& r : cells) max_after = std::max(max_after, after_point(r[c]));
      for (auto& r : cells) r[c] += std::string(static_cast<size_t>(max_after - after_point(r[c])), ' ');
    }
    width[c] = headers[c].size() + 2;
    for (const auto& r : cells) width[c] = std::max(width[c], r[c].size());
  }
  TextTable table;
  for (size_t c = 0; c < cols; ++c) table.add_column(headers[c], width[c], /*left=*/!numeric[c]);
  std::string out;
  auto line = [&](std::string l) {
    while (!l.empty() && l.back() == ' ') l.pop_back();  // tabulate strips each row
    out += l + "\n";
  };
  line(table.header_row());
  line(table.rule());
  for (const auto& r : cells) line(table.row(r));
  out.pop_back();
  return out;
}

}  // namespace tl
