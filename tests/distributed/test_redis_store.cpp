// tests/distributed/test_redis_store.cpp — redis:// rendezvous through Gloo's RedisStore: two real ranks meeting on a
// Debian redis-server this suite starts on a free 127.0.0.1 port (and stops), jobs kept apart by their key prefix, a
// prefix used twice, and an unreachable server named with its host:port. Skipped when redis-server is missing.
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "core/error.h"
#include "distributed/distributed.h"
#include "distributed/tcp_store.h"
#include "tests/distributed/dist_testing.h"

namespace {

namespace dist = tl::distributed;
using tl::testing::ScratchDir;

/// redis-server's path on PATH; empty when it is not installed.
std::string redis_server_path() {
  std::stringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');)
    if (::access((dir + "/redis-server").c_str(), X_OK) == 0) return dir + "/redis-server";
  return "";
}

/// A redis-server on 127.0.0.1:port() (no persistence), started by the constructor once it accepts connections,
/// stopped (SIGTERM, then reaped) by the destructor.
class RedisServer {
 public:
  explicit RedisServer(const std::string& program) : port_(dist::free_port("127.0.0.1")) {
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      std::freopen("/dev/null", "w", stdout);
      const std::string port = std::to_string(port_);
      ::execl(program.c_str(), program.c_str(), "--port", port.c_str(), "--bind", "127.0.0.1", "--save", "",
              "--appendonly", "no", static_cast<char*>(nullptr));
      std::_Exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      try {
        dist::probe_connection("redis-server", "127.0.0.1", static_cast<int>(port_));
        return;
      } catch (const tl::Error&) {
        if (std::chrono::steady_clock::now() > deadline) {
          stop();
          FAIL("redis-server did not accept connections on 127.0.0.1:", port_, " within 10 s");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }
  ~RedisServer() { stop(); }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  int64_t port() const { return port_; }

 private:
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  int64_t port_;
  pid_t pid_ = -1;
};

/// Runs `scenario` on two ranks that rendezvous at `init_method` (the worker reads it from DIR/init_method.txt).
tl::distributed::LaunchResult run_with(const std::string& scenario, const std::string& init_method,
                                       const ScratchDir& dir) {
  std::ofstream(dir.path() / "init_method.txt") << init_method;
  return tl::testing::run_scenario(scenario, 2, dir);
}

}  // namespace

TEST_CASE("redis://: two ranks meet on a Redis server; each job under its own prefix") {
  const std::string program = redis_server_path();
  if (program.empty()) {
    MESSAGE("redis-server not installed (Debian's redis-server, scripts/deps.sh): skipping the redis:// cases");
    return;
  }
  RedisServer redis(program);
  const std::string url = "redis://127.0.0.1:" + std::to_string(redis.port());
  for (const std::string job : {"job1", "job2"}) {
    ScratchDir dir;
    const auto result = run_with("redis_init", url + "/" + job, dir);
    CHECK_MESSAGE(result.exit_code == 0, job, ": ", result.message, " (the rank's stderr says why)");
  }
  // A prefix used again: its keys are set already (Redis keeps them), an error on both ranks.
  ScratchDir dir;
  const auto result = run_with("redis_reused", url + "/job1", dir);
  REQUIRE_MESSAGE(result.exit_code == 0, result.message);
  for (const std::string rank : {"0", "1"}) {
    const std::string error = tl::testing::read_file(dir.path() / ("rank" + rank + ".txt"));
    CHECK(error == "init_process_group: rank " + rank + " cannot write to the store (RedisStore 127.0.0.1:" +
                       std::to_string(redis.port()) + "): key 'job1/default_pg/world_size/" + rank +
                       "' is set already: Redis keeps a finished job's keys; give this job a prefix of its own "
                       "(redis://host:port/prefix)");
  }
}

TEST_CASE("redis://: an unreachable server is named with its host:port; nothing is left initialized") {
  const int64_t port = dist::free_port("127.0.0.1");  // nothing listens there
  const std::string address = "127.0.0.1:" + std::to_string(port);
  CHECK_THROWS_WITH_AS(dist::init_process_group("gloo", {.init_method = "redis://" + address, .world_size = 1,
                                                         .rank = 0}),
                       ("init_process_group: cannot reach Redis at " + address +
                        ": Connection refused (errno 111)").c_str(),
                       tl::Error);
  CHECK_FALSE(dist::is_initialized());
}
