// trace/trace.cpp — iterations and self times of a loaded trace, and trace sets (directories
// or lists of files). Self time is never negative, even when children overlap their parent's end.
#include "trace/trace.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <set>

#include "core/error.h"
#include "trace/trace_index.h"

namespace tl::trace {
namespace {

// As HTA's add_iteration: an event is in step N when a ProfilerStep#N span (on any thread: the CPU's,
// and kineto's gpu_user_annotation copy on the GPU timeline) holds its start, start <= ts < start + dur;
// when several do, the one latest in file order wins, as HTA keeps the last match. So where the GPU span
// of step N overlaps step N + 1 on the CPU (the GPU runs behind), HTA puts those CPU events in step N,
// and so do we. One sweep over the span boundaries, keeping the spans open at each.
void assign_steps(Trace& trace) {
  std::vector<int64_t> step_of(trace.strings.size(), -1);
  for (size_t i = 0; i < trace.strings.size(); ++i) step_of[i] = profiler_step_number(trace.strings[i]);
  struct Boundary {
    int64_t ts;
    bool opens;
    uint32_t span;  // the span's event index: its file order
  };
  std::vector<Boundary> boundaries;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    const OpEvent& e = trace.events[i];
    if (step_of[e.name] < 0) continue;
    trace.steps.push_back(step_of[e.name]);
    if (e.dur > 0) boundaries.insert(boundaries.end(), {{e.ts, true, i}, {e.ts + e.dur, false, i}});
  }
  std::sort(trace.steps.begin(), trace.steps.end());
  trace.steps.erase(std::unique(trace.steps.begin(), trace.steps.end()), trace.steps.end());
  if (boundaries.empty()) return;
  std::sort(boundaries.begin(), boundaries.end(), [](const Boundary& a, const Boundary& b) { return a.ts < b.ts; });

  // starts[k]: where the k-th stretch of time begins; owner[k]: its step (-1: no span holds it).
  std::vector<int64_t> starts, owner;
  std::set<uint32_t> open;
  for (size_t b = 0; b < boundaries.size();) {
    const int64_t ts = boundaries[b].ts;
    for (; b < boundaries.size() && boundaries[b].ts == ts; ++b) {
      if (boundaries[b].opens) open.insert(boundaries[b].span);
      else open.erase(boundaries[b].span);
    }
    starts.push_back(ts);
    owner.push_back(open.empty() ? -1 : step_of[trace.events[*open.rbegin()].name]);
  }
  for (OpEvent& e : trace.events) {
    const auto after = std::upper_bound(starts.begin(), starts.end(), e.ts);
    if (after != starts.begin()) e.step = owner[static_cast<size_t>(after - starts.begin()) - 1];
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
