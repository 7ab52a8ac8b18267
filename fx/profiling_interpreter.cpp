// fx/profiling_interpreter.cpp — node timing and the seed's summary tables.
#include "fx/profiling_interpreter.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>

#include "core/text_table.h"

namespace tl::fx {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double mean(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

ProfilingInterpreter::ProfilingInterpreter(const std::shared_ptr<nn::Module>& module)
    : Interpreter(symbolic_trace(module)) {}

TensorList ProfilingInterpreter::run(const TensorList& inputs) {
  const auto start = std::chrono::steady_clock::now();
  TensorList out = Interpreter::run(inputs);
  total_runtime_sec_.push_back(seconds_since(start));
  return out;
}

NodeValue ProfilingInterpreter::run_node(Node& n) {
  const auto start = std::chrono::steady_clock::now();
  NodeValue v = Interpreter::run_node(n);
  const double elapsed = seconds_since(start);
  auto it = std::find_if(runtimes_sec_.begin(), runtimes_sec_.end(), [&](const auto& e) { return e.first == &n; });
  if (it == runtimes_sec_.end()) runtimes_sec_.push_back({&n, {elapsed}});
  else it->second.push_back(elapsed);
  return v;
}

std::string ProfilingInterpreter::summary(bool should_sort, const SummaryOptions& options) const {
  TL_CHECK(!total_runtime_sec_.empty(), "ProfilingInterpreter::summary: call run() first");
  const double mean_total = mean(total_runtime_sec_);
  struct Row {
    std::vector<std::string> cells;
    double mean_runtime;
  };
  std::vector<Row> rows;
  for (const auto& [node, runtimes] : runtimes_sec_) {
    const double m = mean(runtimes);
    Row r{{opcode_name(node->op()), node->name(), tl::format_g(m), tl::format_g(m / mean_total * 100)}, m};
    if (options.stats) {
      r.cells.push_back(tl::format_g(median(runtimes)));
      r.cells.push_back(tl::format_g(*std::min_element(runtimes.begin(), runtimes.end())));
      r.cells.push_back(tl::format_g(*std::max_element(runtimes.begin(), runtimes.end())));
    }
    rows.push_back(std::move(r));
  }
  if (should_sort)
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.mean_runtime > b.mean_runtime; });
  std::vector<std::string> headers = {"Op type", "Op", "Average runtime (s)", "Pct total runtime"};
  if (options.stats) headers.insert(headers.end(), {"Median (s)", "Min (s)", "Max (s)"});
  std::vector<std::vector<std::string>> cells;
  for (auto& r : rows) cells.push_back(std::move(r.cells));
  return tl::tabulate(headers, cells);
}

std::string ProfilingInterpreter::summary_by_type() const {
  TL_CHECK(!total_runtime_sec_.empty(), "ProfilingInterpreter::summary_by_type: call run() first");
  const double mean_total = mean(total_runtime_sec_);
  std::map<std::string, std::pair<int, double>> by_kind;  // kind -> (nodes, summed mean runtime)
  std::vector<std::string> order;
  for (const auto& [node, runtimes] : runtimes_sec_) {
    std::string kind = opcode_name(node->op());
    if (node->op() == Opcode::CallModule) kind = module().get_submodule(node->target())->type_name();
    if (node->op() == Opcode::CallFunction || node->op() == Opcode::CallMethod)
      kind = node->target().substr(node->target().rfind('.') + 1);
    if (!by_kind.count(kind)) order.push_back(kind);
    by_kind[kind].first += 1;
    by_kind[kind].second += mean(runtimes);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string& a, const std::string& b) { return by_kind[a].second > by_kind[b].second; });
  std::vector<std::vector<std::string>> rows;
  for (const std::string& k : order)
    rows.push_back({k, std::to_string(by_kind[k].first), tl::format_g(by_kind[k].second),
                    tl::format_g(by_kind[k].second / mean_total * 100)});
  return tl::tabulate({"Kind", "Nodes", "Average runtime (s)", "Pct total runtime"}, rows);
}

}  // namespace tl::fx
