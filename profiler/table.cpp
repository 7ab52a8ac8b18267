// profiler/table.cpp — the table layout of torch.autograd.profiler_util._build_table: every column
// is "{:>W}" followed by two spaces (Source Location left-aligned), dashed separators of the same
// widths, stack entries on continuation lines followed by a blank line.
#include "profiler/table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <utility>

#include "core/error.h"
#include "core/text_table.h"

namespace tl::profiler {
namespace {

constexpr int64_t kDefaultColumnWidth = 12;
constexpr size_t kMaxStackEntries = 5;

std::string printf_string(const char* format, double value) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

using SortValue = std::function<double(const FunctionEventAvg&)>;

const std::vector<std::pair<std::string, SortValue>>& sort_values() {
  static const std::vector<std::pair<std::string, SortValue>> values = {
      {"self_cpu_time_total", [](const FunctionEventAvg& e) { return double(e.self_cpu_time_total_ns); }},
      {"cpu_time_total", [](const FunctionEventAvg& e) { return double(e.cpu_time_total_ns); }},
      {"cpu_time", [](const FunctionEventAvg& e) { return e.cpu_time_ns(); }},
      {"self_cpu_memory_usage", [](const FunctionEventAvg& e) { return double(e.self_cpu_memory_usage); }},
      {"cpu_memory_usage", [](const FunctionEventAvg& e) { return double(e.cpu_memory_usage); }},
      {"count", [](const FunctionEventAvg& e) { return double(e.count); }},
      {"flops", [](const FunctionEventAvg& e) { return double(e.flops); }},
      {"self_cuda_time_total", [](const FunctionEventAvg&) { return 0.0; }},
      {"cuda_time_total", [](const FunctionEventAvg&) { return 0.0; }},
      {"cuda_time", [](const FunctionEventAvg&) { return 0.0; }},
      {"self_cuda_memory_usage", [](const FunctionEventAvg&) { return 0.0; }},
      {"cuda_memory_usage", [](const FunctionEventAvg&) { return 0.0; }},
  };
  return values;
}

const SortValue* find_sort_value(const std::string& key) {
  for (const auto& entry : sort_values())
    if (entry.first == key) return &entry.second;
  return nullptr;
}

// `key` is "" or a valid key (TableOptions::validate).
void sort_rows(std::vector<FunctionEventAvg>& rows, const std::string& key) {
  if (key.empty()) return;
  const SortValue& value = *find_sort_value(key);
  // Stable, like Python's sorted(): ties keep first-seen order.
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const FunctionEventAvg& a, const FunctionEventAvg& b) { return value(a) > value(b); });
}

struct FlopsScale {
  double factor = 1.0;
  std::string unit = "FLOPs";
};

// PyTorch scales every row by the unit of the smallest non-zero value.
FlopsScale flops_scale(int64_t min_flops) {
  static const char* const kUnits[] = {"FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs"};
  const double level = std::max(0.0, std::min(std::log10(static_cast<double>(min_flops)) / 3.0, 5.0));
  const int index = static_cast<int>(level);
  return {std::pow(10.0, std::floor(level) * -3.0), kUnits[index]};
}

int64_t text_width(const std::string& s) { return static_cast<int64_t>(s.size()); }

}  // namespace

const std::vector<std::string>& table_sort_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& [name, value] : sort_values()) k.push_back(name);
    return k;
  }();
  return keys;
}

std::string format_time(double ns) {
  const double us = ns / 1000.0;
  if (us >= 1e6) return printf_string("%.3fs", us / 1e6);
  if (us >= 1e3) return printf_string("%.3fms", us / 1e3);
  return printf_string("%.3fus", us);
}

std::string format_memory(int64_t bytes) {
  constexpr int64_t kKb = 1024, kMb = 1024 * kKb, kGb = 1024 * kMb;
  const int64_t magnitude = bytes < 0 ? -bytes : bytes;
  const double b = static_cast<double>(bytes);
  if (magnitude >= kGb) return printf_string("%.2f Gb", b / kGb);
  if (magnitude >= kMb) return printf_string("%.2f Mb", b / kMb);
  if (magnitude >= kKb) return printf_string("%.2f Kb", b / kKb);
  return std::to_string(bytes) + " b";
}

std::string format_time_share(int64_t part_ns, int64_t total_ns) {
  if (total_ns == 0) return "NaN";
  return printf_string("%.2f%%", static_cast<double>(part_ns) * 100.0 / static_cast<double>(total_ns));
}

namespace {

struct Widths {
  int64_t name = 0, shapes = 0, src = 0;
  int64_t max_name = 0;  // PyTorch shortens names by the option, not by the column's width
  bool has_shapes = false, has_stack = false;
  int64_t min_flops = 0;  // smallest positive flops, 0 when none
};

Widths measure(const std::vector<FunctionEventAvg>& rows, const TableOptions& options) {
  Widths w;
  for (const FunctionEventAvg& r : rows) {
    w.name = std::max(w.name, text_width(r.key) + 4);
    w.shapes = std::max(w.shapes, text_width(r.input_shapes) + 4);
    w.has_shapes |= !r.input_shapes.empty() && r.input_shapes != "[]";
    for (const std::string& entry : r.stack) w.src = std::max(w.src, text_width(entry) + 4);
    w.has_stack |= !r.stack.empty();
    if (r.flops > 0) w.min_flops = w.min_flops == 0 ? r.flops : std::min(w.min_flops, r.flops);
  }
  // A column is never narrower than its header: PyTorch lets a long header overflow and shift
  // every later column when the values are short.
  w.max_name = options.max_name_column_width;
  w.name = std::min(w.name, w.max_name);
  w.shapes = std::max<int64_t>(std::min(w.shapes, options.max_shapes_column_width), 12);  // "Input Shapes"
  w.src = std::max<int64_t>(std::min(w.src, options.max_src_column_width), 15);           // "Source Location"
  return w;
}

}  // namespace

namespace {

/// Everything a row needs to be printed: widths, optional columns, the total for the shares.
struct Plan {
  Widths widths;
  TableColumns columns;
  bool show_flops = false;
  FlopsScale scale;
  int64_t total_self_ns = 0;
};

TextTable make_layout(const Plan& p) {
  TextTable layout;
  const auto add = [&](std::string header, int64_t width, bool left = false) {
    layout.add_column(std::move(header), static_cast<size_t>(width), left);
  };
  add("Name", p.widths.name);
  for (const char* h : {"Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"})
    add(h, kDefaultColumnWidth);
  if (p.columns.profile_memory) {
    add("CPU Mem", kDefaultColumnWidth);
    add("Self CPU Mem", kDefaultColumnWidth);
  }
  add("# of Calls", kDefaultColumnWidth);
  if (p.widths.has_shapes) add("Input Shapes", p.widths.shapes);
  // FLOPs before Source Location: the stack's continuation lines leave every column but the
  // last blank, so the multi-line column must be last (PyTorch puts the values the other way
  // round from its headers when both are shown).
  if (p.show_flops) add("Total " + p.scale.unit, kDefaultColumnWidth);
  if (p.widths.has_stack) add("Source Location", p.widths.src, /*left=*/true);
  return layout;
}

// The row's line, then (with stacks) one line per further stack entry and a blank line.
std::string format_row(const FunctionEventAvg& r, const Plan& p, const TextTable& layout) {
  const Widths& w = p.widths;
  std::vector<std::string> cells = {
      shorten_name(r.key, w.max_name),
      format_time_share(r.self_cpu_time_total_ns, p.total_self_ns),
      format_time(static_cast<double>(r.self_cpu_time_total_ns)),
      format_time_share(r.cpu_time_total_ns, p.total_self_ns),
      format_time(static_cast<double>(r.cpu_time_total_ns)),
      format_time(r.cpu_time_ns()),
  };
  if (p.columns.profile_memory) {
    cells.push_back(format_memory(r.cpu_memory_usage));
    cells.push_back(format_memory(r.self_cpu_memory_usage));
  }
  cells.push_back(std::to_string(r.count));
  if (w.has_shapes) cells.push_back(r.input_shapes.substr(0, static_cast<size_t>(w.shapes)));  // cut, no "..."
  if (p.show_flops)
    cells.push_back(r.flops <= 0 ? "--" : printf_string("%8.3f", static_cast<double>(r.flops) * p.scale.factor));
  if (w.has_stack) cells.push_back(r.stack.empty() ? "" : shorten_path(r.stack[0], w.src));
  std::string out = layout.row(cells) + '\n';
  if (!w.has_stack) return out;
  std::vector<std::string> blank(layout.size(), "");
  for (size_t i = 1; i < std::min(r.stack.size(), kMaxStackEntries); ++i) {
    blank.back() = shorten_path(r.stack[i], w.src);
    out += layout.row(blank) + '\n';
  }
  blank.back() = "";
  return out + layout.row(blank) + '\n';
}

}  // namespace

void TableOptions::validate() const {
  for (const auto& [name, value] : {std::pair{"max_src_column_width", max_src_column_width},
                                    {"max_name_column_width", max_name_column_width},
                                    {"max_shapes_column_width", max_shapes_column_width}})
    TL_CHECK(value > 0, "table: ", name, " must be > 0, got ", value);
  if (sort_by.empty() || find_sort_value(sort_by)) return;
  std::string valid;
  for (const std::string& k : table_sort_keys()) valid += (valid.empty() ? "" : ", ") + k;
  TL_CHECK(false, "table: unknown sort_by key \"", sort_by, "\"; expected one of: ", valid);
}

std::string build_table(std::vector<FunctionEventAvg> rows, const TableOptions& options, const TableColumns& columns) {
  options.validate();
  if (rows.empty()) return "";
  sort_rows(rows, options.sort_by);
  Plan plan;
  plan.widths = measure(rows, options);
  plan.columns = columns;
  plan.show_flops = columns.with_flops && plan.widths.min_flops > 0;
  if (plan.show_flops) plan.scale = flops_scale(plan.widths.min_flops);
  for (const FunctionEventAvg& r : rows) plan.total_self_ns += r.self_cpu_time_total_ns;
  const TextTable layout = make_layout(plan);

  std::string out;
  const std::string banner(layout.line_length(), '=');
  if (!options.header.empty()) out += banner + '\n' + options.header + '\n';
  if (options.top_level_events_only) out += banner + "\nThis report only display top-level ops statistics\n";
  const std::string separator = layout.rule() + '\n';
  out += separator + layout.header_row() + '\n' + separator;
  int64_t printed = 0;
  for (const FunctionEventAvg& r : rows) {
    if (printed == options.row_limit) break;
    if (options.top_level_events_only && !r.is_top_level) continue;
    ++printed;
    out += format_row(r, plan, layout);
  }
  out += separator;
  return out + "Self CPU time total: " + format_time(static_cast<double>(plan.total_self_ns)) + '\n';
}

}  // namespace tl::profiler
