// tests/trace/test_trace_reader.cpp — loading our Chrome traces, kineto's and PyTorch's legacy
// format (plain and gzip), steps and self times, and every bad-input error with its message.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/trace_handler.h"
#include "tests/trace/trace_test_util.h"
#include "trace/trace.h"

namespace tl::trace {
namespace {

using testing::ChromeTraceBuilder;
using testing::TempDir;

const std::filesystem::path kData = "tests/trace/data";

const OpEvent& find_event(const Trace& t, const std::string& name, int nth = 0) {
  for (const OpEvent& e : t.events)
    if (t.str(e.name) == name && nth-- == 0) return e;
  FAIL("no event ", name);
  return t.events.front();
}

// Self time by brute force: an event's direct children are the events on its thread that lie inside
// it and are not inside another such event (ties: the earlier-listed event encloses).
std::vector<int64_t> reference_self_times(const Trace& t) {
  const auto& ev = t.events;
  auto encloses = [&](size_t p, size_t c) {
    const OpEvent &a = ev[p], &b = ev[c];
    if (p == c || a.thread != b.thread || b.ts < a.ts || b.ts >= a.ts + a.dur) return false;
    if (b.ts == a.ts && b.dur == a.dur) return p < c;
    return b.ts > a.ts || b.dur < a.dur;
  };
  std::vector<int64_t> self(ev.size());
  for (size_t p = 0; p < ev.size(); ++p) {
    int64_t children = 0;
    for (size_t c = 0; c < ev.size(); ++c) {
      if (!encloses(p, c)) continue;
      bool direct = true;
      for (size_t m = 0; m < ev.size() && direct; ++m) direct = !(encloses(p, m) && encloses(m, c));
      if (direct) children += std::min(ev[c].ts + ev[c].dur, ev[p].ts + ev[p].dur) - ev[c].ts;
    }
    self[p] = std::max<int64_t>(0, ev[p].dur - children);
  }
  return self;
}

TEST_CASE("trace: our Chrome format: events, steps, rank, memory and metadata") {
  TempDir dir;
  ChromeTraceBuilder b(/*rank=*/3);
  b.step(7, 100, 50).op("aten::conv2d", 105, 20, 1, "cpu_op", "[[1, 3, 8, 8], [4, 3, 3, 3]]").memory(106, 4096)
      .memory(120, -4096).op("aten::relu", 130, 5).step(8, 160, 40).op("aten::conv2d", 161, 30).op("other thread", 165, 10, 2)
      .op("after", 300, 1);
  Trace t = load_trace(dir.write("rank3.json", b.str()));
  CHECK(t.format == TraceFormat::Object);
  CHECK(t.rank == 3);
  REQUIRE(t.events.size() == 7);
  CHECK(t.steps == std::vector<int64_t>{7, 8});
  CHECK(t.memory_events == 2);
  CHECK(t.allocated_bytes == 4096);
  CHECK(t.other_events == 1);  // the process_name metadata event
  const OpEvent& conv = find_event(t, "aten::conv2d");
  CHECK(conv.ts == 105000);
  CHECK(conv.dur == 20000);
  CHECK(conv.step == 7);
  CHECK(t.str(conv.category) == "cpu_op");
  CHECK(t.str(conv.shapes) == "[[1, 3, 8, 8], [4, 3, 3, 3]]");
  CHECK(find_event(t, "aten::conv2d", 1).step == 8);
  CHECK(find_event(t, "other thread").step == 8);  // steps span every thread of the trace
  CHECK(find_event(t, "after").step == -1);
  CHECK(find_event(t, "ProfilerStep#7").self == 25000);  // 50 - 20 - 5
  CHECK(t.threads.size() == 2);
  CHECK(t.threads[find_event(t, "other thread").thread] == ThreadKey{"7", "2"});
}

TEST_CASE("trace: step names are read as HTA reads them, spaces around '#' and text after the digits allowed") {
  // The numbers re.match(r"ProfilerStep\s*#\s*(\d+)", name) gives in HTA's add_iteration; None is -1.
  TempDir dir;
  ChromeTraceBuilder b;
  b.op("ProfilerStep #3", 0, 10, 1, "user_annotation").op("in 3", 1, 1);
  b.op("ProfilerStep# 7", 20, 10, 1, "user_annotation").op("in 7", 21, 1);
  b.op("ProfilerStep  #  4", 40, 10, 1, "user_annotation").op("in 4", 41, 1);
  b.op("ProfilerStep#12 (rank 0)", 60, 10, 1, "user_annotation").op("in 12", 61, 1);
  b.op("ProfilerStepX", 80, 10, 1, "user_annotation").op("ProfilerStep#", 81, 1);
  const Trace t = load_trace(dir.write("spelling.json", b.str()));
  CHECK(t.steps == std::vector<int64_t>{3, 4, 7, 12});
  for (const auto& expected : std::vector<std::pair<std::string, int64_t>>{
           {"in 3", 3}, {"in 7", 7}, {"in 4", 4}, {"in 12", 12}, {"ProfilerStepX", -1}, {"ProfilerStep#", -1}}) {
    const std::string& name = expected.first;  // named, not bound: clang 14 cannot capture bindings
    CAPTURE(name);
    CHECK(find_event(t, name).step == expected.second);
  }
}

TEST_CASE("trace: kineto's object form (rank, float times, shapes, flows, spans)") {
  Trace t = load_trace(kData / "kineto_rank1.json");
  CHECK(t.format == TraceFormat::Object);
  CHECK(t.rank == 1);
  CHECK(t.events.size() == 10);
  CHECK(t.steps == std::vector<int64_t>{4, 5});
  CHECK(t.memory_events == 2);
  CHECK(t.allocated_bytes == 576);
  CHECK(t.other_events == 5);  // two flow events, two metadata, one global instant
  const OpEvent& step4 = find_event(t, "ProfilerStep#4");
  CHECK(step4.self == 1000000 - 400000 - 50500);
  CHECK(find_event(t, "aten::conv2d").self == 100000);
  const OpEvent& add = find_event(t, "aten::add", 1);
  CHECK(add.ts == 1700000001500250);
  CHECK(add.step == 5);
  CHECK(t.str(add.shapes) == "[[1, 4, 6, 6], [1, 4, 6, 6], []]");
  CHECK(find_event(t, "torch/nn/modules/conv.py(463): forward").step == 5);
  const OpEvent& span = find_event(t, "PyTorch Profiler (0)");
  CHECK(span.step == -1);
  CHECK(t.threads[span.thread] == ThreadKey{"\"Spans\"", "\"PyTorch Profiler\""});
}

TEST_CASE("trace: PyTorch's legacy array, with and without ProfilerStep") {
  Trace t = load_trace(kData / "mymodule_trace.json");
  CHECK(t.format == TraceFormat::LegacyArray);
  CHECK_FALSE(t.rank.has_value());
  CHECK(t.events.size() == 41);
  CHECK(t.steps.empty());
  const OpEvent& linear_pass = find_event(t, "LINEAR PASS");
  CHECK(linear_pass.self == (581 - 0 - 515) * 1000);  // aten::empty (0 us) and aten::linear
  CHECK(t.str(linear_pass.category).empty());
  CHECK(t.threads[linear_pass.thread] == ThreadKey{"\"CPU functions\"", "1"});
  CHECK(reference_self_times(t) == [&] {
    std::vector<int64_t> s;
    for (const OpEvent& e : t.events) s.push_back(e.self);
    return s;
  }());

  Trace steps = load_trace(kData / "legacy_profiler_steps.json");
  CHECK(steps.steps == std::vector<int64_t>{0, 1});
  CHECK(find_event(steps, "MY BLOCK").step == 0);
  CHECK(find_event(steps, "MY BLOCK", 1).step == 1);
  CHECK(find_event(steps, "aten::zeros").step == -1);  // before the first step
}

TEST_CASE("trace: self time subtracts direct children only, per thread, clipped, never negative") {
  TempDir dir;
  ChromeTraceBuilder b;
  // Listed out of order on purpose; thread 2 overlaps thread 1 without nesting into it.
  b.op("child_b", 60, 30).op("parent", 0, 100).op("child_a", 10, 40).op("grandchild", 20, 10)
      .op("zero", 50, 0).op("same_start", 0, 100).op("other_thread", 10, 80, 2)
      .op("overhang", 95, 20).op("inner_of_overhang", 100, 5).op("after", 200, 3);
  Trace t = load_trace(dir.write("nest.json", b.str()));
  std::map<std::string, int64_t> self;
  for (const OpEvent& e : t.events) self[t.str(e.name)] = e.self / 1000;
  CHECK(self["parent"] == 0);        // its only direct child is same_start, which covers it entirely
  CHECK(self["same_start"] == 100 - 40 - 0 - 30 - 5);  // child_a, zero, child_b, overhang clipped to 5
  CHECK(self["child_a"] == 30);
  CHECK(self["grandchild"] == 10);
  CHECK(self["zero"] == 0);
  CHECK(self["other_thread"] == 80);
  CHECK(self["overhang"] == 15);
  CHECK(self["inner_of_overhang"] == 5);
  CHECK(self["after"] == 3);
  std::vector<int64_t> got;
  for (const OpEvent& e : t.events) got.push_back(e.self);
  CHECK(got == reference_self_times(t));
}

TEST_CASE("trace: decimal microseconds become exact nanoseconds, even on epoch-based clocks") {
  TempDir dir;
  std::string events = R"([
    {"ph": "X", "name": "epoch", "ts": 1700000000123456.789, "dur": 0.0005, "pid": 1, "tid": 1},
    {"ph": "X", "name": "fraction", "ts": -1.5, "dur": 12.3456, "pid": 1, "tid": 2},
    {"ph": "X", "name": "exponent", "ts": 2.5e3, "dur": 1E1, "pid": 1, "tid": 3}])";
  Trace t = load_trace(dir.write("times.json", events));
  CHECK(find_event(t, "epoch").ts == 1700000000123456789);  // a double would be off by up to 125 ns
  CHECK(find_event(t, "epoch").dur == 1);                     // 0.5 ns rounds half up
  CHECK(find_event(t, "fraction").ts == -1500);
  CHECK(find_event(t, "fraction").dur == 12346);
  CHECK(find_event(t, "exponent").ts == 2500000);
  CHECK(find_event(t, "exponent").dur == 10000);
}

TEST_CASE("trace: .json.gz loads the same as .json, by content not by name") {
  TempDir dir;
  std::string json = testing::read_file(kData / "kineto_rank1.json");
  std::string gz = testing::system_gzip(dir, json, "-n", "k.json");
  if (gz.empty()) {
    MESSAGE("gzip command not available: skipping");
    return;
  }
  Trace plain = load_trace(kData / "kineto_rank1.json");
  Trace zipped = load_trace(dir.write("rank1.pt.trace.json.gz", gz));
  Trace misnamed = load_trace(dir.write("compressed.json", gz));
  for (const Trace* t : {&zipped, &misnamed}) {
    REQUIRE(t->events.size() == plain.events.size());
    for (size_t i = 0; i < plain.events.size(); ++i) {
      CHECK(t->str(t->events[i].name) == plain.str(plain.events[i].name));
      CHECK(t->events[i].ts == plain.events[i].ts);
      CHECK(t->events[i].self == plain.events[i].self);
    }
    CHECK(t->rank == 1);
  }
}

TEST_CASE("trace: a set is a directory or a list of files") {
  TempDir dir;
  dir.write("run/b_rank1.json", ChromeTraceBuilder(1).op("x", 0, 1).str());
  dir.write("run/a_rank0.json", ChromeTraceBuilder(0).op("x", 0, 1).op("y", 2, 1).str());
  dir.write("run/notes.txt", "not a trace");
  dir.write("run/sub/c.json", "ignored: not recursive");
  TraceSet set = load_trace_set(dir / "run");
  REQUIRE(set.traces.size() == 2);
  CHECK(set.traces[0].rank == 0);  // sorted by file name
  CHECK(set.traces[1].rank == 1);
  CHECK(set.event_count() == 3);
  CHECK(set.label == (dir / "run").string());

  std::vector<std::filesystem::path> files = {dir / "run/b_rank1.json", kData / "mymodule_trace.json"};
  TraceSet listed = load_trace_set(files);
  CHECK(listed.traces.size() == 2);
  CHECK(listed.label == files[0].string() + ", " + files[1].string());
  CHECK(is_trace_file_name("x.pt.trace.json.gz"));
  CHECK_FALSE(is_trace_file_name("x.json.bak"));
}

TEST_CASE("trace: a tensorboard_trace_handler directory loads as a set, one trace per window, gzip'd or not") {
  for (bool gzip : {false, true}) {
    CAPTURE(gzip);
    TempDir dir;
    profiler::Profile prof({.schedule = profiler::Schedule{.wait = 1, .active = 2, .repeat = 2},
                            .on_trace_ready = profiler::tensorboard_trace_handler((dir / "tb").string(), "w", gzip)});
    {
      auto running = prof.start();
      for (int i = 0; i < 6; ++i) {
        Tensor t = zeros({1});
        prof.step();
      }
    }
    const TraceSet set = load_trace_set(dir / "tb");
    REQUIRE(set.traces.size() == 2);
    for (size_t w = 0; w < 2; ++w) {  // file names sort by time: the first window first
      const Trace& t = set.traces[w];
      const int64_t first = 3 * static_cast<int64_t>(w) + 1;
      CHECK(t.steps == std::vector<int64_t>{first, first + 1});
      std::vector<int64_t> zeros_steps;
      for (const OpEvent& e : t.events)
        if (t.str(e.name) == "aten::zeros") zeros_steps.push_back(e.step);
      CHECK(zeros_steps == t.steps);
      CHECK(t.rank == 0);
    }
  }
}

TEST_CASE("trace: missing paths, empty directories and unreadable files are clear errors") {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  std::string missing = (dir / "missing.json").string();
  CHECK_THROWS_WITH_AS(load_trace(dir / "missing.json"), (missing + ": no such file").c_str(), Error);
  CHECK_THROWS_WITH_AS(load_trace_set(dir / "missing.json"), (missing + ": no such file or directory").c_str(), Error);
  CHECK_THROWS_WITH_AS(load_trace_set(dir / "empty"),
                       ((dir / "empty").string() + ": no trace files (*.json, *.json.gz) in the directory").c_str(), Error);
  CHECK_THROWS_WITH_AS(load_trace_set(std::vector<std::filesystem::path>{}),
                       "load_trace_set: expected at least one trace file or directory", Error);
  CHECK_THROWS_WITH_AS(load_trace(dir / "empty"), doctest::Contains("empty: is a directory, expected a trace file"), Error);
  auto notgz = dir.write("plain.json.gz", "{\"traceEvents\": []}");
  CHECK_THROWS_WITH_AS(load_trace(notgz), (notgz.string() + ": not a gzip file (bad magic bytes)").c_str(), Error);
}

// Loads `json` from a file named t.json and returns the error message ("" when it loads).
std::string load_error(const TempDir& dir, const std::string& json) {
  try {
    load_trace(dir.write("t.json", json));
  } catch (const Error& e) {
    std::string m = e.what();
    std::string prefix = (dir / "t.json").string() + ": ";
    return m.starts_with(prefix) ? m.substr(prefix.size()) : "(no file name) " + m;
  }
  return "";
}

TEST_CASE("trace: malformed JSON and JSON that is not a trace") {
  TempDir dir;
  CHECK(load_error(dir, "") == "malformed JSON: parse error at line 1, column 1: syntax error while parsing value - "
                               "unexpected end of input; expected '[', '{', or a literal");
  CHECK(load_error(dir, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\",") ==
        "malformed JSON in event 0: parse error at line 1, column 42: syntax error while parsing object key - "
        "unexpected end of input; expected string literal");
  CHECK(load_error(dir, "[{\"ph\": \"i\", \"name\": \"a\"},\n {\"ph\": tru}]") ==
        "malformed JSON in event 1: parse error at line 2, column 12: syntax error while parsing value - "
        "invalid literal; last read: '\"ph\": tru}'");
  CHECK(load_error(dir, "42") == "not a trace: the JSON is a number, expected an array of events or an object with "
                                 "\"traceEvents\"");
  CHECK(load_error(dir, "{\"name\": \"x\"}") == "not a trace: the JSON object has no \"traceEvents\" array");
  CHECK(load_error(dir, "{\"traceEvents\": {}}") == "\"traceEvents\" must be an array, got an object");
  CHECK(load_error(dir, "{\"traceEvents\": null}") == "\"traceEvents\" must be an array, got null");
  CHECK(load_error(dir, "[1, 2]") == "event 0: expected an object, got a number");
  CHECK(load_error(dir, "[{\"ph\": \"M\", \"name\": \"m\"}, [1]]") == "event 1: expected an object, got an array");
  CHECK(load_error(dir, "{\"distributedInfo\": {\"rank\": \"zero\"}, \"traceEvents\": []}") ==
        "\"distributedInfo\": \"rank\" must be an integer, got a string");
  CHECK(load_error(dir, "{\"distributedInfo\": 1, \"traceEvents\": []}") == "\"distributedInfo\" must be an object, got a number");
  CHECK(load_error(dir, "{\"traceEvents\": []}").empty());
  CHECK(load_error(dir, "[]").empty());
}

TEST_CASE("trace: events with missing or mistyped fields name the event") {
  TempDir dir;
  const std::string ok = R"({"ph": "X", "name": "ok", "ts": 1, "dur": 1, "pid": 1, "tid": 1})";
  auto second = [&](const std::string& event) { return load_error(dir, "[" + ok + ", " + event + "]"); };
  CHECK(second(R"({"name": "a", "ts": 1})") == "event 1 (\"a\"): missing \"ph\"");
  CHECK(second(R"({"ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1})") ==
        "event 1: complete event (\"ph\": \"X\") has no \"name\"");
  CHECK(second(R"({"ph": "X", "name": "a", "dur": 2, "pid": 1, "tid": 1})") ==
        "event 1 (\"a\"): complete event (\"ph\": \"X\") has no \"ts\"");
  CHECK(second(R"({"ph": "X", "name": "aten::add", "ts": 1, "pid": 1, "tid": 1})") ==
        "event 1 (\"aten::add\"): complete event (\"ph\": \"X\") has no \"dur\"");
  CHECK(second(R"({"ph": "X", "name": "a", "ts": 1, "dur": 1, "tid": 1})") ==
        "event 1 (\"a\"): complete event (\"ph\": \"X\") has no \"pid\"");
  CHECK(second(R"({"ph": "X", "name": "a", "ts": 1, "dur": 1, "pid": 1})") ==
        "event 1 (\"a\"): complete event (\"ph\": \"X\") has no \"tid\"");
  CHECK(second(R"({"ph": "X", "name": "a", "ts": "1", "dur": 1, "pid": 1, "tid": 1})") ==
        "event 1 (\"a\"): \"ts\" must be a number, got a string");
  CHECK(second(R"({"ph": "X", "name": 5})") == "event 1: \"name\" must be a string, got a number");
  CHECK(second(R"({"ph": 1})") == "event 1: \"ph\" must be a string, got a number");
  CHECK(second(R"({"ph": "X", "cat": ["a"]})") == "event 1: \"cat\" must be a string, got an array");
  CHECK(second(R"({"ph": "X", "name": "a", "dur": {}})") == "event 1 (\"a\"): \"dur\" must be a number, got an object");
  CHECK(second(R"({"ph": "X", "name": "a", "pid": true})") ==
        "event 1 (\"a\"): \"pid\" must be a number or a string, got a boolean");
  CHECK(second(R"({"ph": "X", "name": "a", "tid": null})") ==
        "event 1 (\"a\"): \"tid\" must be a number or a string, got null");
  CHECK(second(R"({"ph": "X", "name": "a", "args": [1]})") == "event 1 (\"a\"): \"args\" must be an object, got an array");
  CHECK(second(R"({"ph": "i", "name": "[memory]", "args": {"Bytes": "12"}})") ==
        "event 1 (\"[memory]\"): \"Bytes\" must be an integer, got a string");
  CHECK(second(R"({"ph": "X", "name": "a", "ts": 1, "dur": -2, "pid": 1, "tid": 1})") ==
        "event 1 (\"a\"): negative \"dur\": -2 us");
  CHECK(second(R"({"ph": "X", "name": "a", "ts": 1e300, "dur": 1, "pid": 1, "tid": 1})") ==
        "event 1 (\"a\"): \"ts\" is out of range: 1e+300 us");
  // Unknown phases, extra keys and nested unknown values are skipped, not rejected.
  CHECK(second(R"({"ph": "C", "name": "counter", "args": {"x": [1, {"y": 2}]}, "extra": {"z": [[]]}})").empty());
}

TEST_CASE("trace: errors inside gzip-compressed traces name the file") {
  TempDir dir;
  std::string gz = testing::system_gzip(dir, "{\"traceEvents\": [{\"ph\": 3}]}", "-n", "bad.json");
  if (gz.empty()) {
    MESSAGE("gzip command not available: skipping");
    return;
  }
  auto bad_json = dir.write("bad_event.json.gz", gz);
  CHECK_THROWS_WITH_AS(load_trace(bad_json),
                       (bad_json.string() + ": event 0: \"ph\" must be a string, got a number").c_str(), Error);
  std::string corrupt = gz;
  corrupt[corrupt.size() - 6] ^= 0x40;  // inside the CRC-32
  auto bad_crc = dir.write("bad_crc.json.gz", corrupt);
  CHECK_THROWS_WITH_AS(load_trace(bad_crc), doctest::Contains((bad_crc.string() + ": corrupt gzip data at byte").c_str()), Error);
  auto cut = dir.write("cut.json.gz", gz.substr(0, gz.size() / 2));
  CHECK_THROWS_WITH_AS(load_trace(cut), doctest::Contains((cut.string() + ": truncated gzip data").c_str()), Error);
}

TEST_CASE("trace: an event ending past the int64 nanosecond range is refused") {
  // Found by fuzzing: ts + dur overflowed (UBSan: signed overflow) while steps and self times were
  // computed. Each bound on its own (9e15 us) fits, their sum does not.
  TempDir dir;
  CHECK(load_error(dir, R"([{"ph": "X", "name": "a", "ts": 8999999999999999, "dur": 8999999999999999, "pid": 1,)"
                        R"( "tid": 1}])") ==
        "event 0 (\"a\"): \"ts\" + \"dur\" is out of range: 9e+15 + 9e+15 us");
  CHECK(load_error(dir, R"([{"ph": "X", "name": "a", "ts": -8999999999999999, "dur": 8999999999999999, "pid": 1,)"
                        R"( "tid": 1}])")
            .empty());
}

TEST_CASE("trace: nesting deeper than 512 levels is refused; a trace's own depth loads") {
  // 50 million '[' used to hold 364 MB of parser state.
  TempDir dir;
  const auto nested_args = [](int depth) {  // the event and its args take 3 levels, "x" the rest
    return R"([{"ph": "i", "name": "a", "args": {"x": )" + std::string(depth - 3, '[') + std::string(depth - 3, ']') +
           "}}]";
  };
  CHECK(load_error(dir, nested_args(512)).empty());
  CHECK(load_error(dir, nested_args(513)) == "the JSON nests deeper than 512 levels");
  CHECK(load_error(dir, R"({"x": )" + std::string(10'000'000, '[')) == "the JSON nests deeper than 512 levels");
}

TEST_CASE("trace: allocations whose bytes add up past int64 are refused") {
  TempDir dir;
  ChromeTraceBuilder b;
  b.memory(1, INT64_MAX).memory(2, 1);
  CHECK(load_error(dir, b.str()) ==
        "event 2 (\"[memory]\"): the allocations' \"Bytes\" add up past int64 (1 more)");
  ChromeTraceBuilder fits;
  fits.memory(1, INT64_MAX - 1).memory(2, 1);
  CHECK(load_trace(dir.write("fits.json", fits.str())).allocated_bytes == INT64_MAX);
}

std::vector<std::byte> as_byte_vector(const std::string& text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

TEST_CASE("trace: a trace held in memory loads as from a file, plain or gzip'd, and fails the same way") {
  const std::string json = testing::read_file(kData / "kineto_rank1.json");
  const Trace file = load_trace(kData / "kineto_rank1.json");
  TempDir dir;
  const std::string gz = testing::system_gzip(dir, json, "-n", "k.json");
  for (const std::string& bytes : {json, gz}) {
    if (bytes.empty()) {
      MESSAGE("gzip command not available: skipping the gzip case");
      continue;
    }
    const Trace memory = load_trace(as_byte_vector(bytes), "upload.json");
    CHECK(memory.path == "upload.json");
    CHECK(memory.rank == file.rank);
    REQUIRE(memory.events.size() == file.events.size());
    for (size_t i = 0; i < file.events.size(); ++i) {
      CHECK(memory.str(memory.events[i].name) == file.str(file.events[i].name));
      CHECK(memory.events[i].ts == file.events[i].ts);
      CHECK(memory.events[i].self == file.events[i].self);
    }
  }
  CHECK_THROWS_WITH_AS(load_trace(as_byte_vector("[{\"ph\": 3}]")),
                       "<bytes>: event 0: \"ph\" must be a string, got a number", Error);
  CHECK_THROWS_WITH_AS(load_trace(as_byte_vector(std::string("\x1f\x8b\x08\x00", 4))),
                       doctest::Contains("<bytes>: truncated gzip data"), Error);
  CHECK_THROWS_WITH_AS(load_trace(std::span<const std::byte>()), doctest::Contains("<bytes>: malformed JSON"), Error);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: trace::write_text_file is tl::write_file for one more version") {
  tl::testing::ScratchDir dir;
  write_text_file(dir.path() / "a.txt", "text");
  std::ifstream in(dir.file("a.txt"));
  std::string read;
  std::getline(in, read);
  CHECK(read == "text");
  CHECK_THROWS_AS(write_text_file(dir.path() / "missing" / "a.txt", "text"), Error);
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl::trace
