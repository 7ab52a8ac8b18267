// tests/profiler/test_schedule.cpp — torch.profiler.schedule's actions, and a scheduled Profile
// recording exactly the active steps (ProfilerStep#N scopes), window by window.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

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
}

// Each invalid schedule fails the same way through validate(), a direct call and a Profile.
void check_refused(const Schedule& s, const std::string& message) {
  CAPTURE(message);
  CHECK_THROWS_WITH_AS(s.validate(), message.c_str(), Error);
  CHECK_THROWS_WITH_AS(s(0), message.c_str(), Error);
  CHECK_THROWS_WITH_AS(Profile({.schedule = s}), message.c_str(), Error);
}

TEST_CASE("schedule: active <= 0 is refused, also by a direct call (no division by zero)") {
  check_refused({.active = 0}, "schedule: active must be > 0, got 0");
  check_refused({.active = -3}, "schedule: active must be > 0, got -3");
}

TEST_CASE("schedule: negative wait, warmup, repeat or skip_first is refused") {
  check_refused({.wait = -1}, "schedule: wait must be >= 0, got -1");
  check_refused({.warmup = -2}, "schedule: warmup must be >= 0, got -2");
  check_refused({.repeat = -1}, "schedule: repeat must be >= 0, got -1");
  check_refused({.skip_first = INT64_MIN}, "schedule: skip_first must be >= 0, got -9223372036854775808");
}

TEST_CASE("schedule: a cycle or a run of cycles past int64 is refused") {
  check_refused({.wait = 1, .active = INT64_MAX},
                "schedule: wait + warmup + active overflows int64 (wait=1, warmup=0, active=9223372036854775807)");
  check_refused({.wait = INT64_MAX, .warmup = INT64_MAX, .active = 1},
                "schedule: wait + warmup + active overflows int64 (wait=9223372036854775807, "
                "warmup=9223372036854775807, active=1)");
  check_refused({.active = 3, .repeat = INT64_MAX / 2},
                "schedule: skip_first + repeat * (wait + warmup + active) overflows int64 (skip_first=0, "
                "repeat=4611686018427387903, cycle of 3 steps)");
  check_refused({.active = 2, .repeat = INT64_MAX / 2, .skip_first = 2},
                "schedule: skip_first + repeat * (wait + warmup + active) overflows int64 (skip_first=2, "
                "repeat=4611686018427387903, cycle of 2 steps)");
  // The largest schedules that fit still work, to the last step.
  const Schedule huge{.active = INT64_MAX};
  CHECK(huge(INT64_MAX - 2) == ProfilerAction::Record);
  CHECK(huge(INT64_MAX - 1) == ProfilerAction::RecordAndSave);
  const Schedule repeated{.active = 2, .repeat = INT64_MAX / 2, .skip_first = 1};
  CHECK(repeated(INT64_MAX - 1) == ProfilerAction::RecordAndSave);
  CHECK(repeated(INT64_MAX) == ProfilerAction::None);
  CHECK_THROWS_WITH_AS(huge(-1), "schedule: step must be >= 0, got -1", Error);
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
    for (std::string n : {"ProfilerStep#" + std::to_string(s), "work " + std::to_string(s), std::string("aten::zeros"),
                          std::string("aten::zero_")})
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
