// tests/core/test_dispatch.cpp — hooks see every op once, in order, and can replace the kernel.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/op_kind.h"
#include "ops/ops.h"

namespace tl {
namespace {

struct Recorder : DispatchHook {
  std::vector<std::string> events;
  void before(const OpCall& c) override { events.push_back(std::string("before ") + op_info(c.op).aten_name); }
  void after(const OpCall& c, const TensorList* out) override {
    events.push_back(std::string(out ? "after " : "failed ") + op_info(c.op).aten_name);
  }
};

struct Replacer : DispatchHook {
  bool intercept(const OpCall& c, TensorList& out) override {
    if (c.op != OpKind::Neg) return false;
    out = {full({1}, 42.0)};
    return true;
  }
};

TEST_CASE("dispatch: op names and schemas come from the one op list") {
  CHECK(std::string(op_info(OpKind::Add).aten_name) == "aten::add");
  CHECK(op_name(OpKind::Flatten) == "flatten");
  CHECK(std::string(op_info(OpKind::Add).py_operator) == "add");
  CHECK(std::string(op_info(OpKind::Div).py_operator) == "truediv");
}

TEST_CASE("dispatch: a hook sees before/after around each op, only on its own thread") {
  Recorder rec;
  {
    dispatch::HookGuard guard(&rec);
    Tensor z = zeros({2});
  }
  Tensor unseen = zeros({2});
  CHECK(rec.events == std::vector<std::string>{"before aten::zeros", "after aten::zeros"});
}

TEST_CASE("dispatch: a failing op reports failure to the hook and rethrows") {
  Recorder rec;
  dispatch::HookGuard guard(&rec);
  CHECK_THROWS_AS(zeros({-1}), Error);
  CHECK(rec.events == std::vector<std::string>{"before aten::zeros", "failed aten::zeros"});
}

TEST_CASE("dispatch: intercept replaces the kernel") {
  Replacer rep;
  dispatch::HookGuard guard(&rep);
  Tensor out = neg(zeros({1}));
  CHECK(out.item<double>() == 42.0);
}


#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: Attrs::scalar and Attrs::int_list read boxed values for one more version") {
  const Attrs attrs{{"alpha", 2.5}, {"count", int64_t{3}}, {"flag", true}, {"dim", int64_t{1}},
                    {"size", Shape{2, 3}}};
  CHECK(attrs.scalar("alpha").to<double>() == 2.5);
  CHECK(attrs.scalar("count").to<int64_t>() == 3);
  CHECK(attrs.scalar("flag").to<bool>());
  CHECK(attrs.int_list("dim") == Shape{1});
  CHECK(attrs.int_list("size") == Shape{2, 3});
  CHECK_THROWS_WITH_AS(attrs.scalar("beta"), "argument 'beta' is missing", Error);
  CHECK_THROWS_WITH_AS(attrs.scalar("size"), "argument 'size' is not a number", Error);
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl
