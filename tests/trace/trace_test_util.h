// tests/trace/trace_test_util.h — helpers for the trace tests: a self-deleting temporary
// directory and a builder that writes Chrome traces in the format our profiler exports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/file_testing.h"

namespace tl::trace::testing {

/// A scratch directory (tl::testing::ScratchDir) that also writes files into itself.
class TempDir : public tl::testing::ScratchDir {
 public:
  std::filesystem::path operator/(const std::string& name) const { return path() / name; }

  /// Writes `content` to `name` inside the directory and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& content) const {
    std::filesystem::path p = path() / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
};

using tl::testing::read_file;

/// Builds {"traceEvents": [...], "distributedInfo": {"rank": N}} as our profiler writes it. Times
/// are given in microseconds.
class ChromeTraceBuilder {
 public:
  explicit ChromeTraceBuilder(int rank = -1) : rank_(rank) {}

  ChromeTraceBuilder& op(const std::string& name, double ts, double dur, int tid = 1,
                         const std::string& cat = "cpu_op", const std::string& shapes = "") {
    std::string args = shapes.empty() ? "{}" : "{\"Input Dims\": " + shapes + "}";
    events_.push_back("{\"ph\": \"X\", \"name\": \"" + name + "\", \"cat\": \"" + cat + "\", \"ts\": " + num(ts) +
                      ", \"dur\": " + num(dur) + ", \"pid\": 7, \"tid\": " + std::to_string(tid) + ", \"args\": " + args + "}");
    return *this;
  }
  ChromeTraceBuilder& step(int64_t n, double ts, double dur) {
    return op("ProfilerStep#" + std::to_string(n), ts, dur, 1, "user_annotation");
  }
  ChromeTraceBuilder& memory(double ts, int64_t bytes) {
    events_.push_back("{\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"cat\": \"cpu_instant_event\", \"ts\": " +
                      num(ts) + ", \"pid\": 7, \"tid\": 1, \"args\": {\"Bytes\": " + std::to_string(bytes) +
                      ", \"Total Allocated\": 0}}");
    return *this;
  }
  ChromeTraceBuilder& raw(const std::string& event_json) {
    events_.push_back(event_json);
    return *this;
  }
  std::string str() const {
    std::string s = "{\"schemaVersion\": 1,";
    if (rank_ >= 0) s += " \"distributedInfo\": {\"rank\": " + std::to_string(rank_) + ", \"world_size\": 2},";
    s += " \"traceEvents\": [\n  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"tid\": 0, \"args\": {\"name\": \"torchless\"}}";
    for (const std::string& e : events_) s += ",\n  " + e;
    return s + "\n]}\n";
  }

 private:
  static std::string num(double v) {
    std::string s = std::to_string(v);
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
    return s;
  }

  int rank_;
  std::vector<std::string> events_;
};

using tl::testing::system_gzip;

}  // namespace tl::trace::testing
