// trace/comm_overlap.h — how much of a trace's communication ran while its computation did: HTA's
// get_comm_comp_overlap (analyzers/communication_analysis.py) for traces whose communication runs on CPU threads (a
// Gloo process group's gloo:* scopes, on its worker thread), where HTA's own measure, which counts GPU kernels
// only, finds nothing to measure.
#pragma once

#include <cstdint>

#include "trace/trace.h"

namespace tl::trace {

/// One trace's communication and computation, each the union of its events' intervals, as HTA merges kernels.
struct CommOverlap {
  /// The union of the "gloo:" events (user_annotation): the collectives where their threads ran them.
  int64_t communication_ns = 0;
  /// The union of the "aten::" cpu_op events on the threads that ran no communication.
  int64_t computation_ns = 0;
  /// The time both ran.
  int64_t overlap_ns = 0;

  /// overlap_ns / communication_ns: HTA's comp_comm_overlap_ratio (0 without communication, where HTA's is NaN).
  double ratio() const;
};

/// The overlap over the whole of `trace`.
CommOverlap comm_comp_overlap(const Trace& trace);

}  // namespace tl::trace
