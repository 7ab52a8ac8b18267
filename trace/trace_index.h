// trace/trace_index.h — internal: what load_trace() derives once all events are read.
#pragma once

#include "trace/trace.h"

namespace tl::trace {

/// Fills `steps`, each event's `step` (from ProfilerStep#N spans) and each event's `self` time
/// (its duration minus the part covered by its direct children on the same thread).
void index_trace(Trace& trace);

/// N for a name HTA reads as step N: "ProfilerStep#N", spaces allowed around the '#' ("ProfilerStep #N"),
/// anything after the digits ignored; otherwise (or past 18 digits) -1.
int64_t profiler_step_number(std::string_view name);

}  // namespace tl::trace
