// tests/distributed/test_profile.cpp — a profile taken in a process group: its Chrome trace carries Kineto's
// distributedInfo (per rank, so HTA reads a directory of ranks); each collective appears as PyTorch records it, on
// the calling thread the c10d op (PyTorch 1.13's c10d::allreduce_ with its Input Dims) around PyTorch 2.x's
// record_param_comms with its comms args (ProcessGroupNCCL's RECORD_PARAM_COMMS_DATA values and saveNcclMeta's
// keys), and on the thread that runs it ProcessGroupGloo's gloo:* scope; HTA reads those args and threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "distributed/distributed.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/distributed/dist_testing.h"
#include "trace/comm_overlap.h"
#include "trace/trace.h"

namespace {

using nlohmann::json;
namespace dist = tl::distributed;

json load_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  return json::parse(in);
}

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
  return load_json(dir.file("trace.json"));
}

/// The complete events named `name` (or starting with it, `prefix`), in time order.
std::vector<json> events(const json& trace, const std::string& name, bool prefix = false) {
  std::vector<json> found;
  for (const json& e : trace.at("traceEvents"))
    if (e.value("ph", "") == "X" && (prefix ? e.at("name").get<std::string>().rfind(name, 0) == 0 : e.at("name") == name))
      found.push_back(e);
  std::stable_sort(found.begin(), found.end(), [](const json& a, const json& b) {
    return a.at("ts").get<double>() < b.at("ts").get<double>();
  });
  return found;
}

bool inside(const json& inner, const json& outer) {
  const double start = outer.at("ts"), end = start + outer.at("dur").get<double>();
  return inner.at("tid") == outer.at("tid") && inner.at("ts").get<double>() >= start &&
         inner.at("ts").get<double>() + inner.at("dur").get<double>() <= end;
}

/// record_param_comms' args that a group of one gives (PyTorch's values for rank 0 of a group of one).
json solo_comms(const std::string& collective, const std::string& dtype, int64_t in, int64_t out, int64_t seq,
                const std::string& name = "0", const std::string& desc = "default_pg") {
  return json{{"Collective name", collective}, {"dtype", dtype}, {"In msg nelems", in}, {"Out msg nelems", out},
              {"In split size", "[]"}, {"Out split size", "[]"}, {"Global rank start", 0}, {"Global rank stride", 1},
              {"Group size", 1}, {"Process Group Name", name}, {"Process Group Description", desc},
              {"Process Group Ranks", "[0]"}, {"Rank", 0}, {"Seq", seq}};
}

/// The comms args of a record_param_comms event (its args without the profiler's own).
json comms_args(const json& event) {
  json args = event.at("args");
  for (const char* own : {"External id", "Ev Idx"}) args.erase(own);
  return args;
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

TEST_CASE("each collective: record_param_comms with its comms args inside the c10d op, gloo:* on the worker thread") {
  tl::testing::SoloGroup solo;
  tl::Tensor x = tl::ones({4});
  tl::Tensor d = tl::ones({3}, tl::kDouble);
  std::vector<tl::Tensor> gathered = {tl::zeros({4})};
  std::shared_ptr<dist::ProcessGroup> sub;
  const json trace = trace_of([&] {
    dist::all_reduce(x);
    dist::broadcast(x, 0);
    dist::all_gather(gathered, x);
    dist::reduce_scatter(x, {tl::ones({4})});
    dist::barrier();
    dist::all_reduce(d, dist::ReduceOp::MAX);
    sub = dist::new_group({0});
    dist::all_reduce(x, dist::ReduceOp::SUM, sub);
  });
  const std::vector<json> comms = events(trace, "record_param_comms");
  REQUIRE(comms.size() == 7);
  CHECK(comms_args(comms[0]) == solo_comms("allreduce", "Float", 4, 4, 1));
  CHECK(comms_args(comms[1]) == solo_comms("broadcast", "Float", 4, 4, 2));
  CHECK(comms_args(comms[2]) == solo_comms("all_gather", "Float", 4, 4, 3));
  CHECK(comms_args(comms[3]) == solo_comms("reduce_scatter", "Float", 4, 4, 4));
  CHECK(comms_args(comms[4]) == solo_comms("barrier", "Byte", 0, 0, 5));
  CHECK(comms_args(comms[5]) == solo_comms("allreduce", "Double", 3, 3, 6));
  CHECK(comms_args(comms[6]) == solo_comms("allreduce", "Float", 4, 4, 1, "1", "undefined"));  // new_group's count
  const std::vector<std::string> c10d = {"c10d::allreduce_", "c10d::broadcast_", "c10d::allgather_",
                                         "c10d::reduce_scatter_", "c10d::barrier", "c10d::allreduce_",
                                         "c10d::allreduce_"};
  const std::vector<json> ops = events(trace, "c10d::", true);
  REQUIRE(ops.size() == c10d.size());
  for (size_t i = 0; i < c10d.size(); ++i) {
    CAPTURE(i);
    CHECK(ops[i].at("name") == c10d[i]);
    CHECK(comms[i].at("cat") == "cpu_op");
    CHECK(inside(comms[i], ops[i]));
  }
  const std::vector<json> runs = events(trace, "gloo:", true);
  std::vector<std::string> names;
  for (const json& e : runs) names.push_back(e.at("name"));
  CHECK(names == std::vector<std::string>{"gloo:all_reduce", "gloo:broadcast", "gloo:all_gather", "gloo:reduce_scatter",
                                          "gloo:barrier", "gloo:all_reduce", "gloo:all_reduce"});
  REQUIRE(runs.size() == comms.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    CAPTURE(i);
    CHECK(runs[i].at("cat") == "user_annotation");
    CHECK(runs[i].at("tid") != comms[i].at("tid"));                      // the group's worker thread
    CHECK(runs[i].at("ts").get<double>() >= comms[i].at("ts").get<double>());  // runs after it was queued
  }
  CHECK(runs[0].at("tid") == runs[5].at("tid"));  // one worker per group
  CHECK(runs[0].at("tid") != runs[6].at("tid"));
  std::set<json> named;
  for (const json& e : trace.at("traceEvents"))
    if (e.value("ph", "") == "M" && e.at("name") == "thread_name") named.insert(e.at("tid"));
  CHECK(named.count(runs[0].at("tid")) == 1);
}

TEST_CASE("a call refused at the call records no record_param_comms and queues nothing to record") {
  tl::testing::SoloGroup solo;
  const json trace = trace_of([&] {
    CHECK_THROWS_AS(dist::send(tl::ones({2}), 0), tl::Error);  // to itself
    CHECK_THROWS_AS(dist::all_reduce(tl::ones({2}, tl::kLong), dist::ReduceOp::AVG), tl::Error);
    std::vector<tl::Tensor> one = {tl::zeros({3})};
    CHECK_THROWS_AS(dist::all_gather(one, tl::ones({2})), tl::Error);  // outputs of another shape
  });
  CHECK(events(trace, "record_param_comms").empty());
  CHECK(events(trace, "gloo:", true).empty());
  // The group goes on: the next collective is the group's first.
  const json next = trace_of([] { dist::barrier(); });
  REQUIRE(events(next, "record_param_comms").size() == 1);
  CHECK(events(next, "record_param_comms")[0].at("args").at("Seq") == 1);
}

TEST_CASE("each rank's trace names its rank and the world size; tl-tracediff --ranks all reads the directory") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("profile", 2, dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  for (int rank = 0; rank < 2; ++rank) {
    const json trace = load_json(dir.file("rank" + std::to_string(rank) + ".pt.trace.json"));
    CHECK(trace.at("distributedInfo") == json{{"backend", "gloo"}, {"rank", rank}, {"world_size", 2}});
  }
  const char* tracediff = std::getenv("TL_TRACEDIFF");
  REQUIRE_MESSAGE(tracediff != nullptr, "TL_TRACEDIFF (set by meson) names tools/tl-tracediff");
  const std::string command = std::string(tracediff) + " --ranks all " + dir.path().string() + " " +
                              dir.path().string() + " > " + dir.file("diff.txt") + " 2>&1";
  REQUIRE(std::system(command.c_str()) == 0);
  const std::string diff = tl::testing::read_file(dir.path() / "diff.txt");
  CAPTURE(diff);
  CHECK(diff.find("control " + dir.path().string() + " (2 traces, ") != std::string::npos);
  const size_t row = diff.find("\nc10d::allreduce_ ");
  REQUIRE(row != std::string::npos);
  CHECK(diff.substr(row + 1, diff.find('\n', row + 1) - row - 1).find(" unchanged ") != std::string::npos);
}

TEST_CASE("two ranks: the comms args agree across ranks, and HTA reads them and the worker threads' gloo:* scopes") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("profile", 2, dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  // What the traces hold: per rank, the comms args in order, and the overlap tl::trace measures.
  std::map<int, std::vector<json>> held;
  std::map<int, tl::trace::CommOverlap> measured;
  for (int rank = 0; rank < 2; ++rank) {
    const std::string file = dir.file("rank" + std::to_string(rank) + ".pt.trace.json");
    const json trace = load_json(file);
    const std::vector<json> comms = events(trace, "record_param_comms");
    const std::vector<json> runs = events(trace, "gloo:", true);
    // The all_reduce of 8 elements; DDP's first iteration, one bucket of all 470600 parameters (64 x 300 + 300 +
    // 300 x 500 + 500 + 500 x 600 + 600); the broadcast of the order the gradients arrived in (6 parameters); the
    // second iteration's rebuilt buckets, which hold every parameter once; then the send or the recv.
    REQUIRE(comms.size() >= 6);
    REQUIRE(runs.size() == comms.size());
    const size_t last = comms.size() - 1;
    for (size_t i = 0; i < comms.size(); ++i) {
      CAPTURE(i);
      const json& args = comms[i].at("args");
      CHECK(args.at("Group size") == 2);
      CHECK(args.at("Rank") == rank);
      CHECK(args.at("Process Group Ranks") == "[0, 1]");
      CHECK(runs[i].at("tid") != comms[i].at("tid"));
      // A group numbers its collectives (DDP's construction issued the first ones), its sends and receives apart.
      if (i > 0 && i < last) CHECK(args.at("Seq") == comms[i - 1].at("args").at("Seq").get<int64_t>() + 1);
      held[rank].push_back(comms_args(comms[i]));
    }
    CHECK(held[rank][0] == json{{"Collective name", "allreduce"}, {"dtype", "Float"}, {"In msg nelems", 8},
                                {"Out msg nelems", 8}, {"In split size", "[]"}, {"Out split size", "[]"},
                                {"Global rank start", 0}, {"Global rank stride", 1}, {"Group size", 2},
                                {"Process Group Name", "0"}, {"Process Group Description", "default_pg"},
                                {"Process Group Ranks", "[0, 1]"}, {"Rank", rank},
                                {"Seq", held[rank][0].at("Seq")}});
    CHECK(held[rank][1].at("Collective name") == "allreduce");
    CHECK(held[rank][1].at("In msg nelems") == 470600);
    CHECK(held[rank][2].at("Collective name") == "broadcast");
    CHECK(held[rank][2].at("dtype") == "Long");
    CHECK(held[rank][2].at("In msg nelems") == 6);
    int64_t rebuilt = 0;
    for (size_t i = 3; i < last; ++i) {
      CHECK(held[rank][i].at("Collective name") == "allreduce");
      rebuilt += held[rank][i].at("In msg nelems").get<int64_t>();
    }
    CHECK(rebuilt == 470600);
    CHECK(held[rank][last].at("Collective name") == (rank == 0 ? "send" : "recv"));
    CHECK(held[rank][last].at("In msg nelems") == 5);
    CHECK(held[rank][last].at("Seq") == 1);
    CHECK(runs[last].at("name") == (rank == 0 ? "gloo:send" : "gloo:recv"));
    CHECK(runs[last].at("tid") != runs[0].at("tid"));  // a transfer runs on a thread of its own
    measured[rank] = tl::trace::comm_comp_overlap(tl::trace::load_trace(file));
    CHECK(measured[rank].communication_ns > 0);
    CHECK(measured[rank].computation_ns > 0);
  }
  // Both ranks issued the same collectives: only "Rank" differs (and the last, a send on one, a recv on the other).
  REQUIRE(held[0].size() == held[1].size());
  for (size_t i = 0; i + 1 < held[0].size(); ++i) {
    json a = held[0][i], b = held[1][i];
    a.erase("Rank");
    b.erase("Rank");
    CHECK(a == b);
  }

  const char* hta = std::getenv("TL_HTA_DIR");
  const char* check = std::getenv("TL_HTA_CHECK");
  REQUIRE_MESSAGE((hta != nullptr && check != nullptr), "TL_HTA_DIR and TL_HTA_CHECK (set by meson)");
  // HTA is the peer, not part of the project: a checkout without shared/anchors/hta beside it checks the traces
  // above and says that HTA's reading of them was not checked.
  if (!std::filesystem::exists(std::filesystem::path(hta) / "hta")) {
    MESSAGE("HTA not found at ", hta, " (shared/anchors/hta beside the project): its reading of the traces is NOT checked");
    return;
  }
  tl::testing::ScratchDir out;
  const std::string command = std::string("/usr/bin/python3 ") + check + " " + hta + " " + dir.path().string() + " " +
                              out.file("hta.json") + " > " + out.file("log.txt") + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = tl::testing::read_file(out.path() / "log.txt");
  CAPTURE(log);
  REQUIRE(status == 0);
  const json seen = load_json(out.file("hta.json"));
  for (int rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    const json& r = seen.at(std::to_string(rank));
    REQUIRE(r.at("comms").size() == held[rank].size());
    for (size_t i = 0; i < held[rank].size(); ++i) {
      const json& args = held[rank][i];
      const json expected = {args.at("Collective name"), args.at("dtype"), args.at("In msg nelems"),
                             args.at("Out msg nelems"), args.at("Group size"), args.at("Rank"),
                             args.at("In split size"), args.at("Out split size")};
      CHECK(r.at("comms").at(i) == expected);
    }
    CHECK(r.at("gloo").size() == held[rank].size());
    CHECK(r.at("gloo_threads") == 2);  // the group's worker and the transfer's thread
    CHECK(r.at("overlap").at("communication_ns") == measured[rank].communication_ns);
    CHECK(r.at("overlap").at("computation_ns") == measured[rank].computation_ns);
    CHECK(r.at("overlap").at("overlap_ns") == measured[rank].overlap_ns);
  }
}
