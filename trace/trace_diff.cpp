// trace/trace_diff.cpp — compare_traces(), ops_diff() and the table helpers (sort, head,
// glob filters). Counts alone classify, compared exactly (cross-multiplied by iterations), never as
// rounded means; only events inside the kept ProfilerSteps count, as in HTA's TraceDiff.
#include "trace/trace_diff.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "core/error.h"
#include "trace/trace_index.h"

namespace tl::trace {
namespace {

using detail::str_cat;

// Exact sums over one set for one row key.
struct Totals {
  int64_t counts = 0, dur_ns = 0, self_ns = 0;
};
using RowKey = std::tuple<std::string, std::string, std::string>;  // name, category, input shapes

struct SideSummary {
  std::map<RowKey, Totals> rows;
  int64_t traces = 0, iterations = 0;
  std::map<int64_t, int64_t> step_iterations;  // ProfilerStep N -> traces in which step N was kept
  std::vector<int64_t> steps;                  // the steps kept
};

std::string list_text(const std::vector<int64_t>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

bool contains(const std::vector<int64_t>& sorted, int64_t v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Adds `ns` to an op's total. Only a corrupt trace gets past int64 nanoseconds (292 years).
void add_ns(int64_t& total, int64_t ns, const Trace& trace, uint32_t name) {
  TL_CHECK(!__builtin_add_overflow(total, ns, &total), "compare_traces: ", trace.path.string(), ": the durations of '",
           trace.str(name), "' add up to more than int64 nanoseconds can hold");
}

// Adds one trace's kept events to `side`, aggregating by interned ids first (cheap), then by text.
// A trace with ProfilerSteps keeps only events inside the `steps` spans; one without is taken whole.
bool on_device(const OpEvent& e, DeviceType device_type) {
  return device_type == DeviceType::All || (e.stream != -1) == (device_type == DeviceType::GPU);
}

void add_trace(const Trace& trace, const std::vector<int64_t>& steps, const CompareOptions& o, SideSummary& side) {
  std::vector<char> category_kept(trace.strings.size(), o.categories.empty());
  for (const std::string& c : o.categories)
    for (size_t i = 0; i < trace.strings.size(); ++i)
      if (trace.strings[i] == c) category_kept[i] = 1;
  const bool whole = trace.steps.empty();

  struct IdKey {
    uint32_t name, category, shapes;
    bool operator==(const IdKey&) const = default;
  };
  struct IdHash {
    size_t operator()(const IdKey& k) const {
      return std::hash<uint64_t>()((uint64_t{k.name} << 40) ^ (uint64_t{k.category} << 20) ^ k.shapes);
    }
  };
  std::unordered_map<IdKey, Totals, IdHash> by_id;
  for (const OpEvent& e : trace.events) {
    if (!category_kept[e.category] || !on_device(e, o.device_type) || (!whole && !contains(steps, e.step))) continue;
    Totals& t = by_id[{e.name, o.group_by_category ? e.category : 0u, o.group_by_input_shape ? e.shapes : 0u}];
    ++t.counts;
    add_ns(t.dur_ns, e.dur, trace, e.name);
    add_ns(t.self_ns, e.self, trace, e.name);
  }
  for (const auto& [k, t] : by_id) {
    const std::string& name = trace.str(k.name);
    Totals& row = side.rows[{o.use_short_name ? short_name(name) : name, trace.str(k.category), trace.str(k.shapes)}];
    row.counts += t.counts;
    add_ns(row.dur_ns, t.dur_ns, trace, k.name);
    add_ns(row.self_ns, t.self_ns, trace, k.name);
  }
  if (whole) {
    ++side.iterations;
  } else {
    for (int64_t s : trace.steps)
      if (contains(steps, s)) {
        ++side.step_iterations[s];
        ++side.iterations;
      }
  }
  ++side.traces;
}

// The steps a side keeps: its explicit list, else HTA's first (lowest) step or all of them.
std::vector<int64_t> chosen_steps(const std::vector<int64_t>& filter, const std::vector<int64_t>& seen, Iterations mode) {
  if (!filter.empty()) return sorted(filter);
  if (mode == Iterations::First && !seen.empty()) return {seen.front()};
  return seen;
}

SideSummary summarize(const TraceSet& set, const char* role, const std::vector<int64_t>& ranks_filter,
                      const std::vector<int64_t>& steps_filter, const CompareOptions& o) {
  TL_CHECK(!set.traces.empty(), "compare_traces: the ", role, " set (", set.label, ") has no traces");
  // As HTA, a trace without "distributedInfo" is rank 0.
  std::vector<int64_t> seen_ranks, seen_steps;
  for (const Trace& t : set.traces) seen_ranks.push_back(t.rank.value_or(0));
  seen_ranks = sorted(seen_ranks);
  seen_ranks.erase(std::unique(seen_ranks.begin(), seen_ranks.end()), seen_ranks.end());
  std::vector<int64_t> ranks = sorted(ranks_filter);
  if (ranks.empty() && o.ranks == Ranks::First) ranks = {seen_ranks.front()};
  std::vector<const Trace*> kept;
  for (const Trace& t : set.traces) {
    if (!ranks.empty() && !contains(ranks, t.rank.value_or(0))) continue;
    seen_steps.insert(seen_steps.end(), t.steps.begin(), t.steps.end());
    kept.push_back(&t);
  }
  TL_CHECK(!kept.empty(), "compare_traces: the ", role, " set (", set.label, ") has no trace with a rank in ",
           list_text(ranks), "; its ranks: ", list_text(seen_ranks));
  seen_steps = sorted(seen_steps);
  seen_steps.erase(std::unique(seen_steps.begin(), seen_steps.end()), seen_steps.end());
  SideSummary side;
  side.steps = chosen_steps(steps_filter, seen_steps, o.iterations);
  for (const Trace* t : kept) add_trace(*t, side.steps, o, side);
  TL_CHECK(side.iterations > 0, "compare_traces: the ", role, " set (", set.label, ") has no ProfilerStep in ",
           list_text(side.steps), "; its steps: ", list_text(seen_steps));
  if (seen_steps.empty()) side.steps.clear();
  return side;
}

// What a row is divided by for per-iteration means: ProfilerStep#N occurs once in each iteration that
// is step N, so dividing it by all iterations would show it as a fraction of a call.
int64_t row_divisor(const std::string& name, const SideSummary& side) {
  auto it = side.step_iterations.find(profiler_step_number(name));
  return it != side.step_iterations.end() ? it->second : side.iterations;
}

OpStats to_stats(const Totals& t, double divisor) {
  return {static_cast<double>(t.counts) / divisor, static_cast<double>(t.dur_ns) / 1e3 / divisor,
          static_cast<double>(t.self_ns) / 1e3 / divisor};
}

// HTA's ops_diff: counts alone decide. Per-iteration counts are compared exactly:
// t/td vs c/cd  <=>  t*cd vs c*td.
Change classify(const Totals& c, const Totals& t, int64_t cd, int64_t td, bool per_iteration) {
  if (c.counts == 0) return Change::Added;
  if (t.counts == 0) return Change::Deleted;
  int64_t test_scaled = per_iteration ? t.counts * cd : t.counts;
  int64_t control_scaled = per_iteration ? c.counts * td : c.counts;
  if (test_scaled == control_scaled) return Change::Unchanged;
  return test_scaled > control_scaled ? Change::Increased : Change::Decreased;
}

using Getter = std::function<double(const OpDiff&)>;

const std::vector<std::pair<std::string, Getter>>& numeric_columns() {
  static const std::vector<std::pair<std::string, Getter>> kColumns = {
      {"control_counts", [](const OpDiff& r) { return r.control.counts; }},
      {"test_counts", [](const OpDiff& r) { return r.test.counts; }},
      {"diff_counts", [](const OpDiff& r) { return r.diff.counts; }},
      {"control_duration", [](const OpDiff& r) { return r.control.duration; }},
      {"test_duration", [](const OpDiff& r) { return r.test.duration; }},
      {"diff_duration", [](const OpDiff& r) { return r.diff.duration; }},
      {"control_self_duration", [](const OpDiff& r) { return r.control.self_duration; }},
      {"test_self_duration", [](const OpDiff& r) { return r.test.self_duration; }},
      {"diff_self_duration", [](const OpDiff& r) { return r.diff.self_duration; }},
      {"abs_diff_counts", [](const OpDiff& r) { return std::abs(r.diff.counts); }},
      {"abs_diff_duration", [](const OpDiff& r) { return std::abs(r.diff.duration); }},
      {"abs_diff_self_duration", [](const OpDiff& r) { return std::abs(r.diff.self_duration); }},
  };
  return kColumns;
}

// Matches `c` against the set "[...]" opening at pattern[p] and moves `p` to its ']'; nullopt when
// the set is never closed (the '[' is then an ordinary character).
std::optional<bool> match_set(std::string_view pattern, size_t& p, char c) {
  size_t i = p + 1;
  bool negate = i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^');
  if (negate) ++i;
  bool matched = false;
  for (size_t start = i; i < pattern.size(); ++i) {
    if (pattern[i] == ']' && i != start) {
      p = i;
      return matched != negate;
    }
    if (i + 2 < pattern.size() && pattern[i + 1] == '-' && pattern[i + 2] != ']') {
      matched |= pattern[i] <= c && c <= pattern[i + 2];
      i += 2;
    } else {
      matched |= pattern[i] == c;
    }
  }
  return std::nullopt;
}

// HTA's is_memory_kernel: re.match(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)", name).
bool is_memory_kernel(std::string_view name) {
  for (std::string_view prefix : {"Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma"})
    if (name.starts_with(prefix)) return true;
  return false;
}

}  // namespace

std::string_view device_type_name(DeviceType device_type) {
  switch (device_type) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::GPU: return "gpu";
    case DeviceType::All: return "all";
  }
  return "?";
}

// HTA's shorten_name, character for character (on bytes: the brackets and the space are ASCII, so a
// UTF-8 sequence is kept or dropped whole).
std::string short_name(std::string_view name) {
  if (is_memory_kernel(name) || name.find_first_of("<(") == std::string_view::npos) return std::string(name);
  std::string kept;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name.compare(i, 2, "->") == 0) {  // name.replace("->", "")
      ++i;
      continue;
    }
    const char c = name[i];
    if (c == '>' || c == ')') {
      const char open = c == '>' ? '<' : '(';
      while (!kept.empty() && kept.back() != open) kept.pop_back();
      if (!kept.empty()) kept.pop_back();
    } else {
      kept += c;
    }
  }
  const size_t space = kept.rfind(' ');  // .split(" ")[-1]
  return space == std::string::npos ? kept : kept.substr(space + 1);
}

std::string_view change_name(Change change) {
  switch (change) {
    case Change::Added: return "added";
    case Change::Deleted: return "deleted";
    case Change::Increased: return "increased";
    case Change::Decreased: return "decreased";
    case Change::Unchanged: return "unchanged";
  }
  return "?";
}

std::string OpDiff::label() const {
  std::string s = name;
  if (!category.empty()) s += " [" + category + "]";
  if (!input_shapes.empty()) s += " (" + input_shapes + ")";
  return s;
}

void CompareOptions::validate() const {
  for (const auto& [name, values] : {std::pair{"control_ranks", &control_ranks}, {"test_ranks", &test_ranks},
                                     {"control_steps", &control_steps}, {"test_steps", &test_steps}})
    for (int64_t v : *values) TL_CHECK(v >= 0, "compare_traces: ", name, " must hold values >= 0, got ", v);
}

DiffTable compare_traces(const TraceSet& control, const TraceSet& test, const CompareOptions& options) {
  options.validate();
  SideSummary c = summarize(control, "control", options.control_ranks, options.control_steps, options);
  SideSummary t = summarize(test, "test", options.test_ranks, options.test_steps, options);

  DiffTable table;
  table.control_label = control.label;
  table.test_label = test.label;
  table.control_traces = c.traces;
  table.test_traces = t.traces;
  table.control_iterations = c.iterations;
  table.test_iterations = t.iterations;
  table.control_steps = c.steps;
  table.test_steps = t.steps;
  table.per_iteration = options.per_iteration;
  table.grouped_by_category = options.group_by_category;
  table.grouped_by_input_shape = options.group_by_input_shape;
  table.device_type = options.device_type;
  table.short_names = options.use_short_name;

  std::map<RowKey, std::pair<Totals, Totals>> merged;
  for (const auto& [k, v] : c.rows) merged[k].first = v;
  for (const auto& [k, v] : t.rows) merged[k].second = v;
  for (const auto& [key, sides] : merged) {
    OpDiff row;
    std::tie(row.name, row.category, row.input_shapes) = key;
    const int64_t cd = row_divisor(row.name, c), td = row_divisor(row.name, t);
    row.control_total = to_stats(sides.first, 1.0);
    row.test_total = to_stats(sides.second, 1.0);
    row.control = to_stats(sides.first, options.per_iteration ? static_cast<double>(cd) : 1.0);
    row.test = to_stats(sides.second, options.per_iteration ? static_cast<double>(td) : 1.0);
    row.diff = {row.test.counts - row.control.counts, row.test.duration - row.control.duration,
                row.test.self_duration - row.control.self_duration};
    row.change = classify(sides.first, sides.second, cd, td, options.per_iteration);
    table.rows.push_back(std::move(row));
  }
  return table;
}

OpsDiff ops_diff(const DiffTable& table) {
  OpsDiff out;
  for (const OpDiff& r : table.rows) {
    switch (r.change) {
      case Change::Added: out.added.push_back(r); break;
      case Change::Deleted: out.deleted.push_back(r); break;
      case Change::Increased: out.increased.push_back(r); break;
      case Change::Decreased: out.decreased.push_back(r); break;
      case Change::Unchanged: out.unchanged.push_back(r); break;
    }
  }
  return out;
}

OpsDiff ops_diff(const TraceSet& control, const TraceSet& test, const CompareOptions& options) {
  return ops_diff(compare_traces(control, test, options));
}

const std::vector<std::string>& DiffTable::columns() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names = {"name", "change"};
    for (const auto& [name, getter] : numeric_columns()) names.push_back(name);
    return names;
  }();
  return kNames;
}

DiffTable DiffTable::sort_values(std::string_view column, bool ascending) const {
  DiffTable out = *this;
  auto by_label = [](const OpDiff& a, const OpDiff& b) { return a.label() < b.label(); };
  std::function<int(const OpDiff&, const OpDiff&)> compare;
  if (column == "name") {
    compare = [](const OpDiff& a, const OpDiff& b) { return a.label().compare(b.label()); };
  } else if (column == "change") {
    compare = [](const OpDiff& a, const OpDiff& b) { return static_cast<int>(a.change) - static_cast<int>(b.change); };
  } else {
    const auto& cols = numeric_columns();
    auto it = std::find_if(cols.begin(), cols.end(), [&](const auto& c) { return c.first == column; });
    if (it == cols.end()) {
      std::string valid;
      for (const std::string& n : columns()) valid += (valid.empty() ? "" : ", ") + n;
      detail::throw_error(str_cat("sort_values: unknown column '", column, "'; valid columns: ", valid));
    }
    Getter get = it->second;
    compare = [get](const OpDiff& a, const OpDiff& b) {
      double x = get(a), y = get(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    };
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), by_label);
  std::stable_sort(out.rows.begin(), out.rows.end(), [&](const OpDiff& a, const OpDiff& b) {
    int c = compare(a, b);
    return ascending ? c < 0 : c > 0;
  });
  return out;
}

DiffTable DiffTable::head(size_t n) const {
  DiffTable out = *this;
  if (out.rows.size() > n) out.rows.resize(n);
  return out;
}

DiffTable DiffTable::exclude(std::span<const std::string> patterns) const {
  DiffTable out = *this;
  std::erase_if(out.rows, [&](const OpDiff& r) {
    return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return glob_match(p, r.name); });
  });
  return out;
}

DiffTable DiffTable::exclude(std::initializer_list<std::string> patterns) const {
  return exclude(std::span<const std::string>(patterns.begin(), patterns.size()));
}

DiffTable DiffTable::include(std::span<const std::string> patterns) const {
  DiffTable out = *this;
  std::erase_if(out.rows, [&](const OpDiff& r) {
    return std::none_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return glob_match(p, r.name); });
  });
  return out;
}

DiffTable DiffTable::only(Change change) const {
  DiffTable out = *this;
  std::erase_if(out.rows, [&](const OpDiff& r) { return r.change != change; });
  return out;
}

// Iterative matcher: on a mismatch, retry from the last '*' with one more character swallowed.
bool glob_match(std::string_view pattern, std::string_view text) {
  size_t p = 0, t = 0, star = std::string_view::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
      continue;
    }
    if (p < pattern.size()) {
      size_t next = p;
      bool ok = false;
      if (pattern[p] == '?') {
        ok = true;
      } else if (pattern[p] == '[') {
        std::optional<bool> in_set = match_set(pattern, next, text[t]);
        ok = in_set ? *in_set : text[t] == '[';
      } else {
        ok = pattern[p] == text[t];
      }
      if (ok) {
        p = next + 1;
        ++t;
        continue;
      }
    }
    if (star == std::string_view::npos) return false;
    p = star + 1;
    t = ++resume;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

}  // namespace tl::trace
