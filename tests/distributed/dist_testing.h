// tests/distributed/dist_testing.h — for the distributed suites: running a scenario of dist_worker (worker.cpp) on
// real ranks with a time bound, and a group of one in this process.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "distributed/distributed.h"
#include "distributed/launch.h"
#include "tests/support/file_testing.h"

namespace tl::testing {

/// The worker program, which meson names in TL_DIST_WORKER.
inline std::string dist_worker() {
  const char* path = std::getenv("TL_DIST_WORKER");
  REQUIRE_MESSAGE(path != nullptr, "TL_DIST_WORKER (set by meson) names tests/distributed/dist_worker");
  return path;
}

/// Runs `scenario` of the worker on `nproc` ranks (its files go to `dir`), stopping them after `timeout`.
inline distributed::LaunchResult run_scenario(const std::string& scenario, int64_t nproc, const ScratchDir& dir,
                                              std::chrono::seconds timeout = std::chrono::seconds(30)) {
  return distributed::launch({.nproc_per_node = nproc, .args = {dist_worker(), scenario, dir.path().string()},
                              .timeout = timeout});
}

/// A group of one in this process (tcp:// on a free port), destroyed at the end of the scope.
struct SoloGroup {
  SoloGroup() {
    const int64_t port = distributed::free_port("127.0.0.1");
    distributed::init_process_group("gloo", {.init_method = "tcp://127.0.0.1:" + std::to_string(port),
                                             .timeout = std::chrono::seconds(5), .world_size = 1, .rank = 0});
  }
  ~SoloGroup() { distributed::destroy_process_group(); }
  SoloGroup(const SoloGroup&) = delete;
  SoloGroup& operator=(const SoloGroup&) = delete;
};

}  // namespace tl::testing
