// tests/profiler/test_module_scope.cpp — module calls as "nn.Module: Type_k" scopes: PyTorch's
// numbering, nesting, stacks, transparency for self time, and no scopes unless asked for.
#include <doctest/doctest.h>

#include <memory>

#include "nn/module.h"
#include "ops/ops.h"
#include "profiler/module_scope.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

using testing::find_all;
using testing::find_one;

struct AddOne : nn::Module {
  Tensor forward(const Tensor& x) override { return x + 1; }
  std::string type_name() const override { return "AddOne"; }
};

struct Pair : nn::Module {
  Pair() {
    register_module("first", std::make_shared<AddOne>());
    register_module("second", std::make_shared<AddOne>());
  }
  Tensor forward(const Tensor& x) override {
    RecordFunction scope("PAIR BODY");
    return (*child("second"))((*child("first"))(x));
  }
  std::string type_name() const override { return "Pair"; }
};

struct Failing : nn::Module {
  Tensor forward(const Tensor& x) override { return x.view({-5}); }
  std::string type_name() const override { return "Failing"; }
};

TEST_CASE("module_scope: the name PyTorch gives a module call") {
  CHECK(module_scope_name("ResNet", 0) == "nn.Module: ResNet_0");
  CHECK(module_scope_name("Conv2d", 12) == "nn.Module: Conv2d_12");
}

TEST_CASE("module_scope: distinct modules of a type are numbered in order of first call") {
  auto pair = std::make_shared<Pair>();
  Profile prof({.with_stack = true});
  {
    auto running = prof.start();
    for (int i = 0; i < 2; ++i) (*pair)(zeros({4}));
  }
  const EventList& events = prof.events();
  CHECK(find_all(events, "nn.Module: Pair_0").size() == 2);
  CHECK(find_all(events, "nn.Module: AddOne_0").size() == 2);
  CHECK(find_all(events, "nn.Module: AddOne_1").size() == 2);
  CHECK(find_all(events, "nn.Module: AddOne_2").empty());
  for (const FunctionEvent& e : events)
    if (e.name.rfind("nn.Module:", 0) == 0) CHECK(e.kind == EventKind::Module);
  const int64_t first_add = find_all(events, "aten::add")[0];
  CHECK(events[events[first_add].parent].name == "nn.Module: AddOne_0");
  // The modules' forward frames are in namespace tl, so folded; the test runner's frames follow.
  const std::vector<std::string>& stack = events.stack(first_add);
  REQUIRE(stack.size() >= 3);
  CHECK(std::vector<std::string>(stack.begin(), stack.begin() + 3) ==
        std::vector<std::string>{"nn.Module: AddOne_0", "PAIR BODY", "nn.Module: Pair_0"});
  // Module scopes are transparent: the add's cpu parent is the RecordFunction around it.
  CHECK(events[events[first_add].cpu_parent].name == "PAIR BODY");
  const KeyAverages avg = prof.key_averages({.group_by_stack_n = 1});
  for (const FunctionEventAvg& row : avg) CHECK(row.key.rfind("nn.Module", 0) == std::string::npos);
  CHECK(avg.table().find("nn.Module: AddOne_1") != std::string::npos);
}

TEST_CASE("module_scope: with_modules records scopes without stacks; plain profiles record none") {
  auto pair = std::make_shared<Pair>();
  Profile modules({.with_modules = true});
  {
    auto running = modules.start();
    (*pair)(zeros({2}));
  }
  CHECK(find_one(modules.events(), "nn.Module: Pair_0") >= 0);
  for (size_t i = 0; i < modules.events().size(); ++i) CHECK(modules.events().stack(i).empty());
  Profile plain;
  {
    auto running = plain.start();
    (*pair)(zeros({2}));
  }
  for (const FunctionEvent& e : plain.events()) CHECK(e.kind != EventKind::Module);
}

TEST_CASE("module_scope: a module whose forward throws still closes its scope") {
  auto failing = std::make_shared<Failing>();
  Profile prof({.with_stack = true});
  {
    auto running = prof.start();
    CHECK_THROWS_AS((*failing)(zeros({3})), Error);
    Tensor after = ones({1});
  }
  const EventList& events = prof.events();
  const int64_t scope = find_one(events, "nn.Module: Failing_0");
  const int64_t after = find_one(events, "aten::ones");
  CHECK(events[after].parent == -1);
  CHECK(events[scope].end_ns <= events[after].start_ns);
}

}  // namespace
}  // namespace tl::profiler
