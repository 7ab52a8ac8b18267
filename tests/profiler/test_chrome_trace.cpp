// tests/profiler/test_chrome_trace.cpp — the exported Chrome trace parses back (nlohmann) with
// the fields Perfetto, chrome://tracing and HTA read, and with the recorded times.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/record_function.h"
#include "ops/ops.h"
#include "profiler/chrome_trace.h"
#include "profiler/clock.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler_test_util.h"
#include "tests/support/file_testing.h"

namespace tl::profiler {
namespace {

using json = nlohmann::json;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (std::to_string(current_process_id()) + "_" + name)).string();
}

json export_and_parse(const Profile& prof) {
  const std::string path = temp_path("trace.json");
  prof.export_chrome_trace(path);
  std::ifstream in(path);
  json trace = json::parse(in);  // throws, failing the test, if the file is not valid JSON
  std::filesystem::remove(path);
  return trace;
}

std::vector<json> with_phase(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

TEST_CASE("chrome_trace: complete events, memory instants and metadata parse back") {
  Profile prof({.record_shapes = true, .profile_memory = true, .with_flops = true});
  Tensor kept;
  {
    auto running = prof.start();
    RecordFunction scope("LINEAR PASS");
    kept = zeros({3, 4});
    Tensor y = kept + kept;
  }
  const EventList& events = prof.events();
  const json trace = export_and_parse(prof);
  REQUIRE(trace.is_object());
  CHECK(trace["schemaVersion"] == 1);
  CHECK(trace["distributedInfo"]["rank"] == 0);
  CHECK(trace["deviceProperties"].is_array());

  const std::vector<json> complete = with_phase(trace, "X");
  REQUIRE(complete.size() == events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const json& e = complete[i];
    const FunctionEvent& ev = events[i];
    CHECK(e["name"] == ev.name);
    CHECK(e["cat"] == event_category(ev.kind));
    CHECK(e["pid"] == current_process_id());
    CHECK(e["tid"] == ev.thread);
    CHECK(e["ts"].get<double>() == doctest::Approx(static_cast<double>(ev.start_ns) / 1000.0).epsilon(1e-12));
    CHECK(std::llround(e["dur"].get<double>() * 1000.0) == ev.cpu_time_total_ns());
    CHECK(e["args"]["External id"] == i + 1);
  }
  CHECK(complete[0]["cat"] == "user_annotation");
  CHECK(complete[1]["cat"] == "cpu_op");
  // zeros (size, dtype, layout, device, pin_memory) holds the zero_ of its result, as ATen's does
  CHECK(complete[1]["args"]["Input Dims"] == json::parse("[[], [], [], [], []]"));
  CHECK(complete[1]["args"]["Input type"] == json::parse(R"(["ScalarList", "Int", "", "", ""])"));
  CHECK(complete[2]["name"] == "aten::zero_");
  CHECK(complete[2]["cat"] == "cpu_op");
  // a scope the kernel opens carries its inputs too, as PyTorch's nested ops do
  CHECK(complete[2]["args"]["Input Dims"] == json::parse("[[3, 4]]"));
  CHECK(complete[2]["args"]["Input type"] == json::parse(R"(["float"])"));
  CHECK(complete[3]["args"]["Input Dims"] == json::parse("[[3, 4], [3, 4], []]"));  // PyTorch's add has alpha
  CHECK(complete[3]["args"]["Input type"] == json::parse(R"(["float", "float", "Scalar"])"));
  CHECK(complete[3]["args"]["flops"] == 12);
  CHECK_FALSE(complete[0]["args"].contains("Input Dims"));

  const std::vector<json> memory = with_phase(trace, "i");
  REQUIRE(memory.size() == events.memory_events().size());
  for (size_t i = 0; i < memory.size(); ++i) {
    const MemoryEvent& m = events.memory_events()[i];
    CHECK(memory[i]["name"] == "[memory]");
    CHECK(memory[i]["s"] == "t");
    CHECK(memory[i]["cat"] == "cpu_instant_event");
    CHECK(memory[i]["args"]["Bytes"] == m.bytes);
    CHECK(memory[i]["args"]["Total Allocated"] == m.total_allocated);
    CHECK(memory[i]["args"]["Addr"] == m.address);
    CHECK(memory[i]["args"]["Device Type"] == 0);
  }
  CHECK(memory[0]["args"]["Bytes"] == 12 * 4);

  const std::vector<json> meta = with_phase(trace, "M");
  std::map<std::string, json> by_name;
  for (const json& m : meta) by_name[m["name"]] = m;
  CHECK(by_name["process_name"]["args"]["name"] == "torchless");
  CHECK(by_name["thread_name"]["tid"] == current_thread_id());
  CHECK(by_name["thread_name"]["args"]["name"].get<std::string>().rfind("thread " + std::to_string(current_thread_id()), 0) == 0);
  CHECK(by_name.count("thread_sort_index") == 1);
}

TEST_CASE("chrome_trace: names are escaped, and step and module categories follow kineto") {
  const std::string weird = "quote \" backslash \\ newline \n tab \t bell \x07 unicode \xc3\xa9";
  const EventList list(
      {testing::make_event("ProfilerStep#2", EventKind::ProfilerStep, 1000, 9000),
       testing::make_event(weird, EventKind::UserAnnotation, 1500, 1501, 0),
       testing::make_event("nn.Module: Linear_0", EventKind::Module, 2000, 3000, 0)},
      {}, {.process_id = 7, .thread_names = {{1, "main \"thread\""}}});
  std::ostringstream out;
  write_chrome_trace(list, out);
  const json trace = json::parse(out.str());
  const std::vector<json> complete = with_phase(trace, "X");
  REQUIRE(complete.size() == 3);
  CHECK(complete[0]["name"] == "ProfilerStep#2");
  CHECK(complete[0]["cat"] == "user_annotation");
  CHECK(complete[1]["name"] == weird);
  CHECK(complete[2]["cat"] == "python_function");
  CHECK(out.str().find("\"ts\": 1.500, \"dur\": 0.001") != std::string::npos);  // exact decimal text
  CHECK(complete[0]["pid"] == 7);
  bool named = false;
  for (const json& m : with_phase(trace, "M"))
    if (m["name"] == "thread_name") named = m["args"]["name"] == "thread 1 (main \"thread\")";
  CHECK(named);
}

TEST_CASE("chrome_trace: a name that is not UTF-8 is written with U+FFFD, so the trace stays valid JSON") {
  const std::string name =
      "bad \xff\xfe | cut \xe2\x82 | overlong \xc0\xaf | surrogate \xed\xa0\x80 | big \xf4\x90\x80\x80 | ok \xc3\xa9 "
      "\xf0\x9f\x98\x80 | end \xe2";
  // Python's name.decode("utf-8", "replace").encode(): one U+FFFD per maximal ill-formed subpart.
  const std::string replaced =
      "bad \xef\xbf\xbd\xef\xbf\xbd | cut \xef\xbf\xbd | overlong \xef\xbf\xbd\xef\xbf\xbd | surrogate "
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd | big \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd | ok \xc3\xa9 "
      "\xf0\x9f\x98\x80 | end \xef\xbf\xbd";
  const EventList list({testing::make_event(name, EventKind::UserAnnotation, 1500, 1501)}, {},
                       {.process_id = 7, .thread_names = {{1, "thread \xff"}}});
  std::ostringstream out;
  write_chrome_trace(list, out);
  const json trace = json::parse(out.str());  // strict UTF-8: throws on an ill-formed byte
  const std::vector<json> complete = with_phase(trace, "X");
  REQUIRE(complete.size() == 1);
  CHECK(complete[0]["name"] == replaced);
}

TEST_CASE("chrome_trace: an empty profile still writes a valid trace; unwritable paths throw") {
  Profile prof;
  { auto running = prof.start(); }
  const json trace = export_and_parse(prof);
  CHECK(with_phase(trace, "X").empty());
  CHECK(with_phase(trace, "M").size() >= 2);
  CHECK_THROWS_WITH_AS(prof.export_chrome_trace("/nonexistent-dir/trace.json"),
                       "export_chrome_trace: /nonexistent-dir/trace.json: creating a temporary file in "
                       "/nonexistent-dir failed (No such file or directory)",
                       Error);
}

// Records a hundred adds into `prof`: a trace of a few tens of KB.
void record_loop(Profile& prof) {
  auto running = prof.start();
  RecordFunction scope("LOOP");
  Tensor x = zeros({4, 4});
  for (int i = 0; i < 100; ++i) x = x + x;
}

TEST_CASE("chrome_trace: a failed export (EFBIG) leaves the old file and no temporary") {
  tl::testing::ScratchDir dir;
  const std::string path = dir.file("trace.json");
  tl::testing::write_file_bytes(path, "{\"the\": \"old trace\"}");
  Profile prof({.record_shapes = true});
  record_loop(prof);
  {
    tl::testing::FileSizeLimit limit(1024);
    CHECK_THROWS_WITH_AS(prof.export_chrome_trace(path),
                         ("export_chrome_trace: " + path + ": writing failed (File too large)").c_str(), Error);
  }
  CHECK(tl::testing::read_file(path) == "{\"the\": \"old trace\"}");
  CHECK(tl::testing::dir_entries(dir.path()) == std::vector<std::string>{"trace.json"});
}

TEST_CASE("chrome_trace: a .json.gz path is gzip of the same JSON") {
  tl::testing::ScratchDir dir;
  Profile prof({.record_shapes = true});
  record_loop(prof);
  prof.export_chrome_trace(dir.file("trace.json"));
  prof.export_chrome_trace(dir.file("trace.json.gz"));
  const std::string plain = tl::testing::read_file(dir.path() / "trace.json");
  const std::string gz = tl::testing::read_file(dir.path() / "trace.json.gz");
  REQUIRE(gz.size() > 2);
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
  CHECK(tl::testing::gunzip_zlib(gz) == plain);
  CHECK(json::parse(plain)["traceEvents"].size() > 100);
}

// The first complete event named `name` in the file (events are written in recording order).
json event_named(const json& trace, const std::string& name) {
  for (const json& e : with_phase(trace, "X"))
    if (e["name"] == name) return e;
  FAIL("no event named ", name);
  return {};
}

TEST_CASE("chrome_trace: training links each forward op to its node's backward scope as kineto does") {
  Tensor a = randn({3}).requires_grad_();
  Profile prof;
  {
    auto running = prof.start();
    a.mul(2.0).sum().backward();
  }
  const json trace = export_and_parse(prof);
  const uint64_t tid = current_thread_id();
  // Forward ops that recorded a node: "Fwd thread id" 0; backward scopes: the forward thread.
  const json mul = event_named(trace, "aten::mul"), sum = event_named(trace, "aten::sum");  // the forward's
  CHECK(mul["args"]["Fwd thread id"] == 0);
  const int64_t mul_seq = mul["args"]["Sequence number"], sum_seq = sum["args"]["Sequence number"];
  CHECK(sum_seq > mul_seq);
  for (const char* name : {"MulBackward0", "autograd::engine::evaluate_function: MulBackward0"}) {
    const json e = event_named(trace, name);
    CHECK(e["cat"] == "cpu_op");
    CHECK(e["args"]["Fwd thread id"] == tid);
    CHECK(e["args"]["Sequence number"] == mul_seq);
  }
  // Ops that recorded nothing and the leaf's accumulator carry neither.
  CHECK_FALSE(event_named(trace, "aten::ones_like")["args"].contains("Sequence number"));  // backward()'s seed
  CHECK_FALSE(event_named(trace, "torch::autograd::AccumulateGrad")["args"].contains("Fwd thread id"));

  // One flow per node: "s" on the forward op, "f" bound to the node's scope.
  const std::vector<json> starts = with_phase(trace, "s"), finishes = with_phase(trace, "f");
  REQUIRE(starts.size() == 2);
  REQUIRE(finishes.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(starts[i]["cat"] == "fwdbwd");
    CHECK(starts[i]["name"] == "fwdbwd");
    CHECK(finishes[i]["cat"] == "fwdbwd");
    CHECK(finishes[i]["bp"] == "e");
    CHECK(starts[i]["id"] == finishes[i]["id"]);
    CHECK(starts[i]["tid"] == tid);
    CHECK(finishes[i]["tid"] == tid);
  }
  // Backward runs SumBackward0 first, so its flow comes first.
  CHECK(starts[0]["ts"] == sum["ts"]);
  CHECK(finishes[0]["ts"] == event_named(trace, "SumBackward0")["ts"]);
  CHECK(starts[1]["ts"] == mul["ts"]);
  CHECK(finishes[1]["ts"] == event_named(trace, "MulBackward0")["ts"]);
}

TEST_CASE("chrome_trace: a backward whose forward ran before the profile has no flow") {
  Tensor a = randn({3}).requires_grad_();
  Tensor loss = a.mul(2.0).sum();
  Profile prof;
  {
    auto running = prof.start();
    loss.backward();
  }
  const json trace = export_and_parse(prof);
  CHECK(event_named(trace, "MulBackward0")["args"].contains("Sequence number"));
  CHECK(with_phase(trace, "s").empty());
  CHECK(with_phase(trace, "f").empty());
}

}  // namespace
}  // namespace tl::profiler
