// core/distributed_info.h — which rank of which job this process is, for the profiler's traces (Kineto's
// distributedInfo): distributed/ sets it when init_process_group succeeds and resets it at destroy_process_group.
#pragma once

#include <cstdint>
#include <string>

namespace tl {

/// A trace's {"backend", "rank", "world_size"}; the default is a process on its own.
struct DistributedInfo {
  std::string backend = "none";
  int64_t rank = 0;
  int64_t world_size = 1;
};

/// Replaces the process's info (thread-safe); `{}` resets it.
void set_distributed_info(const DistributedInfo& info);
/// The process's info now.
DistributedInfo distributed_info();

}  // namespace tl
