// trace/trace_reader.cpp — load_trace(): a SAX handler over nlohmann::json that keeps only the
// fields the analyses need, so a trace is never held as a DOM. Errors name the file and the event.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <istream>
#include <new>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/gzip.h"
#include "trace/trace.h"
#include "trace/trace_index.h"

namespace tl::trace {
namespace {

using detail::str_cat;
using Json = nlohmann::json;

constexpr int64_t kMaxMicros = 9'000'000'000'000'000;  // |ts| bound so nanoseconds fit in int64
// Nesting a trace may have: real ones nest 6 deep ("Input Dims" lists of lists inside "args"); without a
// bound, a file of 50 million '[' held 364 MB of parser state.
constexpr size_t kMaxDepth = 512;

enum class Kind { Null, Boolean, Integer, Unsigned, Float, String, Object, Array };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Null: return "null";
    case Kind::Boolean: return "a boolean";
    case Kind::Integer:
    case Kind::Unsigned:
    case Kind::Float: return "a number";
    case Kind::String: return "a string";
    case Kind::Object: return "an object";
    case Kind::Array: return "an array";
  }
  return "?";
}

// Nanoseconds from a plain decimal token of microseconds ("1700000000123456.789"), exactly: a double
// keeps only ~16 digits, which loses nanoseconds on epoch-based timestamps. nullopt for other forms
// (exponents, out-of-range values), which go through the double.
std::optional<int64_t> decimal_micros_to_ns(std::string_view token) {
  bool negative = token.starts_with('-');
  if (negative) token.remove_prefix(1);
  size_t dot = token.find('.');
  std::string_view whole = token.substr(0, dot), fraction = dot == std::string_view::npos ? "" : token.substr(dot + 1);
  if (whole.empty() || whole.size() > 16 || fraction.find_first_not_of("0123456789") != std::string_view::npos ||
      whole.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  int64_t micros = 0;
  for (char c : whole) micros = micros * 10 + (c - '0');
  if (micros >= kMaxMicros) return std::nullopt;
  int64_t ns = 0;
  for (size_t i = 0; i < 3; ++i) ns = ns * 10 + (i < fraction.size() ? fraction[i] - '0' : 0);
  if (fraction.size() > 3 && fraction[3] >= '5') ++ns;  // round half up on the first dropped digit
  int64_t total = micros * 1000 + ns;
  return negative ? -total : total;
}

// A scalar as the SAX callbacks deliver it: `text` is a string value (which may be moved from),
// `raw` a float's token as written.
struct Value {
  Kind kind;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string* text = nullptr;
  const std::string* raw = nullptr;
};

// args "stream" as HTA normalises it: pd.to_numeric(errors="coerce").fillna(-1).astype(int). Numbers,
// booleans and numeric text (spaces around allowed) are truncated toward zero; anything else, and what
// int64 cannot hold, is -1.
int64_t stream_number(const Value& v) {
  double d = 0;
  switch (v.kind) {
    case Kind::Integer:
    case Kind::Boolean: return v.i;
    case Kind::Unsigned: return v.u <= static_cast<uint64_t>(INT64_MAX) ? static_cast<int64_t>(v.u) : -1;
    case Kind::Float: d = v.d; break;
    case Kind::String: {
      std::string_view text = *v.text;
      const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
      while (!text.empty() && space(text.front())) text.remove_prefix(1);
      while (!text.empty() && space(text.back())) text.remove_suffix(1);
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return -1;
      break;
    }
    default: return -1;
  }
  return std::isfinite(d) && std::abs(d) < 9.2e18 ? static_cast<int64_t>(d) : -1;
}

// Re-serialises one JSON value compactly ("[[2, 3], []]") from SAX events.
class JsonWriter {
 public:
  void clear() {
    text_.clear();
    open_.clear();
  }
  void begin(bool object) {
    separate();
    text_ += object ? '{' : '[';
    open_.push_back(object ? '}' : ']');
    first_ = true;
  }
  void end() {
    text_ += open_.back();
    open_.pop_back();
    first_ = false;
  }
  void key(const std::string& k) {
    separate();
    text_ += Json(k).dump() + ": ";
    after_key_ = true;
  }
  void scalar(const Value& v) {
    separate();
    switch (v.kind) {
      case Kind::Null: text_ += "null"; break;
      case Kind::Boolean: text_ += v.i ? "true" : "false"; break;
      case Kind::Integer: text_ += std::to_string(v.i); break;
      case Kind::Unsigned: text_ += std::to_string(v.u); break;
      case Kind::Float: text_ += *v.raw; break;
      default: text_ += Json(*v.text).dump(); break;
    }
  }
  bool done() const { return open_.empty(); }
  std::string& text() { return text_; }

 private:
  void separate() {
    if (!first_ && !after_key_ && !open_.empty()) text_ += ", ";
    first_ = false;
    after_key_ = false;
  }

  std::string text_;
  std::string open_;
  bool first_ = true, after_key_ = false;
};

// The fields of the event being parsed, filled in whatever order its keys come.
struct RawEvent {
  std::string name, ph, cat, shapes, pid, tid;
  int64_t ts = 0, dur = 0, bytes = 0;
  int64_t stream = -1, correlation = -1;  // kineto's args: see OpEvent::stream
  bool has_name = false, has_ph = false, has_ts = false, has_dur = false, has_pid = false, has_tid = false;
};

class TraceSax {
 public:
  TraceSax(Trace& trace, std::string file) : trace_(trace), file_(std::move(file)) {
    trace_.strings.assign(1, std::string());
    strings_.emplace(std::string(), 0);
  }

  bool null() { return scalar({Kind::Null}); }
  bool boolean(bool b) { return scalar({Kind::Boolean, b ? 1 : 0}); }
  bool number_integer(Json::number_integer_t v) { return scalar({Kind::Integer, v}); }
  bool number_unsigned(Json::number_unsigned_t v) { return scalar({Kind::Unsigned, 0, v}); }
  bool number_float(Json::number_float_t v, const std::string& raw) {
    return scalar({Kind::Float, 0, 0, v, nullptr, &raw});
  }
  bool string(std::string& s) { return scalar({Kind::String, 0, 0, 0, &s}); }
  bool binary(Json::binary_t&) { return scalar({Kind::Null}); }
  bool start_object(std::size_t) { return open(Kind::Object); }
  bool start_array(std::size_t) { return open(Kind::Array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(std::string& k) {
    if (frames_.back() == Frame::Capture) writer_.key(k);
    key_ = std::move(k);
    return true;
  }
  /// The GPU-to-launch links seen so far.
  Correlations& correlations() { return correlations_; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = e.what();
    if (auto p = what.find("] "); what.starts_with("[json.exception") && p != std::string::npos) what.erase(0, p + 2);
    detail::throw_error(str_cat(file_, ": malformed JSON",
                                in_events_ ? str_cat(" in event ", event_index_) : std::string(), ": ", what));
  }

 private:
  enum class Frame { TopObject, Events, Event, Args, DistributedInfo, Capture, Skip };

  [[noreturn]] void fail(const std::string& what) const { detail::throw_error(str_cat(file_, ": ", what)); }
  [[noreturn]] void fail_event(const std::string& what) const {
    std::string name = raw_.has_name ? str_cat(" (\"", raw_.name, "\")") : std::string();
    fail(str_cat("event ", event_index_, name, ": ", what));
  }
  [[noreturn]] void fail_type(const char* field, const char* expected, Kind got) const {
    fail_event(str_cat("\"", field, "\" must be ", expected, ", got ", kind_name(got)));
  }

  bool scalar(const Value& v);
  bool open(Kind kind);
  bool close();
  void event_field(const Value& v);
  int64_t micros_to_ns(const Value& v, const char* field) const;
  std::string thread_part(const Value& v, const char* field) const;
  void finish_event();
  uint32_t intern(std::string& s);
  uint32_t thread(const std::string& pid, const std::string& tid);

  Trace& trace_;
  std::string file_;
  std::vector<Frame> frames_;
  std::string key_;
  bool saw_events_ = false, in_events_ = false;
  int64_t event_index_ = -1;
  RawEvent raw_;
  JsonWriter writer_;
  std::unordered_map<std::string, uint32_t> strings_;
  std::unordered_map<std::string, uint32_t> threads_;
  std::string thread_key_;
  Correlations correlations_;
};

bool TraceSax::scalar(const Value& v) {
  if (frames_.empty()) fail(str_cat("not a trace: the JSON is ", kind_name(v.kind),
                                    ", expected an array of events or an object with \"traceEvents\""));
  switch (frames_.back()) {
    case Frame::TopObject:
      if (key_ == "traceEvents") fail(str_cat("\"traceEvents\" must be an array, got ", kind_name(v.kind)));
      if (key_ == "distributedInfo") fail(str_cat("\"distributedInfo\" must be an object, got ", kind_name(v.kind)));
      break;
    case Frame::Events:
      ++event_index_;
      raw_ = RawEvent();
      fail_event(str_cat("expected an object, got ", kind_name(v.kind)));
    case Frame::Event: event_field(v); break;
    case Frame::Args:
      if (key_ == "Input Dims" || key_ == "Input dims") {
        writer_.clear();
        writer_.scalar(v);
        raw_.shapes = std::move(writer_.text());
      } else if (key_ == "Bytes") {
        if (v.kind != Kind::Integer && v.kind != Kind::Unsigned) fail_type("Bytes", "an integer", v.kind);
        raw_.bytes = v.kind == Kind::Integer ? v.i : static_cast<int64_t>(v.u);
      } else if (key_ == "stream") {
        raw_.stream = stream_number(v);
      } else if (key_ == "correlation" && (v.kind == Kind::Integer || v.kind == Kind::Unsigned)) {
        raw_.correlation = v.kind == Kind::Integer ? v.i : static_cast<int64_t>(v.u);
      }
      break;
    case Frame::DistributedInfo:
      if (key_ == "rank") {
        if (v.kind != Kind::Integer && v.kind != Kind::Unsigned)
          fail(str_cat("\"distributedInfo\": \"rank\" must be an integer, got ", kind_name(v.kind)));
        trace_.rank = v.kind == Kind::Integer ? v.i : static_cast<int64_t>(v.u);
      }
      break;
    case Frame::Capture: writer_.scalar(v); break;
    case Frame::Skip: break;
  }
  return true;
}

bool TraceSax::open(Kind kind) {
  bool object = kind == Kind::Object;
  if (frames_.size() >= kMaxDepth) fail(str_cat("the JSON nests deeper than ", kMaxDepth, " levels"));
  if (frames_.empty()) {
    trace_.format = object ? TraceFormat::Object : TraceFormat::LegacyArray;
    in_events_ = !object;
    frames_.push_back(object ? Frame::TopObject : Frame::Events);
    return true;
  }
  Frame next = Frame::Skip;
  switch (frames_.back()) {
    case Frame::TopObject:
      if (key_ == "traceEvents") {
        if (object) fail("\"traceEvents\" must be an array, got an object");
        next = Frame::Events;
        saw_events_ = in_events_ = true;
      } else if (key_ == "distributedInfo") {
        if (!object) fail("\"distributedInfo\" must be an object, got an array");
        next = Frame::DistributedInfo;
      }
      break;
    case Frame::Events:
      ++event_index_;
      raw_ = RawEvent();
      if (!object) fail_event("expected an object, got an array");
      next = Frame::Event;
      break;
    case Frame::Event:
      if (key_ == "args") {
        if (!object) fail_type("args", "an object", kind);
        next = Frame::Args;
      } else if (key_ == "name" || key_ == "ph" || key_ == "cat" || key_ == "ts" || key_ == "dur" ||
                 key_ == "pid" || key_ == "tid") {
        const char* expected = key_ == "ts" || key_ == "dur"    ? "a number"
                               : key_ == "pid" || key_ == "tid" ? "a number or a string"
                                                                : "a string";
        fail_type(key_.c_str(), expected, kind);
      }
      break;
    case Frame::Args:
      if (key_ == "Input Dims" || key_ == "Input dims") {
        writer_.clear();
        writer_.begin(object);
        next = Frame::Capture;
      }
      break;
    case Frame::DistributedInfo:
      if (key_ == "rank") fail(str_cat("\"distributedInfo\": \"rank\" must be an integer, got ", kind_name(kind)));
      break;
    case Frame::Capture:
      writer_.begin(object);
      next = Frame::Capture;
      break;
    case Frame::Skip: break;
  }
  frames_.push_back(next);
  return true;
}

bool TraceSax::close() {
  Frame frame = frames_.back();
  frames_.pop_back();
  switch (frame) {
    case Frame::Event: finish_event(); break;
    case Frame::Capture:
      writer_.end();
      if (writer_.done()) raw_.shapes = std::move(writer_.text());
      break;
    case Frame::Events: in_events_ = false; break;
    case Frame::TopObject:
      if (!saw_events_) fail("not a trace: the JSON object has no \"traceEvents\" array");
      break;
    default: break;
  }
  return true;
}

int64_t TraceSax::micros_to_ns(const Value& v, const char* field) const {
  double micros = 0;
  switch (v.kind) {
    case Kind::Integer:
      if (v.i > -kMaxMicros && v.i < kMaxMicros) return v.i * 1000;
      micros = static_cast<double>(v.i);
      break;
    case Kind::Unsigned:
      if (v.u < static_cast<uint64_t>(kMaxMicros)) return static_cast<int64_t>(v.u) * 1000;
      micros = static_cast<double>(v.u);
      break;
    case Kind::Float:
      if (std::optional<int64_t> ns = decimal_micros_to_ns(*v.raw)) return *ns;
      if (std::isfinite(v.d) && std::abs(v.d) < static_cast<double>(kMaxMicros)) return std::llround(v.d * 1000);
      micros = v.d;
      break;
    default: fail_type(field, "a number", v.kind);
  }
  fail_event(str_cat("\"", field, "\" is out of range: ", micros, " us"));
}

// Numbers in pid/tid keep their decimal text and strings are quoted, so 1 and "1" stay distinct.
std::string TraceSax::thread_part(const Value& v, const char* field) const {
  switch (v.kind) {
    case Kind::Integer: return std::to_string(v.i);
    case Kind::Unsigned: return std::to_string(v.u);
    case Kind::Float: return *v.raw;
    case Kind::String: return Json(*v.text).dump();
    default: fail_type(field, "a number or a string", v.kind);
  }
}

void TraceSax::event_field(const Value& v) {
  auto need_string = [&](const char* field) {
    if (v.kind != Kind::String) fail_type(field, "a string", v.kind);
    return std::move(*v.text);
  };
  if (key_ == "name") {
    raw_.name = need_string("name");
    raw_.has_name = true;
  } else if (key_ == "ph") {
    raw_.ph = need_string("ph");
    raw_.has_ph = true;
  } else if (key_ == "cat") {
    raw_.cat = need_string("cat");
  } else if (key_ == "ts") {
    raw_.ts = micros_to_ns(v, "ts");
    raw_.has_ts = true;
  } else if (key_ == "dur") {
    raw_.dur = micros_to_ns(v, "dur");
    raw_.has_dur = true;
  } else if (key_ == "pid") {
    raw_.pid = thread_part(v, "pid");
    raw_.has_pid = true;
  } else if (key_ == "tid") {
    raw_.tid = thread_part(v, "tid");
    raw_.has_tid = true;
  }
}

void TraceSax::finish_event() {
  if (!raw_.has_ph) fail_event("missing \"ph\"");
  if (raw_.ph == "X") {
    for (auto [has, field] : {std::pair{raw_.has_name, "name"}, {raw_.has_ts, "ts"}, {raw_.has_dur, "dur"},
                              {raw_.has_pid, "pid"}, {raw_.has_tid, "tid"}})
      if (!has) fail_event(str_cat("complete event (\"ph\": \"X\") has no \"", field, "\""));
    if (raw_.dur < 0) fail_event(str_cat("negative \"dur\": ", static_cast<double>(raw_.dur) / 1000, " us"));
    // Every analysis works with ends (ts + dur); they must be as representable as the starts.
    if (int64_t end; __builtin_add_overflow(raw_.ts, raw_.dur, &end))
      fail_event(str_cat("\"ts\" + \"dur\" is out of range: ", static_cast<double>(raw_.ts) / 1000, " + ",
                         static_cast<double>(raw_.dur) / 1000, " us"));
    OpEvent e;
    e.ts = raw_.ts;
    e.dur = raw_.dur;
    e.name = intern(raw_.name);
    e.category = intern(raw_.cat);
    e.shapes = intern(raw_.shapes);
    e.thread = thread(raw_.pid, raw_.tid);
    e.stream = raw_.stream;
    const auto index = static_cast<uint32_t>(trace_.events.size());
    if (raw_.stream > 0)
      correlations_.gpu.emplace_back(index, raw_.correlation);
    else if (raw_.correlation >= 0)
      correlations_.launch.try_emplace(raw_.correlation, index);
    trace_.events.push_back(e);
  } else if ((raw_.ph == "i" || raw_.ph == "I") && raw_.name == "[memory]") {
    ++trace_.memory_events;
    if (raw_.bytes > 0 && __builtin_add_overflow(trace_.allocated_bytes, raw_.bytes, &trace_.allocated_bytes))
      fail_event(str_cat("the allocations' \"Bytes\" add up past int64 (", raw_.bytes, " more)"));
  } else {
    ++trace_.other_events;
  }
}

uint32_t TraceSax::intern(std::string& s) {
  auto it = strings_.find(s);
  if (it != strings_.end()) return it->second;
  auto id = static_cast<uint32_t>(trace_.strings.size());
  trace_.strings.push_back(s);
  strings_.emplace(std::move(s), id);
  return id;
}

uint32_t TraceSax::thread(const std::string& pid, const std::string& tid) {
  thread_key_.assign(pid).append(1, '\n').append(tid);
  auto [it, inserted] = threads_.try_emplace(thread_key_, static_cast<uint32_t>(trace_.threads.size()));
  if (inserted) trace_.threads.push_back({pid, tid});
  return it->second;
}

// Parses `in` into `trace` and returns its GPU events' links; the caller has checked the file exists.
Correlations parse(std::istream& in, Trace& trace, const std::string& file) {
  TraceSax sax(trace, file);
  Json::sax_parse(in, &sax);
  return std::move(sax.correlations());
}

bool is_gzip_magic(const char* magic) {
  return static_cast<uint8_t>(magic[0]) == 0x1f && static_cast<uint8_t>(magic[1]) == 0x8b;
}

// The trace read from `source` (gzip data when `gzip`), indexed; `name` starts every error message.
// Memory runs out only for a value larger than memory (a string is read whole before it is seen).
Trace read_trace(std::streambuf& source, bool gzip, const std::filesystem::path& name) {
  Trace trace;
  trace.path = name;
  Correlations correlations;
  try {
    if (gzip) {
      GzipStreamBuf unzipped(source, name.string());
      std::istream in(&unzipped);
      correlations = parse(in, trace, name.string());
    } else {
      std::istream in(&source);
      correlations = parse(in, trace, name.string());
    }
  } catch (const std::bad_alloc&) {
    detail::throw_error(str_cat(name.string(), ": out of memory after ", trace.events.size(),
                                " events (a JSON value too large to hold?)"));
  }
  index_trace(trace, correlations);
  return trace;
}

// A read-only streambuf over a caller's bytes (std::ispanstream is C++23). The get area is declared
// as non-const char, but a get area is never written through.
class BytesBuf : public std::streambuf {
 public:
  explicit BytesBuf(std::span<const std::byte> data) {
    char* begin = const_cast<char*>(reinterpret_cast<const char*>(data.data()));
    setg(begin, begin, begin + data.size());
  }
};

}  // namespace

Trace load_trace(const std::filesystem::path& file) {
  std::error_code ec;
  TL_CHECK(std::filesystem::exists(file, ec), file.string(), ": no such file");
  TL_CHECK(!std::filesystem::is_directory(file, ec), file.string(), ": is a directory, expected a trace file");
  std::vector<char> io_buffer(1 << 20);
  std::filebuf raw;
  raw.pubsetbuf(io_buffer.data(), static_cast<std::streamsize>(io_buffer.size()));
  TL_CHECK(raw.open(file, std::ios::in | std::ios::binary), file.string(), ": cannot open for reading");

  char magic[2] = {0, 0};
  bool gzip = raw.sgetn(magic, 2) == 2 && is_gzip_magic(magic);
  TL_CHECK(raw.pubseekpos(0, std::ios::in) == std::streampos(0), file.string(), ": cannot rewind the file");
  bool gz_name = file.extension() == ".gz";
  TL_CHECK(gzip || !gz_name, file.string(), ": not a gzip file (bad magic bytes)");
  return read_trace(raw, gzip, file);
}

Trace load_trace(std::span<const std::byte> data, const std::string& name) {
  bool gzip = data.size() >= 2 && is_gzip_magic(reinterpret_cast<const char*>(data.data()));
  BytesBuf source(data);
  return read_trace(source, gzip, name);
}

}  // namespace tl::trace
