// tests/profiler/test_record_function.cpp — RecordFunction scopes: no-ops without a profile,
// nesting, early end(), misnested closing, and scopes that outlive their profile.
#include <doctest/doctest.h>

#include <memory>

#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

using testing::event_names;
using testing::find_one;

TEST_CASE("record_function: does nothing when no profile runs on the thread") {
  RecordFunction scope("IDLE");
  scope.end();
  scope.end();
  Profile prof;
  {
    auto running = prof.start();
    Tensor t = zeros({1});
  }
  CHECK(event_names(prof.events()) == std::vector<std::string>{"aten::zeros", "aten::zero_"});
}

TEST_CASE("record_function: nested scopes become nested user annotations") {
  Profile prof;
  {
    auto running = prof.start();
    RecordFunction a("A");
    {
      RecordFunction b("B");
      Tensor t = zeros({1});
    }
    Tensor u = zeros({1});
  }
  const EventList& events = prof.events();
  CHECK(event_names(events) ==
        std::vector<std::string>{"A", "B", "aten::zeros", "aten::zero_", "aten::zeros", "aten::zero_"});
  const int64_t a = find_one(events, "A"), b = find_one(events, "B");
  CHECK(events[a].kind == EventKind::UserAnnotation);
  CHECK(events[b].parent == a);
  CHECK(events[2].parent == b);
  CHECK(events[4].parent == a);
  CHECK(events[b].end_ns <= events[4].start_ns);
}

TEST_CASE("record_function: end() closes the scope early") {
  Profile prof;
  {
    auto running = prof.start();
    RecordFunction a("A");
    Tensor t = zeros({1});
    a.end();
    Tensor u = zeros({1});
  }
  const EventList& events = prof.events();
  CHECK(event_names(events) == std::vector<std::string>{"A", "aten::zeros", "aten::zero_", "aten::zeros", "aten::zero_"});
  CHECK(events[3].parent == -1);
  CHECK(events[0].end_ns <= events[3].start_ns);
}

TEST_CASE("record_function: closing an outer scope first also closes the inner one") {
  Profile prof;
  {
    auto running = prof.start();
    auto outer = std::make_unique<RecordFunction>("OUTER");
    auto inner = std::make_unique<RecordFunction>("INNER");
    outer.reset();  // out of order
    Tensor t = zeros({1});
    inner.reset();  // already closed: ignored
  }
  const EventList& events = prof.events();
  const int64_t outer = find_one(events, "OUTER"), inner = find_one(events, "INNER");
  CHECK(events[inner].parent == outer);
  CHECK(events[inner].end_ns == events[outer].end_ns);
  CHECK(events[find_one(events, "aten::zeros")].parent == -1);
  for (const FunctionEvent& e : events) CHECK(e.self_cpu_time_total_ns >= 0);
}

TEST_CASE("record_function: a scope still open at stop ends with the window; one that outlives its profile is safe") {
  auto late = std::make_unique<RecordFunction>("never closed in time");
  Profile prof;
  std::unique_ptr<RecordFunction> open_at_stop;
  {
    auto running = prof.start();
    open_at_stop = std::make_unique<RecordFunction>("OPEN AT STOP");
    Tensor t = zeros({1});
  }
  const EventList& events = prof.events();
  const int64_t open = find_one(events, "OPEN AT STOP");
  CHECK(events[open].end_ns == events.info().window_end_ns);
  CHECK(events[find_one(events, "aten::zeros")].parent == open);
  open_at_stop.reset();
  late.reset();
  Profile next;
  {
    auto running = next.start();
    RecordFunction fresh("FRESH");
  }
  CHECK(event_names(next.events()) == std::vector<std::string>{"FRESH"});
}

TEST_CASE("record_function: a scope from a previous profile never closes a scope of the next one") {
  Profile first;
  auto guard = first.start();
  auto stale = std::make_unique<RecordFunction>("STALE");
  first.stop();
  Profile second;
  {
    auto running = second.start();
    RecordFunction current("CURRENT");
    stale.reset();
    Tensor t = zeros({1});
  }
  const EventList& events = second.events();
  CHECK(events[find_one(events, "aten::zeros")].parent == find_one(events, "CURRENT"));
}

TEST_CASE("record_function: a scope left open when a profile stops closes nothing after its restart") {
  Profile prof;
  std::unique_ptr<RecordFunction> stale;
  {
    auto running = prof.start();
    stale = std::make_unique<RecordFunction>("STALE");
  }
  {
    auto running = prof.start();
    RecordFunction current("CURRENT");
    stale.reset();
    Tensor t = zeros({1});
  }
  const EventList& events = prof.events();
  CHECK(event_names(events) == std::vector<std::string>{"CURRENT", "aten::zeros", "aten::zero_"});
  CHECK(events[1].parent == 0);
  CHECK(events[0].end_ns >= events[1].end_ns);
}

}  // namespace
}  // namespace tl::profiler
