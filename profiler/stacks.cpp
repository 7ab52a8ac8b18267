// profiler/stacks.cpp — folded stacks: identical stacks are summed in nanoseconds before the
// conversion to whole microseconds, so many short events are not rounded away one by one.
#include "profiler/stacks.h"

#include <ostream>
#include <unordered_map>
#include <vector>

#include "core/error.h"
#include "core/file_writer.h"
#include "profiler/event_list.h"

namespace tl::profiler {
namespace {

std::string frame(const std::string& name) {
  std::string f = table_key(name);
  for (char& c : f)
    if (c == ' ' || c == ';' || c == '\t' || c == '\n') c = '_';
  return f;
}

void check_request(const EventList& list, const std::string& metric) {
  TL_CHECK(metric == "self_cpu_time_total", "export_stacks: metric should be one of: self_cpu_time_total; got \"",
           metric, "\"");
  TL_CHECK(list.info().with_stack, "export_stacks: requires a profile recorded with with_stack=true");
}

}  // namespace

void write_stacks(const EventList& list, std::ostream& out, const std::string& metric) {
  check_request(list, metric);
  std::vector<std::string> order;
  std::unordered_map<std::string, int64_t> total_ns;
  for (size_t index = 0; index < list.size(); ++index) {
    const FunctionEvent& e = list[index];
    if (!e.is_function() || e.self_cpu_time_total_ns <= 0) continue;
    const std::vector<std::string> entries = list.stack_entries(index, [](const FunctionEvent&) { return true; });
    std::string stack;
    for (size_t i = entries.size(); i-- > 0;) stack += frame(entries[i]) + ';';
    stack += frame(e.name);
    auto [it, inserted] = total_ns.try_emplace(stack, 0);
    if (inserted) order.push_back(stack);
    it->second += e.self_cpu_time_total_ns;
  }
  for (const std::string& stack : order) {
    const int64_t us = total_ns[stack] / 1000;
    if (us > 0) out << stack << ' ' << us << '\n';
  }
}

void EventList::export_stacks(const std::string& path, const std::string& metric) const {
  check_request(*this, metric);
  FileWriter file(path, "export_stacks");
  write_stacks(*this, file.stream(), metric);
  file.commit();
}

}  // namespace tl::profiler
