// trace/trace.h — trace files loaded for analysis: our Chrome traces, kineto's object form and
// PyTorch's legacy bare array, plain or gzip-compressed, streamed so only the kept fields use memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/file_writer.h"

namespace tl::trace {

/// One complete event ("ph": "X") reduced to what the analyses need. String fields are indices into
/// the owning Trace's `strings`; times are nanoseconds (the JSON holds microseconds).
struct OpEvent {
  int64_t ts = 0;          ///< start
  int64_t dur = 0;         ///< inclusive duration, >= 0
  int64_t self = 0;        ///< dur minus the time covered by direct children on the same thread, >= 0
  int64_t step = -1;       ///< N of the ProfilerStep#N span containing `ts` (any thread), -1 outside
  uint32_t name = 0;
  uint32_t category = 0;   ///< "cat"; "" when absent (PyTorch's legacy format has none)
  uint32_t shapes = 0;     ///< args "Input Dims" as compact JSON text ("[[2, 3], []]"), "" when absent
  uint32_t thread = 0;     ///< index into Trace::threads
  /// args "stream" as HTA reads it (pandas' to_numeric, truncated to an integer), -1 when absent or not
  /// a number. Kineto gives one to the events that run on a GPU stream: kernel, gpu_memcpy, gpu_memset
  /// (and a newer kineto's cuda_sync); HTA's DeviceType calls an event GPU exactly when it is not -1.
  int64_t stream = -1;
};

/// How the file was laid out.
enum class TraceFormat {
  Object,       ///< {"traceEvents": [...], ...}: ours and kineto's
  LegacyArray,  ///< a bare array of events: torch.autograd.profiler's export_chrome_trace
};

/// A (pid, tid) pair as written in the file: numbers as their decimal text, strings quoted.
struct ThreadKey {
  std::string pid, tid;
  bool operator==(const ThreadKey&) const = default;
};

/// One loaded trace file.
struct Trace {
  std::filesystem::path path;
  TraceFormat format = TraceFormat::Object;
  std::optional<int64_t> rank;       ///< "distributedInfo": {"rank": N} when present
  std::vector<OpEvent> events;       ///< complete events, in file order
  std::vector<std::string> strings;  ///< interned names, categories and shapes; strings[0] == ""
  std::vector<ThreadKey> threads;
  std::vector<int64_t> steps;        ///< distinct ProfilerStep numbers, ascending
  int64_t memory_events = 0;         ///< instant events ("ph": "i") named "[memory]"
  int64_t allocated_bytes = 0;       ///< sum of their positive args "Bytes"
  int64_t other_events = 0;          ///< metadata, other instants and phases the analyses ignore

  const std::string& str(uint32_t id) const { return strings[id]; }
};

/// Loads one trace file, .json or .json.gz (gzip is recognised by its magic bytes). The JSON is
/// parsed as a stream (SAX), so a 1 GB trace needs memory for its kept events only (about 60 bytes
/// per complete event), not for its text. Computes each event's self time and ProfilerStep.
/// Only complete events become ops; begin/end pairs, flows, counters and metadata are counted in
/// `other_events` and otherwise ignored.
/// Throws tl::Error naming the file (and the event index where one is at fault) for: a missing or
/// unreadable file, corrupt gzip data, malformed JSON, JSON that is not a trace, and events with
/// missing or mistyped fields ("name", "ph", "ts", "dur", "pid", "tid"), a negative duration, or times
/// whose nanoseconds do not fit in int64 (|ts| from 9e15 us, ts + dur from about 9.2e15 us).
Trace load_trace(const std::filesystem::path& file);

/// load_trace(file) for a trace held in memory, plain or gzip-compressed (recognised by its magic
/// bytes). `name` stands for the file in error messages and becomes the trace's `path`.
Trace load_trace(std::span<const std::byte> data, const std::string& name = "<bytes>");

/// Several traces standing for one side of a comparison: the ranks of one job, or repeated runs.
struct TraceSet {
  std::string label;          ///< the path(s) the set was loaded from, for reports
  std::vector<Trace> traces;  ///< in path order; a directory's files sorted by name

  int64_t event_count() const;
};

/// Loads a set: each path is a trace file or a directory whose *.json and *.json.gz files (not
/// recursive) are taken. Throws tl::Error for an empty list, a missing path or a directory without
/// trace files, and for any file load_trace() rejects.
TraceSet load_trace_set(std::span<const std::filesystem::path> paths);
TraceSet load_trace_set(const std::filesystem::path& path);

/// True when `name` looks like a trace file (*.json or *.json.gz).
bool is_trace_file_name(const std::filesystem::path& name);

/// Deprecated in 0.2.0, removed in 0.3.0: every file torchless writes goes through tl::write_file
/// (core/file_writer.h); this calls it (CHANGELOG.md).
[[deprecated("tl::trace::write_text_file is tl::write_file (core/file_writer.h)")]]
inline void write_text_file(const std::filesystem::path& file, std::string_view text) {
  write_file(file.string(), text, "text file");
}

}  // namespace tl::trace
