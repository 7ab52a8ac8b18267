// tests/profiler/test_trace_handler.cpp — tensorboard_trace_handler: one Chrome trace per recorded
// window, named {worker}.{ns}.pt.trace.json[.gz] in a directory it creates, plain or gzip'd; its errors.
#include <doctest/doctest.h>

#include <unistd.h>

#include <climits>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/trace_handler.h"
#include "tests/support/file_testing.h"

namespace tl::profiler {
namespace {

// Runs `steps` steps of one op each under `schedule`, traces handed to `handler`.
void run(const Schedule& schedule, int steps, std::function<void(Profile&)> handler) {
  Profile prof({.schedule = schedule, .on_trace_ready = std::move(handler)});
  auto running = prof.start();
  for (int i = 0; i < steps; ++i) {
    Tensor t = zeros({1});
    prof.step();
  }
}

// The ProfilerStep#N names of a trace, in order.
std::vector<std::string> steps_in(const std::string& json_text) {
  std::vector<std::string> steps;
  const nlohmann::json trace = nlohmann::json::parse(json_text);
  for (const auto& e : trace["traceEvents"])
    if (e.value("ph", "") == "X" && e["name"].get<std::string>().rfind("ProfilerStep#", 0) == 0)
      steps.push_back(e["name"]);
  return steps;
}

TEST_CASE("tensorboard_trace_handler: one file per recorded window, in a directory it creates") {
  testing::ScratchDir scratch;
  const std::filesystem::path dir = scratch.path() / "runs" / "resnet";
  run({.wait = 1, .warmup = 1, .active = 2, .repeat = 2}, 10, tensorboard_trace_handler(dir.string(), "worker0"));
  const std::vector<std::string> files = testing::dir_entries(dir);
  REQUIRE(files.size() == 2);
  const std::regex name(R"(worker0\.[0-9]{19}\.pt\.trace\.json)");
  for (const std::string& f : files) CHECK(std::regex_match(f, name));
  // Sorted by name is sorted by time: the first window first.
  CHECK(steps_in(testing::read_file(dir / files[0])) == std::vector<std::string>{"ProfilerStep#2", "ProfilerStep#3"});
  CHECK(steps_in(testing::read_file(dir / files[1])) == std::vector<std::string>{"ProfilerStep#6", "ProfilerStep#7"});
}

TEST_CASE("tensorboard_trace_handler: use_gzip writes .pt.trace.json.gz; the worker defaults to host_pid") {
  testing::ScratchDir scratch;
  run({.active = 1, .repeat = 1}, 2, tensorboard_trace_handler(scratch.path().string(), "", /*use_gzip=*/true));
  const std::vector<std::string> files = testing::dir_entries(scratch.path());
  REQUIRE(files.size() == 1);
  char host[HOST_NAME_MAX + 1] = {};
  REQUIRE(gethostname(host, sizeof host - 1) == 0);
  const std::string prefix = std::string(host) + "_" + std::to_string(getpid()) + ".";
  CHECK(files[0].rfind(prefix, 0) == 0);
  CHECK(files[0].ends_with(".pt.trace.json.gz"));
  CHECK(steps_in(testing::gunzip_zlib(testing::read_file(scratch.path() / files[0]))) ==
        std::vector<std::string>{"ProfilerStep#0"});
}

TEST_CASE("tensorboard_trace_handler: a worker name that is not a file name is refused before any profile") {
  testing::ScratchDir scratch;
  const std::string dir = (scratch.path() / "traces").string();
  for (const char* worker : {"../x", "a/b", "/abs", ".", ".."}) {
    CAPTURE(worker);
    const std::string message =
        std::string("tensorboard_trace_handler: worker_name '") + worker + "' must be a file name, without '/'";
    CHECK_THROWS_WITH_AS(tensorboard_trace_handler(dir, worker), message.c_str(), Error);
  }
  CHECK(testing::dir_entries(scratch.path()).empty());
}

TEST_CASE("tensorboard_trace_handler: an empty directory name, or one it cannot create, is an error") {
  CHECK_THROWS_WITH_AS(tensorboard_trace_handler(""), "tensorboard_trace_handler: dir_name is empty", Error);
  testing::ScratchDir scratch;
  testing::write_file_bytes(scratch.path() / "file", "x");
  const std::string below_file = (scratch.path() / "file" / "traces").string();
  auto handler = tensorboard_trace_handler(below_file, "w");
  Profile prof;
  {
    auto running = prof.start();
    Tensor t = zeros({1});
  }
  const std::string message = "tensorboard_trace_handler: can't create directory: " + below_file;
  CHECK_THROWS_WITH_AS(handler(prof), doctest::Contains(message.c_str()), Error);
  CHECK(testing::dir_entries(scratch.path()) == std::vector<std::string>{"file"});
}

}  // namespace
}  // namespace tl::profiler
