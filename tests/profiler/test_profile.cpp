// tests/profiler/test_profile.cpp — Profile end to end on real ops: what gets recorded, nesting
// and self times, memory attribution on known allocations, thread isolation, misuse errors.
#include <doctest/doctest.h>

#include <barrier>
#include <memory>
#include <optional>
#include <thread>

#include "core/warning.h"
#include "ops/ops.h"
#include "profiler/clock.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

using testing::find_all;
using testing::find_one;

TEST_CASE("profile: records every op dispatched between start and stop, nested under scopes") {
  Tensor before = zeros({4});
  Profile prof;
  {
    auto running = prof.start();
    RecordFunction scope("OUTER");
    Tensor a = ones({8});
    Tensor b = a + a;
    Tensor s = b.sum();
  }
  Tensor after = zeros({4});
  const EventList& events = prof.events();
  // ones and sum hold the ops ATen runs inside them (fill_; sum.dim_IntList with as_strided and fill_)
  CHECK(testing::event_names(events) == std::vector<std::string>{"OUTER", "aten::ones", "aten::fill_", "aten::add",
                                                                 "aten::sum", "aten::sum", "aten::as_strided",
                                                                 "aten::fill_"});
  const int64_t outer = find_one(events, "OUTER");
  CHECK(events[outer].kind == EventKind::UserAnnotation);
  CHECK(events[outer].parent == -1);
  std::vector<std::string> children;
  for (const FunctionEvent& e : events) {
    if (e.parent != outer) continue;
    children.push_back(e.name);
    CHECK(e.kind == EventKind::Op);
    CHECK(e.parent == outer);
    CHECK(e.cpu_parent == outer);
    CHECK(e.thread == current_thread_id());
    CHECK(e.start_ns >= events[outer].start_ns);
    CHECK(e.end_ns <= events[outer].end_ns);
  }
  CHECK(children == std::vector<std::string>{"aten::ones", "aten::add", "aten::sum"});
}

TEST_CASE("profile: self time is total minus direct children, and the self times add up to the roots") {
  Profile prof;
  {
    auto running = prof.start();
    RecordFunction outer("OUTER");
    Tensor x = zeros({64});
    {
      RecordFunction inner("INNER");
      Tensor y = x + 1;
      Tensor z = y.mean();
    }
    Tensor w = x * x;
  }
  const EventList& events = prof.events();
  int64_t roots_ns = 0, self_sum_ns = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const FunctionEvent& e = events[i];
    int64_t children_ns = 0;
    for (size_t j = 0; j < events.size(); ++j)
      if (events[j].cpu_parent == static_cast<int64_t>(i)) children_ns += events[j].cpu_time_total_ns();
    CHECK(e.self_cpu_time_total_ns == e.cpu_time_total_ns() - children_ns);
    CHECK(e.self_cpu_time_total_ns >= 0);
    if (e.cpu_parent < 0) roots_ns += e.cpu_time_total_ns();
    self_sum_ns += e.self_cpu_time_total_ns;
  }
  CHECK(self_sum_ns == roots_ns);
  CHECK(events.self_cpu_time_total_ns() == self_sum_ns);
  const int64_t inner = find_one(events, "INNER");
  CHECK(events[inner].parent == find_one(events, "OUTER"));
  CHECK(events[inner].cpu_children.size() == 2);
}

TEST_CASE("profile: memory is attributed to the scope that allocated or freed it") {
  Tensor preexisting = zeros({256});
  Tensor kept;
  Profile prof({.profile_memory = true});
  {
    auto running = prof.start();
    {
      RecordFunction alloc("ALLOC");
      kept = zeros({1000});
    }
    {
      RecordFunction release("FREE");
      preexisting = Tensor();
    }
    Tensor raw = Tensor::allocate({10}, DType::Float64);  // not an op: a top-level "[memory]" event
  }
  const int64_t kept_bytes = 1000 * element_size(DType::Float32);
  const int64_t freed_bytes = 256 * element_size(DType::Float32);
  const int64_t raw_bytes = 10 * element_size(DType::Float64);
  const EventList& events = prof.events();
  const FunctionEvent& alloc = events[find_one(events, "ALLOC")];
  const FunctionEvent& zeros_op = events[find_one(events, "aten::zeros")];
  CHECK(alloc.cpu_memory_usage == kept_bytes);
  CHECK(alloc.self_cpu_memory_usage == 0);
  CHECK(zeros_op.cpu_memory_usage == kept_bytes);
  CHECK(zeros_op.self_cpu_memory_usage == kept_bytes);
  const FunctionEvent& release = events[find_one(events, "FREE")];
  CHECK(release.cpu_memory_usage == -freed_bytes);
  CHECK(release.self_cpu_memory_usage == -freed_bytes);

  REQUIRE(events.memory_events().size() == 4);
  CHECK(events.memory_events()[0].bytes == kept_bytes);
  CHECK(events.memory_events()[1].bytes == -freed_bytes);
  CHECK(events.memory_events()[2].bytes == raw_bytes);
  CHECK(events.memory_events()[2].parent == -1);
  CHECK(events.memory_events()[3].bytes == -raw_bytes);

  const KeyAverages avg = prof.key_averages();
  const FunctionEventAvg& loose = avg.at(kMemoryEventName);
  CHECK(loose.count == 2);
  CHECK(loose.cpu_memory_usage == 0);
  CHECK(avg.at("ALLOC").cpu_memory_usage == kept_bytes);
}

TEST_CASE("profile: memory events carry the process-wide bytes in use") {
  Profile prof({.profile_memory = true});
  int64_t in_use_after = 0;
  Tensor t;
  {
    auto running = prof.start();
    t = zeros({100});
    in_use_after = allocator_stats().bytes_in_use;
  }
  REQUIRE(prof.events().memory_events().size() == 1);
  CHECK(prof.events().memory_events()[0].total_allocated == in_use_after);
}

TEST_CASE("profile: concurrent profiles on two threads never mix their events") {
  constexpr int kCalls = 50;
  std::barrier sync(2);
  struct Result {
    std::vector<std::string> names;
    std::vector<uint64_t> threads;
    std::vector<int64_t> memory_bytes;
    uint64_t tid = 0;
  };
  auto work = [&](const char* label, int64_t size, Result& out) {
    Profile prof({.profile_memory = true});
    {
      auto running = prof.start();
      sync.arrive_and_wait();  // both profiles are running from here on
      RecordFunction scope(label);
      for (int i = 0; i < kCalls; ++i) Tensor t = zeros({size});
      sync.arrive_and_wait();
    }
    out.tid = current_thread_id();
    for (const FunctionEvent& e : prof.events()) {
      out.names.push_back(e.name);
      out.threads.push_back(e.thread);
    }
    for (const MemoryEvent& m : prof.events().memory_events()) out.memory_bytes.push_back(m.bytes);
  };
  Result a, b;
  std::thread ta(work, "THREAD A", 3, std::ref(a));
  std::thread tb(work, "THREAD B", 5, std::ref(b));
  ta.join();
  tb.join();
  for (const auto& [r, label, bytes] :
       {std::tuple{&a, "THREAD A", int64_t{12}}, std::tuple{&b, "THREAD B", int64_t{20}}}) {
    std::vector<std::string> expected{label};
    for (int i = 0; i < kCalls; ++i) expected.insert(expected.end(), {"aten::zeros", "aten::zero_"});
    CHECK(r->names == expected);
    for (uint64_t tid : r->threads) CHECK(tid == r->tid);
    CHECK(r->memory_bytes.size() == 2 * kCalls);
    for (size_t i = 0; i < r->memory_bytes.size(); ++i) CHECK(r->memory_bytes[i] == (i % 2 == 0 ? bytes : -bytes));
  }
  CHECK(a.tid != b.tid);
}

TEST_CASE("profile: record_shapes gives one shape and type per argument of PyTorch's schema") {
  Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    Tensor x = zeros({2, 3});
    Tensor y = x + 1.5;
    Tensor z = x.sum({1}, true);
  }
  const EventList& events = prof.events();
  const FunctionEvent& z = events[find_one(events, "aten::zeros")];
  CHECK(z.input_shapes == std::vector<Shape>{{}, {}, {}, {}, {}});  // PyTorch's zeros(size, dtype, layout, device, pin_memory)
  CHECK(z.input_types == std::vector<std::string>{"ScalarList", "Int", "", "", ""});
  const FunctionEvent& zero = events[find_one(events, "aten::zero_")];  // ATen fills the result with zero_
  CHECK(zero.input_shapes == std::vector<Shape>{{2, 3}});
  CHECK(zero.input_types == std::vector<std::string>{"float"});
  const FunctionEvent& add = events[find_one(events, "aten::add")];
  CHECK(add.input_shapes == std::vector<Shape>{{2, 3}, {}, {}});  // PyTorch's add(self, other, alpha)
  CHECK(add.input_types == std::vector<std::string>{"float", "Scalar", "Scalar"});
  const FunctionEvent& sum = events[find_one(events, "aten::sum")];
  CHECK(sum.input_shapes == std::vector<Shape>{{2, 3}, {}, {}, {}});  // sum.dim_IntList(self, dim, keepdim, dtype)
  CHECK(sum.input_types == std::vector<std::string>{"float", "ScalarList", "Bool", ""});
}

TEST_CASE("profile: results survive stop and a restart replaces them") {
  Profile prof;
  {
    auto running = prof.start();
    Tensor t = zeros({1});
  }
  CHECK(testing::event_names(prof.events()) == std::vector<std::string>{"aten::zeros", "aten::zero_"});
  {
    auto running = prof.start();
    Tensor t = ones({1});
    Tensor u = ones({1});
  }
  CHECK(testing::event_names(prof.events()) ==
        std::vector<std::string>{"aten::ones", "aten::fill_", "aten::ones", "aten::fill_"});
}

TEST_CASE("profile: a failing op is still recorded and closed") {
  Profile prof;
  {
    auto running = prof.start();
    CHECK_THROWS_AS(zeros({-1}), Error);
    Tensor t = ones({1});
  }
  const EventList& events = prof.events();
  REQUIRE(events.size() == 3);  // the failed zeros (it threw before its zero_), then ones and its fill_
  CHECK(events[0].name == "aten::zeros");
  CHECK(events[0].end_ns <= events[1].start_ns);
  CHECK(events[1].name == "aten::ones");
  CHECK(events[1].parent == -1);
  CHECK(events[2].parent == 1);
}

TEST_CASE("profile: misuse gives clear errors") {
  Profile prof;
  CHECK(prof.events().empty());
  CHECK_THROWS_WITH_AS(prof.step(), "profile: step() called on a profile that is not running", Error);
  auto running = prof.start();
  CHECK_THROWS_WITH_AS((void)prof.start(), "profile: start() called on a profile that is already running", Error);
  CHECK_THROWS_WITH_AS(prof.events(), doctest::Contains("profile: no results yet; call stop() first"), Error);
  Profile other;
  CHECK_THROWS_WITH_AS((void)other.start(),
                       "profile: another profile is already running on this thread; stop it first", Error);
  std::string from_other_thread;
  std::thread([&] {
    try {
      prof.stop();
    } catch (const Error& e) {
      from_other_thread = e.what();
    }
  }).join();
  CHECK(from_other_thread == "profile: stop() must be called on the thread that called start()");
  prof.stop();
  CHECK_FALSE(prof.is_running());
  CHECK_NOTHROW((void)other.start());
}

// PyTorch 1.13 without CUDA: profile(activities=[CPU, CUDA]) warns "CUDA is not available, disabling CUDA
// profiling" and records the CPU; activities=[CUDA] warns the same and asserts "No activities specified
// for the profiler"; no activities (None or []) means supported_activities(), {CPU}.
TEST_CASE("profile: activities as torch.profiler.profile's, on a build that profiles the CPU only") {
  CHECK(supported_activities() == std::vector<ProfilerActivity>{ProfilerActivity::CPU});
  std::vector<std::string> warnings;
  const WarningHandler previous = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
  const auto records_ops = [](Profile& prof) {
    {
      auto running = prof.start();
      Tensor a = ones({4});
    }
    return !prof.events().empty();
  };
  Profile by_default;
  CHECK(by_default.options().activities == supported_activities());
  CHECK(records_ops(by_default));
  Profile cpu({.activities = {ProfilerActivity::CPU}, .record_shapes = true});
  CHECK(records_ops(cpu));
  CHECK(warnings.empty());
  Profile both({.activities = {ProfilerActivity::CPU, ProfilerActivity::CUDA}});
  CHECK(warnings == std::vector<std::string>{"CUDA is not available, disabling CUDA profiling"});
  CHECK(records_ops(both));
  warnings.clear();
  CHECK_THROWS_WITH_AS(Profile({.activities = {ProfilerActivity::CUDA}}),
                       "profile: no activities left to record: activities {CUDA}, and CUDA is not available "
                       "(torchless profiles the CPU); add ProfilerActivity::CPU",
                       Error);
  CHECK(warnings == std::vector<std::string>{"CUDA is not available, disabling CUDA profiling"});
  CHECK_THROWS_WITH_AS(Profile({.activities = {static_cast<ProfilerActivity>(7)}}),
                       "profile: unknown ProfilerActivity 7 in activities; expected CPU or CUDA", Error);
  set_warning_handler(previous);
  Profile after;  // the failed ones claimed nothing: this thread profiles as before
  CHECK(records_ops(after));
}

TEST_CASE("profile: destroyed on another thread while running, it goes inert; its thread can profile again") {
  auto prof = std::make_unique<Profile>();
  std::optional<ProfileGuard> guard;
  std::barrier sync(2);
  std::vector<std::string> names;
  std::thread worker([&] {
    guard.emplace(prof->start());
    sync.arrive_and_wait();  // main destroys the guard (stop() fails there) and the profile
    sync.arrive_and_wait();
    RecordFunction ignored("IGNORED");
    Tensor t = zeros({2});
    Profile next;
    {
      auto running = next.start();
      Tensor u = ones({2});
    }
    names = testing::event_names(next.events());
  });
  sync.arrive_and_wait();
  guard.reset();
  CHECK(prof->is_running());
  prof.reset();
  sync.arrive_and_wait();
  worker.join();
  CHECK(names == std::vector<std::string>{"aten::ones", "aten::fill_"});
}

TEST_CASE("profile: without a schedule step() counts steps but emits no step scopes") {
  Profile prof;
  {
    auto running = prof.start();
    Tensor t = zeros({1});
    prof.step();
    Tensor u = zeros({1});
  }
  CHECK(prof.step_num() == 1);
  CHECK(testing::event_names(prof.events()) ==
        std::vector<std::string>{"aten::zeros", "aten::zero_", "aten::zeros", "aten::zero_"});
}

TEST_CASE("profile: the profiler's own time is measured apart from the events") {
  Profile prof;
  {
    auto running = prof.start();
    for (int i = 0; i < 20; ++i) Tensor t = zeros({1});
  }
  CHECK(prof.profiler_overhead_ns() > 0);
  CHECK(prof.events().info().window_end_ns >= prof.events().info().window_start_ns);
}

}  // namespace
}  // namespace tl::profiler
