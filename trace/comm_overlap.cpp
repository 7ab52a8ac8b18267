// trace/comm_overlap.cpp — two unions of intervals (sorted, then merged where they touch or overlap, as HTA's
// merge_kernel_intervals) and the length of their intersection, in one pass over each.
#include "trace/comm_overlap.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace tl::trace {
namespace {

using Intervals = std::vector<std::pair<int64_t, int64_t>>;  // [start, end)

Intervals merged(Intervals spans) {
  std::sort(spans.begin(), spans.end());
  Intervals out;
  for (const auto& [start, end] : spans) {
    if (!out.empty() && start <= out.back().second) out.back().second = std::max(out.back().second, end);
    else out.emplace_back(start, end);
  }
  return out;
}

int64_t length(const Intervals& spans) {
  int64_t total = 0;
  for (const auto& [start, end] : spans) total += end - start;
  return total;
}

int64_t intersection(const Intervals& a, const Intervals& b) {
  int64_t total = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    total += std::max<int64_t>(0, std::min(a[i].second, b[j].second) - std::max(a[i].first, b[j].first));
    if (a[i].second < b[j].second) ++i;
    else ++j;
  }
  return total;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

}  // namespace

double CommOverlap::ratio() const {
  return communication_ns > 0 ? static_cast<double>(overlap_ns) / static_cast<double>(communication_ns) : 0.0;
}

CommOverlap comm_comp_overlap(const Trace& trace) {
  Intervals communication, computation;
  std::set<uint32_t> communicating;
  for (const OpEvent& e : trace.events) {
    if (trace.str(e.category) != "user_annotation" || !starts_with(trace.str(e.name), "gloo:")) continue;
    communication.emplace_back(e.ts, e.ts + e.dur);
    communicating.insert(e.thread);
  }
  for (const OpEvent& e : trace.events)
    if (trace.str(e.category) == "cpu_op" && starts_with(trace.str(e.name), "aten::") && !communicating.count(e.thread))
      computation.emplace_back(e.ts, e.ts + e.dur);
  const Intervals comm = merged(std::move(communication)), comp = merged(std::move(computation));
  return {length(comm), length(comp), intersection(comm, comp)};
}

}  // namespace tl::trace
