// tests/profiler/test_profiler_threads.cpp — profiling is per thread: profiles, ProfilingInterpreters and
// module / dispatch hooks on threads running one shared model at the same time each see exactly what
// their own thread did, the same as when that thread runs alone.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "fx/profiling_interpreter.h"
#include "nn/layers.h"
#include "nn/module_hook.h"
#include "ops/ops.h"
#include "profiler/clock.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"

namespace tl::profiler {
namespace {

/// Conv2d -> ReLU, shared by every thread of a test.
std::shared_ptr<nn::Module> shared_model() {
  const nn::Conv2dOptions options{.in_channels = 3, .out_channels = 8, .kernel_size = 3, .padding = 1};
  auto conv = std::make_shared<nn::Conv2d>(options);
  return std::make_shared<nn::Sequential>(conv, std::make_shared<nn::ReLU>());
}

/// What one thread's profile recorded, reduced to what must not depend on other threads.
struct Recorded {
  std::map<std::tuple<std::string, std::string>, int64_t> averages;  ///< key_averages: (key, shapes) -> count
  std::map<std::tuple<std::string, std::string>, int64_t> events;    ///< every event: (name, scopes) -> count
  std::vector<int64_t> memory_bytes;                                 ///< sorted
  bool frees_only_own_allocations = true;
  std::set<uint64_t> threads;  ///< of every event and memory event

  /// Events named `name`, whatever their stacks.
  int64_t count(const std::string& name) const {
    int64_t n = 0;
    for (const auto& [key, calls] : events) n += std::get<0>(key) == name ? calls : 0;
    return n;
  }
};

Recorded summarize(const EventList& list) {
  Recorded r;
  for (const FunctionEventAvg& row : list.key_averages({.group_by_input_shape = true}))
    r.averages[{row.key, row.input_shapes}] = row.count;
  for (const FunctionEvent& e : list) {
    // The enclosing scopes, not e.stack: its C++ frames differ by thread (the thread's entry point).
    std::string stack;
    for (int64_t p = e.parent; p >= 0; p = list[p].parent)
      if (list[p].kind == EventKind::UserAnnotation || list[p].kind == EventKind::Module) stack += list[p].name + ";";
    ++r.events[{e.name, stack}];
    r.threads.insert(e.thread);
  }
  std::set<uint64_t> live;
  for (const MemoryEvent& m : list.memory_events()) {
    r.memory_bytes.push_back(m.bytes);
    r.threads.insert(m.thread);
    if (m.bytes > 0) live.insert(m.address);
    else r.frees_only_own_allocations = r.frees_only_own_allocations && live.erase(m.address) == 1;
  }
  std::sort(r.memory_bytes.begin(), r.memory_bytes.end());
  return r;
}

/// `calls` forwards of `model` on `shape` inside RecordFunction(label), profiled with everything on;
/// `sync` (if any) is waited on once the profile runs and once before it stops.
Recorded profile_calls(nn::Module& model, const char* label, const Shape& shape, int calls,
                       std::barrier<>* sync = nullptr) {
  const Tensor x = ones(shape);
  Profile prof({.record_shapes = true, .profile_memory = true, .with_stack = true});
  {
    auto running = prof.start();
    if (sync) sync->arrive_and_wait();
    {
      RecordFunction scope(label);
      for (int i = 0; i < calls; ++i) model(x);
    }
    if (sync) sync->arrive_and_wait();
  }
  return summarize(prof.events());
}

TEST_CASE("profiler threads: concurrent profiles of one model record what each thread alone records") {
  auto model = shared_model();
  const Shape shape_a{1, 3, 16, 16}, shape_b{1, 3, 8, 8}, shape_c{2, 3, 12, 12};
  constexpr int kCallsA = 40, kCallsB = 70;
  const Recorded alone_a = profile_calls(*model, "THREAD A", shape_a, kCallsA);
  const Recorded alone_b = profile_calls(*model, "THREAD B", shape_b, kCallsB);
  REQUIRE(alone_a.count("aten::conv2d") == kCallsA);
  REQUIRE(alone_b.count("aten::conv2d") == kCallsB);

  std::barrier sync(2);
  Recorded a, b;
  uint64_t tid_a = 0, tid_b = 0;
  std::atomic<bool> done{false};
  // A third thread runs the same model unprofiled meanwhile: none of its ops may show up.
  std::thread unprofiled([&] {
    const Tensor x = ones(shape_c);
    while (!done.load()) (*model)(x);
  });
  std::thread ta([&] {
    tid_a = current_thread_id();
    a = profile_calls(*model, "THREAD A", shape_a, kCallsA, &sync);
  });
  std::thread tb([&] {
    tid_b = current_thread_id();
    b = profile_calls(*model, "THREAD B", shape_b, kCallsB, &sync);
  });
  ta.join();
  tb.join();
  done = true;
  unprofiled.join();

  CHECK(a.averages == alone_a.averages);
  CHECK(b.averages == alone_b.averages);
  CHECK(a.events == alone_a.events);
  CHECK(b.events == alone_b.events);
  CHECK(a.count("nn.Module: Conv2d_0") == kCallsA);
  CHECK(b.count("nn.Module: Conv2d_0") == kCallsB);
  CHECK(a.count("THREAD B") == 0);
  CHECK(b.count("THREAD A") == 0);
  CHECK(a.memory_bytes == alone_a.memory_bytes);
  CHECK(b.memory_bytes == alone_b.memory_bytes);
  CHECK(!a.memory_bytes.empty());
  CHECK(a.frees_only_own_allocations);
  CHECK(b.frees_only_own_allocations);
  CHECK(a.threads == std::set<uint64_t>{tid_a});
  CHECK(b.threads == std::set<uint64_t>{tid_b});
}

TEST_CASE("profiler threads: ProfilingInterpreters on two threads time only their own runs") {
  auto model = shared_model();
  const Tensor x = ones({1, 3, 8, 8});
  const Tensor expected = (*model)(x);
  struct Outcome {
    std::unique_ptr<fx::ProfilingInterpreter> interp;
    bool outputs_equal = true;
  };
  Outcome outcomes[2];
  const int runs[2] = {15, 25};
  std::barrier sync(2);
  auto work = [&](int t) {
    outcomes[t].interp = std::make_unique<fx::ProfilingInterpreter>(model);
    sync.arrive_and_wait();
    for (int i = 0; i < runs[t]; ++i) outcomes[t].outputs_equal &= equal(outcomes[t].interp->run(x), expected);
  };
  std::thread t0(work, 0), t1(work, 1);
  t0.join();
  t1.join();
  for (int t = 0; t < 2; ++t) {
    CAPTURE(t);
    const fx::ProfilingInterpreter& interp = *outcomes[t].interp;
    CHECK(outcomes[t].outputs_equal);
    CHECK(interp.total_runtime_sec().size() == static_cast<size_t>(runs[t]));
    REQUIRE(interp.runtimes_sec().size() == interp.module().graph().size());
    for (const auto& [node, seconds] : interp.runtimes_sec()) {
      CHECK(&node->graph() == &interp.module().graph());
      CHECK(seconds.size() == static_cast<size_t>(runs[t]));
    }
  }
}

/// Counts the module calls and op calls its thread makes, by module type and op name.
class CountingHook : public nn::ModuleHook, public DispatchHook {
 public:
  void before(nn::Module& module, const TensorList&) override { ++modules[module.type_name()]; }
  void before(const OpCall& call) override { ++ops[op_info(call.op).aten_name]; }
  std::map<std::string, int64_t> modules, ops;
};

TEST_CASE("profiler threads: module and dispatch hooks see only the calls of the thread that installed them") {
  auto model = shared_model();
  const Tensor x = ones({1, 3, 8, 8});
  CountingHook alone;
  {
    nn::ModuleHookGuard module_guard(&alone);
    dispatch::HookGuard op_guard(&alone);
    (*model)(x);
  }
  REQUIRE(alone.modules == std::map<std::string, int64_t>{{"Conv2d", 1}, {"ReLU", 1}, {"Sequential", 1}});
  REQUIRE(!alone.ops.empty());

  const int calls[3] = {30, 50, 20};
  CountingHook hooks[2];
  std::barrier sync(3);
  auto work = [&](int t) {
    std::optional<nn::ModuleHookGuard> module_guard;
    std::optional<dispatch::HookGuard> op_guard;
    if (t < 2) {
      module_guard.emplace(&hooks[t]);
      op_guard.emplace(&hooks[t]);
    }
    sync.arrive_and_wait();
    for (int i = 0; i < calls[t]; ++i) (*model)(x);
  };
  std::thread t0(work, 0), t1(work, 1), t2(work, 2);  // thread 2 installs no hook
  t0.join();
  t1.join();
  t2.join();
  for (int t = 0; t < 2; ++t) {
    CAPTURE(t);
    for (const auto& [type, count] : alone.modules) CHECK(hooks[t].modules[type] == count * calls[t]);
    CHECK(hooks[t].modules.size() == alone.modules.size());
    for (const auto& [op, count] : alone.ops) CHECK(hooks[t].ops[op] == count * calls[t]);
    CHECK(hooks[t].ops.size() == alone.ops.size());
  }
}

}  // namespace
}  // namespace tl::profiler
