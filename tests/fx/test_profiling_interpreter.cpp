// tests/fx/test_profiling_interpreter.cpp — the seed's ProfilingInterpreter: per-node times,
// the tabulate summary (layout checked against python3-tabulate's output), sorting, rollups.
#include <doctest/doctest.h>

#include <sstream>

#include "fx/profiling_interpreter.h"
#include "models/resnet.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

TEST_CASE("tabulate: matches python3-tabulate's simple format") {
  // Expected text printed by tests/fx/gen_tabulate_cases.py (python3-tabulate 0.8.9).
  const std::vector<std::vector<std::string>> rows = {
      {"call_module", "layer1_0_conv1", format_g(0.00345683), format_g(5.15744)},
      {"call_function", "add", format_g(1.2e-05), format_g(0.0178)},
      {"placeholder", "x", format_g(7.15256e-07), format_g(0.000995988)},
      {"output", "output", format_g(3.5), format_g(12)}};
  const std::string expected =
      "Op type        Op                Average runtime (s)    Pct total runtime\n"
      "-------------  --------------  ---------------------  -------------------\n"
      "call_module    layer1_0_conv1            0.00345683           5.15744\n"
      "call_function  add                       1.2e-05              0.0178\n"
      "placeholder    x                         7.15256e-07          0.000995988\n"
      "output         output                    3.5                 12";
  CHECK(tabulate({"Op type", "Op", "Average runtime (s)", "Pct total runtime"}, rows) == expected);
}

TEST_CASE("ProfilingInterpreter: times every node; the summary is sorted and sums to ~100%") {
  auto model = models::resnet18();
  model->eval();
  ProfilingInterpreter interp(model);
  Tensor x = randn({1, 3, 64, 64});
  Tensor eager = (*model)(x);
  CHECK(equal(interp.run(x), eager));
  interp.run(x);
  CHECK(interp.total_runtime_sec().size() == 2);
  CHECK(interp.runtimes_sec().size() == interp.module().graph().size());
  for (const auto& [node, times] : interp.runtimes_sec()) CHECK(times.size() == 2);

  const std::string table = interp.summary(true);
  std::istringstream lines(table);
  std::string header, rule, line;
  std::getline(lines, header);
  std::getline(lines, rule);
  CHECK(header.rfind("Op type", 0) == 0);
  double pct_sum = 0, previous = 1e30;
  int rows = 0;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::string op, name;
    double avg = 0, pct = 0;
    cells >> op >> name >> avg >> pct;
    CHECK(avg <= previous);
    previous = avg;
    pct_sum += pct;
    ++rows;
  }
  CHECK(rows == static_cast<int>(interp.module().graph().size()));
  CHECK(pct_sum > 80.0);
  CHECK(pct_sum < 101.0);

  const std::string with_stats = interp.summary(false, {.stats = true});
  CHECK(with_stats.find("Median (s)") != std::string::npos);
  const std::string rollup = interp.summary_by_type();
  CHECK(rollup.find("Conv2d") != std::string::npos);
  CHECK(rollup.find("BatchNorm2d") != std::string::npos);
  CHECK(rollup.find("add") != std::string::npos);
}

TEST_CASE("ProfilingInterpreter: summary before run is an error") {
  ProfilingInterpreter interp(models::resnet18());
  CHECK_THROWS_WITH_AS(interp.summary(), "ProfilingInterpreter::summary: call run() first", Error);
}

}  // namespace
}  // namespace tl::fx
