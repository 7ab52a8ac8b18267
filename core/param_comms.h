// core/param_comms.h — what a collective passes, for the profiler's record_param_comms scope (PyTorch's
// ParamCommsDebugInfo): distributed/ sets it on the calling thread around the scope, the profiler reads it when
// the scope opens, as PyTorch's profiler reads the thread's debug info (torch/csrc/profiler/util.cpp's saveNcclMeta).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace tl {

/// The name of the scope whose events carry a ParamComms (PyTorch's at::kParamCommsCallName).
inline constexpr const char* kParamCommsScope = "record_param_comms";

/// One collective as PyTorch's RECORD_PARAM_COMMS_DATA describes it.
struct ParamComms {
  std::string collective;   ///< "allreduce", "broadcast", "all_gather", "reduce_scatter", "barrier", "send", "recv"
  DType dtype = DType::Float32;
  int64_t in_nelems = 0;    ///< elements this rank sends in
  int64_t out_nelems = 0;   ///< elements this rank gets out
  std::vector<int64_t> in_split_sizes;
  std::vector<int64_t> out_split_sizes;
  int64_t global_rank_start = -1;   ///< the members' first global rank, when they are evenly spaced; else -1
  int64_t global_rank_stride = -1;  ///< their spacing, when even; else -1
  int64_t group_size = 0;
  std::string group_name;           ///< PyTorch's pg uid: "0" for the default group, "1", "2", ... after it
  std::string group_desc;           ///< "default_pg", or "undefined" for new_group's
  std::vector<int64_t> group_ranks; ///< the members' global ranks
  int64_t rank = 0;                 ///< this process's rank in the group
  int64_t seq = 0;                  ///< the collective's number in its group, from 1
};

/// RAII: makes `comms` the calling thread's current ParamComms for its lifetime (it must outlive the guard);
/// guards nest.
class ParamCommsGuard {
 public:
  explicit ParamCommsGuard(const ParamComms& comms);
  ~ParamCommsGuard();
  ParamCommsGuard(const ParamCommsGuard&) = delete;
  ParamCommsGuard& operator=(const ParamCommsGuard&) = delete;

 private:
  const ParamComms* previous_;
};

/// The calling thread's current ParamComms, or null outside every guard.
const ParamComms* current_param_comms();

}  // namespace tl
