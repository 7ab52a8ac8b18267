// tests/core/test_record_function.cpp — core's RecordFunction against a fake observer: what reaches the
// observer, names built only when observed, per-thread observers, and scopes that outlive their observer.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/record_function.h"

namespace tl {
namespace {

struct Opened {
  std::string name;
  RecordScope scope;
  int64_t sequence_nr;
  uint64_t forward_thread;
};

// Records what it is told; ids count from 1 as the profiler's do.
class FakeObserver final : public ScopeObserver {
 public:
  uint64_t open_scope(std::string_view name, RecordScope scope, const ScopeLink& link,
                      const ScopeInputs* inputs) override {
    opened.push_back({std::string(name), scope, link.sequence_nr, link.forward_thread});
    if (inputs != nullptr) args.push_back((*inputs)());
    return opened.size();
  }
  void close_scope(uint64_t id) override { closed.push_back(id); }

  std::vector<Opened> opened;
  std::vector<ScopeArgs> args;
  std::vector<uint64_t> closed;
};

// Installs an observer for one test and removes it even when a check fails.
using ObserverGuard = ScopeObserverGuard;

TEST_CASE("record_function: without an observer nothing is opened and a lazy name is never built") {
  REQUIRE(scope_observer() == nullptr);
  bool built = false;
  RecordFunction scope([&] { built = true; return std::string("never"); }, RecordScope::Function);
  scope.end();
  CHECK_FALSE(built);
}

TEST_CASE("record_function: a scope's op arguments are built only when observed, and reach the observer") {
  int built = 0;
  auto inputs = [&] {
    ++built;
    return ScopeArgs{Tensor(), AttrValue(int64_t{3})};
  };
  { RecordFunction unobserved("aten::convolution", inputs); }
  CHECK(built == 0);
  FakeObserver observer;
  ObserverGuard guard(&observer);
  { RecordFunction scope("aten::convolution", inputs); }
  CHECK(built == 1);
  REQUIRE(observer.opened.size() == 1);
  CHECK(observer.opened[0].name == "aten::convolution");
  CHECK(observer.opened[0].scope == RecordScope::Function);
  REQUIRE(observer.args.size() == 1);
  REQUIRE(observer.args[0].size() == 2);
  CHECK_FALSE(std::get<Tensor>(observer.args[0][0]).defined());
  CHECK(std::get<int64_t>(std::get<AttrValue>(observer.args[0][1])) == 3);
  CHECK(observer.closed == std::vector<uint64_t>{1});
}

TEST_CASE("record_function: the observer sees the name, the kind, the link and one close") {
  FakeObserver observer;
  ObserverGuard guard(&observer);
  {
    RecordFunction user("LINEAR PASS");
    RecordFunction node([] { return std::string("MulBackward0"); }, RecordScope::Function, {7, 42});
    node.end();
    node.end();  // closing twice closes once
  }
  REQUIRE(observer.opened.size() == 2);
  CHECK(observer.opened[0].name == "LINEAR PASS");
  CHECK(observer.opened[0].scope == RecordScope::UserScope);
  CHECK(observer.opened[0].sequence_nr == -1);
  CHECK(observer.opened[0].forward_thread == 0);
  CHECK(observer.opened[1].name == "MulBackward0");
  CHECK(observer.opened[1].scope == RecordScope::Function);
  CHECK(observer.opened[1].sequence_nr == 7);
  CHECK(observer.opened[1].forward_thread == 42);
  CHECK(observer.closed == std::vector<uint64_t>{2, 1});
}

TEST_CASE("record_function: every installed observer sees the scope; one installed after it opened sees none of it") {
  FakeObserver first, second, late;
  ObserverGuard guard_first(&first);
  {
    ObserverGuard guard_second(&second);
    RecordFunction scope("A");
    ObserverGuard guard_late(&late);
    scope.end();
  }
  CHECK(first.opened.size() == 1);
  CHECK(first.closed == std::vector<uint64_t>{1});
  CHECK(second.opened.size() == 1);
  CHECK(second.closed == std::vector<uint64_t>{1});
  CHECK(late.opened.empty());
  CHECK(late.closed.empty());
  CHECK(scope_observer() == &first);
}

TEST_CASE("record_function: a scope is not closed on an observer removed since it opened") {
  FakeObserver first, second;
  ObserverGuard guard(&first);
  {
    std::optional<ObserverGuard> removed(&second);
    RecordFunction scope("A");
    removed.reset();
  }
  CHECK(first.closed == std::vector<uint64_t>{1});
  CHECK(second.opened.size() == 1);
  CHECK(second.closed.empty());
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: set_scope_observer replaces the topmost observer, so a scope is not closed on the one it replaced") {
  FakeObserver first, second;
  ObserverGuard guard(&first);
  {
    RecordFunction scope("A");
    set_scope_observer(&second);
  }
  CHECK(first.opened.size() == 1);
  CHECK(first.closed.empty());
  CHECK(second.opened.empty());
  CHECK(second.closed.empty());
  CHECK(set_scope_observer(&first) == &second);
}
#pragma GCC diagnostic pop

TEST_CASE("record_function: observers are per thread, and so are thread ids") {
  FakeObserver observer;
  ObserverGuard guard(&observer);
  uint64_t other_id = 0;
  std::thread other([&] {
    RecordFunction scope("OTHER THREAD");  // this thread has no observer
    other_id = current_thread_id();
  });
  other.join();
  CHECK(observer.opened.empty());
  CHECK(other_id != 0);
  CHECK(current_thread_id() != 0);
  CHECK(other_id != current_thread_id());
}

}  // namespace
}  // namespace tl
