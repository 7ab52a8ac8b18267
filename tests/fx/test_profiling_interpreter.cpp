// tests/fx/test_profiling_interpreter.cpp — the seed's ProfilingInterpreter: per-node times,
// the tabulate summary (tl::tabulate, tests/core/test_text_table.cpp), sorting, rollups.
#include <doctest/doctest.h>

#include <sstream>

#include "fx/profiling_interpreter.h"
#include "models/resnet.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

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

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: fx::tabulate and fx::format_g are core's for one more version") {
  CHECK(tabulate({"a", "b"}, {{"x", "1.5"}}) == tl::tabulate({"a", "b"}, {{"x", "1.5"}}));
  CHECK(format_g(1e-05) == "1e-05");
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl::fx
