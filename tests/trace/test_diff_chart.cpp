// tests/trace/test_diff_chart.cpp — the SVG charts: one bar per value with lengths
// proportional to it, negative bars left of zero, escaped and ellipsized labels with full tooltips;
// write_diff_charts' three files.
#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "tests/trace/trace_test_util.h"
#include "trace/diff_chart.h"

namespace tl::trace {
namespace {

OpDiff make_row(const std::string& name, double control, double test) {
  OpDiff r;
  r.name = name;
  r.control = {control, control * 1000, control * 500};
  r.test = {test, test * 1000, test * 500};
  r.diff = {test - control, (test - control) * 1000, (test - control) * 500};
  return r;
}

DiffTable make_table(std::vector<OpDiff> rows) {
  DiffTable t;
  t.control_label = "runs/unfused";
  t.test_label = "runs/fused";
  t.control_iterations = 4;
  t.test_iterations = 4;
  t.rows = std::move(rows);
  return t;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Attribute `attr` of the n-th <rect> whose fill is `color` (0-based; the legend swatch is first).
double rect_attr(const std::string& svg, const std::string& color, int n, const std::string& attr) {
  size_t p = 0;
  for (int i = 0; i <= n; ++i) {
    p = svg.find("fill=\"" + color + "\"", p + 1);
    REQUIRE(p != std::string::npos);
  }
  size_t start = svg.rfind("<rect", p);
  size_t a = svg.find(" " + attr + "=\"", start) + attr.size() + 3;
  return std::stod(svg.substr(a, svg.find('"', a) - a));
}

TEST_CASE("diff_chart: three bars per row, lengths proportional to the values") {
  DiffTable t = make_table({make_row("aten::conv2d", 2, 4), make_row("aten::batch_norm", 3, 0)});
  std::string svg = visualize_counts_diff(t);
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(svg.ends_with("</svg>\n"));
  CHECK(count(svg, "<text") == count(svg, "</text>"));
  CHECK(count(svg, "fill=\"#4c72b0\"") == 3);  // legend + one control bar per row
  CHECK(count(svg, "fill=\"#dd8452\"") == 3);
  CHECK(count(svg, "fill=\"#8172b3\"") == 3);
  CHECK(svg.find("Op count comparison") != std::string::npos);
  CHECK(svg.find("control: runs/unfused (4 iterations)") != std::string::npos);
  CHECK(svg.find("calls per iteration") != std::string::npos);

  double control_w = rect_attr(svg, "#4c72b0", 1, "width"), test_w = rect_attr(svg, "#dd8452", 1, "width");
  CHECK(test_w == doctest::Approx(2 * control_w).epsilon(0.01));
  double zero_x = rect_attr(svg, "#4c72b0", 1, "x");
  double diff_x = rect_attr(svg, "#8172b3", 2, "x"), diff_w = rect_attr(svg, "#8172b3", 2, "width");
  CHECK(diff_x + diff_w == doctest::Approx(zero_x).epsilon(0.01));  // -3 ends at zero, drawn leftwards
  CHECK(diff_w == doctest::Approx(rect_attr(svg, "#4c72b0", 2, "width")).epsilon(0.01));
  CHECK(svg.find("text-anchor=\"end\">-3</text>") != std::string::npos);
  CHECK(svg.find("aten::batch_norm \u2014 difference: -3</title>") != std::string::npos);
}

TEST_CASE("diff_chart: long names are cut with an ellipsis, the tooltip keeps them whole; XML escaped") {
  std::string long_name = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>";
  DiffTable t = make_table({make_row(long_name, 1, 1), make_row("a<b & \"c\"", 1, 2)});
  std::string svg = visualize_duration_diff(t, {.max_label_chars = 20});
  CHECK(svg.find("<title>void at::native::vectorized_elementwise_kernel&lt;4, at::native::CUDAFunctor_add&lt;float&gt;&gt;</title>"
                 "void at::native::vec\u2026</text>") != std::string::npos);
  CHECK(svg.find("a&lt;b &amp; &quot;c&quot;") != std::string::npos);
  CHECK(svg.find("a<b") == std::string::npos);
}

TEST_CASE("diff_chart: duration units follow the largest value; self time on request") {
  DiffTable t = make_table({make_row("aten::conv2d", 2, 4)});  // 2000 and 4000 us
  std::string svg = visualize_duration_diff(t);
  CHECK(svg.find("Op duration comparison") != std::string::npos);
  CHECK(svg.find("total time (inclusive) per iteration (ms)") != std::string::npos);
  CHECK(svg.find(">4.00</text>") != std::string::npos);
  std::string self = visualize_duration_diff(t, {.title = "Self time", .self_duration = true});
  CHECK(self.find(">Self time</text>") != std::string::npos);
  CHECK(self.find("self time per iteration (ms)") != std::string::npos);
  CHECK(self.find(">2.00</text>") != std::string::npos);
  t.per_iteration = false;
  t.rows[0] = make_row("x", 0.1, 0.2);
  CHECK(visualize_duration_diff(t).find("total time (inclusive) (\u00b5s)") != std::string::npos);
}

TEST_CASE("diff_chart: a label budget or width <= 0 is refused by both charts") {
  const DiffTable t = make_table({make_row("aten::add", 1, 2)});
  for (const auto& entry :
       {std::pair{ChartOptions{.max_label_chars = 0}, "chart: max_label_chars must be > 0, got 0"},
        std::pair{ChartOptions{.width = 0}, "chart: width must be > 0, got 0"},
        std::pair{ChartOptions{.width = -5}, "chart: width must be > 0, got -5"}}) {
    const ChartOptions& options = entry.first;  // named, not bound: clang 14 cannot capture bindings
    const char* message = entry.second;
    CAPTURE(message);
    CHECK_THROWS_WITH_AS(visualize_counts_diff(t, options), message, Error);
    CHECK_THROWS_WITH_AS(visualize_duration_diff(t, options), message, Error);
  }
  // The largest budget keeps labels whole.
  CHECK(visualize_counts_diff(t, {.max_label_chars = static_cast<size_t>(-1)}).find(">aten::add</text>") !=
        std::string::npos);
}

TEST_CASE("diff_chart: an empty table still gives a valid chart") {
  std::string svg = visualize_counts_diff(make_table({}));
  CHECK(svg.find("no ops to compare") != std::string::npos);
  CHECK(svg.ends_with("</svg>\n"));
}

TEST_CASE("write_diff_charts: counts, inclusive and self time, each sorted by its own |diff| and cut to top") {
  testing::TempDir dir;
  OpDiff self_heavy = make_row("aten::convolution_backward", 2, 2);
  self_heavy.diff.self_duration = 900;
  const DiffTable t =
      make_table({make_row("aten::add", 1, 5), make_row("aten::conv2d", 3, 3.5), self_heavy, make_row("x", 2, 1)});
  const std::filesystem::path out = dir / "a/charts";
  const std::vector<std::filesystem::path> written = write_diff_charts(t, out, 2, "--svg");
  CHECK(written == std::vector<std::filesystem::path>{out / "counts_diff.svg", out / "duration_diff.svg",
                                                      out / "self_duration_diff.svg"});
  CHECK(tl::testing::dir_entries(out) ==
        std::vector<std::string>{"counts_diff.svg", "duration_diff.svg", "self_duration_diff.svg"});
  CHECK(testing::read_file(written[0]) ==
        visualize_counts_diff(t.sort_values("abs_diff_counts", false).head(2),
                              {.title = "Op count comparison: top 2 by |diff_counts|"}));
  CHECK(testing::read_file(written[1]) ==
        visualize_duration_diff(t.sort_values("abs_diff_duration", false).head(2),
                                {.title = "Op duration comparison: top 2 by |diff_duration|"}));
  const std::string self = testing::read_file(written[2]);
  CHECK(self == visualize_duration_diff(t.sort_values("abs_diff_self_duration", false).head(2),
                                        {.title = "Op self-time comparison: top 2 by |diff_self_duration|",
                                         .self_duration = true}));
  CHECK(self.find(">aten::convolution_backward</text>") != std::string::npos);
  CHECK(self.find(">aten::conv2d</text>") == std::string::npos);
}

TEST_CASE("write_diff_charts: a chart none of whose rows differs says so instead of 'top n by |diff|'") {
  testing::TempDir dir;
  OpDiff conv = make_row("aten::conv2d", 3, 3), add = make_row("aten::add", 2, 2);
  conv.diff.duration = 40;  // the durations differ, the counts do not
  add.diff.duration = -10;
  const DiffTable t = make_table({conv, add});
  const std::vector<std::filesystem::path> written = write_diff_charts(t, dir / "charts", 5, "--svg");
  const std::string counts = testing::read_file(written[0]);
  CHECK(counts.find("Op count comparison: no op's count differs (the first 5 rows)") != std::string::npos);
  CHECK(counts.find("by |diff_counts|") == std::string::npos);
  CHECK(testing::read_file(written[1]).find("Op duration comparison: top 5 by |diff_duration|") != std::string::npos);
  CHECK(testing::read_file(written[2]).find("Op self-time comparison: no op's self time differs") !=
        std::string::npos);
}

TEST_CASE("write_diff_charts: no rows or a directory that cannot be made is refused, nothing written") {
  testing::TempDir dir;
  const DiffTable t = make_table({make_row("aten::add", 1, 2)});
  CHECK_THROWS_WITH_AS(write_diff_charts(t, dir / "charts", 0, "--svg"),
                       "--svg: the number of chart rows must be > 0, got 0", Error);
  CHECK(tl::testing::dir_entries(dir.path()).empty());
  const std::filesystem::path file = dir.write("charts", "a file");
  CHECK_THROWS_WITH_AS(write_diff_charts(t, file / "sub", 3, "tracediff_demo"),
                       ("tracediff_demo: " + (file / "sub").string() + ": cannot create the directory: Not a directory")
                           .c_str(),
                       Error);
  CHECK(testing::read_file(file) == "a file");
}

}  // namespace
}  // namespace tl::trace
