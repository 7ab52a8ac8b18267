// tests/trace/test_trace_diff_gpu.cpp — TraceDiff on kineto GPU traces of a two-GPU job (data/kineto_ddp)
// against every number HTA gives on them (hta_expected.json, from gen_kineto_ddp.py): device types, short
// names, ranks and steps, HTA's shorten_name, and the "stream" HTA reads from each form kineto may write.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tests/support/file_testing.h"
#include "tests/trace/trace_test_util.h"
#include "trace/trace_diff.h"

namespace tl::trace {
namespace {

using Json = nlohmann::json;
using testing::ChromeTraceBuilder;
using testing::TempDir;

const std::filesystem::path kData = "tests/trace/data";

const Json& hta_expected() {
  static const Json expected = Json::parse(tl::testing::read_file(kData / "kineto_ddp" / "hta_expected.json"));
  return expected;
}

const TraceSet& kineto_set(const char* run) {
  static const TraceSet control = load_trace_set(kData / "kineto_ddp" / "control");
  static const TraceSet test = load_trace_set(kData / "kineto_ddp" / "test");
  return std::string(run) == "control" ? control : test;
}

DeviceType device_type_of(const std::string& name) {
  for (DeviceType d : {DeviceType::CPU, DeviceType::GPU, DeviceType::All})
    if (device_type_name(d) == name) return d;
  FAIL("unknown device type ", name);
  return DeviceType::All;
}

// The case's options as the generator wrote them (HTA's arguments in CompareOptions' terms).
CompareOptions options_of(const Json& o) {
  CompareOptions c;
  c.device_type = device_type_of(o.value("device_type", "all"));
  c.use_short_name = o.value("use_short_name", false);
  c.control_ranks = o.value("control_ranks", std::vector<int64_t>{});
  c.test_ranks = o.value("test_ranks", std::vector<int64_t>{});
  c.control_steps = o.value("control_steps", std::vector<int64_t>{});
  c.test_steps = o.value("test_steps", std::vector<int64_t>{});
  c.per_iteration = !o.value("totals", false);  // HTA sums; one trace and one step per side: the same
  return c;
}

// HTA's counts_change_categories from ours: '+' more calls in test (an added op too), '-' fewer.
std::string change_sign(Change change) {
  switch (change) {
    case Change::Added:
    case Change::Increased: return "+";
    case Change::Deleted:
    case Change::Decreased: return "-";
    case Change::Unchanged: return "=";
  }
  return "?";
}

std::vector<std::string> sorted_names(const std::vector<OpDiff>& rows) {
  std::vector<std::string> names;
  for (const OpDiff& r : rows) names.push_back(r.name);
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("trace_diff gpu: every count and duration of HTA's compare_traces and ops_diff on kineto GPU traces") {
  const Json& cases = hta_expected().at("cases");
  REQUIRE(cases.size() == 8);
  for (const Json& c : cases) {
    CAPTURE(c.at("name").get<std::string>());
    const DiffTable table = compare_traces(kineto_set("control"), kineto_set("test"), options_of(c.at("options")));
    const Json& rows = c.at("rows");
    REQUIRE(table.rows.size() == rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      const Json& h = rows[i];
      const OpDiff& r = table.rows[i];  // both sorted by name
      CAPTURE(h.at("name").get<std::string>());
      CHECK(r.name == h.at("name").get<std::string>());
      CHECK(r.control.counts == h.at("control_counts").get<double>());
      CHECK(r.test.counts == h.at("test_counts").get<double>());
      CHECK(r.diff.counts == h.at("diff_counts").get<double>());
      // Whole microseconds in the files: both sides' sums are exact.
      CHECK(r.control.duration == h.at("control_total_duration").get<double>());
      CHECK(r.test.duration == h.at("test_total_duration").get<double>());
      CHECK(r.diff.duration == h.at("diff_duration").get<double>());
      CHECK(change_sign(r.change) == h.at("counts_change_categories").get<std::string>());
    }
    if (!c.contains("ops_diff")) continue;
    const OpsDiff ours = ops_diff(table);
    const Json& theirs = c.at("ops_diff");
    const std::pair<const char*, const std::vector<OpDiff>*> kinds[] = {{"added", &ours.added},
                                                                        {"deleted", &ours.deleted},
                                                                        {"increased", &ours.increased},
                                                                        {"decreased", &ours.decreased},
                                                                        {"unchanged", &ours.unchanged}};
    for (const auto& entry : kinds) {
      const char* kind = entry.first;
      const std::vector<OpDiff>* list = entry.second;
      CAPTURE(kind);
      std::vector<std::string> expected = theirs.at(kind).get<std::vector<std::string>>();
      std::sort(expected.begin(), expected.end());
      CHECK(sorted_names(*list) == expected);
    }
  }
}

TEST_CASE("trace_diff gpu: the traces hold what the cases are about") {
  // Guards the generator: GPU events on their own device pid and stream tids, both device types in
  // every case without a device filter, template instances that only short names merge.
  const DiffTable all = compare_traces(kineto_set("control"), kineto_set("test"));
  const DiffTable gpu = compare_traces(kineto_set("control"), kineto_set("test"), {.device_type = DeviceType::GPU});
  const DiffTable cpu = compare_traces(kineto_set("control"), kineto_set("test"), {.device_type = DeviceType::CPU});
  CHECK(gpu.rows.size() + cpu.rows.size() == all.rows.size());
  CHECK(kineto_set("control").traces.size() == 2);
  const Trace& rank1 = kineto_set("control").traces[1];
  CHECK(rank1.rank == 1);
  for (const OpEvent& e : rank1.events) {
    CAPTURE(rank1.str(e.name));
    const std::string& cat = rank1.str(e.category);
    const bool gpu_event = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "cuda_sync";
    CHECK((e.stream != -1) == gpu_event);
    if (gpu_event) CHECK(rank1.threads[e.thread].pid == "1");  // pid = the device
  }
  const DiffTable short_gpu =
      compare_traces(kineto_set("control"), kineto_set("test"), {.device_type = DeviceType::GPU, .use_short_name = true});
  CHECK(short_gpu.rows.size() < gpu.rows.size());
  CHECK(short_gpu.table().find("GPU events only (args \"stream\"); names shortened as HTA's use_short_name.\n") !=
        std::string::npos);
  CHECK(all.table().find("events only") == std::string::npos);
}

TEST_CASE("trace_diff gpu: short_name is HTA's shorten_name") {
  for (const Json& c : hta_expected().at("short_names")) {
    const std::string name = c[0].get<std::string>();
    CAPTURE(name);
    CHECK(short_name(name) == c[1].get<std::string>());
  }
}

TEST_CASE("trace_diff gpu: an event's stream is what HTA reads from args \"stream\"") {
  const Trace t = load_trace(kData / "kineto_streams" / "streams.json");
  const Json& expected = hta_expected().at("streams");
  REQUIRE(t.events.size() == expected.size());
  for (size_t i = 0; i < t.events.size(); ++i) {
    CAPTURE(expected[i][0].get<std::string>());
    CHECK(t.str(t.events[i].name) == expected[i][0].get<std::string>());
    CHECK(t.events[i].stream == expected[i][1].get<int64_t>());
  }
}

TEST_CASE("trace_diff gpu: a step's GPU span overlapping the next step on the CPU wins, as in HTA") {
  // ProfilerStep#1 on the CPU [0, 100), #2 [100, 200); kineto's GPU copy of #1 runs [50, 150) and comes
  // later in the file. HTA keeps the last span holding an event's start: aten::add at 120 is in step 1;
  // aten::mul at 160 only in #2; aten::relu at 220 in none. A zero-length step holds nothing.
  TempDir dir;
  ChromeTraceBuilder b;
  b.step(1, 0, 100).step(2, 100, 100).op("aten::add", 120, 5).op("aten::mul", 160, 5).op("aten::relu", 220, 5);
  b.op("ProfilerStep#1", 50, 100, 9, "gpu_user_annotation").step(3, 300, 0).op("aten::sub", 300, 0);
  const Trace t = load_trace(dir.write("t.json", b.str()));
  std::map<std::string, int64_t> step;
  for (const OpEvent& e : t.events) step[t.str(e.name)] = e.step;
  CHECK(step["aten::add"] == 1);
  CHECK(step["aten::mul"] == 2);
  CHECK(step["aten::relu"] == -1);
  CHECK(step["aten::sub"] == -1);
  CHECK(step["ProfilerStep#2"] == 1);  // its start lies in the GPU span of #1
  CHECK(t.steps == std::vector<int64_t>{1, 2, 3});
}

}  // namespace
}  // namespace tl::trace
