// tests/profiler/test_scope_relay.cpp — scopes of work that the profiled thread queues and another thread runs
// (core/scope_relay.h): recorded under the running thread's id, nested as they ran, in the profile's window only,
// and never after the profile ended, even by a stand-in that outlives it.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "core/scope_relay.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "tests/support/file_testing.h"

namespace tl::profiler {
namespace {

/// Runs `carried` work on a thread of its own: `name` with a Function scope "inner" inside it. Returns that
/// thread's id.
uint64_t run_elsewhere(const CarriedScopes& carried, const std::string& name) {
  uint64_t tid = 0;
  std::thread([&] {
    const CarriedScopes::Installed installed(carried);
    tid = current_thread_id();
    RecordFunction work(name);
    RecordFunction inner("inner", RecordScope::Function);
  }).join();
  return tid;
}

const FunctionEvent* find(const EventList& list, const std::string& name) {
  auto it = std::find_if(list.begin(), list.end(), [&](const FunctionEvent& e) { return e.name == name; });
  return it == list.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("scope relay: another thread's scopes land in the queuing thread's profile, under their own thread id") {
  Profile prof;
  uint64_t worker = 0;
  {
    auto running = prof.start();
    RecordFunction queued("QUEUE");
    const CarriedScopes carried = CarriedScopes::capture();
    REQUIRE_FALSE(carried.empty());
    worker = run_elsewhere(carried, "gloo:all_reduce");
  }
  const EventList& list = prof.events();
  const FunctionEvent* queue = find(list, "QUEUE");
  const FunctionEvent* work = find(list, "gloo:all_reduce");
  const FunctionEvent* inner = find(list, "inner");
  REQUIRE(queue != nullptr);
  REQUIRE(work != nullptr);
  REQUIRE(inner != nullptr);
  CHECK(queue->thread == current_thread_id());
  CHECK(worker != current_thread_id());
  CHECK(work->thread == worker);
  CHECK(work->kind == EventKind::UserAnnotation);
  CHECK(work->parent == -1);  // the queuing thread's scopes are not its parents
  CHECK(inner->thread == worker);
  CHECK(inner->kind == EventKind::Function);
  CHECK(&list[static_cast<size_t>(inner->parent)] == work);
  CHECK(work->start_ns >= queue->start_ns);
  CHECK(inner->end_ns <= work->end_ns);
  const auto& names = list.info().thread_names;
  CHECK(std::any_of(names.begin(), names.end(), [&](const auto& t) { return t.first == worker; }));

  tl::testing::ScratchDir dir;
  prof.export_chrome_trace(dir.file("trace.json"));
  std::ifstream in(dir.file("trace.json"));
  const nlohmann::json trace = nlohmann::json::parse(in);
  bool written = false;
  for (const nlohmann::json& e : trace.at("traceEvents"))
    if (e.value("name", "") == "gloo:all_reduce") {
      written = true;
      CHECK(e.at("tid") == worker);
      CHECK(e.at("cat") == "user_annotation");
    }
  CHECK(written);
}

TEST_CASE("scope relay: nothing to carry without a profile; a stand-in that outlives its profile records nothing") {
  CHECK(CarriedScopes::capture().empty());
  Profile later;
  {
    auto profile = std::make_unique<Profile>();
    CarriedScopes carried;
    {
      auto running = profile->start();
      carried = CarriedScopes::capture();
    }
    REQUIRE_FALSE(carried.empty());
    run_elsewhere(carried, "after stop");
    const CarriedScopes stale = carried;
    profile.reset();  // the stand-ins it handed out stay valid
    auto running = later.start();
    run_elsewhere(stale, "after destruction");
  }
  CHECK(find(later.events(), "after stop") == nullptr);
  CHECK(find(later.events(), "after destruction") == nullptr);
}

TEST_CASE("scope relay: a schedule's warmup drops the relayed scopes, its active step keeps them") {
  Profile prof({.schedule = Schedule{.warmup = 1, .active = 1, .repeat = 1}});
  {
    auto running = prof.start();
    run_elsewhere(CarriedScopes::capture(), "in warmup");
    prof.step();
    run_elsewhere(CarriedScopes::capture(), "in active");
    prof.step();
  }
  CHECK(find(prof.events(), "in warmup") == nullptr);
  CHECK(find(prof.events(), "in active") != nullptr);
}

}  // namespace tl::profiler
