// trace/diff_format.cpp — DiffTable as a plain-text table and as CSV. The text table uses
// PyTorch profiler-style adaptive units; the CSV keeps full precision in microseconds.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/error.h"
#include "core/text_table.h"
#include "trace/trace_diff.h"

namespace tl::trace {
namespace {

std::string printf_text(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, value);
  return buf;
}

std::string sign_prefix(double v, bool signed_value) { return signed_value && v > 0 ? "+" : ""; }

// Microseconds as "12.345us", "1.234ms" or "2.000s", like torch.autograd.profiler_util.
std::string format_time(double us, bool signed_value = false) {
  if (std::abs(us) < 5e-4) us = 0;  // would print as "-0.000us"
  double a = std::abs(us);
  std::string s = a >= 1e6 ? printf_text("%.3fs", us / 1e6)
                  : a >= 1e3 ? printf_text("%.3fms", us / 1e3)
                             : printf_text("%.3fus", us);
  return sign_prefix(us, signed_value) + s;
}

std::string format_count(double c, bool signed_value = false) {
  if (std::abs(c) < 5e-3) c = 0;  // would print as "-0.00"
  bool integral = std::abs(c - std::round(c)) < 1e-9;
  return sign_prefix(c, signed_value) + printf_text(integral ? "%.0f" : "%.2f", c);
}

// A label longer than the column, shortened as the profiler's tables shorten names.
std::string fit(const std::string& s, size_t width) {
  return s.size() <= width ? s : shorten_name(s, static_cast<int64_t>(width));
}

std::string plural(int64_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_number(double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, end);
}

// "ProfilerStep#1" or "ProfilerSteps #2-#4" / "#1, #3"; empty for a side taken whole.
std::string steps_text(const std::vector<int64_t>& steps) {
  if (steps.empty()) return "";
  if (steps.size() == 1) return ", ProfilerStep#" + std::to_string(steps[0]);
  bool contiguous = steps.back() - steps.front() + 1 == static_cast<int64_t>(steps.size());
  if (contiguous) return ", ProfilerSteps #" + std::to_string(steps.front()) + "-#" + std::to_string(steps.back());
  std::string s = ", ProfilerSteps ";
  for (size_t i = 0; i < steps.size(); ++i) s += (i ? ", #" : "#") + std::to_string(steps[i]);
  return s;
}

}  // namespace

std::string DiffTable::table() const {
  size_t width = 4;  // "Name"
  for (const OpDiff& r : rows) width = std::max(width, r.label().size());
  return format_table(width);
}

std::string DiffTable::table(size_t name_width) const {
  TL_CHECK(name_width >= 1 && name_width <= kMaxNameWidth, "DiffTable::table: name_width must be in [1, ",
           kMaxNameWidth, "], got ", name_width);
  return format_table(name_width);
}

std::string DiffTable::format_table(size_t name_width) const {
  constexpr int kNum = 10, kChange = 10;
  const char* headers[] = {"Ctl count", "Test count", "Diff count", "Ctl total", "Test total",
                           "Diff total", "Ctl self", "Test self", "Diff self"};
  std::ostringstream os;
  os << "TraceDiff: control " << control_label << " (" << plural(control_traces, "trace") << ", "
     << plural(control_iterations, "iteration") << steps_text(control_steps) << "), test " << test_label << " ("
     << plural(test_traces, "trace") << ", " << plural(test_iterations, "iteration") << steps_text(test_steps)
     << ")\n";
  os << (per_iteration ? "Counts and durations are per-iteration means" : "Counts and durations are totals")
     << "; total = inclusive, self = exclusive of direct children.\n";
  if (device_type != DeviceType::All || short_names)
    os << (device_type == DeviceType::GPU   ? "GPU events only (args \"stream\")"
           : device_type == DeviceType::CPU ? "CPU events only (no args \"stream\")"
                                            : "CPU and GPU events")
       << (short_names ? "; names shortened as HTA's use_short_name.\n" : ".\n");

  std::string rule = std::string(name_width, '-') + "  " + std::string(kChange, '-');
  for (size_t i = 0; i < std::size(headers); ++i) rule += "  " + std::string(kNum, '-');
  char line[512];
  auto row_line = [&](const std::string& name, const std::string& change, const std::string (&cells)[9]) {
    std::string out = fit(name, name_width);
    out.resize(name_width, ' ');
    std::snprintf(line, sizeof(line), "  %-*s", kChange, change.c_str());
    out += line;
    for (const std::string& c : cells) {
      std::snprintf(line, sizeof(line), "  %*s", kNum, c.c_str());
      out += line;
    }
    return out + "\n";
  };
  std::string header_cells[9];
  for (size_t i = 0; i < 9; ++i) header_cells[i] = headers[i];
  os << rule << "\n" << row_line("Name", "Change", header_cells) << rule << "\n";
  for (const OpDiff& r : rows) {
    std::string cells[9] = {format_count(r.control.counts),        format_count(r.test.counts),
                            format_count(r.diff.counts, true),      format_time(r.control.duration),
                            format_time(r.test.duration),           format_time(r.diff.duration, true),
                            format_time(r.control.self_duration),   format_time(r.test.self_duration),
                            format_time(r.diff.self_duration, true)};
    os << row_line(r.label(), std::string(change_name(r.change)), cells);
  }
  os << rule << "\n";
  int64_t counts[5] = {};
  for (const OpDiff& r : rows) ++counts[static_cast<int>(r.change)];
  os << plural(static_cast<int64_t>(rows.size()), "op") << ": " << counts[0] << " added, " << counts[1]
     << " deleted, " << counts[2] << " increased, " << counts[3] << " decreased, " << counts[4] << " unchanged\n";
  return os.str();
}

std::string DiffTable::to_csv() const {
  std::ostringstream os;
  os << "name";
  if (grouped_by_category) os << ",category";
  if (grouped_by_input_shape) os << ",input_shapes";
  os << ",change,control_counts,test_counts,diff_counts,control_duration_us,test_duration_us,diff_duration_us,"
        "control_self_duration_us,test_self_duration_us,diff_self_duration_us,control_total_counts,"
        "test_total_counts,control_total_duration_us,test_total_duration_us,control_total_self_duration_us,"
        "test_total_self_duration_us\n";
  for (const OpDiff& r : rows) {
    os << csv_field(r.name);
    if (grouped_by_category) os << "," << csv_field(r.category);
    if (grouped_by_input_shape) os << "," << csv_field(r.input_shapes);
    os << "," << change_name(r.change);
    for (double v : {r.control.counts, r.test.counts, r.diff.counts, r.control.duration, r.test.duration,
                     r.diff.duration, r.control.self_duration, r.test.self_duration, r.diff.self_duration,
                     r.control_total.counts, r.test_total.counts, r.control_total.duration, r.test_total.duration,
                     r.control_total.self_duration, r.test_total.self_duration})
      os << "," << csv_number(v);
    os << "\n";
  }
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const DiffTable& table) { return os << table.table(); }

}  // namespace tl::trace
