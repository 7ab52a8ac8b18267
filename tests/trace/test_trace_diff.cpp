// tests/trace/test_trace_diff.cpp — compare_traces() and ops_diff() on hand-made trace sets
// whose answers follow from their construction: every change category, per-iteration normalisation,
// self durations, grouping, rank/step/category filters, table helpers, text and CSV output, and
// tl-tracediff's output files after a failed write.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "tests/support/file_testing.h"
#include "tests/trace/trace_test_util.h"
#include "trace/trace_diff.h"

namespace tl::trace {
namespace {

using testing::ChromeTraceBuilder;
using testing::TempDir;

// Per-iteration behaviour of one op in each set, and the category it must get.
struct OpSpec {
  std::string name;
  int control_calls;
  double control_us;
  int test_calls;
  double test_us;
  Change expected;
};

const std::vector<OpSpec> kOps = {
    {"aten::conv2d", 2, 100, 2, 120, Change::Unchanged},   // same count, +20% duration: counts alone classify
    {"aten::batch_norm", 2, 30, 0, 0, Change::Deleted},
    {"aten::relu", 2, 10, 2, 10, Change::Unchanged},       // identical
    {"aten::add", 1, 5, 2, 5, Change::Increased},          // one more call
    {"aten::linear", 1, 50, 1, 50.5, Change::Unchanged},   // +1%
    {"aten::sigmoid", 2, 4, 1, 4, Change::Decreased},      // one call fewer
    {"aten::mul", 1, 40, 1, 20, Change::Unchanged},        // same count, half the time
    {"aten::softmax", 0, 0, 1, 7, Change::Added},
};

// `steps` iterations of the spec, each inside a ProfilerStep#N of 1000 us, ops back to back.
std::string spec_trace(int steps, bool test_side, int rank = -1, int first_step = 1) {
  ChromeTraceBuilder b(rank);
  for (int s = 0; s < steps; ++s) {
    double t = 10000.0 * s;
    b.step(first_step + s, t, 1000);
    t += 1;
    for (const OpSpec& op : kOps) {
      int calls = test_side ? op.test_calls : op.control_calls;
      double us = test_side ? op.test_us : op.control_us;
      for (int c = 0; c < calls; ++c, t += us + 1) b.op(op.name, t, us);
    }
  }
  return b.str();
}

struct Scenario {
  TempDir dir;
  TraceSet control, test;
  Scenario(int control_steps = 2, int test_steps = 4) {
    control = load_trace_set(dir.write("control/trace.json", spec_trace(control_steps, false)));
    test = load_trace_set(dir.write("test/trace.json", spec_trace(test_steps, true)));
  }
};

const OpDiff& row(const DiffTable& t, const std::string& label) {
  auto it = std::find_if(t.rows.begin(), t.rows.end(), [&](const OpDiff& r) { return r.label() == label; });
  REQUIRE_MESSAGE(it != t.rows.end(), "no row ", label);
  return *it;
}

std::vector<std::string> names(const std::vector<OpDiff>& rows) {
  std::vector<std::string> out;
  for (const OpDiff& r : rows) out.push_back(r.name);
  return out;
}

const CompareOptions kAll{.iterations = Iterations::All};

TEST_CASE("trace_diff: every change category, per iteration, with 2 vs 4 iterations") {
  Scenario s;
  DiffTable t = compare_traces(s.control, s.test, kAll).exclude({"ProfilerStep*"});
  CHECK(t.control_iterations == 2);
  CHECK(t.test_iterations == 4);
  CHECK(t.rows.size() == kOps.size());
  for (const OpSpec& op : kOps) {
    CAPTURE(op.name);
    const OpDiff& r = row(t, op.name);
    CHECK(r.change == op.expected);
    CHECK(r.control.counts == doctest::Approx(op.control_calls));
    CHECK(r.test.counts == doctest::Approx(op.test_calls));
    CHECK(r.diff.counts == doctest::Approx(op.test_calls - op.control_calls));
    CHECK(r.control.duration == doctest::Approx(op.control_calls * op.control_us));
    CHECK(r.test.duration == doctest::Approx(op.test_calls * op.test_us));
    CHECK(r.diff.duration == doctest::Approx(op.test_calls * op.test_us - op.control_calls * op.control_us));
    CHECK(r.control.self_duration == doctest::Approx(r.control.duration));  // no nesting below the step
    CHECK(r.control_total.counts == doctest::Approx(2 * op.control_calls));
    CHECK(r.test_total.counts == doctest::Approx(4 * op.test_calls));
    CHECK(r.test_total.duration == doctest::Approx(4 * op.test_calls * op.test_us));
  }
}

TEST_CASE("trace_diff: ops_diff splits rows by category, HTA's five lists") {
  Scenario s;
  OpsDiff d = ops_diff(compare_traces(s.control, s.test, kAll).exclude({"ProfilerStep*"}));
  auto expected = [](Change c) {
    std::vector<std::string> out;
    for (const OpSpec& op : kOps)
      if (op.expected == c) out.push_back(op.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  CHECK(names(d.added) == expected(Change::Added));
  CHECK(names(d.deleted) == expected(Change::Deleted));
  CHECK(names(d.increased) == expected(Change::Increased));
  CHECK(names(d.decreased) == expected(Change::Decreased));
  CHECK(names(d.unchanged) == expected(Change::Unchanged));
  CHECK(ops_diff(s.control, s.test, kAll).added.size() == 3);  // softmax, ProfilerStep#3 and #4
  CHECK(names(ops_diff(s.control, s.test).added) == std::vector<std::string>{"aten::softmax"});  // step 1 only
}

TEST_CASE("trace_diff: by default each side uses its first (lowest) ProfilerStep, as HTA") {
  TempDir dir;
  // Test steps 7..9 written first in the file: "first" is the lowest number, not the earliest event.
  const TraceSet control = load_trace_set(dir.write("c.json", spec_trace(2, false)));
  const TraceSet test = load_trace_set(dir.write("t.json", spec_trace(3, true, -1, 7)));
  DiffTable t = compare_traces(control, test);
  CHECK(t.control_iterations == 1);
  CHECK(t.test_iterations == 1);
  CHECK(t.control_steps == std::vector<int64_t>{1});
  CHECK(t.test_steps == std::vector<int64_t>{7});
  CHECK(row(t, "aten::relu").control_total.counts == 2);  // one iteration's calls, not two
  CHECK(row(t, "ProfilerStep#1").change == Change::Deleted);  // as HTA: the step names differ
  CHECK(row(t, "ProfilerStep#7").change == Change::Added);
  CHECK(std::none_of(t.rows.begin(), t.rows.end(), [](const OpDiff& r) { return r.name == "ProfilerStep#2"; }));
  CHECK(t.table().find("(1 trace, 1 iteration, ProfilerStep#1), test ") != std::string::npos);
  DiffTable all = compare_traces(control, test, kAll);
  CHECK(all.test_steps == std::vector<int64_t>{7, 8, 9});
  CHECK(all.table().find("(1 trace, 3 iterations, ProfilerSteps #7-#9)") != std::string::npos);
}

TEST_CASE("trace_diff: events outside every ProfilerStep are left out, as HTA") {
  TempDir dir;
  ChromeTraceBuilder b;
  b.op("aten::empty", 0, 5).step(1, 100, 1000).op("aten::add", 110, 5).op("aten::add", 1100, 5);  // second add: after the step
  b.step(2, 2000, 1000).op("aten::add", 2010, 5).op("aten::mul", 3000, 5);  // mul starts at the step's end: outside
  const TraceSet set = load_trace_set(dir.write("t.json", b.str()));
  for (const CompareOptions& o : {CompareOptions{}, kAll}) {
    DiffTable t = compare_traces(set, set, o);
    CHECK(std::none_of(t.rows.begin(), t.rows.end(), [](const OpDiff& r) { return r.name == "aten::empty" || r.name == "aten::mul"; }));
    CHECK(row(t, "aten::add").control_total.counts == t.control_iterations);
  }
  // A trace without any ProfilerStep is taken whole (HTA refuses it).
  const TraceSet plain = load_trace_set(dir.write("p.json", ChromeTraceBuilder().op("aten::mm", 0, 5).str()));
  CHECK(row(compare_traces(plain, plain), "aten::mm").control.counts == 1);
}

TEST_CASE("trace_diff: ProfilerStep#N rows read one call per iteration, not 1/iterations") {
  Scenario s(3, 3);
  DiffTable t = compare_traces(s.control, s.test, kAll);
  CHECK(t.control_iterations == 3);
  for (const char* step : {"ProfilerStep#1", "ProfilerStep#2", "ProfilerStep#3"}) {
    CAPTURE(step);
    CHECK(row(t, step).control.counts == 1);
    CHECK(row(t, step).control.duration == doctest::Approx(1000));
    CHECK(row(t, step).change == Change::Unchanged);
  }
  CHECK(t.table().find("\nProfilerStep#1    unchanged            1           1           0") != std::string::npos);
}

// Expected values produced by HTA itself (shared/anchors/hta, HOW_TO_RUN.md) with tests/trace/data/
// kineto_rank1.json as both control and test dir, HTA_DISABLE_NS_ROUNDING=1:
//   TraceDiff.compare_traces(ct, tt)                          -> the kFirst rows
//   TraceDiff.compare_traces(ct, tt, control_iteration=[4, 5], test_iteration=[4, 5])  -> the kAll rows
// HTA leaves out "PyTorch Profiler (0)" and "Record Window End" (outside both ProfilerSteps).
// A row HTA's compare_traces gives: the op, its control counts and duration.
struct HtaRow {
  const char* name;
  double counts, duration_us;
};

// `t`'s rows are `expected`, in order.
void check_rows(const DiffTable& t, const std::vector<HtaRow>& expected) {
  REQUIRE(t.rows.size() == expected.size());
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const HtaRow& e = expected[i];
    CAPTURE(e.name);
    CHECK(t.rows[i].name == e.name);
    CHECK(t.rows[i].control.counts == e.counts);
    CHECK(t.rows[i].control.duration == doctest::Approx(e.duration_us));
  }
}

TEST_CASE("trace_diff: counts and durations of kineto_rank1.json match HTA's compare_traces") {
  const TraceSet set = load_trace_set(std::filesystem::path("tests/trace/data/kineto_rank1.json"));
  using Expected = HtaRow;
  const std::vector<Expected> first = {
      {"ProfilerStep#4", 1, 1000}, {"aten::add", 1, 50.5}, {"aten::conv2d", 1, 400}, {"aten::convolution", 1, 300}};
  const std::vector<Expected> all = {{"ProfilerStep#4", 1, 1000}, {"ProfilerStep#5", 1, 900},
                                     {"aten::add", 2, 90.5},       {"aten::conv2d", 2, 750},
                                     {"aten::convolution", 2, 620}, {"torch/nn/modules/conv.py(463): forward", 1, 380}};
  const std::pair<CompareOptions, const std::vector<Expected>*> cases[] = {{CompareOptions{}, &first},
                                                                           {CompareOptions{.iterations = Iterations::All, .per_iteration = false}, &all}};
  for (const auto& c : cases) {
    DiffTable t = compare_traces(set, set, c.first);
    check_rows(t, *c.second);
    for (const OpDiff& r : t.rows) CHECK(r.change == Change::Unchanged);
  }
}

// Expected values produced by HTA itself with tests/trace/data/kineto_gpu.json as both control and test
// dir, HTA_DISABLE_NS_ROUNDING=1: TraceDiff.compare_traces(ct, tt), then with control_iteration=[2],
// test_iteration=[2]. A GPU event counts in its launch's iteration even when it runs after the step
// ended (gemm_kernel of step 1 runs at 1150 us, in no step's span); orphan_kernel, whose launch is not
// in the trace, is in no iteration although it runs inside step 1's span.
TEST_CASE("trace_diff: GPU events count in their launch's iteration, as HTA's compare_traces") {
  const TraceSet set = load_trace_set(std::filesystem::path("tests/trace/data/kineto_gpu.json"));
  using Expected = HtaRow;
  const std::vector<Expected> first = {
      {"ProfilerStep#1", 1, 100}, {"aten::mm", 1, 40}, {"cudaLaunchKernel", 1, 10}, {"gemm_kernel", 1, 80}};
  const std::vector<Expected> second = {{"Memcpy DtoH (Device -> Pageable)", 1, 20}, {"ProfilerStep#2", 1, 100},
                                        {"aten::mm", 1, 40},        {"cudaLaunchKernel", 1, 10},
                                        {"cudaMemcpyAsync", 1, 5},  {"gemm_kernel", 1, 80}};
  const std::pair<CompareOptions, const std::vector<Expected>*> cases[] = {
      {CompareOptions{}, &first}, {CompareOptions{.control_steps = {2}, .test_steps = {2}}, &second}};
  for (const auto& c : cases) check_rows(compare_traces(set, set, c.first).sort_values("name", true), *c.second);
}

TEST_CASE("trace_diff: without per-iteration means, twice the iterations looks like twice the calls") {
  Scenario s;
  DiffTable t = compare_traces(s.control, s.test, {.iterations = Iterations::All, .per_iteration = false});
  CHECK_FALSE(t.per_iteration);
  const OpDiff& relu = row(t, "aten::relu");
  CHECK(relu.control.counts == 4);
  CHECK(relu.test.counts == 8);
  CHECK(relu.change == Change::Increased);
  CHECK(row(t, "aten::sigmoid").change == Change::Unchanged);  // 2 x 2 calls vs 4 x 1
  CHECK(row(t, "ProfilerStep#1").change == Change::Unchanged);
  Scenario same(3, 3);  // equal iteration counts: means and totals agree on the categories
  DiffTable means = compare_traces(same.control, same.test, kAll),
            totals = compare_traces(same.control, same.test, {.iterations = Iterations::All, .per_iteration = false});
  for (size_t i = 0; i < means.rows.size(); ++i) CHECK(means.rows[i].change == totals.rows[i].change);
}

TEST_CASE("trace_diff: a duration change alone is no change, as HTA's ops_diff") {
  Scenario s(2, 2);
  for (const CompareOptions& o : {CompareOptions{}, kAll}) {
    DiffTable t = compare_traces(s.control, s.test, o);
    CHECK(row(t, "aten::conv2d").diff.duration > 0);
    CHECK(row(t, "aten::conv2d").change == Change::Unchanged);
    CHECK(row(t, "aten::mul").diff.duration < 0);
    CHECK(row(t, "aten::mul").change == Change::Unchanged);
    CHECK(row(t, "aten::add").change == Change::Increased);
  }
}

TEST_CASE("trace_diff: self durations exclude nested children, inclusive ones do not") {
  TempDir dir;
  ChromeTraceBuilder c, t;
  c.op("aten::conv2d", 0, 100).op("aten::convolution", 10, 80).op("aten::conv2d", 200, 100).op("aten::convolution", 210, 80);
  t.op("aten::conv2d", 0, 120).op("aten::convolution", 5, 100).op("aten::conv2d", 200, 120).op("aten::convolution", 205, 100);
  DiffTable d = compare_traces(load_trace_set(dir.write("c.json", c.str())), load_trace_set(dir.write("t.json", t.str())));
  const OpDiff& conv = row(d, "aten::conv2d");
  CHECK(conv.diff.duration == doctest::Approx(2 * 20));
  CHECK(conv.control.self_duration == doctest::Approx(2 * 20));
  CHECK(conv.diff.self_duration == doctest::Approx(0));
  CHECK(row(d, "aten::convolution").diff.self_duration == doctest::Approx(2 * 20));
  CHECK(d.control_iterations == 1);  // no ProfilerStep: one iteration per trace
}

TEST_CASE("trace_diff: input shapes sharing a long prefix print as distinct rows") {
  TempDir dir;
  const std::string a = "[[10, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], []]";
  const std::string b = "[[10, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], []]";
  ChromeTraceBuilder c;
  c.op("aten::conv2d", 0, 5, 1, "cpu_op", a).op("aten::conv2d", 10, 5, 1, "cpu_op", b);
  const TraceSet set = load_trace_set(dir.write("c.json", c.str()));
  const std::string text = compare_traces(set, set, {.group_by_input_shape = true}).table();
  CHECK(text.find("\naten::conv2d (" + a + ") ") != std::string::npos);
  CHECK(text.find("\naten::conv2d (" + b + ")  unchanged") != std::string::npos);
}

TEST_CASE("trace_diff: grouping by category and by input shapes") {
  TempDir dir;
  ChromeTraceBuilder c, t;
  c.op("aten::add", 0, 5, 1, "cpu_op", "[[2, 3], [2, 3]]").op("aten::add", 10, 5, 1, "cpu_op", "[[2, 3], [2, 3]]");
  t.op("aten::add", 0, 5, 1, "cpu_op", "[[4, 3], [4, 3]]").op("aten::add", 10, 5, 1, "cpu_op", "[[4, 3], [4, 3]]")
      .op("aten::add", 20, 5, 1, "python_function");
  TraceSet cs = load_trace_set(dir.write("c.json", c.str())), ts = load_trace_set(dir.write("t.json", t.str()));
  CHECK(row(compare_traces(cs, ts), "aten::add").change == Change::Increased);

  DiffTable by_shape = compare_traces(cs, ts, {.group_by_input_shape = true});
  CHECK(by_shape.rows.size() == 3);
  CHECK(row(by_shape, "aten::add ([[2, 3], [2, 3]])").change == Change::Deleted);
  CHECK(row(by_shape, "aten::add ([[4, 3], [4, 3]])").change == Change::Added);
  CHECK(row(by_shape, "aten::add").change == Change::Added);  // no shapes recorded

  DiffTable by_cat = compare_traces(cs, ts, {.group_by_category = true});
  CHECK(row(by_cat, "aten::add [cpu_op]").change == Change::Unchanged);
  CHECK(row(by_cat, "aten::add [python_function]").change == Change::Added);
  CHECK(compare_traces(cs, ts, {.categories = {"cpu_op"}}).rows.size() == 1);
  CHECK(row(compare_traces(cs, ts, {.categories = {"cpu_op"}}), "aten::add").change == Change::Unchanged);
}

TEST_CASE("trace_diff: sets of several ranks, rank and step filters") {
  TempDir dir;
  dir.write("control/rank0.json", spec_trace(2, false, 0));
  dir.write("control/rank1.json", spec_trace(2, false, 1));
  dir.write("test/rank0.json", spec_trace(3, true, 0, 5));
  TraceSet control = load_trace_set(dir / "control"), test = load_trace_set(dir / "test");

  DiffTable first = compare_traces(control, test, kAll);  // HTA's default: the lowest rank only
  CHECK(first.control_traces == 1);
  CHECK(first.control_iterations == 2);
  CHECK(row(first, "aten::relu").control_total.counts == doctest::Approx(4));

  DiffTable all = compare_traces(control, test, {.iterations = Iterations::All, .ranks = Ranks::All});
  CHECK(all.control_traces == 2);
  CHECK(all.control_iterations == 4);  // per rank-iteration
  CHECK(row(all, "aten::relu").control.counts == doctest::Approx(2));
  CHECK(row(all, "aten::relu").control_total.counts == doctest::Approx(8));
  CHECK(row(all, "aten::relu").change == Change::Unchanged);

  DiffTable rank1 = compare_traces(control, test, {.iterations = Iterations::All, .control_ranks = {1}});
  CHECK(rank1.control_traces == 1);
  CHECK(row(rank1, "aten::relu").control_total.counts == doctest::Approx(4));

  DiffTable steps = compare_traces(control, test, {.ranks = Ranks::All, .control_steps = {2}, .test_steps = {6, 7}});
  CHECK(steps.control_iterations == 2);  // step 2 of each rank
  CHECK(steps.test_iterations == 2);
  CHECK(row(steps, "aten::conv2d").control_total.counts == doctest::Approx(4));
  CHECK(row(steps, "aten::conv2d").test_total.counts == doctest::Approx(4));
  CHECK(std::none_of(steps.rows.begin(), steps.rows.end(), [](const OpDiff& r) { return r.name == "ProfilerStep#1"; }));

  CHECK_THROWS_WITH_AS(compare_traces(control, test, {.control_ranks = {5}}),
                       ("compare_traces: the control set (" + (dir / "control").string() +
                        ") has no trace with a rank in [5]; its ranks: [0, 1]").c_str(),
                       Error);
  // As HTA, a trace without a rank is rank 0: the default keeps it, a rank filter of 0 too.
  dir.write("mixed/no_rank.json", spec_trace(3, false));
  dir.write("mixed/rank1.json", spec_trace(2, false, 1));
  const TraceSet mixed = load_trace_set(dir / "mixed");
  CHECK(compare_traces(mixed, test, kAll).control_iterations == 3);
  CHECK(compare_traces(mixed, test, {.iterations = Iterations::All, .control_ranks = {0}}).control_iterations == 3);
  CHECK_THROWS_WITH_AS(compare_traces(mixed, test, {.control_ranks = {2}}),
                       ("compare_traces: the control set (" + (dir / "mixed").string() +
                        ") has no trace with a rank in [2]; its ranks: [0, 1]").c_str(),
                       Error);

  CHECK_THROWS_WITH_AS(compare_traces(TraceSet{"nothing", {}}, test),
                       "compare_traces: the control set (nothing) has no traces", Error);
  CHECK_THROWS_WITH_AS(compare_traces(control, test, {.test_steps = {1, 2}}),
                       ("compare_traces: the test set (" + (dir / "test").string() +
                        ") has no ProfilerStep in [1, 2]; its steps: [5, 6, 7]").c_str(),
                       Error);
}

TEST_CASE("trace_diff: sort_values, head, exclude, include and only chain like DataFrame calls") {
  Scenario s;
  DiffTable t = compare_traces(s.control, s.test);
  DiffTable top = t.exclude({"ProfilerStep*"}).sort_values("diff_duration", false).head(3);
  REQUIRE(top.rows.size() == 3);
  CHECK(top.rows[0].name == "aten::conv2d");   // +40 us
  CHECK(top.rows[1].name == "aten::softmax");  // +7 us
  CHECK(top.rows[2].name == "aten::add");      // +5 us
  DiffTable by_abs = t.exclude({"ProfilerStep*"}).sort_values("abs_diff_duration", false);
  CHECK(by_abs.rows[0].name == "aten::batch_norm");  // -60 us
  DiffTable asc = t.sort_values("diff_counts");
  CHECK(asc.rows.front().name == "aten::batch_norm");  // -2
  CHECK(asc.rows.back().name == "aten::softmax");      // +1, ties broken by name: add < softmax
  CHECK(t.sort_values("name", false).rows.front().name == "aten::softmax");
  CHECK(t.sort_values("change").rows.front().change == Change::Added);

  CHECK(t.include(std::vector<std::string>{"aten::s*"}).rows.size() == 2);
  CHECK(t.exclude({"aten::*", "Profiler*"}).rows.empty());
  CHECK(names(t.only(Change::Deleted).rows) == std::vector<std::string>{"aten::batch_norm"});
  CHECK(t.head(100).rows.size() == t.rows.size());
  CHECK_THROWS_WITH_AS(t.sort_values("duration"), doctest::Contains("sort_values: unknown column 'duration'; valid columns: name, change, control_counts"), Error);
}

TEST_CASE("trace_diff: glob patterns") {
  CHECK(glob_match("ProfilerStep*", "ProfilerStep#12"));
  CHECK_FALSE(glob_match("ProfilerStep*", "aten::ProfilerStep"));
  CHECK(glob_match("*conv*", "aten::conv2d"));
  CHECK(glob_match("aten::?dd", "aten::add"));
  CHECK_FALSE(glob_match("aten::?dd", "aten::addmm"));
  CHECK(glob_match("aten::[ab]*", "aten::bmm"));
  CHECK_FALSE(glob_match("aten::[!ab]*", "aten::bmm"));
  CHECK(glob_match("x[0-9]", "x7"));
  CHECK(glob_match("a[b", "a[b"));  // an unclosed set is literal
  CHECK(glob_match("*", ""));
  CHECK(glob_match("**a**b", "xaxb"));
  CHECK_FALSE(glob_match("", "a"));
}

TEST_CASE("trace_diff: text table and CSV") {
  Scenario s;
  DiffTable t = compare_traces(s.control, s.test, kAll).exclude({"ProfilerStep*"}).sort_values("abs_diff_duration", false);
  std::string text = t.table(40);
  CHECK(text.find("TraceDiff: control " + s.control.label + " (1 trace, 2 iterations, ProfilerSteps #1-#2), test " +
                  s.test.label + " (1 trace, 4 iterations, ProfilerSteps #1-#4)") == 0);
  CHECK(text.find("Counts and durations are per-iteration means") != std::string::npos);
  CHECK(text.find("aten::batch_norm                          deleted              2           0          -2"
                  "    60.000us     0.000us   -60.000us") != std::string::npos);
  CHECK(text.find("8 ops: 1 added, 1 deleted, 1 increased, 1 decreased, 4 unchanged") != std::string::npos);
  CHECK(t.table().find("\naten::batch_norm  deleted ") != std::string::npos);  // fits the widest label
  CHECK(t.table(8).find("\naten:...  increased") != std::string::npos);

  std::string csv = t.to_csv();
  CHECK(csv.find("name,change,control_counts,test_counts,diff_counts,control_duration_us,") == 0);
  CHECK(csv.find("\naten::batch_norm,deleted,2,0,-2,60,0,-60,60,0,-60,4,0,120,0,120,0\n") != std::string::npos);

  DiffTable quoted;
  OpDiff odd;
  odd.name = "a \"quoted\", name";
  odd.input_shapes = "[[1, 2]]";
  quoted.grouped_by_input_shape = true;
  quoted.rows.push_back(odd);
  CHECK(quoted.to_csv().find("\n\"a \"\"quoted\"\", name\",\"[[1, 2]]\",unchanged,0,") != std::string::npos);
}

TEST_CASE("trace_diff: negative ranks or steps are refused") {
  Scenario s;
  const std::pair<CompareOptions, const char*> cases[] = {
      {{.control_ranks = {0, -1}}, "compare_traces: control_ranks must hold values >= 0, got -1"},
      {{.test_ranks = {-2}}, "compare_traces: test_ranks must hold values >= 0, got -2"},
      {{.control_steps = {-1}}, "compare_traces: control_steps must hold values >= 0, got -1"},
      {{.test_steps = {INT64_MIN}}, "compare_traces: test_steps must hold values >= 0, got -9223372036854775808"},
  };
  for (const auto& entry : cases) {
    const CompareOptions& options = entry.first;  // named, not bound: clang 14 cannot capture bindings
    const char* message = entry.second;
    CAPTURE(message);
    CHECK_THROWS_WITH_AS(compare_traces(s.control, s.test, options), message, Error);
    CHECK_THROWS_WITH_AS(ops_diff(s.control, s.test, options), message, Error);
  }
}

TEST_CASE("trace_diff: the text table's name width must be in [1, 4096]") {
  Scenario s;
  const DiffTable t = compare_traces(s.control, s.test);
  CHECK_THROWS_WITH_AS(t.table(0), "DiffTable::table: name_width must be in [1, 4096], got 0", Error);
  CHECK_THROWS_WITH_AS(t.table(static_cast<size_t>(-1)),
                       "DiffTable::table: name_width must be in [1, 4096], got 18446744073709551615", Error);
  // The widest column is laid out in full, not cut by a line buffer.
  const std::string wide = t.table(DiffTable::kMaxNameWidth);
  CHECK(wide.find("aten::add" + std::string(DiffTable::kMaxNameWidth - 9, ' ') + "  increased") != std::string::npos);
  CHECK(t.table(1).find("\na  increased") != std::string::npos);  // "aten::add"[:-2] + "...", cut to 1
}

TEST_CASE("trace_diff: durations adding up past int64 nanoseconds are an error, not a wrapped total") {
  // Found by fuzzing: two events of 9e15 us each overflowed the op's total (UBSan: signed overflow).
  TempDir dir;
  const std::filesystem::path file =
      dir.write("huge.json", ChromeTraceBuilder().op("aten::mm", 0, 8.9e15).op("aten::mm", 1, 8.9e15).str());
  const TraceSet set = load_trace_set(file);
  CHECK_THROWS_WITH_AS(compare_traces(set, set),
                       ("compare_traces: " + file.string() +
                        ": the durations of 'aten::mm' add up to more than int64 nanoseconds can hold")
                           .c_str(),
                       Error);
}

// ---- tl-tracediff's --csv and --svg files (the tool is built next to this test's folder) ----

struct ToolRun {
  int exit_code;
  std::string stderr_text;
};

// Runs tl-tracediff with `args`, stdout discarded; the child inherits any FileSizeLimit.
ToolRun run_tracediff(const std::string& args) {
  const auto build_dir = std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
  const auto tool = build_dir / "tools" / "tl-tracediff";
  REQUIRE_MESSAGE(std::filesystem::exists(tool), "tl-tracediff not built at ", tool.string());
  FILE* pipe = ::popen((tool.string() + " " + args + " 2>&1 >/dev/null").c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string text;
  char chunk[4096];
  while (size_t n = std::fread(chunk, 1, sizeof chunk, pipe)) text.append(chunk, n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

TEST_CASE("tl-tracediff: a --csv or --svg write that fails (EFBIG) leaves the old files and no temporary") {
  TempDir dir;
  const std::string traces = dir.write("control.json", spec_trace(2, false)).string() + " " +
                             dir.write("test.json", spec_trace(2, true)).string();
  const std::string csv = dir.write("out/table.csv", "old csv").string();
  const std::string counts = dir.write("charts/counts_diff.svg", "old counts").string();
  const std::string duration = dir.write("charts/duration_diff.svg", "old duration").string();
  ToolRun csv_run, svg_run;
  {
    tl::testing::FileSizeLimit limit(64);
    csv_run = run_tracediff("--csv " + csv + " " + traces);
    svg_run = run_tracediff("--svg " + (dir / "charts").string() + " " + traces);
  }
  CHECK(csv_run.exit_code == 1);
  CHECK(csv_run.stderr_text == "tl-tracediff: error: --csv: " + csv + ": writing failed (File too large)\n");
  CHECK(svg_run.exit_code == 1);
  CHECK(svg_run.stderr_text == "tl-tracediff: error: --svg: " + counts + ": writing failed (File too large)\n");
  CHECK(testing::read_file(csv) == "old csv");
  CHECK(testing::read_file(counts) == "old counts");
  CHECK(testing::read_file(duration) == "old duration");
  using Names = std::vector<std::string>;
  CHECK(tl::testing::dir_entries(dir / "out") == Names{"table.csv"});
  CHECK(tl::testing::dir_entries(dir / "charts") == Names{"counts_diff.svg", "duration_diff.svg"});

  CHECK(run_tracediff("--csv " + csv + " --svg " + (dir / "charts").string() + " " + traces).exit_code == 0);
  CHECK(testing::read_file(csv).starts_with("name,change,control_counts,"));
  CHECK(testing::read_file(counts).starts_with("<svg"));
  CHECK(testing::read_file(duration).starts_with("<svg"));
}

}  // namespace
}  // namespace tl::trace
