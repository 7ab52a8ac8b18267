// profiler/comms_meta.h — (internal) the args Kineto writes on a record_param_comms event, from the collective's
// ParamComms: PyTorch's saveNcclMeta (torch/csrc/profiler/util.cpp), whose keys HTA reads (its "nccl::" args).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/param_comms.h"

namespace tl::profiler::detail {

/// Each arg as its key and its JSON text, in saveNcclMeta's order: "Collective name" ("\"allreduce\""), "dtype"
/// ("\"Float\""), "In msg nelems", "Out msg nelems", "In split size" and "Out split size" ("\"[]\"", lists as
/// text), "Global rank start" and "Global rank stride" (when the members are evenly spaced), "Group size",
/// "Process Group Name", "Process Group Description", "Process Group Ranks" ("\"[0, 1]\""), "Rank", "Seq".
std::vector<std::pair<std::string, std::string>> param_comms_metadata(const ParamComms& comms);

}  // namespace tl::profiler::detail
