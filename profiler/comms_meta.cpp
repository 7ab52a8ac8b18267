// profiler/comms_meta.cpp — saveNcclMeta's formatting: strings and lists quoted (lists are text in Kineto's args,
// "[0, 1]"), counts bare.
#include "profiler/comms_meta.h"

namespace tl::profiler::detail {
namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string list_text(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + std::to_string(values[i]);
  return quoted(text + "]");
}

}  // namespace

std::vector<std::pair<std::string, std::string>> param_comms_metadata(const ParamComms& comms) {
  std::vector<std::pair<std::string, std::string>> meta = {
      {"Collective name", quoted(comms.collective)},
      {"dtype", quoted(scalar_type_name(comms.dtype))},
      {"In msg nelems", std::to_string(comms.in_nelems)},
      {"Out msg nelems", std::to_string(comms.out_nelems)},
      {"In split size", list_text(comms.in_split_sizes)},
      {"Out split size", list_text(comms.out_split_sizes)},
  };
  if (comms.global_rank_start >= 0) meta.emplace_back("Global rank start", std::to_string(comms.global_rank_start));
  if (comms.global_rank_stride > 0) meta.emplace_back("Global rank stride", std::to_string(comms.global_rank_stride));
  meta.emplace_back("Group size", std::to_string(comms.group_size));
  if (!comms.group_name.empty()) meta.emplace_back("Process Group Name", quoted(comms.group_name));
  if (!comms.group_desc.empty()) meta.emplace_back("Process Group Description", quoted(comms.group_desc));
  meta.emplace_back("Process Group Ranks", list_text(comms.group_ranks));
  meta.emplace_back("Rank", std::to_string(comms.rank));
  meta.emplace_back("Seq", std::to_string(comms.seq));
  return meta;
}

}  // namespace tl::profiler::detail
