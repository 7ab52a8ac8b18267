// trace/trace_index.h — internal: what load_trace() derives once all events are read.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "trace/trace.h"

namespace tl::trace {

/// Kineto's links from GPU events (args "stream" > 0: kernels, copies) to the CPU events that
/// launched them (args "correlation" equal), collected while reading.
struct Correlations {
  /// (event index, its "correlation", or -1 without one) of each GPU event.
  std::vector<std::pair<uint32_t, int64_t>> gpu;
  /// "correlation" -> index of the first CPU event carrying it.
  std::unordered_map<int64_t, uint32_t> launch;
};

/// Fills `steps`, each event's `step` and each event's `self` time (its duration minus the part
/// covered by its direct children on the same thread). As HTA's add_iteration: a CPU event is in
/// the ProfilerStep#N span containing its start (of several, the last in file order); a GPU event
/// is in its launching event's step (-1 when the trace lacks it), wherever on the timeline the GPU
/// ran it.
void index_trace(Trace& trace, const Correlations& correlations = {});

/// N for a name HTA reads as step N: "ProfilerStep#N", spaces allowed around the '#' ("ProfilerStep #N"),
/// anything after the digits ignored; otherwise (or past 18 digits) -1.
int64_t profiler_step_number(std::string_view name);

}  // namespace tl::trace
