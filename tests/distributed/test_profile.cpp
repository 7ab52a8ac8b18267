// tests/distributed/test_profile.cpp — a profile taken in a process group: its Chrome trace carries Kineto's
// distributedInfo (per rank, so HTA reads a directory of ranks), and the collectives appear as the c10d ops
// PyTorch 1.13's profiler shows on the calling thread (c10d::allreduce_ with its Input Dims, ...).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "distributed/distributed.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/distributed/dist_testing.h"

namespace {

using nlohmann::json;
namespace dist = tl::distributed;

/// The trace of `body`, profiled on this thread.
template <typename Body>
json trace_of(const Body& body) {
  tl::testing::ScratchDir dir;
  tl::profiler::Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    body();
  }
  prof.export_chrome_trace(dir.file("trace.json"));
  std::ifstream in(dir.file("trace.json"));
  return json::parse(in);
}

}  // namespace

TEST_CASE("a trace in a process group: distributedInfo, and the collectives as c10d ops") {
  const json alone = trace_of([] { tl::ones({2}).add(tl::ones({2})); });
  CHECK(alone.at("distributedInfo") == json{{"backend", "none"}, {"rank", 0}, {"world_size", 1}});
  tl::testing::SoloGroup solo;
  tl::Tensor x = tl::ones({4});
  std::vector<tl::Tensor> gathered = {tl::zeros({4})};
  const json in_group = trace_of([&] {
    dist::all_reduce(x);
    dist::broadcast(x, 0);
    dist::all_gather(gathered, x);
    dist::barrier();
  });
  CHECK(in_group.at("distributedInfo") == json{{"backend", "gloo"}, {"rank", 0}, {"world_size", 1}});
  std::vector<std::string> ops;
  for (const json& e : in_group.at("traceEvents"))
    if (e.value("cat", "") == "cpu_op" && e.at("name").get<std::string>().rfind("c10d::", 0) == 0) {
      ops.push_back(e.at("name"));
      if (e.at("name") == "c10d::allreduce_") CHECK(e.at("args").at("Input Dims") == json::parse("[[4]]"));
    }
  CHECK(ops == std::vector<std::string>{"c10d::allreduce_", "c10d::broadcast_", "c10d::allgather_", "c10d::barrier"});
}

TEST_CASE("each rank's trace names its rank and the world size; tl-tracediff --ranks all reads the directory") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("profile", 2, dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  for (int rank = 0; rank < 2; ++rank) {
    std::ifstream in(dir.file("rank" + std::to_string(rank) + ".pt.trace.json"));
    REQUIRE(in.good());
    CHECK(json::parse(in).at("distributedInfo") == json{{"backend", "gloo"}, {"rank", rank}, {"world_size", 2}});
  }
  const char* tracediff = std::getenv("TL_TRACEDIFF");
  REQUIRE_MESSAGE(tracediff != nullptr, "TL_TRACEDIFF (set by meson) names tools/tl-tracediff");
  const std::string command = std::string(tracediff) + " --ranks all " + dir.path().string() + " " +
                              dir.path().string() + " > " + dir.file("diff.txt") + " 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  const std::string diff = tl::testing::read_file(dir.path() / "diff.txt");
  CAPTURE(diff);
  CHECK(diff.find("control " + dir.path().string() + " (2 traces, ") != std::string::npos);
  CHECK(diff.find("c10d::allreduce_  unchanged ") != std::string::npos);
}
