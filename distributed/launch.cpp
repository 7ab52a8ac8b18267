// distributed/launch.cpp — launch(): posix_spawn per rank, a polling wait that notices the first failure, and
// SIGTERM then, after 30 s, SIGKILL for the ranks still running.
#include "distributed/launch.h"

#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <thread>

#include "core/error.h"

extern char** environ;

namespace tl::distributed {
namespace {

using Clock = std::chrono::steady_clock;

/// The environment with `overrides` replacing (or adding) their variables.
std::vector<std::string> environment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    if (overrides.count(entry.substr(0, entry.find('='))) == 0) out.push_back(entry);
  }
  for (const auto& [name, value] : overrides) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return detail::str_cat("exited with code ", WEXITSTATUS(status));
  return detail::str_cat("was killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
}

struct Rank {
  pid_t pid = -1;
  bool running = false;
};

/// SIGTERM to every running rank, SIGKILL to those still running 30 s later (torchrun's grace period: a rank
/// that handles SIGTERM gets time to report); reaps them all.
void stop(std::vector<Rank>& ranks) {
  for (Rank& r : ranks)
    if (r.running) ::kill(r.pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  for (Rank& r : ranks) {
    while (r.running) {
      int status = 0;
      if (::waitpid(r.pid, &status, WNOHANG) == r.pid) {
        r.running = false;
      } else if (Clock::now() >= deadline) {
        ::kill(r.pid, SIGKILL);
        ::waitpid(r.pid, &status, 0);
        r.running = false;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
  }
}

}  // namespace

int64_t free_port(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), "0", &hints, &list);
  TL_CHECK(rc == 0, "free_port: cannot resolve host '", host, "': ", ::gai_strerror(rc));
  int64_t port = 0;
  const int fd = ::socket(list->ai_family, list->ai_socktype | SOCK_CLOEXEC, list->ai_protocol);
  if (fd >= 0 && ::bind(fd, list->ai_addr, list->ai_addrlen) == 0) {
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                             : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  }
  const int err = errno;
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(list);
  TL_CHECK(port > 0, "free_port: cannot bind a socket on ", host, ": ", std::strerror(err));
  return port;
}

LaunchResult launch(const LaunchConfig& config) {
  const int64_t n = config.nproc_per_node;
  TL_CHECK(n >= 1, "tl-run: --nproc-per-node must be at least 1, got ", n);
  TL_CHECK(!config.args.empty(), "tl-run: no program to run");
  TL_CHECK(config.master_port >= 0 && config.master_port <= 65535, "tl-run: --master-port must be in [0, 65535], got ",
           config.master_port);
  const int64_t port = config.master_port > 0 ? config.master_port : free_port(config.master_addr);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::string> args = config.args;
  std::vector<char*> argv = pointers(args);
  std::vector<Rank> ranks(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    std::map<std::string, std::string> overrides = {
        {"RANK", std::to_string(i)},          {"LOCAL_RANK", std::to_string(i)},
        {"WORLD_SIZE", std::to_string(n)},    {"LOCAL_WORLD_SIZE", std::to_string(n)},
        {"GROUP_RANK", "0"},                  {"MASTER_ADDR", config.master_addr},
        {"MASTER_PORT", std::to_string(port)}};
    if (std::getenv("OMP_NUM_THREADS") == nullptr)
      overrides["OMP_NUM_THREADS"] = std::to_string(std::max<int64_t>(1, static_cast<int64_t>(cores) / n));
    std::vector<std::string> env = environment(overrides);
    std::vector<char*> envp = pointers(env);
    Rank& rank = ranks[static_cast<size_t>(i)];
    const int rc = ::posix_spawnp(&rank.pid, argv[0], nullptr, nullptr, argv.data(), envp.data());
    if (rc != 0) {
      stop(ranks);
      TL_CHECK(false, "tl-run: cannot start '", args[0], "' for rank ", i, ": ", std::strerror(rc));
    }
    rank.running = true;
  }
  LaunchResult result;
  const auto deadline = Clock::now() + config.timeout;
  while (std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; })) {
    for (size_t i = 0; i < ranks.size(); ++i) {
      int status = 0;
      if (!ranks[i].running || ::waitpid(ranks[i].pid, &status, WNOHANG) != ranks[i].pid) continue;
      ranks[i].running = false;
      if (status != 0 && result.failed_rank < 0) {
        result.failed_rank = static_cast<int64_t>(i);
        result.message = detail::str_cat("rank ", i, " (local_rank ", i, ", pid ", ranks[i].pid, ") ",
                                         describe_status(status));
      }
    }
    const bool timed_out = config.timeout.count() > 0 && Clock::now() >= deadline;
    if (timed_out && result.failed_rank < 0) {
      const auto first = std::find_if(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; });
      result.failed_rank = first - ranks.begin();
      result.message = detail::str_cat("rank ", result.failed_rank, " (pid ", first->pid, ") was still running after ",
                                       config.timeout.count(), " ms");
    }
    if (result.failed_rank >= 0) {
      const bool others = std::any_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.running; });
      stop(ranks);
      if (others) result.message += "; the other ranks were stopped";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  result.exit_code = result.failed_rank >= 0 ? 1 : 0;
  return result;
}

}  // namespace tl::distributed
