// tests/distributed/test_launch.cpp — tl-run (distributed/launch.h): the environment each rank gets, and a failing
// rank stopping the others with a message naming it; the tl-run program itself, run by std::system under
// coreutils' timeout.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "core/error.h"
#include "distributed/launch.h"
#include "tests/support/file_testing.h"

namespace dist = tl::distributed;
using namespace std::chrono_literals;

namespace {

std::string env_path(const char* name) {
  const char* path = std::getenv(name);
  REQUIRE_MESSAGE(path != nullptr, name, " is set by meson");
  return path;
}

}  // namespace

TEST_CASE("tl-run sets the ranks' environment, OMP_NUM_THREADS = cores / N") {
  tl::testing::ScratchDir dir;
  const std::string command = "timeout 20 " + env_path("TL_RUN") + " --nproc-per-node 2 --master-port 29533 " +
                              env_path("TL_DIST_WORKER") + " environment " + dir.path().string();
  ::unsetenv("OMP_NUM_THREADS");
  REQUIRE(std::system(command.c_str()) == 0);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency() / 2);
  for (int rank = 0; rank < 2; ++rank) {
    const std::string r = std::to_string(rank);
    CHECK(tl::testing::read_file(dir.path() / ("env" + r + ".txt")) ==
          "RANK=" + r + "\nLOCAL_RANK=" + r + "\nWORLD_SIZE=2\nLOCAL_WORLD_SIZE=2\nMASTER_ADDR=127.0.0.1\n"
          "MASTER_PORT=29533\nOMP_NUM_THREADS=" + std::to_string(threads) + "\n");
  }
}

TEST_CASE("a failing rank stops the others; tl-run exits 1 naming it") {
  tl::testing::ScratchDir dir;
  const auto start = std::chrono::steady_clock::now();
  const dist::LaunchResult result = dist::launch(
      {.nproc_per_node = 2, .args = {env_path("TL_DIST_WORKER"), "fail_rank1", dir.path().string()}, .timeout = 20s});
  CHECK(std::chrono::steady_clock::now() - start < 10s);  // rank 0 would sleep 30 s
  CHECK(result.exit_code == 1);
  CHECK(result.failed_rank == 1);
  CHECK(result.message.rfind("rank 1 (local_rank 1, pid ", 0) == 0);
  CHECK(result.message.find(") exited with code 5; the other ranks were stopped") != std::string::npos);

  const std::string command = "timeout 20 " + env_path("TL_RUN") + " --nproc-per-node 2 " +
                              env_path("TL_DIST_WORKER") + " fail_rank1 " + dir.path().string() + " 2> " +
                              dir.file("stderr.txt");
  const int status = std::system(command.c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  const std::string stderr_text = tl::testing::read_file(dir.path() / "stderr.txt");
  CHECK(stderr_text.rfind("tl-run: rank 1 (local_rank 1, pid ", 0) == 0);
}

TEST_CASE("launch: a rank still running at the timeout is stopped; bad arguments are errors") {
  const dist::LaunchResult slow = dist::launch({.args = {"/bin/sleep", "10"}, .timeout = 200ms});
  CHECK(slow.exit_code == 1);
  CHECK(slow.failed_rank == 0);
  CHECK(slow.message.find(") was still running after 200 ms") != std::string::npos);
  CHECK_THROWS_WITH_AS(dist::launch({.nproc_per_node = 0, .args = {"x"}}),
                       "tl-run: --nproc-per-node must be at least 1, got 0", tl::Error);
  CHECK_THROWS_WITH_AS(dist::launch({}), "tl-run: no program to run", tl::Error);
  CHECK_THROWS_WITH_AS(dist::launch({.args = {"/nonexistent/program"}}),
                       "tl-run: cannot start '/nonexistent/program' for rank 0: No such file or directory", tl::Error);
}
