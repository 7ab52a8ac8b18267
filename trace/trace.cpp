// trace/trace.cpp — iterations and self times of a loaded trace, and trace sets (directories
// or lists of files). Self time is never negative, even when children overlap their parent's end.
#include "trace/trace.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "core/error.h"
#include "trace/trace_index.h"

namespace tl::trace {
namespace {

struct StepSpan {
  int64_t start, end, step;
};

void assign_steps(Trace& trace) {
  std::vector<int64_t> step_of(trace.strings.size(), -1);
  for (size_t i = 0; i < trace.strings.size(); ++i) step_of[i] = profiler_step_number(trace.strings[i]);
  std::vector<StepSpan> spans;
  for (const OpEvent& e : trace.events)
    if (step_of[e.name] >= 0) spans.push_back({e.ts, e.ts + e.dur, step_of[e.name]});
  std::sort(spans.begin(), spans.end(), [](const StepSpan& a, const StepSpan& b) { return a.start < b.start; });

  for (const StepSpan& s : spans) trace.steps.push_back(s.step);
  std::sort(trace.steps.begin(), trace.steps.end());
  trace.steps.erase(std::unique(trace.steps.begin(), trace.steps.end()), trace.steps.end());
  if (spans.empty()) return;

  for (OpEvent& e : trace.events) {
    auto after = std::upper_bound(spans.begin(), spans.end(), e.ts,
                                  [](int64_t ts, const StepSpan& s) { return ts < s.start; });
    if (after == spans.begin()) continue;
    const StepSpan& s = *(after - 1);
    if (e.ts < s.end || e.ts == s.start) e.step = s.step;
  }
}

// Walks each thread's events in start order with a stack of open ancestors; a child's time inside
// its parent is subtracted from the parent only (direct children), clipped to the parent's end.
void assign_self_times(Trace& trace) {
  std::vector<OpEvent>& ev = trace.events;
  std::vector<uint32_t> order(ev.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const OpEvent &x = ev[a], &y = ev[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.ts != y.ts) return x.ts < y.ts;
    if (x.dur != y.dur) return x.dur > y.dur;  // the enclosing event first
    return a < b;
  });
  std::vector<int64_t> children(ev.size(), 0);
  std::vector<uint32_t> open;
  for (uint32_t i : order) {
    const OpEvent& e = ev[i];
    while (!open.empty() && (ev[open.back()].thread != e.thread || ev[open.back()].ts + ev[open.back()].dur <= e.ts))
      open.pop_back();
    if (!open.empty()) {
      const OpEvent& parent = ev[open.back()];
      children[open.back()] += std::min(e.ts + e.dur, parent.ts + parent.dur) - e.ts;
    }
    open.push_back(i);
  }
  for (size_t i = 0; i < ev.size(); ++i) ev[i].self = std::max<int64_t>(0, ev[i].dur - children[i]);
}

void add_directory(const std::filesystem::path& dir, std::vector<std::filesystem::path>& files) {
  std::error_code ec;
  std::vector<std::filesystem::path> found;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec) && is_trace_file_name(it->path())) found.push_back(it->path());
  }
  TL_CHECK(!ec, dir.string(), ": cannot list the directory: ", ec.message());
  TL_CHECK(!found.empty(), dir.string(), ": no trace files (*.json, *.json.gz) in the directory");
  std::sort(found.begin(), found.end());
  files.insert(files.end(), found.begin(), found.end());
}

}  // namespace

int64_t profiler_step_number(std::string_view name) {
  // HTA's re.match(r"ProfilerStep\s*#\s*(\d+)", name): spaces around '#', anything after the digits.
  constexpr std::string_view kPrefix = "ProfilerStep";
  if (!name.starts_with(kPrefix)) return -1;
  size_t i = kPrefix.size();
  const auto skip_spaces = [&] {
    while (i < name.size() && std::isspace(static_cast<unsigned char>(name[i]))) ++i;
  };
  skip_spaces();
  if (i == name.size() || name[i] != '#') return -1;
  ++i;
  skip_spaces();
  const size_t first_digit = i;
  int64_t n = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) {
    if (i - first_digit == 18) return -1;  // past int64
    n = n * 10 + (name[i] - '0');
  }
  return i == first_digit ? -1 : n;
}

void index_trace(Trace& trace, const Correlations& correlations) {
  assign_steps(trace);
  for (const auto& [event, correlation] : correlations.gpu) {
    const auto launch = correlations.launch.find(correlation);
    trace.events[event].step = launch == correlations.launch.end() ? -1 : trace.events[launch->second].step;
  }
  assign_self_times(trace);
}

int64_t TraceSet::event_count() const {
  int64_t n = 0;
  for (const Trace& t : traces) n += static_cast<int64_t>(t.events.size());
  return n;
}

bool is_trace_file_name(const std::filesystem::path& name) {
  std::string s = name.filename().string();
  return s.ends_with(".json") || s.ends_with(".json.gz");
}

TraceSet load_trace_set(std::span<const std::filesystem::path> paths) {
  TL_CHECK(!paths.empty(), "load_trace_set: expected at least one trace file or directory");
  std::vector<std::filesystem::path> files;
  TraceSet set;
  for (const auto& p : paths) {
    std::error_code ec;
    TL_CHECK(std::filesystem::exists(p, ec), p.string(), ": no such file or directory");
    if (std::filesystem::is_directory(p, ec))
      add_directory(p, files);
    else
      files.push_back(p);
    set.label += (set.label.empty() ? "" : ", ") + p.string();
  }
  for (const auto& f : files) set.traces.push_back(load_trace(f));
  return set;
}

TraceSet load_trace_set(const std::filesystem::path& path) { return load_trace_set(std::span(&path, 1)); }

}  // namespace tl::trace
