// tests/profiler/test_event_list.cpp — the event tree: self time and memory arithmetic on nested
// scopes (a hand-made case and random trees checked against interval-containment references),
// Module scopes being transparent, stacks, and nesting inferred from intervals.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "core/error.h"
#include "profiler/event_list.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

using testing::make_event;
using testing::make_memory;

TEST_CASE("event_list: self and total on nested scopes, Module scopes transparent") {
  std::vector<FunctionEvent> events = {
      make_event("outer", EventKind::UserAnnotation, 0, 100),          // 0
      make_event("aten::a", EventKind::Op, 10, 30, 0),                // 1
      make_event("aten::b", EventKind::Op, 12, 20, 1),                // 2
      make_event("nn.Module: M_0", EventKind::Module, 40, 90, 0),     // 3
      make_event("aten::c", EventKind::Op, 50, 70, 3),                // 4
      make_event("aten::d", EventKind::Op, 95, 100, 0),               // 5
  };
  std::vector<MemoryEvent> memory = {make_memory(15, 64, 2), make_memory(60, 128, 4), make_memory(80, -32, 3),
                                     make_memory(200, 16, -1)};
  const EventList list(events, memory, {.with_stack = true});
  CHECK(list[0].self_cpu_time_total_ns == 100 - 20 - 20 - 5);
  CHECK(list[1].self_cpu_time_total_ns == 20 - 8);
  CHECK(list[2].self_cpu_time_total_ns == 8);
  CHECK(list[4].cpu_parent == 0);
  CHECK(list[0].cpu_children == std::vector<int64_t>{1, 4, 5});
  CHECK(list.self_cpu_time_total_ns() == 100);

  CHECK(list[0].cpu_memory_usage == 64 + 128 - 32);
  CHECK(list[0].self_cpu_memory_usage == -32);
  CHECK(list[1].cpu_memory_usage == 64);
  CHECK(list[1].self_cpu_memory_usage == 0);
  CHECK(list[2].self_cpu_memory_usage == 64);
  CHECK(list[3].cpu_memory_usage == 128 - 32);
  CHECK(list[4].self_cpu_memory_usage == 128);

  CHECK(list.stack(4) == std::vector<std::string>{"nn.Module: M_0", "outer"});
  CHECK(list.stack(2) == std::vector<std::string>{"outer"});
  CHECK(list.stack(0).empty());
}

TEST_CASE("event_list: ProfilerStep scopes are not stack entries") {
  const EventList list({make_event("ProfilerStep#4", EventKind::ProfilerStep, 0, 10),
                        make_event("LABEL", EventKind::UserAnnotation, 1, 9, 0),
                        make_event("aten::x", EventKind::Op, 2, 3, 1)},
                       {}, {.with_stack = true});
  CHECK(list.stack(2) == std::vector<std::string>{"LABEL"});
  const EventList no_stacks({make_event("LABEL", EventKind::UserAnnotation, 1, 9)}, {}, {});
  CHECK(no_stacks.stack(0).empty());
  CHECK_THROWS_WITH_AS(list.stack(3), "EventList::stack: event 3 out of range for 3 events", Error);
  // A copy shares the stacks computed once.
  const EventList copy = list;
  CHECK(&copy.stack(2) == &list.stack(2));
}

TEST_CASE("event_list: a child poking out of its parent never makes self time negative") {
  const EventList list({make_event("p", EventKind::Op, 0, 10), make_event("c", EventKind::Op, 0, 15, 0)}, {}, {});
  CHECK(list[0].self_cpu_time_total_ns == 0);
}

TEST_CASE("event_list: invalid parents are rejected") {
  CHECK_THROWS_WITH_AS(EventList({make_event("a", EventKind::Op, 0, 1, 0)}, {}, {}),
                       "EventList: event 0 (a) has parent 0; a parent must be an earlier event or -1", Error);
  CHECK_THROWS_WITH_AS(EventList({make_event("a", EventKind::Op, 0, 1)}, {make_memory(0, 1, 3)}, {}),
                       "EventList: memory event 0 has parent 3 but there are 1 events", Error);
}

// Random strictly nested trees: children lie strictly inside their parent with gaps, so interval
// containment alone identifies the structure the references below use.
struct RandomTree {
  std::mt19937 rng;
  std::vector<FunctionEvent> events;
  std::vector<MemoryEvent> memory;

  void grow(int64_t start, int64_t end, int64_t parent, int depth) {
    int64_t t = start + 1 + static_cast<int64_t>(rng() % 3);
    while (depth < 4 && t + 6 < end && rng() % 4 != 0) {
      // Memory events fall in the gaps between children, never on an event boundary.
      if (rng() % 3 == 0) memory.push_back(make_memory(t++, static_cast<int64_t>(rng() % 1000) - 300, parent));
      const int64_t child_end = std::min(end - 1, t + 2 + static_cast<int64_t>(rng() % 40));
      const EventKind kind = static_cast<EventKind>(rng() % 4);
      const int64_t index = static_cast<int64_t>(events.size());
      events.push_back(make_event("e" + std::to_string(index), kind, t, child_end, parent));
      grow(t, child_end, index, depth + 1);
      t = child_end + 1 + static_cast<int64_t>(rng() % 3);
    }
  }
};

bool strictly_inside(const FunctionEvent& inner, const FunctionEvent& outer) {
  return inner.start_ns > outer.start_ns && inner.end_ns < outer.end_ns;
}

// The smallest function event (or scope, when `any_kind`) strictly containing [start, end].
int64_t innermost_container(const std::vector<FunctionEvent>& events, int64_t start, int64_t end, bool any_kind) {
  int64_t best = -1;
  for (size_t j = 0; j < events.size(); ++j) {
    const FunctionEvent& c = events[j];
    if (!(any_kind || c.kind != EventKind::Module) || !(start > c.start_ns && end < c.end_ns)) continue;
    if (best < 0 || c.cpu_time_total_ns() < events[best].cpu_time_total_ns()) best = static_cast<int64_t>(j);
  }
  return best;
}

TEST_CASE("event_list: random nested trees match interval-containment references") {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    RandomTree tree{std::mt19937(seed), {}, {}};
    tree.events.push_back(make_event("root", EventKind::UserAnnotation, 0, 1000));
    tree.grow(0, 1000, 0, 0);
    tree.memory.push_back(make_memory(2000, 7));
    const std::vector<FunctionEvent>& raw = tree.events;
    const EventList list(raw, tree.memory, {.with_stack = true});
    for (size_t i = 0; i < raw.size(); ++i) {
      const FunctionEvent& e = raw[i];
      if (e.kind == EventKind::Module) continue;
      CAPTURE(seed);
      CAPTURE(i);
      int64_t children_ns = 0;
      for (const FunctionEvent& c : raw)
        if (c.kind != EventKind::Module && strictly_inside(c, e) &&
            innermost_container(raw, c.start_ns, c.end_ns, false) == static_cast<int64_t>(i))
          children_ns += c.cpu_time_total_ns();
      CHECK(list[i].self_cpu_time_total_ns == e.cpu_time_total_ns() - children_ns);
      int64_t total_bytes = 0, self_bytes = 0;
      for (const MemoryEvent& m : tree.memory) {
        if (m.time_ns <= e.start_ns || m.time_ns >= e.end_ns) continue;
        total_bytes += m.bytes;
        if (innermost_container(raw, m.time_ns, m.time_ns, false) == static_cast<int64_t>(i)) self_bytes += m.bytes;
      }
      CHECK(list[i].cpu_memory_usage == total_bytes);
      CHECK(list[i].self_cpu_memory_usage == self_bytes);
      std::vector<std::pair<int64_t, std::string>> scopes;
      for (const FunctionEvent& c : raw)
        if ((c.kind == EventKind::UserAnnotation || c.kind == EventKind::Module) && strictly_inside(e, c))
          scopes.emplace_back(c.cpu_time_total_ns(), c.name);
      std::sort(scopes.begin(), scopes.end());
      std::vector<std::string> expected_stack;
      for (const auto& s : scopes) expected_stack.push_back(s.second);
      CHECK(list.stack(i) == expected_stack);
    }
  }
}

TEST_CASE("event_list: from_intervals recovers the nesting of shuffled events") {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    RandomTree tree{std::mt19937(seed), {}, {}};
    tree.events.push_back(make_event("root", EventKind::UserAnnotation, 0, 1000));
    tree.grow(0, 1000, 0, 0);
    const EventList original(tree.events, tree.memory, {});
    std::vector<FunctionEvent> shuffled = tree.events;
    for (FunctionEvent& e : shuffled) e.parent = -1;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(seed + 100));
    std::vector<MemoryEvent> memory = tree.memory;
    for (MemoryEvent& m : memory) m.parent = -1;
    const EventList rebuilt = EventList::from_intervals(shuffled, memory, {});
    REQUIRE(rebuilt.size() == original.size());
    for (size_t i = 0; i < original.size(); ++i) {
      CAPTURE(seed);
      CHECK(rebuilt[i].name == original[i].name);
      const std::string parent = rebuilt[i].parent < 0 ? "" : rebuilt[rebuilt[i].parent].name;
      const std::string expected = original[i].parent < 0 ? "" : original[original[i].parent].name;
      CHECK(parent == expected);
      CHECK(rebuilt[i].cpu_memory_usage == original[i].cpu_memory_usage);
      CHECK(rebuilt[i].self_cpu_time_total_ns == original[i].self_cpu_time_total_ns);
    }
  }
}

TEST_CASE("event_list: from_intervals keeps threads apart and treats a partial overlap as no nesting") {
  const EventList list = EventList::from_intervals(
      {make_event("a", EventKind::Op, 0, 10, -1, 1), make_event("b", EventKind::Op, 2, 5, -1, 2),
       make_event("c", EventKind::Op, 5, 15, -1, 1), make_event("d", EventKind::Op, 3, 4, -1, 1)},
      {make_memory(3, 8, -1, 1), make_memory(3, 16, -1, 2)}, {});
  CHECK(testing::event_names(list) == std::vector<std::string>{"a", "b", "d", "c"});
  CHECK(list[1].parent == -1);  // other thread
  CHECK(list[2].parent == 0);
  CHECK(list[3].parent == -1);  // overlaps a only partially
  CHECK(list.memory_events()[0].parent == 2);
  CHECK(list.memory_events()[1].parent == 1);
}

}  // namespace
}  // namespace tl::profiler
