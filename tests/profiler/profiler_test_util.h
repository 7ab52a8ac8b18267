// tests/profiler/profiler_test_util.h — small helpers shared by the profiler tests: building
// synthetic event lists and finding recorded events by name.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "profiler/event_list.h"

namespace tl::profiler::testing {

inline FunctionEvent make_event(std::string name, EventKind kind, int64_t start_ns, int64_t end_ns,
                                int64_t parent = -1, uint64_t thread = 1) {
  FunctionEvent e;
  e.name = std::move(name);
  e.kind = kind;
  e.start_ns = start_ns;
  e.end_ns = end_ns;
  e.parent = parent;
  e.thread = thread;
  return e;
}

inline MemoryEvent make_memory(int64_t time_ns, int64_t bytes, int64_t parent = -1, uint64_t thread = 1) {
  MemoryEvent m;
  m.time_ns = time_ns;
  m.bytes = bytes;
  m.parent = parent;
  m.thread = thread;
  return m;
}

/// Indices of the events named `name`, in recording order.
inline std::vector<int64_t> find_all(const EventList& list, const std::string& name) {
  std::vector<int64_t> found;
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name) found.push_back(static_cast<int64_t>(i));
  return found;
}

/// Index of the only event named `name` (fails the test when there is not exactly one).
inline int64_t find_one(const EventList& list, const std::string& name) {
  const std::vector<int64_t> found = find_all(list, name);
  REQUIRE_MESSAGE(found.size() == 1, "expected one event named '", name, "', found ", found.size());
  return found[0];
}

inline std::vector<std::string> event_names(const EventList& list) {
  std::vector<std::string> names;
  for (const FunctionEvent& e : list) names.push_back(e.name);
  return names;
}

}  // namespace tl::profiler::testing
