// tests/core/test_text_table.cpp — TextTable: alignment, two-space gaps after every cell, rules of
// the columns' widths, and a wide cell shifting the line instead of being cut; PyTorch's shortening
// (checked against PyTorch's own tables in tests/profiler/test_table.cpp) never splits a UTF-8 character;
// tabulate's "simple" format checked against python3-tabulate's output.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.h"
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

TEST_CASE("tabulate: matches python3-tabulate's simple format") {
  // Expected text printed by tests/core/gen_tabulate_cases.py (python3-tabulate 0.8.9).
  const std::vector<std::vector<std::string>> rows = {
      {"call_module", "layer1_0_conv1", format_g(0.00345683), format_g(5.15744)},
      {"call_function", "add", format_g(1.2e-05), format_g(0.0178)},
      {"placeholder", "x", format_g(7.15256e-07), format_g(0.000995988)},
      {"output", "output", format_g(3.5), format_g(12)}};
  const std::string expected =
      "Op type        Op                Average runtime (s)    Pct total runtime\n"
      "-------------  --------------  ---------------------  -------------------\n"
      "call_module    layer1_0_conv1            0.00345683           5.15744\n"
      "call_function  add                       1.2e-05              0.0178\n"
      "placeholder    x                         7.15256e-07          0.000995988\n"
      "output         output                    3.5                 12";
  CHECK(tabulate({"Op type", "Op", "Average runtime (s)", "Pct total runtime"}, rows) == expected);
}

TEST_CASE("shorten_name, shorten_path: a cut never splits a UTF-8 sequence; a width <= 0 is refused") {
  const std::string name = "aten::\xc3\xa9\xc3\xa9\xc3\xa9";  // "aten::" and three 2-byte characters
  CHECK(shorten_name(name, 100) == name);
  CHECK(shorten_name(name, 10) == "aten::...");  // name[:7] would end inside the first character
  CHECK(shorten_name(name, 11) == "aten::\xc3\xa9...");
  const std::string path = "\xc3\xa9\xc3\xa9/model.py(9): forward";
  CHECK(shorten_path(path, 100) == path);
  // The last 24 bytes start inside the first character; "..." then replaces the second and the "/".
  CHECK(shorten_path(path, 24) == "...model.py(9): forward");
  CHECK_THROWS_WITH_AS(shorten_name("x", 0), "shorten_name: max_width must be > 0, got 0", Error);
  CHECK_THROWS_WITH_AS(shorten_path("x", INT64_MIN), "shorten_path: width must be > 0, got -9223372036854775808",
                       Error);
}

}  // namespace
}  // namespace tl
