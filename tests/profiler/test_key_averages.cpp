// tests/profiler/test_key_averages.cpp — grouping: by name, by input shape, by stack prefix;
// "[memory]" rows; ProfilerStep* keys; first-seen order; the raw-event table.
#include <doctest/doctest.h>

#include "core/error.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler/record_function.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

using testing::make_event;
using testing::make_memory;

std::vector<std::string> keys(const KeyAverages& avg) {
  std::vector<std::string> k;
  for (const FunctionEventAvg& r : avg) k.push_back(r.key);
  return k;
}

TEST_CASE("key_averages: groups by name in first-seen order and sums times, memory, flops, calls") {
  std::vector<FunctionEvent> events = {
      make_event("aten::b", EventKind::Op, 0, 10), make_event("aten::a", EventKind::Op, 20, 25),
      make_event("aten::b", EventKind::Op, 30, 50), make_event("aten::c", EventKind::Op, 32, 40, 2),
      make_event("nn.Module: M_0", EventKind::Module, 60, 70), make_event("aten::a", EventKind::Op, 61, 64, 4)};
  events[0].flops = 7;
  events[2].flops = 5;
  const EventList list(events, {make_memory(5, 100, 0), make_memory(35, 8, 3), make_memory(55, -3)},
                       {.profile_memory = true});
  const KeyAverages avg = list.key_averages();
  CHECK(keys(avg) == std::vector<std::string>{"aten::b", "aten::a", "aten::c", kMemoryEventName});
  const FunctionEventAvg& b = avg.at("aten::b");
  CHECK(b.count == 2);
  CHECK(b.cpu_time_total_ns == 10 + 20);
  CHECK(b.self_cpu_time_total_ns == 10 + 20 - 8);
  CHECK(b.cpu_time_ns() == doctest::Approx(15.0));
  CHECK(b.cpu_memory_usage == 108);
  CHECK(b.self_cpu_memory_usage == 100);
  CHECK(b.flops == 12);
  CHECK(b.input_shapes.empty());
  CHECK(avg.at("aten::a").count == 2);
  CHECK(avg.at(kMemoryEventName).cpu_memory_usage == -3);
  CHECK(avg.self_cpu_time_total_ns() == list.self_cpu_time_total_ns());
  CHECK_THROWS_WITH_AS(avg.at("aten::zzz"),
                       "key_averages: no row \"aten::zzz\"; rows are: aten::b, aten::a, aten::c, [memory]", Error);
}

// PyTorch's tables fold an event into its parent when the parent has its name and no other child
// (EventList._remove_dup_nodes): mean(dtype) -> mean.dim and div_.Scalar -> div_.Tensor print one row each.
TEST_CASE("key_averages: an event that is its same-named parent's only child is folded into it, as in PyTorch") {
  const auto op = [](const char* name, int64_t start, int64_t end, int64_t parent = -1) {
    return make_event(name, EventKind::Op, start, end, parent);
  };
  std::vector<FunctionEvent> events = {
      op("aten::mean", 0, 100), op("aten::mean", 10, 90, 0), op("aten::sum", 20, 40, 1), op("aten::div_", 50, 80, 1),
      op("aten::div_", 55, 75, 3), op("aten::to", 60, 70, 4),
      op("aten::x", 200, 300), op("aten::x", 210, 250, 6), op("aten::y", 260, 280, 6),  // two children: kept
      op("aten::z", 400, 500), op("aten::z", 410, 490, 9), op("aten::z", 420, 480, 10)};  // a chain: one row
  events[1].flops = 3;
  const std::vector<MemoryEvent> memory = {make_memory(15, 4, 1), make_memory(52, 8, 3), make_memory(65, 4, 5),
                                           make_memory(77, -4, 4), make_memory(79, -8, 3)};
  const EventList list(events, memory, {.profile_memory = true});
  const KeyAverages avg = list.key_averages();
  CHECK(keys(avg) == std::vector<std::string>{"aten::mean", "aten::sum", "aten::div_", "aten::to", "aten::x", "aten::y",
                                              "aten::z"});
  const FunctionEventAvg& mean = avg.at("aten::mean");
  CHECK(mean.count == 1);
  CHECK(mean.cpu_time_total_ns == 100);
  CHECK(mean.self_cpu_time_total_ns == 100 - 20 - 30);  // the outer's 20 and the inner's 30
  CHECK(mean.cpu_memory_usage == 4);
  CHECK(mean.self_cpu_memory_usage == 4);  // allocated by the inner
  CHECK(mean.flops == 3);
  const FunctionEventAvg& div = avg.at("aten::div_");
  CHECK(div.count == 1);
  CHECK(div.self_cpu_time_total_ns == 30 - 10);
  CHECK(div.cpu_memory_usage == 0);
  CHECK(div.self_cpu_memory_usage == -4);  // the outer's +8 - 8, the inner's release of to's 4
  CHECK(avg.at("aten::to").cpu_memory_usage == 4);
  CHECK(avg.at("aten::x").count == 2);
  CHECK(avg.at("aten::z").count == 1);
  CHECK(avg.at("aten::z").self_cpu_time_total_ns == 100);
  CHECK(avg.self_cpu_time_total_ns() == list.self_cpu_time_total_ns());
  const std::string table = list.table();  // one row per event, folded the same way
  CHECK(table.find("aten::mean") == table.rfind("aten::mean"));
  CHECK(table.find("aten::z") == table.rfind("aten::z"));
  CHECK(table.find("aten::x") != table.rfind("aten::x"));
}

TEST_CASE("key_averages: memory inside a module scope but outside every op is a \"[memory]\" row") {
  // Module scopes are PyTorch's Python frames, which are no events of its tables.
  const EventList list({make_event("nn.Module: M_0", EventKind::Module, 0, 100), make_event("aten::a", EventKind::Op, 10, 20, 0)},
                       {make_memory(5, 16, 0), make_memory(50, -7, 0), make_memory(15, 2, 1)}, {.profile_memory = true});
  const KeyAverages avg = list.key_averages();
  CHECK(keys(avg) == std::vector<std::string>{kMemoryEventName, "aten::a"});
  CHECK(avg.at(kMemoryEventName).count == 2);
  CHECK(avg.at(kMemoryEventName).cpu_memory_usage == 16 - 7);
  CHECK(avg.at("aten::a").cpu_memory_usage == 2);
}

TEST_CASE("key_averages: group_by_input_shape separates calls by their argument shapes") {
  Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    RecordFunction scope("SCOPE");
    for (int64_t n : {2, 3, 2, 2}) Tensor t = zeros({n});
  }
  const KeyAverages by_name = prof.key_averages();
  CHECK(by_name.at("aten::zeros").count == 4);
  CHECK(by_name.at("aten::zeros").input_shapes.empty());
  const KeyAverages by_shape = prof.key_averages({.group_by_input_shape = true});
  REQUIRE(by_shape.size() == 4);
  CHECK(by_shape[0].key == "SCOPE");
  CHECK(by_shape[0].input_shapes == "[]");
  CHECK(by_shape[1].key == "aten::zeros");
  CHECK(by_shape[1].input_shapes == "[[], [], [], [], []]");
  CHECK(by_shape[1].count == 4);  // zeros' arguments are an int list, a dtype and Nones: no tensor shapes
  CHECK(by_shape[2].key == "aten::zero_");  // the zero_ of each result, by its shape
  CHECK(by_shape[2].input_shapes == "[[2]]");
  CHECK(by_shape[2].count == 3);
  CHECK(by_shape[3].input_shapes == "[[3]]");
  CHECK(by_shape[3].count == 1);
  Profile shapes({.record_shapes = true});
  {
    auto running = shapes.start();
    Tensor a = zeros({2}), b = zeros({3});
    for (const Tensor* t : {&a, &b, &a}) Tensor s = *t + *t;
  }
  const KeyAverages add = shapes.key_averages({.group_by_input_shape = true});
  std::vector<std::pair<std::string, int64_t>> rows;
  for (const FunctionEventAvg& r : add)
    if (r.key == "aten::add") rows.emplace_back(r.input_shapes, r.count);
  CHECK(rows == std::vector<std::pair<std::string, int64_t>>{{"[[2], [2], []]", 2}, {"[[3], [3], []]", 1}});
  CHECK(add.table().find("Input Shapes") != std::string::npos);
}

TEST_CASE("key_averages: group_by_stack_n separates calls by their first n scopes") {
  const EventList list({make_event("OUTER", EventKind::UserAnnotation, 0, 100),
                        make_event("A", EventKind::UserAnnotation, 1, 20, 0), make_event("aten::x", EventKind::Op, 2, 3, 1),
                        make_event("B", EventKind::UserAnnotation, 30, 50, 0), make_event("aten::x", EventKind::Op, 31, 33, 3),
                        make_event("aten::x", EventKind::Op, 35, 38, 3)},
                       {}, {.with_stack = true});
  const KeyAverages none = list.key_averages();
  CHECK(none.at("aten::x").count == 3);
  CHECK(none.at("aten::x").stack.empty());
  const KeyAverages one = list.key_averages({.group_by_stack_n = 1});
  std::vector<std::pair<std::vector<std::string>, int64_t>> x_rows;
  for (const FunctionEventAvg& r : one)
    if (r.key == "aten::x") x_rows.emplace_back(r.stack, r.count);
  CHECK(x_rows == std::vector<std::pair<std::vector<std::string>, int64_t>>{{{"A"}, 1}, {{"B"}, 2}});
  const KeyAverages two = list.key_averages({.group_by_stack_n = 2});
  CHECK(two.at("aten::x").stack == std::vector<std::string>{"A", "OUTER"});
  CHECK(two.table().find("Source Location") != std::string::npos);
  CHECK_THROWS_WITH_AS(list.key_averages({.group_by_stack_n = -1}),
                       "key_averages: group_by_stack_n must be >= 0, got -1", Error);
}

TEST_CASE("key_averages: ProfilerStep#N rows aggregate as ProfilerStep*, the trace keeps the number") {
  const EventList list({make_event("ProfilerStep#3", EventKind::ProfilerStep, 0, 10),
                        make_event("ProfilerStep#4", EventKind::ProfilerStep, 10, 30)},
                       {}, {});
  const KeyAverages avg = list.key_averages();
  REQUIRE(avg.size() == 1);
  CHECK(avg[0].key == "ProfilerStep*");
  CHECK(avg[0].count == 2);
  CHECK(list[1].name == "ProfilerStep#4");
  CHECK(table_key("ProfilerStep#12") == "ProfilerStep*");
  CHECK(table_key("aten::add") == "aten::add");
}

TEST_CASE("key_averages: module scopes are stack entries, not rows; the raw table lists each event") {
  const EventList list({make_event("nn.Module: M_0", EventKind::Module, 0, 10),
                        make_event("aten::x", EventKind::Op, 1, 4, 0), make_event("aten::x", EventKind::Op, 5, 6, 0)},
                       {make_memory(20, 4)}, {.profile_memory = true});
  CHECK(keys(list.key_averages()) == std::vector<std::string>{"aten::x", kMemoryEventName});
  const std::string raw = list.table();
  size_t rows = 0;
  for (size_t at = raw.find("aten::x"); at != std::string::npos; at = raw.find("aten::x", at + 1)) ++rows;
  CHECK(rows == 2);
  CHECK(raw.find(kMemoryEventName) != std::string::npos);
  CHECK(raw.find("nn.Module") == std::string::npos);
}

}  // namespace
}  // namespace tl::profiler
