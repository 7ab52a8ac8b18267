// fx/profiling_interpreter.h — the fx_profiling_tutorial's ProfilingInterpreter: an Interpreter
// that times every node (monotonic clock) and prints a summary table like the seed's tabulate one.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/text_table.h"
#include "fx/interpreter.h"
#include "fx/tracer.h"

namespace tl::fx {

struct SummaryOptions {
  /// Adds median, min and max columns next to the seed's average.
  bool stats = false;
};

class ProfilingInterpreter : public Interpreter {
 public:
  /// Traces `module` (symbolic_trace) and profiles the resulting graph.
  explicit ProfilingInterpreter(const std::shared_ptr<nn::Module>& module);

  TensorList run(const TensorList& inputs) override;
  using Interpreter::run;
  NodeValue run_node(Node& n) override;

  /// The seed's table: Op type, Op, Average runtime (s), Pct total runtime; sorted by average
  /// runtime (descending, stable) when `should_sort`. Throws if run() was never called.
  std::string summary(bool should_sort = false, const SummaryOptions& options = {}) const;
  /// Rolls the nodes up by kind (module type or function: Conv2d, BatchNorm2d, ReLU, add, ...):
  /// count, total average runtime and share of the run, largest first.
  std::string summary_by_type() const;

  /// Wall time of each run() in seconds.
  const std::vector<double>& total_runtime_sec() const { return total_runtime_sec_; }
  /// Per node, in graph order, the seconds of each run.
  const std::vector<std::pair<const Node*, std::vector<double>>>& runtimes_sec() const { return runtimes_sec_; }

 private:
  std::vector<double> total_runtime_sec_;
  std::vector<std::pair<const Node*, std::vector<double>>> runtimes_sec_;
};

/// Deprecated in 0.2.0, removed in 0.3.0: tabulate and format_g are core's (core/text_table.h).
[[deprecated("tl::fx::tabulate is tl::tabulate (core/text_table.h)")]]
inline std::string tabulate(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  return tl::tabulate(headers, rows);
}
[[deprecated("tl::fx::format_g is tl::format_g (core/text_table.h)")]]
inline std::string format_g(double x) { return tl::format_g(x); }

}  // namespace tl::fx
