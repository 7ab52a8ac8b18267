// tests/core/test_text_table.cpp — TextTable: alignment, two-space gaps after every cell, rules of
// the columns' widths, and a wide cell shifting the line instead of being cut.
#include <doctest/doctest.h>

#include <string>

#include "core/text_table.h"

namespace tl {
namespace {

TextTable three_columns() {
  TextTable t;
  t.add_column("Name", 6, /*left=*/true);
  t.add_column("Calls", 5);
  t.add_column("Time", 7);
  return t;
}

TEST_CASE("TextTable: pads each cell by its alignment and follows it with two spaces") {
  const TextTable t = three_columns();
  CHECK(t.size() == 3);
  CHECK(t.header_row() == "Name    Calls     Time  ");
  CHECK(t.row({"conv", "12", "1.5ms"}) == "conv       12    1.5ms  ");
  CHECK(t.rule() == "------  -----  -------  ");
  CHECK(t.rule('=') == "======  =====  =======  ");
  CHECK(t.line_length() == 6 + 2 + 5 + 2 + 7);
  CHECK(t.header_row().size() == t.line_length() + TextTable::kSpacing);
}

TEST_CASE("TextTable: a wide cell is kept whole and shifts the rest; short rows stop early") {
  const TextTable t = three_columns();
  CHECK(t.row({"convolution", "3", "2us"}) == "convolution      3      2us  ");
  CHECK(t.row({"", ""}) == std::string(6 + 2 + 5 + 2, ' '));
  CHECK(TextTable().line_length() == 0);
}

}  // namespace
}  // namespace tl
