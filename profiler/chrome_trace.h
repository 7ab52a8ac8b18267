// profiler/chrome_trace.h — Chrome trace JSON (the kineto object form) that chrome://tracing,
// Perfetto and HTA open: "X" complete events in microseconds, "i" memory instants, "M" process
// and thread names, kineto's categories and args, distributedInfo.rank.
#pragma once

#include <iosfwd>

namespace tl::profiler {

class EventList;

/// Writes `events` as one JSON object:
///   {"schemaVersion": 1, "deviceProperties": [], "distributedInfo": {"backend", "rank", "world_size"},
///    "traceEvents": [...], "displayTimeUnit": "ms"}
/// Each event: {"ph": "X", "cat": "cpu_op" | "user_annotation" | "python_function", "name",
/// "pid", "tid", "ts", "dur", "args": {"External id", "Ev Idx", "Input Dims", "Input type",
/// "Fwd thread id", "Sequence number", "flops"}} with ts/dur in microseconds (nanosecond precision);
/// ProfilerStep#N events are "user_annotation". Forward-backward flows as kineto links them: for each
/// (thread, sequence number) of a forward op, {"ph": "s", "id", "pid", "tid", "ts", "cat": "fwdbwd",
/// "name": "fwdbwd"} at the latest forward op with that number and {"ph": "f", ..., "bp": "e"} at the
/// latest backward scope of that node (its node scope, inside its evaluate_function). Memory: {"ph":
/// "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "args": {"Total Reserved", "Total
/// Allocated", "Bytes", "Addr", "Device Id", "Device Type"}}. Metadata: process_name,
/// process_labels, thread_name, thread_sort_index. distributedInfo is core/distributed_info.h's when the trace is
/// written: {"backend": "gloo", "rank": 1, "world_size": 2} in a process group (HTA reads a directory of ranks by
/// it), {"backend": "none", "rank": 0, "world_size": 1} otherwise.
void write_chrome_trace(const EventList& events, std::ostream& out);

}  // namespace tl::profiler
