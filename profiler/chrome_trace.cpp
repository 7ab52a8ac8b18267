// profiler/chrome_trace.cpp — a streaming JSON writer (traces reach 10^5 events; no DOM) with
// exact microsecond text: ts and dur are printed from integer nanoseconds, never via a double.
#include "profiler/chrome_trace.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/distributed_info.h"
#include "core/file_writer.h"
#include "profiler/event_list.h"

namespace tl::profiler {
namespace {

// The length of the well-formed UTF-8 sequence at s[i] (Unicode's table 3-7: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0 with `bad` set to the length of its maximal ill-formed
// subpart, which a decoder replaces by one U+FFFD (as Python's errors="replace" does).
size_t utf8_sequence(std::string_view s, size_t i, size_t& bad) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  const size_t n = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  // The second byte's range excludes the overlong forms (E0, F0), surrogates (ED) and > U+10FFFF (F4).
  const unsigned char lo = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
  const unsigned char hi = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
  size_t k = 1;
  for (; n > 0 && k < n && i + k < s.size(); ++k) {
    const unsigned char c = byte(i + k);
    if (k == 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) break;
  }
  if (n > 0 && k == n) return n;
  bad = k;
  return 0;
}

// A JSON string; bytes that are not UTF-8 (a C++ scope name may hold any) become U+FFFD, since JSON
// readers (Python's, nlohmann's, Perfetto's) refuse the whole file otherwise.
void write_string(std::ostream& out, const std::string& s) {
  out << '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      size_t bad = 0;
      const size_t n = utf8_sequence(s, i, bad);
      out << (n > 0 ? s.substr(i, n) : "\xef\xbf\xbd");
      i += (n > 0 ? n : bad) - 1;
      continue;
    }
    switch (c) {
      case '"': out << "\\\""; break;
      case '\\': out << "\\\\"; break;
      case '\n': out << "\\n"; break;
      case '\t': out << "\\t"; break;
      case '\r': out << "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out << buf;
        } else {
          out << c;
        }
    }
  }
  out << '"';
}

// Nanoseconds as microseconds with three decimals ("1234.567").
void write_us(std::ostream& out, int64_t ns) {
  if (ns < 0) {
    out << '-';
    ns = -ns;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
  out << buf;
}

void write_shapes(std::ostream& out, const std::vector<Shape>& shapes) {
  out << '[';
  for (size_t i = 0; i < shapes.size(); ++i) {
    out << (i ? ", [" : "[");
    for (int64_t d = 0; d < shapes[i].size(); ++d) out << (d ? ", " : "") << shapes[i][d];
    out << ']';
  }
  out << ']';
}

void write_strings(std::ostream& out, const std::vector<std::string>& values) {
  out << '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out << ", ";
    write_string(out, values[i]);
  }
  out << ']';
}

void write_event(std::ostream& out, const FunctionEvent& e, const std::vector<std::string>& stack, size_t index,
                 int64_t pid, bool shapes) {
  out << "{\"ph\": \"X\", \"cat\": \"" << event_category(e.kind) << "\", \"name\": ";
  write_string(out, e.name);
  out << ", \"pid\": " << pid << ", \"tid\": " << e.thread << ", \"ts\": ";
  write_us(out, e.start_ns);
  out << ", \"dur\": ";
  write_us(out, e.cpu_time_total_ns());
  out << ", \"args\": {\"External id\": " << index + 1 << ", \"Ev Idx\": " << index;
  // As Kineto: every cpu_op with recorded inputs, the ATen scopes a kernel opens included; a runtime scope
  // without inputs (autograd's evaluate_function) has none.
  if (shapes && (e.kind == EventKind::Op || (e.kind == EventKind::Function && !e.input_shapes.empty()))) {
    out << ", \"Input Dims\": ";
    write_shapes(out, e.input_shapes);
    out << ", \"Input type\": ";
    write_strings(out, e.input_types);
  }
  if (e.sequence_nr >= 0)
    out << ", \"Fwd thread id\": " << e.forward_thread << ", \"Sequence number\": " << e.sequence_nr;
  if (e.flops > 0) out << ", \"flops\": " << e.flops;
  for (const auto& [key, value] : e.extra_meta) {
    out << ", ";
    write_string(out, key);
    out << ": " << value;
  }
  if (!stack.empty()) {
    // Kineto's with_stack metadata: the event's stack entries, innermost first, joined by ';'.
    std::string joined;
    for (const std::string& entry : stack) joined += (joined.empty() ? "" : ";") + entry;
    out << ", \"Call stack\": ";
    write_string(out, joined);
  }
  out << "}}";
}

// Kineto's forward-backward links: a forward op (forward_thread 0) and the backward scopes of its node
// share (thread of the forward, sequence number). Among forward ops with one key the latest is the
// one that recorded the node (a composite op's parts share its number in PyTorch); among backward
// scopes the latest is the node's own scope. Kineto numbers a link per backward scope and keeps the
// last, leaving the evaluate_function's "f" without an "s"; no viewer draws that one, so it is not written.
std::vector<std::pair<size_t, size_t>> forward_backward_links(const EventList& list) {
  std::map<std::pair<uint64_t, int64_t>, size_t> forward, backward;
  for (size_t i = 0; i < list.size(); ++i) {
    const FunctionEvent& e = list[i];
    if (e.sequence_nr < 0) continue;
    const bool is_forward = e.forward_thread == 0;
    auto& latest = is_forward ? forward : backward;
    auto [it, fresh] = latest.try_emplace({is_forward ? e.thread : e.forward_thread, e.sequence_nr}, i);
    if (!fresh && e.start_ns >= list[it->second].start_ns) it->second = i;
  }
  std::vector<std::pair<size_t, size_t>> links;
  for (const auto& [key, b] : backward)
    if (auto f = forward.find(key); f != forward.end()) links.emplace_back(f->second, b);
  std::sort(links.begin(), links.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
  return links;
}

void write_flow(std::ostream& out, char phase, size_t id, const FunctionEvent& e, int64_t pid) {
  out << "{\"ph\": \"" << phase << "\", \"id\": " << id << ", \"pid\": " << pid << ", \"tid\": " << e.thread
      << ", \"ts\": ";
  write_us(out, e.start_ns);
  out << ", \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"" << (phase == 'f' ? ", \"bp\": \"e\"}" : "}");
}

void write_memory(std::ostream& out, const MemoryEvent& m, int64_t pid) {
  out << "{\"ph\": \"i\", \"s\": \"t\", \"cat\": \"cpu_instant_event\", \"name\": \"" << kMemoryEventName
      << "\", \"pid\": " << pid << ", \"tid\": " << m.thread << ", \"ts\": ";
  write_us(out, m.time_ns);
  out << ", \"args\": {\"Total Reserved\": 0, \"Total Allocated\": " << m.total_allocated << ", \"Bytes\": " << m.bytes
      << ", \"Addr\": " << m.address << ", \"Device Id\": -1, \"Device Type\": 0}}";
}

void write_metadata(std::ostream& out, const char* name, int64_t pid, uint64_t tid, int64_t ts_ns,
                    const char* key, const std::string& value, bool quoted) {
  out << "{\"name\": \"" << name << "\", \"ph\": \"M\", \"ts\": ";
  write_us(out, ts_ns);
  out << ", \"pid\": " << pid << ", \"tid\": " << tid << ", \"args\": {\"" << key << "\": ";
  if (quoted) write_string(out, value);
  else out << value;
  out << "}}";
}

std::string thread_label(const EventListInfo& info, uint64_t tid) {
  for (const auto& [id, name] : info.thread_names)
    if (id == tid && !name.empty()) return "thread " + std::to_string(tid) + " (" + name + ")";
  return "thread " + std::to_string(tid);
}

}  // namespace

void write_chrome_trace(const EventList& list, std::ostream& out) {
  const EventListInfo& info = list.info();
  const int64_t pid = info.process_id;
  const int64_t t0 = info.window_start_ns;
  const DistributedInfo dist = distributed_info();  // the process group's rank, when one is joined
  out << "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n"
      << "  \"distributedInfo\": {\"backend\": \"" << dist.backend << "\", \"rank\": " << dist.rank
      << ", \"world_size\": " << dist.world_size << "},\n"
      << "  \"traceEvents\": [\n";
  bool first = true;
  auto next = [&]() -> std::ostream& {
    out << (first ? "    " : ",\n    ");
    first = false;
    return out;
  };
  std::set<uint64_t> threads;
  for (size_t i = 0; i < list.size(); ++i) {
    write_event(next(), list[i], list.stack(i), i, pid, info.record_shapes);
    threads.insert(list[i].thread);
  }
  size_t flow_id = 0;
  for (const auto& [forward, backward] : forward_backward_links(list)) {
    ++flow_id;
    write_flow(next(), 's', flow_id, list[forward], pid);
    write_flow(next(), 'f', flow_id, list[backward], pid);
  }
  for (const MemoryEvent& m : list.memory_events()) {
    write_memory(next(), m, pid);
    threads.insert(m.thread);
  }
  for (const auto& [tid, name] : info.thread_names) threads.insert(tid);
  write_metadata(next(), "process_name", pid, 0, t0, "name", "torchless", true);
  write_metadata(next(), "process_labels", pid, 0, t0, "labels", "CPU", true);
  for (uint64_t tid : threads) {
    write_metadata(next(), "thread_name", pid, tid, t0, "name", thread_label(info, tid), true);
    write_metadata(next(), "thread_sort_index", pid, tid, t0, "sort_index", std::to_string(tid), false);
  }
  out << "\n  ],\n  \"displayTimeUnit\": \"ms\"\n}\n";
}

void EventList::export_chrome_trace(const std::string& path) const {
  FileWriter file(path, "export_chrome_trace");
  write_chrome_trace(*this, file.stream());
  file.commit();
}

}  // namespace tl::profiler
