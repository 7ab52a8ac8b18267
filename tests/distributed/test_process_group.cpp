// tests/distributed/test_process_group.cpp — init_process_group, the collectives and their errors: in this
// process for a group of one (argument errors, which leave the tensors as they were), and as real processes
// on 127.0.0.1 through launch() running tests/distributed/worker.cpp, each bounded in time.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "distributed/distributed.h"
#include "ops/ops.h"
#include "tests/distributed/dist_testing.h"
#include "tests/support/tensor_check.h"

namespace dist = tl::distributed;
using namespace std::chrono_literals;

namespace {

using tl::testing::SoloGroup;

/// Empty when `actual` has expected's shape and values; else the worst element (doctest prints it).
std::string differs(const tl::Tensor& actual, const tl::Tensor& expected) {
  return tl::testing::compare_tensors(actual, expected, 0, 0);
}

}  // namespace

TEST_CASE("a collective, get_rank or destroy_process_group before init_process_group is an error") {
  const std::string message =
      "Default process group has not been initialized, please make sure to call init_process_group.";
  tl::Tensor x = tl::ones({2});
  CHECK_THROWS_WITH_AS(dist::all_reduce(x), message.c_str(), tl::Error);
  CHECK_THROWS_WITH_AS(dist::barrier(), message.c_str(), tl::Error);
  CHECK_THROWS_WITH_AS(dist::get_rank(), message.c_str(), tl::Error);
  CHECK_THROWS_WITH_AS(dist::destroy_process_group(), message.c_str(), tl::Error);
  CHECK_FALSE(dist::is_initialized());
}

TEST_CASE("init_process_group refuses bad arguments and leaves no group") {
  CHECK_THROWS_WITH_AS(dist::init_process_group("nccl"),
                       "init_process_group: backend 'nccl' is not available; torchless has 'gloo'", tl::Error);
  CHECK_THROWS_WITH_AS(dist::init_process_group("gloo", {.init_method = "mpi://x"}),
                       "init_process_group: unsupported init_method 'mpi://x'; expected env://, tcp://host:port, "
                       "file://directory or redis://host:port[/prefix]",
                       tl::Error);
  CHECK_THROWS_WITH_AS(dist::init_process_group("gloo", {.init_method = "redis://x", .world_size = 1, .rank = 0}),
                       "init_process_group: expected redis://host:port or redis://host:port/prefix, got 'redis://x'",
                       tl::Error);
  CHECK_THROWS_WITH_AS(
      dist::init_process_group("gloo", {.init_method = "redis://127.0.0.1:0/job", .world_size = 1, .rank = 0}),
      "init_process_group: the port of redis://127.0.0.1:0/job must be in [1, 65535], got 0", tl::Error);
  CHECK_THROWS_WITH_AS(dist::init_process_group("gloo", {.init_method = "tcp://127.0.0.1:29500", .rank = 0}),
                       "init_process_group: world size parameter missing for tcp://127.0.0.1:29500", tl::Error);
  CHECK_THROWS_WITH_AS(
      dist::init_process_group("gloo", {.init_method = "tcp://127.0.0.1:29500", .world_size = 2, .rank = 2}),
      "init_process_group: rank must be in [0, world_size = 2), got 2", tl::Error);
  CHECK_THROWS_WITH_AS(
      dist::init_process_group("gloo", {.init_method = "tcp://127.0.0.1:70000", .world_size = 1, .rank = 0}),
      "init_process_group: MASTER_PORT must be in [1, 65535], got 70000", tl::Error);
  ::unsetenv("MASTER_ADDR");
  CHECK_THROWS_WITH_AS(dist::init_process_group("gloo", {.world_size = 1, .rank = 0}),
                       "Error initializing torch.distributed using env:// rendezvous: environment variable "
                       "MASTER_ADDR expected, but not set",
                       tl::Error);
  ::unsetenv("RANK");
  CHECK_THROWS_WITH_AS(dist::init_process_group("gloo"),
                       "Error initializing torch.distributed using env:// rendezvous: environment variable RANK "
                       "expected, but not set",
                       tl::Error);
  CHECK_FALSE(dist::is_initialized());
}

TEST_CASE("a group of one: collectives are identities, a second init is refused") {
  SoloGroup solo;
  CHECK(dist::is_initialized());
  CHECK(dist::get_rank() == 0);
  CHECK(dist::get_world_size() == 1);
  CHECK(dist::get_backend() == "gloo");
  CHECK_THROWS_WITH_AS(dist::init_process_group("gloo", {.init_method = "tcp://127.0.0.1:1", .world_size = 1,
                                                         .rank = 0}),
                       "trying to initialize the default process group twice!", tl::Error);
  tl::Tensor x = tl::arange(0, 4, 1, tl::kFloat);
  dist::all_reduce(x, dist::ReduceOp::AVG);
  CHECK(differs(x, tl::arange(0, 4, 1, tl::kFloat)) == "");
  std::vector<tl::Tensor> out = {tl::zeros({4})};
  dist::all_gather(out, x);
  CHECK(differs(out[0], x) == "");
  dist::barrier();
}

TEST_CASE("collective argument errors name the values and change nothing") {
  SoloGroup solo;
  const tl::Tensor original = tl::arange(0, 6, 1, tl::kFloat).reshape({2, 3});
  tl::Tensor x = original.clone();
  tl::Tensor strided = x.t();
  CHECK_THROWS_WITH_AS(dist::all_reduce(strided),
                       "allreduce: expected a contiguous tensor, got sizes [3, 2] and strides [1, 3]", tl::Error);
  tl::Tensor ints = tl::arange(0, 3, 1, tl::kLong);
  CHECK_THROWS_WITH_AS(dist::all_reduce(ints, dist::ReduceOp::AVG),
                       "allreduce: ReduceOp.AVG needs a floating dtype, got torch.int64", tl::Error);
  CHECK_THROWS_WITH_AS(dist::broadcast(x, 1), "broadcast: global rank 1 is not part of the group", tl::Error);
  std::vector<tl::Tensor> two = {tl::zeros({2, 3}), tl::zeros({2, 3})};
  CHECK_THROWS_WITH_AS(dist::all_gather(two, x), "allgather: expected one output per rank, 1, got 2", tl::Error);
  std::vector<tl::Tensor> wrong = {tl::zeros({3, 2})};
  CHECK_THROWS_WITH_AS(dist::all_gather(wrong, x),
                       "allgather: outputs[0] must have the shape and dtype of the tensor, [2, 3] torch.float32, got "
                       "[3, 2] torch.float32",
                       tl::Error);
  std::vector<tl::Tensor> doubles = {tl::zeros({2, 3}, tl::kDouble)};
  CHECK_THROWS_WITH_AS(dist::reduce_scatter(x, doubles),
                       "reduce_scatter: inputs[0] must have the shape and dtype of the tensor, [2, 3] torch.float32, got "
                       "[2, 3] torch.float64",
                       tl::Error);
  tl::Tensor flags = tl::zeros({2}, tl::kBool);
  std::vector<tl::Tensor> flag_inputs = {tl::zeros({2}, tl::kBool)};
  CHECK_THROWS_WITH_AS(dist::reduce_scatter(flags, flag_inputs),
                       "reduce_scatter: not implemented for torch.bool (Gloo's reduce-scatter computes in float, double, "
                       "int64, int32 and bfloat16)",
                       tl::Error);
  CHECK_THROWS_WITH_AS(dist::send(x, 0), "send: a rank cannot send to itself (rank 0)", tl::Error);
  CHECK(differs(x, original) == "");
  CHECK(differs(wrong[0], tl::zeros({3, 2})) == "");
  CHECK(differs(doubles[0], tl::zeros({2, 3}, tl::kDouble)) == "");
}

TEST_CASE("new_group refuses ranks outside the default group or repeated") {
  SoloGroup solo;
  CHECK_THROWS_WITH_AS(dist::new_group({0, 1}), "new_group: rank 1 is not in the default group of world_size 1",
                       tl::Error);
  CHECK_THROWS_WITH_AS(dist::new_group({0, 0}), "new_group: rank 0 is given twice", tl::Error);
  auto group = dist::new_group({0});
  tl::Tensor x = tl::ones({2});
  dist::all_reduce(x, dist::ReduceOp::SUM, group);
  CHECK(differs(x, tl::ones({2})) == "");
  dist::destroy_process_group(group);
  CHECK_THROWS_WITH_AS(dist::all_reduce(x, dist::ReduceOp::SUM, group),
                       "all_reduce: the group was destroyed (destroy_process_group)", tl::Error);
}

TEST_CASE("two and three ranks: every collective, point to point, async work and new_group") {
  for (const int64_t nproc : {2, 3}) {
    CAPTURE(nproc);
    tl::testing::ScratchDir dir;
    const dist::LaunchResult result = tl::testing::run_scenario("collectives", nproc, dir);
    CHECK_MESSAGE(result.exit_code == 0, result.message);
  }
}

TEST_CASE("file:// rendezvous through Gloo's FileStore") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("file_init", 2, dir);
  CHECK_MESSAGE(result.exit_code == 0, result.message);
}

TEST_CASE("a rank that never joins fails the others within the timeout, naming it and the store") {
  tl::testing::ScratchDir dir;
  const auto start = std::chrono::steady_clock::now();
  const dist::LaunchResult result = tl::testing::run_scenario("never_joins", 1, dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
  const std::string message = tl::testing::read_file(dir.path() / "rank0.txt");
  CHECK(message.rfind("init_process_group: rank 1 of world_size 2 did not join within 1000 ms (store TCPStore "
                      "127.0.0.1:", 0) == 0);
}

TEST_CASE("mismatched world sizes are an error on both ranks, naming both sizes") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("world_size_mismatch", 2, dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  CHECK(tl::testing::read_file(dir.path() / "rank0.txt") ==
        "init_process_group: world_size mismatch: rank 0 was given world_size 2 but rank 1 world_size 3");
  CHECK(tl::testing::read_file(dir.path() / "rank1.txt") ==
        "init_process_group: world_size mismatch: rank 1 was given world_size 3 but rank 0 world_size 2");
}

TEST_CASE("a rank that exits, or never calls the collective, makes the other's collective fail, not hang") {
  for (const char* scenario : {"peer_exits", "peer_silent"}) {
    CAPTURE(scenario);
    tl::testing::ScratchDir dir;
    const auto start = std::chrono::steady_clock::now();
    const dist::LaunchResult result = tl::testing::run_scenario(scenario, 2, dir);
    REQUIRE_MESSAGE(result.exit_code == 0, result.message);
    CHECK(std::chrono::steady_clock::now() - start < 10s);
    const std::string message = tl::testing::read_file(dir.path() / "rank0.txt");
    CAPTURE(message);
    CHECK(message.rfind("allreduce: rank 0 of 2 failed: ", 0) == 0);
  }
}

TEST_CASE("a send whose size differs from its recv fails on both ranks, naming both sizes; the group goes on") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("p2p_size_mismatch", 2, dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  CHECK(tl::testing::read_file(dir.path() / "rank0.txt") ==
        "send: rank 0 to 1: the sizes differ: rank 0 sends 4 x torch.float32 but rank 1 receives 8 x torch.float32");
  CHECK(tl::testing::read_file(dir.path() / "rank1.txt") ==
        "recv: rank 1 from 0: the sizes differ: rank 0 sends 4 x torch.float32 but rank 1 receives 8 x torch.float32");
}

TEST_CASE("a rank killed mid-all_reduce (SIGKILL) makes the other fail within the timeout, naming it") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("peer_killed", 2, dir);
  CHECK(result.failed_rank == 1);
  const std::string message = tl::testing::read_file(dir.path() / "rank0.txt");
  CAPTURE(message);
  CHECK(message.rfind("allreduce: rank 0 of 2 failed: rank 1 (pid ", 0) == 0);
  CHECK(message.find(") has exited: ") != std::string::npos);
  // Usually Gloo sees the closed connection at once; a send still being written when the peer died waits for the
  // group's timeout (10 s), as Gloo signals its pair's error only to the sends it has not begun to write.
  const auto seconds = message.substr(message.rfind(" | failed after ") + 16);
  CHECK(std::stod(seconds) < 10.0 + 1.0);  // the timeout, and blame's wait for the peer's process to be gone
}

TEST_CASE("ranks that pass different sizes, dtypes or collectives fail on every rank, naming both calls") {
  tl::testing::ScratchDir dir;
  const dist::LaunchResult result = tl::testing::run_scenario("size_mismatch", 2, dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  CHECK(tl::testing::read_file(dir.path() / "rank0.txt") ==
        "allreduce: rank 0 of 2 failed: the ranks' calls differ: rank 0 called allreduce of 4 x torch.float32 (SUM) "
        "but rank 1 allreduce of 8 x torch.float64 (SUM)");
  CHECK(tl::testing::read_file(dir.path() / "rank1.txt") ==
        "allreduce: rank 1 of 2 failed: the ranks' calls differ: rank 1 called allreduce of 8 x torch.float64 (SUM) "
        "but rank 0 allreduce of 4 x torch.float32 (SUM)");
  CHECK(tl::testing::read_file(dir.path() / "rank0_next.txt") ==
        "broadcast: rank 0 of 2 failed: the ranks' calls differ: rank 0 called broadcast of 2 x torch.float32 from "
        "rank 0 but rank 1 barrier");
  CHECK(tl::testing::read_file(dir.path() / "rank1_next.txt") ==
        "barrier: rank 1 of 2 failed: the ranks' calls differ: rank 1 called barrier but rank 0 broadcast of 2 x "
        "torch.float32 from rank 0");
}
