// distributed/launch.h — the single-node launcher behind tl-run (torchrun's elastic_launch): starts one process
// per rank with the environment init_process_group reads, waits, and stops the others when one fails.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace tl::distributed {

struct LaunchConfig {
  /// Processes (ranks) to start on this machine.
  int64_t nproc_per_node = 1;
  std::string master_addr = "127.0.0.1";
  /// The rendezvous port rank 0's TCPStore listens on; 0 picks a free one.
  int64_t master_port = 0;
  /// The program (looked up on PATH) and its arguments.
  std::vector<std::string> args;
  /// When positive, every rank still running after it is stopped and the launch fails.
  std::chrono::milliseconds timeout{0};
};

struct LaunchResult {
  /// 0 when every rank exited with 0; otherwise 1, as torchrun.
  int exit_code = 0;
  /// The first rank seen to fail (exit code other than 0, a signal, or still running at the timeout); -1.
  int64_t failed_rank = -1;
  /// What happened to it: "rank 1 (local_rank 1, pid 4242) exited with code 3; the other ranks were stopped".
  std::string message;
};

/// Starts nproc_per_node copies of args with RANK = LOCAL_RANK = i, WORLD_SIZE = LOCAL_WORLD_SIZE =
/// nproc_per_node, GROUP_RANK = 0, MASTER_ADDR, MASTER_PORT and (unless already set) OMP_NUM_THREADS =
/// max(1, cores / nproc_per_node), and waits for all. When one fails, the others get SIGTERM (SIGKILL two
/// seconds later). Throws tl::Error for nproc_per_node below 1, no program, a port outside [0, 65535], or a
/// program that cannot be started (naming it; already started ranks are stopped).
LaunchResult launch(const LaunchConfig& config);

/// A TCP port free on `host` now (bound to port 0 and released), as torchrun picks MASTER_PORT.
int64_t free_port(const std::string& host);

}  // namespace tl::distributed
