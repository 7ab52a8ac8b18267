// tests/profiler/test_stacks.cpp — folded stacks for flame graphs: frame order, the event's own
// frame last, name sanitising, summing identical stacks, and the with_stack requirement.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "ops/ops.h"
#include "profiler/clock.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler/stacks.h"
#include "profiler_test_util.h"
#include "tests/support/file_testing.h"

namespace tl::profiler {
namespace {

using testing::make_event;

std::string folded(const EventList& list) {
  std::ostringstream out;
  write_stacks(list, out);
  return out.str();
}

TEST_CASE("stacks: outermost frame first, the event last, self time in microseconds, identical stacks summed") {
  const EventList list({make_event("ProfilerStep#1", EventKind::ProfilerStep, 0, 100'000),
                        make_event("nn.Module: MyModule_0", EventKind::Module, 0, 90'000, 0),
                        make_event("LINEAR PASS", EventKind::UserAnnotation, 1000, 30'000, 1),
                        make_event("aten::linear", EventKind::Op, 2000, 29'000, 2),
                        make_event("aten::addmm", EventKind::Op, 3000, 28'000, 3),
                        make_event("aten::addmm", EventKind::Op, 31'000, 31'600, 1),
                        make_event("aten::addmm", EventKind::Op, 32'000, 32'700, 1)},
                       {}, {.with_stack = true});
  // Self times: the step 100000 - 29000 - 600 - 700 ns (the module scope is transparent), LINEAR
  // PASS 29000 - 27000, linear 27000 - 25000, the inner addmm 25000, the two others 600 + 700.
  CHECK(folded(list) ==
        "ProfilerStep* 69\n"
        "ProfilerStep*;nn.Module:_MyModule_0;LINEAR_PASS 2\n"
        "ProfilerStep*;nn.Module:_MyModule_0;LINEAR_PASS;aten::linear 2\n"
        "ProfilerStep*;nn.Module:_MyModule_0;LINEAR_PASS;aten::linear;aten::addmm 25\n"
        "ProfilerStep*;nn.Module:_MyModule_0;aten::addmm 1\n");
}

TEST_CASE("stacks: a recorded profile folds its scopes") {
  Profile prof({.with_stack = true});
  {
    auto running = prof.start();
    RecordFunction scope("MASK INDICES");
    Tensor t = zeros({100'000});
  }
  const std::string text = folded(prof.events());
  CHECK(text.find("MASK_INDICES;aten::zeros ") != std::string::npos);
  const std::string path =
      (std::filesystem::temp_directory_path() / (std::to_string(current_process_id()) + "_stacks.txt")).string();
  prof.export_stacks(path);
  std::ifstream in(path);
  std::stringstream file;
  file << in.rdbuf();
  CHECK(file.str() == text);
  std::filesystem::remove(path);
}

TEST_CASE("stacks: require with_stack and the self_cpu_time_total metric") {
  const EventList plain({make_event("aten::x", EventKind::Op, 0, 5000)}, {}, {});
  std::ostringstream out;
  CHECK_THROWS_WITH_AS(write_stacks(plain, out), "export_stacks: requires a profile recorded with with_stack=true",
                       Error);
  const EventList stacked({make_event("aten::x", EventKind::Op, 0, 5000)}, {}, {.with_stack = true});
  CHECK_THROWS_WITH_AS(write_stacks(stacked, out, "cpu_time"),
                       "export_stacks: metric should be one of: self_cpu_time_total; got \"cpu_time\"", Error);
  CHECK_THROWS_WITH_AS(plain.export_stacks("/nonexistent-dir/x"),
                       "export_stacks: requires a profile recorded with with_stack=true", Error);
  CHECK(folded(stacked) == "aten::x 5\n");
}

TEST_CASE("stacks: a failed export (EFBIG) leaves the old file and no temporary") {
  tl::testing::ScratchDir dir;
  const std::string path = dir.file("stacks.txt");
  tl::testing::write_file_bytes(path, "old;stacks 1\n");
  const EventList stacked({make_event("aten::x", EventKind::Op, 0, 5000)}, {}, {.with_stack = true});
  {
    tl::testing::FileSizeLimit limit(4);
    CHECK_THROWS_WITH_AS(stacked.export_stacks(path),
                         ("export_stacks: " + path + ": writing failed (File too large)").c_str(), Error);
  }
  CHECK(tl::testing::read_file(path) == "old;stacks 1\n");
  CHECK(tl::testing::dir_entries(dir.path()) == std::vector<std::string>{"stacks.txt"});
  stacked.export_stacks(path);
  CHECK(tl::testing::read_file(path) == "aten::x 5\n");
}

}  // namespace
}  // namespace tl::profiler
