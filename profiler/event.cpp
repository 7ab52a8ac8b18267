// profiler/event.cpp — event helpers: trace categories, PyTorch's shape-list text, averaging.
#include "profiler/event.h"

#include <sstream>

namespace tl::profiler {

const char* event_category(EventKind kind) {
  switch (kind) {
    case EventKind::Op:
    case EventKind::Function: return "cpu_op";
    case EventKind::UserAnnotation:
    case EventKind::ProfilerStep: return "user_annotation";
    case EventKind::Module: return "python_function";
  }
  return "cpu_op";
}

std::string shapes_to_string(const std::vector<Shape>& shapes) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shapes.size(); ++i) os << (i ? ", " : "") << shapes[i];
  os << ']';
  return os.str();
}

void FunctionEventAvg::add(const FunctionEvent& event) {
  if (count == 0) {
    // Like PyTorch, a group shows its first event's parentage (and its stack: see key_averages).
    is_top_level = event.cpu_parent < 0;
  }
  count += 1;
  cpu_time_total_ns += event.cpu_time_total_ns();
  self_cpu_time_total_ns += event.self_cpu_time_total_ns;
  cpu_memory_usage += event.cpu_memory_usage;
  self_cpu_memory_usage += event.self_cpu_memory_usage;
  flops += event.flops;
}

}  // namespace tl::profiler
