// tools/tracediff.cpp — tl-tracediff: compare two sets of traces op by op (HTA's TraceDiff) from the
// command line. Exit codes: 0 success, 1 a tl::Error (bad trace, unwritable output), 2 bad usage.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/file_writer.h"
#include "trace/diff_chart.h"
#include "trace/trace.h"
#include "trace/trace_diff.h"

namespace fs = std::filesystem;
namespace trace = tl::trace;

namespace {

constexpr const char* kUsage = R"(usage: tl-tracediff [options] CONTROL TEST

Compares two sets of traces op by op, like HTA's TraceDiff: per-op counts, inclusive and
self (exclusive) durations of each side, their differences and a change category by counts
only (added, deleted, increased, decreased, unchanged). As HTA, each side uses its first
(lowest) rank and its first (lowest-numbered) ProfilerStep and leaves out events outside it;
a trace without any ProfilerStep is taken whole. CONTROL and TEST are each a trace file
(.json or .json.gz: our Chrome traces, kineto's, PyTorch's legacy array), a directory of
them, or a comma-separated list of files.

options:
  --sort COLUMN         sort rows by COLUMN, descending (default: abs_diff_duration).
                        Columns: name, change, {control,test,diff}_counts,
                        {control,test,diff}_duration, {control,test,diff}_self_duration,
                        abs_diff_counts, abs_diff_duration, abs_diff_self_duration
  --ascending           sort ascending instead
  --top N               print only the first N rows (charts: N, default 10)
  --exclude GLOB        drop ops whose name matches GLOB, e.g. 'ProfilerStep*' (repeatable)
  --include GLOB        keep only ops whose name matches GLOB (repeatable)
  --group-by KEY        name (default), category, shape or category,shape
  --category CAT        keep only events whose "cat" is CAT (repeatable)
  --device WHICH        all (default), gpu: only events with an args "stream" (kineto's
                        kernel, gpu_memcpy, gpu_memset), or cpu: the others (HTA's device_type)
  --short-names         name rows as HTA's use_short_name does: without template and function
                        arguments and return types (memory kernels unchanged), so a kernel's
                        template instances share one row
  --iterations WHICH    first (default, as HTA) or all: every ProfilerStep, averaged per iteration
  --totals              compare totals instead of per-iteration means
  --ranks WHICH         first (default, as HTA: the lowest rank; a trace without one is 0)
                        or all: every trace of each side
  --control-rank R      use only the control traces of rank R (repeatable), overriding
                        --ranks for the control side; --test-rank too
  --control-steps LIST  use ProfilerStep#N with N in LIST (e.g. 2,3 or 2-5), overriding
                        --iterations for the control side; --test-steps too
  --svg DIR             write counts_diff.svg, duration_diff.svg and
                        self_duration_diff.svg (top N rows each) into DIR
  --csv FILE            write the whole (filtered, sorted) table as CSV
  --ops-diff            list the ops of each change category after the table
  -h, --help            show this help
)";

struct UsageError {
  std::string message;
};

struct Args {
  std::vector<std::string> positional;
  std::string sort = "abs_diff_duration";
  bool ascending = false, ops_diff = false;
  std::optional<size_t> top;
  std::vector<std::string> exclude, include;
  std::optional<fs::path> svg_dir, csv_file;
  trace::CompareOptions compare;
};

template <typename T>
T parse_number(std::string_view option, std::string_view text) {
  T value{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range)
    throw UsageError{std::string(option) + ": '" + std::string(text) + "' is out of range"};
  if (ec != std::errc() || end != text.data() + text.size())
    throw UsageError{std::string(option) + ": expected a number, got '" + std::string(text) + "'"};
  return value;
}

// A whole number >= `min` (ranks and steps count from 0, --top from 1).
int64_t parse_integer(std::string_view option, std::string_view text, int64_t min) {
  const auto v = parse_number<int64_t>(option, text);
  if (v < min)
    throw UsageError{std::string(option) + ": expected a number >= " + std::to_string(min) + ", got '" +
                     std::string(text) + "'"};
  return v;
}

trace::Ranks parse_ranks(std::string_view text) {
  if (text == "first") return trace::Ranks::First;
  if (text == "all") return trace::Ranks::All;
  throw UsageError{"--ranks: expected first or all, got '" + std::string(text) + "'"};
}

trace::DeviceType parse_device(std::string_view text) {
  for (trace::DeviceType d : {trace::DeviceType::CPU, trace::DeviceType::GPU, trace::DeviceType::All})
    if (text == trace::device_type_name(d)) return d;
  throw UsageError{"--device: expected cpu, gpu or all, got '" + std::string(text) + "'"};
}

trace::Iterations parse_iterations(std::string_view text) {
  if (text == "first") return trace::Iterations::First;
  if (text == "all") return trace::Iterations::All;
  throw UsageError{"--iterations: expected first or all, got '" + std::string(text) + "'"};
}

// "2,3" or "2-5" or a mix ("1,4-6").
std::vector<int64_t> parse_steps(std::string_view option, std::string_view text) {
  constexpr int64_t kMaxRange = 1000000;
  std::vector<int64_t> steps;
  while (!text.empty()) {
    std::string_view item = text.substr(0, text.find(','));
    text.remove_prefix(std::min(text.size(), item.size() + 1));
    size_t dash = item.find('-', 1);
    int64_t first = parse_integer(option, item.substr(0, dash), 0);
    int64_t last = dash == std::string_view::npos ? first : parse_integer(option, item.substr(dash + 1), 0);
    if (last < first) throw UsageError{std::string(option) + ": bad range '" + std::string(item) + "'"};
    if (last - first >= kMaxRange)
      throw UsageError{std::string(option) + ": range '" + std::string(item) + "' spans more than " +
                       std::to_string(kMaxRange) + " steps"};
    for (int64_t s = first; s <= last; ++s) steps.push_back(s);
  }
  if (steps.empty()) throw UsageError{std::string(option) + ": expected a list of step numbers"};
  return steps;
}

void set_group_by(std::string_view value, trace::CompareOptions& o) {
  if (value == "name") return;
  if (value == "category" || value == "category,shape" || value == "shape,category") o.group_by_category = true;
  if (value == "shape" || value == "category,shape" || value == "shape,category") o.group_by_input_shape = true;
  if (!o.group_by_category && !o.group_by_input_shape)
    throw UsageError{"--group-by: expected name, category, shape or category,shape, got '" + std::string(value) + "'"};
}

// Applies one option that takes a value.
void apply(Args& a, std::string_view opt, const std::string& v) {
  auto& o = a.compare;
  if (opt == "--sort") a.sort = v;
  else if (opt == "--top") a.top = static_cast<size_t>(parse_integer(opt, v, 1));
  else if (opt == "--exclude") a.exclude.push_back(v);
  else if (opt == "--include") a.include.push_back(v);
  else if (opt == "--group-by") set_group_by(v, o);
  else if (opt == "--category") o.categories.push_back(v);
  else if (opt == "--device") o.device_type = parse_device(v);
  else if (opt == "--iterations") o.iterations = parse_iterations(v);
  else if (opt == "--ranks") o.ranks = parse_ranks(v);
  else if (opt == "--control-rank") o.control_ranks.push_back(parse_integer(opt, v, 0));
  else if (opt == "--test-rank") o.test_ranks.push_back(parse_integer(opt, v, 0));
  else if (opt == "--control-steps") o.control_steps = parse_steps(opt, v);
  else if (opt == "--test-steps") o.test_steps = parse_steps(opt, v);
  else if (opt == "--svg") a.svg_dir = v;
  else if (opt == "--csv") a.csv_file = v;
}

Args parse_args(int argc, char** argv) {
  Args a;
  bool options_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (options_done || !arg.starts_with("-") || arg == "-") {
      a.positional.emplace_back(arg);
    } else if (arg == "--") {
      options_done = true;
    } else if (arg == "--ascending") {
      a.ascending = true;
    } else if (arg == "--totals") {
      a.compare.per_iteration = false;
    } else if (arg == "--ops-diff") {
      a.ops_diff = true;
    } else if (arg == "--short-names") {
      a.compare.use_short_name = true;
    } else {
      static const std::vector<std::string_view> kValued = {
          "--sort", "--top", "--exclude", "--include", "--group-by", "--category", "--device", "--iterations", "--ranks",
          "--control-rank", "--test-rank", "--control-steps", "--test-steps", "--svg", "--csv"};
      size_t eq = arg.find('=');
      std::string_view opt = arg.substr(0, eq);
      if (std::find(kValued.begin(), kValued.end(), opt) == kValued.end())
        throw UsageError{"unknown option '" + std::string(opt) + "'"};
      std::string value;
      if (eq != std::string_view::npos) {
        value = std::string(arg.substr(eq + 1));
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        throw UsageError{std::string(opt) + ": missing value"};
      }
      apply(a, opt, value);
    }
  }
  if (a.positional.size() != 2)
    throw UsageError{"expected CONTROL and TEST, got " + std::to_string(a.positional.size()) + " path(s)"};
  const auto& columns = trace::DiffTable::columns();
  if (std::find(columns.begin(), columns.end(), a.sort) == columns.end()) {
    std::string valid;
    for (const std::string& c : columns) valid += (valid.empty() ? "" : ", ") + c;
    throw UsageError{"--sort: unknown column '" + a.sort + "'; valid columns: " + valid};
  }
  return a;
}

// An existing path is taken as is; otherwise a comma-separated list of paths.
std::vector<fs::path> set_paths(const std::string& arg) {
  std::error_code ec;
  if (fs::exists(arg, ec) || arg.find(',') == std::string::npos) return {fs::path(arg)};
  std::vector<fs::path> paths;
  for (size_t start = 0; start <= arg.size();) {
    size_t comma = std::min(arg.find(',', start), arg.size());
    if (comma > start) paths.emplace_back(arg.substr(start, comma - start));
    start = comma + 1;
  }
  return paths;
}

void print_ops_diff(const trace::DiffTable& table) {
  trace::OpsDiff d = trace::ops_diff(table);
  auto list = [](const char* title, const std::vector<trace::OpDiff>& rows) {
    std::cout << title << " (" << rows.size() << "):";
    for (const trace::OpDiff& r : rows) std::cout << "\n  " << r.label();
    std::cout << "\n";
  };
  list("added", d.added);
  list("deleted", d.deleted);
  list("increased", d.increased);
  list("decreased", d.decreased);
  list("unchanged", d.unchanged);
}

void write_charts(const trace::DiffTable& filtered, const fs::path& dir, size_t top) {
  const std::vector<fs::path> written = trace::write_diff_charts(filtered, dir, top, "--svg");
  std::cout << "wrote";
  for (size_t i = 0; i < written.size(); ++i)
    std::cout << (i == 0 ? " " : i + 1 == written.size() ? " and " : ", ") << written[i].string();
  std::cout << "\n";
}

int run(const Args& a) {
  trace::TraceSet control = trace::load_trace_set(set_paths(a.positional[0]));
  trace::TraceSet test = trace::load_trace_set(set_paths(a.positional[1]));
  trace::DiffTable table = trace::compare_traces(control, test, a.compare).exclude(a.exclude);
  if (!a.include.empty()) table = table.include(a.include);
  table = table.sort_values(a.sort, a.ascending);
  if (a.csv_file) tl::write_file(a.csv_file->string(), table.to_csv(), "--csv");
  std::cout << (a.top ? table.head(*a.top) : table).table();
  if (a.ops_diff) print_ops_diff(table);
  if (a.svg_dir) write_charts(table, *a.svg_dir, a.top.value_or(10));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      return 0;
    }
  }
  Args args;
  try {
    args = parse_args(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "tl-tracediff: " << e.message << "\nusage: tl-tracediff [options] CONTROL TEST  (--help for details)\n";
    return 2;
  }
  try {
    return run(args);
  } catch (const tl::Error& e) {
    std::cerr << "tl-tracediff: error: " << e.what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "tl-tracediff: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "tl-tracediff: internal error: " << e.what() << "\n";
    return 1;
  }
}
