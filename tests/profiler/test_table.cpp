// tests/profiler/test_table.cpp — the summary table: PyTorch 1.13's layout reproduced byte for
// byte from the events of the same run (tests/profiler/data: a trace and the tables PyTorch
// printed for it), long texts shortened as PyTorch does, units, every sort key, row_limit, and the
// defects we do not copy.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "profiler/event_list.h"
#include "profiler/table.h"
#include "profiler_test_util.h"
#include "tests/support/reference_files.h"

namespace tl::profiler {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The reference file holds three tables, each ending with its footer line and a blank line.
std::vector<std::string> reference_tables() {
  const std::string text = read_file("tests/profiler/data/profiler_tables_torch113.txt");
  std::vector<std::string> tables;
  const std::string footer = "Self CPU time total: 2.314s\n";
  size_t begin = 0;
  for (size_t at = text.find(footer); at != std::string::npos; at = text.find(footer, begin)) {
    tables.push_back(text.substr(begin, at + footer.size() - begin));
    begin = at + footer.size() + 1;
  }
  return tables;
}

// PyTorch's legacy trace of the same run: {"name", "ts", "dur", "tid"} in microseconds.
EventList reference_events() {
  const nlohmann::json trace = nlohmann::json::parse(read_file("tests/profiler/data/mymodule_trace.json"));
  std::vector<FunctionEvent> events;
  for (const auto& e : trace) {
    const int64_t ts = e["ts"].get<int64_t>(), dur = e["dur"].get<int64_t>();
    const std::string name = e["name"];
    const EventKind kind = name.find("::") == std::string::npos && name != "detach" ? EventKind::UserAnnotation
                                                                                    : EventKind::Op;
    events.push_back(testing::make_event(name, kind, ts * 1000, (ts + dur) * 1000, -1, e["tid"].get<uint64_t>()));
  }
  return EventList::from_intervals(std::move(events), {}, {.profile_memory = true});
}

// Memory columns are not in the legacy trace; these are the values PyTorch's tables show.
void set_memory(std::vector<FunctionEventAvg>& rows, const std::string& key, int64_t total, int64_t self) {
  for (FunctionEventAvg& row : rows)
    if (row.key == key) row.cpu_memory_usage = total, row.self_cpu_memory_usage = self;
}

TEST_CASE("table: key_averages of PyTorch's own events reproduce its table byte for byte") {
  const std::vector<std::string> reference = reference_tables();
  REQUIRE(reference.size() == 3);
  std::vector<FunctionEventAvg> rows = reference_events().key_averages().rows();
  set_memory(rows, "MASK INDICES", -4, -520);
  set_memory(rows, "aten::addmm", 5120, 5120);
  set_memory(rows, "LINEAR PASS", 5120, -4);
  set_memory(rows, "aten::zeros", 8, 4);
  set_memory(rows, "aten::empty", 4, 4);
  set_memory(rows, "aten::sum", 512, 512);
  set_memory(rows, "aten::div_", 0, -4);
  set_memory(rows, "aten::mean", 4, 4);
  const KeyAverages avg(rows, {.profile_memory = true});
  CHECK(avg.table({.sort_by = "self_cpu_time_total", .row_limit = 10}) == reference[1]);
}

// Rows too long for their columns and the tables PyTorch printed for them at several name widths
// (tests/reference/make_table_shortening.py).
TEST_CASE("table: long names, shapes and source locations are shortened as PyTorch shortens them") {
  const nlohmann::json reference = nlohmann::json::parse(tl::testing::read_reference("profiler_table_shortening.json"));
  std::vector<FunctionEventAvg> rows;
  for (const auto& r : reference["rows"]) {
    FunctionEventAvg row;
    row.key = r["name"].get<std::string>();
    row.count = 1;
    row.cpu_time_total_ns = row.self_cpu_time_total_ns = r["duration_us"].get<int64_t>() * 1000;
    row.input_shapes = r["input_shapes"].get<std::string>();
    row.stack = r["stack"].get<std::vector<std::string>>();
    rows.push_back(std::move(row));
  }
  const KeyAverages avg(rows, {});
  REQUIRE(reference["tables"].size() == 7);
  for (const auto& t : reference["tables"]) {
    const int64_t width = t["max_name_column_width"].get<int64_t>();
    CAPTURE(width);
    CHECK(avg.table({.sort_by = "self_cpu_time_total",
                     .max_src_column_width = t["max_src_column_width"].get<int64_t>(),
                     .max_name_column_width = width,
                     .max_shapes_column_width = t["max_shapes_column_width"].get<int64_t>()}) ==
          t["table"].get<std::string>());
  }
}

TEST_CASE("table: the Source Location layout matches PyTorch's for the same rows") {
  const std::vector<std::string> reference = reference_tables();
  REQUIRE(reference.size() == 3);
  const EventList events = reference_events();
  const KeyAverages by_name = events.key_averages();
  const std::vector<std::string> record_function_stack = {
      "...-in method _record_function_enter of PyCapsule object at 0x7ff2528fe3d0>", "torch/_ops.py(437): __call__",
      "torch/autograd/profiler.py(487): __enter__", "prof_ref.py(9): forward", "nn.Module: MyModule_0"};
  const std::vector<std::string> zeros_stack = {"<built-in method zeros of type object at 0x7ff27412d1e0>",
                                                "torch/autograd/profiler.py(478): __init__", "prof_ref.py(9): forward",
                                                "nn.Module: MyModule_0", "prof_ref.py(21): <module>"};
  std::vector<FunctionEventAvg> rows;
  auto add = [&](const std::string& key, std::vector<std::string> stack, int64_t mem, int64_t self_mem) {
    rows.push_back(by_name.at(key));
    rows.back().stack = std::move(stack);
    rows.back().cpu_memory_usage = mem;
    rows.back().self_cpu_memory_usage = self_mem;
  };
  add("MASK INDICES", record_function_stack, -4, -520);
  add("aten::addmm",
      {"<built-in function linear>", "torch/nn/modules/linear.py(113): forward", "nn.Module: Linear_0",
       "prof_ref.py(9): forward", "nn.Module: MyModule_0"},
      5120, 5120);
  add("LINEAR PASS", record_function_stack, 5120, -4);
  add("aten::zeros", zeros_stack, 8, 4);
  // The two aten::empty calls made inside aten::zeros share the zeros' stack in PyTorch's run.
  FunctionEventAvg empty;
  empty.key = "aten::empty";
  for (const FunctionEvent& e : events)
    if (e.name == "aten::empty" && e.cpu_parent >= 0 && events[e.cpu_parent].name == "aten::zeros") empty.add(e);
  empty.stack = zeros_stack;
  empty.cpu_memory_usage = empty.self_cpu_memory_usage = 4;
  rows.push_back(empty);
  // The rows the table does not show only contribute to the total and to the name column's
  // width: give their time to small rows named after the other keys of the run.
  std::vector<std::string> hidden_keys;
  for (const FunctionEventAvg& r : by_name)
    if (std::none_of(rows.begin(), rows.end(), [&](const FunctionEventAvg& shown) { return shown.key == r.key; }))
      hidden_keys.push_back(r.key);
  int64_t remaining = events.self_cpu_time_total_ns();
  for (const FunctionEventAvg& r : rows) remaining -= r.self_cpu_time_total_ns;
  const int64_t n = static_cast<int64_t>(hidden_keys.size());
  for (int64_t i = 0; i < n; ++i) {
    FunctionEventAvg filler;
    filler.key = hidden_keys[i];
    filler.count = 1;
    filler.self_cpu_time_total_ns = filler.cpu_time_total_ns = remaining / n + (i < remaining % n ? 1 : 0);
    REQUIRE(filler.self_cpu_time_total_ns < 24'000);  // below every row shown
    rows.push_back(filler);
  }
  const KeyAverages avg(rows, {.profile_memory = true});
  CHECK(avg.table({.sort_by = "self_cpu_time_total", .row_limit = 5}) == reference[0]);
}

TEST_CASE("table: the Input Shapes layout matches PyTorch's for the same rows") {
  const std::vector<std::string> reference = reference_tables();
  REQUIRE(reference.size() == 3);
  const EventList events = reference_events();
  const KeyAverages by_name = events.key_averages();
  // Each of the rows shown was called with one set of shapes, so grouping by shape leaves it whole.
  struct Shown {
    const char* key;
    const char* shapes;
    int64_t mem, self_mem;
  };
  const Shown shown[] = {{"MASK INDICES", "[]", -4, -520},
                         {"LINEAR PASS", "[]", 5120, -4},
                         {"aten::linear", "[[128, 500], [10, 500], [10]]", 5120, 0},
                         {"aten::addmm", "[[10], [128, 500], [500, 10], [], []]", 5120, 5120},
                         {"aten::zeros", "[[], [], [], [], []]", 8, 4},
                         {"aten::mean", "[[128], []]", 4, 4},
                         {"aten::t", "[[10, 500]]", 0, 0},
                         {"aten::div_", "[[], []]", 0, -4}};
  std::vector<FunctionEventAvg> rows;
  int64_t remaining = events.self_cpu_time_total_ns();
  for (const Shown& s : shown) {
    rows.push_back(by_name.at(s.key));
    rows.back().input_shapes = s.shapes;
    rows.back().cpu_memory_usage = s.mem;
    rows.back().self_cpu_memory_usage = s.self_mem;
    remaining -= rows.back().self_cpu_time_total_ns;
  }
  // The other rows: the rest of the self time in rows shorter than the last one shown, one of
  // them with a 45-character shape list (PyTorch's column is 49 wide in that run).
  for (int i = 0; remaining > 0; ++i) {
    FunctionEventAvg hidden;
    hidden.key = "aten::empty";
    hidden.count = 1;
    hidden.input_shapes = i == 0 ? "[[" + std::string(41, '9') + "]]" : "[]";
    hidden.self_cpu_time_total_ns = hidden.cpu_time_total_ns = std::min<int64_t>(remaining, 20'000);
    remaining -= hidden.self_cpu_time_total_ns;
    rows.push_back(hidden);
  }
  // And the longest name of the run, for the name column's width.
  FunctionEventAvg longest;
  longest.key = "aten::_local_scalar_dense";
  longest.count = 1;
  longest.input_shapes = "[[]]";
  rows.push_back(longest);
  const KeyAverages avg(rows, {.profile_memory = true});
  CHECK(avg.table({.sort_by = "cpu_time_total", .row_limit = 8}) == reference[2]);
}

TEST_CASE("table: units and shares are PyTorch's") {
  CHECK(format_time(450'000) == "450.000us");
  CHECK(format_time(999) == "0.999us");
  CHECK(format_time(715'848'000) == "715.848ms");
  CHECK(format_time(2'313'769'000) == "2.314s");
  CHECK(format_memory(-520) == "-520 b");
  CHECK(format_memory(0) == "0 b");
  CHECK(format_memory(5120) == "5.00 Kb");
  CHECK(format_memory(-1'000'000'000) == "-953.67 Mb");  // the tutorial's float64 mask
  CHECK(format_memory(500'000'000) == "476.84 Mb");      // and its float32 one
  CHECK(format_memory(int64_t{3} << 29) == "1.50 Gb");
  CHECK(format_time_share(1, 3) == "33.33%");
  CHECK(format_time_share(0, 0) == "NaN");
}

FunctionEventAvg row(std::string key, int64_t self_ns, int64_t total_ns, int64_t count, int64_t mem,
                     int64_t self_mem, int64_t flops = 0) {
  FunctionEventAvg r;
  r.key = std::move(key);
  r.self_cpu_time_total_ns = self_ns;
  r.cpu_time_total_ns = total_ns;
  r.count = count;
  r.cpu_memory_usage = mem;
  r.self_cpu_memory_usage = self_mem;
  r.flops = flops;
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The first column of every data line (between the second separator and the last one).
std::vector<std::string> names_in(const std::string& table) {
  std::vector<std::string> lines, names;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  int separators = 0;
  for (const std::string& line : lines) {
    if (line.rfind("---", 0) == 0) {
      ++separators;
      continue;
    }
    if (separators != 2) continue;
    const size_t begin = line.find_first_not_of(' ');
    if (begin == std::string::npos) continue;
    names.push_back(line.substr(begin, line.find("  ", begin) - begin));
  }
  return names;
}

const std::vector<FunctionEventAvg> kRows = {
    row("a", 50, 900, 3, 10, -5, 100), row("b", 300, 400, 1, 70, 60, 0), row("c", 10, 500, 9, -20, 30, 5000),
    row("d", 200, 200, 2, 40, 0, 40),
};

TEST_CASE("table: every sort key orders rows largest first, ties in first-seen order") {
  const std::map<std::string, std::function<double(const FunctionEventAvg&)>> reference = {
      {"self_cpu_time_total", [](const FunctionEventAvg& r) { return double(r.self_cpu_time_total_ns); }},
      {"cpu_time_total", [](const FunctionEventAvg& r) { return double(r.cpu_time_total_ns); }},
      {"cpu_time", [](const FunctionEventAvg& r) { return double(r.cpu_time_total_ns) / r.count; }},
      {"cpu_memory_usage", [](const FunctionEventAvg& r) { return double(r.cpu_memory_usage); }},
      {"self_cpu_memory_usage", [](const FunctionEventAvg& r) { return double(r.self_cpu_memory_usage); }},
      {"count", [](const FunctionEventAvg& r) { return double(r.count); }},
      {"flops", [](const FunctionEventAvg& r) { return double(r.flops); }},
  };
  const KeyAverages avg(kRows, {.profile_memory = true});
  for (const std::string& key : table_sort_keys()) {
    CAPTURE(key);
    std::vector<std::string> expected;
    auto it = reference.find(key);
    std::vector<FunctionEventAvg> sorted = kRows;
    if (it != reference.end()) {
      // Plain selection of the maximum, first one on ties.
      while (!sorted.empty()) {
        size_t best = 0;
        for (size_t i = 1; i < sorted.size(); ++i)
          if (it->second(sorted[i]) > it->second(sorted[best])) best = i;
        expected.push_back(sorted[best].key);
        sorted.erase(sorted.begin() + static_cast<std::ptrdiff_t>(best));
      }
    } else {
      CHECK(key.find("cuda") != std::string::npos);  // CUDA keys: all zero, order kept
      for (const FunctionEventAvg& r : kRows) expected.push_back(r.key);
    }
    CHECK(names_in(avg.table({.sort_by = key})) == expected);
  }
  CHECK(names_in(avg.table()) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK_THROWS_WITH_AS(avg.table({.sort_by = "self_cpu_time"}), doctest::Contains("table: unknown sort_by key \"self_cpu_time\"; expected one of: self_cpu_time_total, cpu_time_total"), Error);
}

TEST_CASE("table: row_limit") {
  const KeyAverages avg(kRows, {});
  CHECK(names_in(avg.table({.sort_by = "count", .row_limit = 2})) == std::vector<std::string>{"c", "a"});
  CHECK(names_in(avg.table({.row_limit = 0})).empty());
  CHECK(names_in(avg.table({.row_limit = -1})).size() == kRows.size());
  CHECK(names_in(avg.table({.row_limit = 100})).size() == kRows.size());
  // The footer always sums every row, shown or not.
  CHECK(avg.table({.row_limit = 1}).find("Self CPU time total: 0.560us") != std::string::npos);
  CHECK(KeyAverages({}, {}).table().empty());
}

TEST_CASE("table: a column width <= 0 is refused, even for an empty table") {
  const KeyAverages avg(kRows, {});
  const KeyAverages empty({}, {});
  for (int64_t width : {int64_t{0}, int64_t{-1}, INT64_MIN}) {
    const std::string w = std::to_string(width);
    CHECK_THROWS_WITH_AS(avg.table({.max_name_column_width = width}),
                         ("table: max_name_column_width must be > 0, got " + w).c_str(), Error);
    CHECK_THROWS_WITH_AS(avg.table({.max_src_column_width = width}),
                         ("table: max_src_column_width must be > 0, got " + w).c_str(), Error);
    CHECK_THROWS_WITH_AS(empty.table({.max_shapes_column_width = width}),
                         ("table: max_shapes_column_width must be > 0, got " + w).c_str(), Error);
    CHECK_THROWS_WITH_AS(build_table(kRows, {.max_name_column_width = width}, {}),
                         ("table: max_name_column_width must be > 0, got " + w).c_str(), Error);
  }
  CHECK_THROWS_WITH_AS(empty.table({.sort_by = "nope"}), doctest::Contains("table: unknown sort_by key \"nope\""),
                       Error);
  // Width 1 and the largest widths are fine: names are cut to the width, or kept whole.
  CHECK(names_in(avg.table({.max_name_column_width = INT64_MAX, .max_shapes_column_width = INT64_MAX})) ==
        std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(lines_of(avg.table({.max_name_column_width = 1}))[3].starts_with("...  "));  // PyTorch's "a"[:-2] + "..."
}

TEST_CASE("table: short stacks and shapes never push a header past its column") {
  std::vector<FunctionEventAvg> rows = {row("a", 1, 1, 1, 0, 0, 10)};
  rows[0].stack = {"S"};
  rows[0].input_shapes = "[[2]]";
  const std::vector<std::string> lines = lines_of(KeyAverages(rows, {.with_flops = true}).table());
  CHECK(lines[1].size() == lines[0].size());
  CHECK(lines[1].find("Input Shapes") == lines[3].find("[[2]]") + 5 - 12);
}

TEST_CASE("table: FLOPs and Source Location stay aligned, long names are shortened") {
  std::vector<FunctionEventAvg> rows = kRows;
  rows[0].stack = {"nn.Module: Linear_0", "LINEAR PASS", "nn.Module: MyModule_0"};
  rows[2].stack = {"MASK INDICES"};
  rows[3].key = "aten::a_very_long_operator_name_that_does_not_fit_in_the_name_column";
  const std::string table = KeyAverages(rows, {.profile_memory = true, .with_flops = true}).table();
  const std::vector<std::string> lines = lines_of(table);
  const std::string& header = lines[1];
  const size_t flops_end = header.find("Total FLOPs") + std::string("Total FLOPs").size();
  const size_t src_begin = header.find("Source Location");
  REQUIRE(header.find("Total FLOPs") != std::string::npos);
  REQUIRE(src_begin > flops_end);
  for (size_t i = 0; i + 1 < lines.size(); ++i) CHECK(lines[i].size() == header.size());
  CHECK(lines[3].substr(flops_end - 8, 8) == " 100.000");
  CHECK(lines[3].substr(src_begin).rfind("nn.Module: Linear_0", 0) == 0);
  CHECK(lines[4].substr(src_begin).rfind("LINEAR PASS", 0) == 0);
  CHECK(lines[4].find_first_not_of(' ') == src_begin);
  const std::string shortened = rows[3].key.substr(0, 52) + "...";
  CHECK(table.find(shortened) != std::string::npos);
  const auto b_line = std::find_if(lines.begin() + 3, lines.end(), [](const std::string& l) {
    const size_t first = l.find_first_not_of(' ');
    return first != std::string::npos && first == l.find("b  ");
  });
  REQUIRE(b_line != lines.end());
  CHECK(b_line->substr(flops_end - 2, 2) == "--");  // b has no flops
}

TEST_CASE("table: flops column scales by the smallest value, and is left out without flops") {
  std::vector<FunctionEventAvg> rows = {row("x", 1, 1, 1, 0, 0, 2'500'000), row("y", 1, 1, 1, 0, 0, 40'000'000)};
  const std::string table = KeyAverages(rows, {.with_flops = true}).table();
  CHECK(table.find("Total MFLOPs") != std::string::npos);
  CHECK(table.find("   2.500") != std::string::npos);
  CHECK(table.find("  40.000") != std::string::npos);
  rows[0].flops = rows[1].flops = 0;
  CHECK(KeyAverages(rows, {.with_flops = true}).table().find("FLOPs") == std::string::npos);
}

TEST_CASE("table: header, top-level-only rows and the Input Shapes column") {
  std::vector<FunctionEventAvg> rows = kRows;
  rows[1].is_top_level = false;
  rows[0].input_shapes = "[[128, 500], [10, 500], [10]]";
  rows[2].input_shapes = "[]";
  const std::string table = KeyAverages(rows, {}).table({.header = "MY HEADER", .top_level_events_only = true});
  const std::vector<std::string> lines = lines_of(table);
  REQUIRE(lines.size() > 6);
  CHECK(lines[0] == std::string(lines[4].size() - 2, '='));
  CHECK(lines[1] == "MY HEADER");
  CHECK(lines[2] == lines[0]);
  CHECK(lines[3] == "This report only display top-level ops statistics");
  CHECK(lines[5].find("Input Shapes") != std::string::npos);
  CHECK(names_in(table) == std::vector<std::string>{"a", "c", "d"});
  CHECK(table.find("[[128, 500], [10, 500], [10]]") != std::string::npos);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: profiler::shorten is tl::shorten_name for one more version") {
  CHECK(shorten("aten::_scaled_dot_product_attention_backward", 20) ==
        shorten_name("aten::_scaled_dot_product_attention_backward", 20));
  CHECK(shorten("aten::add", 20) == "aten::add");
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl::profiler
