// tests/profiler/test_schedule.cpp — torch.profiler.schedule's actions, and a scheduled Profile
// recording exactly the active steps (ProfilerStep#N scopes), window by window.
#include <doctest/doctest.h>

#include "core/error.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler/schedule.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

// The schedule written out step by step, as its documentation describes it.
std::vector<ProfilerAction> expand(const Schedule& s, size_t steps) {
  std::vector<ProfilerAction> actions(static_cast<size_t>(s.skip_first), ProfilerAction::None);
  for (int64_t cycle = 0; actions.size() < steps && (s.repeat == 0 || cycle < s.repeat); ++cycle) {
    actions.insert(actions.end(), static_cast<size_t>(s.wait), ProfilerAction::None);
    actions.insert(actions.end(), static_cast<size_t>(s.warmup), ProfilerAction::Warmup);
    actions.insert(actions.end(), static_cast<size_t>(s.active - 1), ProfilerAction::Record);
    actions.push_back(ProfilerAction::RecordAndSave);
  }
  actions.resize(std::max(actions.size(), steps), ProfilerAction::None);
  actions.resize(steps);
  return actions;
}

TEST_CASE("schedule: actions match the cycle written out step by step") {
  for (int64_t wait : {0, 1, 3})
    for (int64_t warmup : {0, 1, 2})
      for (int64_t active : {1, 2, 4})
        for (int64_t repeat : {0, 1, 3})
          for (int64_t skip_first : {0, 2}) {
            const Schedule s{wait, warmup, active, repeat, skip_first};
            const std::vector<ProfilerAction> expected = expand(s, 60);
            for (int64_t step = 0; step < 60; ++step) {
              CAPTURE(step);
              CHECK(action_name(s(step)) == std::string(action_name(expected[static_cast<size_t>(step)])));
            }
          }
  CHECK_THROWS_WITH_AS((Schedule{.active = 0}).validate(),
                       "schedule: invalid arguments wait=0, warmup=0, active=0, repeat=0, skip_first=0 (active must be "
                       "> 0, the others >= 0)",
                       Error);
  CHECK_THROWS_AS(Profile({.schedule = Schedule{.wait = -1}}), Error);
}

// Runs `steps` steps, each a "work N" scope around one op, and returns the event names of every
// saved window.
std::vector<std::vector<std::string>> run(const Schedule& schedule, int steps, int stop_after = -1) {
  std::vector<std::vector<std::string>> windows;
  Profile prof({.schedule = schedule, .on_trace_ready = [&](Profile& p) {
                  windows.push_back(testing::event_names(p.events()));
                }});
  auto running = prof.start();
  for (int i = 0; i < steps; ++i) {
    {
      RecordFunction work("work " + std::to_string(i));
      Tensor t = zeros({1});
    }
    if (i == stop_after) break;
    prof.step();
  }
  prof.stop();
  return windows;
}

std::vector<std::string> window(std::initializer_list<int> steps) {
  std::vector<std::string> names;
  for (int s : steps)
    for (std::string n : {"ProfilerStep#" + std::to_string(s), "work " + std::to_string(s), std::string("aten::zeros")})
      names.push_back(n);
  return names;
}

TEST_CASE("schedule: a profile records exactly the active steps") {
  CHECK(run({.wait = 1, .warmup = 1, .active = 2, .repeat = 1}, 8) ==
        std::vector<std::vector<std::string>>{window({2, 3})});
  CHECK(run({.wait = 1, .warmup = 1, .active = 2, .repeat = 2}, 10) ==
        std::vector<std::vector<std::string>>{window({2, 3}), window({6, 7})});
  CHECK(run({.wait = 0, .warmup = 0, .active = 1, .repeat = 3}, 5) ==
        std::vector<std::vector<std::string>>{window({0}), window({1}), window({2})});
  CHECK(run({.wait = 1, .warmup = 1, .active = 2, .repeat = 1, .skip_first = 3}, 8) ==
        std::vector<std::vector<std::string>>{window({5, 6})});
}

TEST_CASE("schedule: stopping inside an active window saves what was recorded") {
  CHECK(run({.wait = 0, .warmup = 1, .active = 5}, 10, 2) == std::vector<std::vector<std::string>>{window({1, 2})});
  CHECK(run({.wait = 2, .warmup = 1, .active = 5}, 10, 2).empty());
}

TEST_CASE("schedule: results are the last saved window; step rows aggregate as ProfilerStep*") {
  int ready = 0;
  Profile prof({.schedule = Schedule{.wait = 0, .warmup = 1, .active = 2, .repeat = 2},
                .on_trace_ready = [&](Profile&) { ++ready; }});
  {
    auto running = prof.start();
    CHECK_THROWS_WITH_AS(prof.events(), doctest::Contains("no results yet"), Error);
    for (int i = 0; i < 6; ++i) {
      Tensor t = zeros({1});
      prof.step();
    }
    CHECK(ready == 2);
    CHECK(prof.step_num() == 6);
    CHECK(prof.events()[0].name == "ProfilerStep#4");
  }
  const KeyAverages avg = prof.key_averages();
  CHECK(avg.at("ProfilerStep*").count == 2);
  CHECK(avg.at("aten::zeros").count == 2);
}

}  // namespace
}  // namespace tl::profiler
