// tests/profiler/test_training_profile.cpp — profiling training as PyTorch 1.13 does: forward ops carry
// the sequence number of the backward node they recorded; backward runs each node as
// "autograd::engine::evaluate_function: <node>" around "<node>" around the formula's ops, linked to
// the forward op and recorded on the thread that runs backward.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "core/autograd_meta.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "profiler/profile.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

using testing::event_names;
using testing::find_all;
using testing::find_one;

constexpr const char* kEvaluate = "autograd::engine::evaluate_function: ";

const autograd::Node& grad_fn(const Tensor& t) { return *TensorAccess::meta(t)->grad_fn; }

TEST_CASE("training profile: a forward op carries the sequence number of the node it recorded") {
  Tensor a = randn({3}).requires_grad_();
  Tensor b = randn({3});
  Profile prof;
  Tensor y, z, w;
  {
    auto running = prof.start();
    y = a.mul(b);
    z = b.add(b);  // nothing requires grad: no node
    NoGradGuard no_grad;
    w = a.neg();  // grad mode off: no node
  }
  const EventList& events = prof.events();
  const FunctionEvent& mul = events[find_one(events, "aten::mul")];
  CHECK(mul.sequence_nr == static_cast<int64_t>(grad_fn(y).sequence_nr));
  CHECK(mul.forward_thread == 0);
  CHECK(grad_fn(y).forward_thread == current_thread_id());
  CHECK(events[find_one(events, "aten::add")].sequence_nr == -1);
  CHECK(events[find_one(events, "aten::neg")].sequence_nr == -1);
}

TEST_CASE("training profile: backward runs each node inside its evaluate_function scope, linked to its forward op") {
  Tensor a = randn({3}).requires_grad_();
  Profile prof;
  {
    auto running = prof.start();
    a.mul(2.0).sum().backward();
  }
  const EventList& events = prof.events();
  const std::vector<std::string> names = event_names(events);
  const std::vector<std::string> backward(names.begin() + find_one(events, std::string(kEvaluate) + "SumBackward1"),
                                          names.end());
  CHECK(backward == std::vector<std::string>{
                        "autograd::engine::evaluate_function: SumBackward1", "SumBackward1", "aten::unsqueeze",
                        "aten::expand", "autograd::engine::evaluate_function: MulBackward0", "MulBackward0",
                        "aten::full", "aten::mul", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                        "torch::autograd::AccumulateGrad"});
  for (const char* node : {"SumBackward1", "MulBackward0"}) {
    const int64_t step = find_one(events, std::string(kEvaluate) + node), scope = find_one(events, node);
    CAPTURE(node);
    CHECK(events[step].kind == EventKind::Function);
    CHECK(events[scope].kind == EventKind::Function);
    CHECK(events[scope].parent == step);
    CHECK(events[step].parent == -1);
    const std::string forward = std::string(node) == "SumBackward1" ? "aten::sum" : "aten::mul";
    const FunctionEvent& op = events[find_all(events, forward).front()];
    CHECK(op.sequence_nr >= 0);
    CHECK(events[step].sequence_nr == op.sequence_nr);
    CHECK(events[scope].sequence_nr == op.sequence_nr);
    CHECK(events[step].forward_thread == current_thread_id());
    CHECK(events[scope].forward_thread == current_thread_id());
  }
  // A leaf's accumulator was recorded by no forward op: nothing to link (PyTorch's is -1 too).
  const FunctionEvent& acc = events[find_one(events, "torch::autograd::AccumulateGrad")];
  CHECK(acc.sequence_nr == -1);
  CHECK(acc.forward_thread == 0);
}

TEST_CASE("training profile: autograd::grad evaluates a captured leaf without running its accumulator") {
  Tensor a = randn({3}).requires_grad_();
  Tensor loss = a.mul(a).sum();
  Profile prof;
  {
    auto running = prof.start();
    autograd::grad({loss}, {a});
  }
  const EventList& events = prof.events();
  const int64_t step = find_one(events, std::string(kEvaluate) + "torch::autograd::AccumulateGrad");
  CHECK(find_all(events, "torch::autograd::AccumulateGrad").empty());  // PyTorch captures it the same way
  CHECK(step == static_cast<int64_t>(events.size()) - 1);
}

TEST_CASE("training profile: a node that throws still closes its scopes") {
  Tensor x = randn({2}).requires_grad_();
  Tensor h = x.mul(1.0);
  Tensor y = h.mul(h);  // saves h
  h.add_(1.0);
  Profile prof;
  {
    auto running = prof.start();
    CHECK_THROWS_AS(y.sum().backward(), Error);
    Tensor after = zeros({1});
  }
  const EventList& events = prof.events();
  const int64_t step = find_one(events, std::string(kEvaluate) + "MulBackward0");
  const int64_t scope = find_one(events, "MulBackward0");
  const int64_t after = find_one(events, "aten::zeros");
  CHECK(events[scope].parent == step);
  CHECK(events[step].end_ns <= events[after].start_ns);
  CHECK(events[after].parent == -1);
}

TEST_CASE("training profile: backward events are on the thread that runs backward, linked to the forward thread") {
  Tensor a = randn({3}).requires_grad_();
  Profile forward_prof;
  Tensor loss;
  {
    auto running = forward_prof.start();
    loss = a.mul(3.0).sum();
  }
  const uint64_t forward_thread = current_thread_id();
  Profile backward_prof;
  uint64_t backward_thread = 0;
  std::thread worker([&] {
    auto running = backward_prof.start();
    loss.backward();
    backward_thread = current_thread_id();
  });
  worker.join();
  const EventList& events = backward_prof.events();
  const FunctionEvent& mul = events[find_one(events, "MulBackward0")];
  CHECK(mul.thread == backward_thread);
  CHECK(mul.forward_thread == forward_thread);
  const FunctionEvent& forward_mul = forward_prof.events()[find_one(forward_prof.events(), "aten::mul")];
  CHECK(mul.sequence_nr == forward_mul.sequence_nr);
  for (const FunctionEvent& e : forward_prof.events()) CHECK(e.name.rfind(kEvaluate, 0) == std::string::npos);
}

TEST_CASE("training profile: optimizers open PyTorch's step and zero_grad scopes around their ops") {
  Tensor p = randn({4}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 0.1});
  optim::Adam adam({p});
  optim::AdamW adamw({p});
  for (optim::Optimizer* opt : std::vector<optim::Optimizer*>{&sgd, &adam, &adamw}) {
    const std::string kind = opt->kind();
    CAPTURE(kind);
    p.mul(2.0).sum().backward();
    Profile prof;
    {
      auto running = prof.start();
      opt->step();
      opt->zero_grad(false);
    }
    const EventList& events = prof.events();
    const int64_t step = find_one(events, "Optimizer.step#" + kind + ".step");
    const int64_t zero = find_one(events, "Optimizer.zero_grad#" + kind + ".zero_grad");
    CHECK(events[step].kind == EventKind::UserAnnotation);
    CHECK(events[step].parent == -1);
    CHECK(events[zero].parent == -1);
    for (size_t i = 0; i < events.size(); ++i)
      if (static_cast<int64_t>(i) != step && static_cast<int64_t>(i) != zero) CHECK(events[i].parent >= 0);
    CHECK(events[step].end_ns <= events[zero].start_ns);
  }
}

TEST_CASE("training profile: an optimizer step that throws still closes its scope") {
  Tensor p = randn({4}).requires_grad_();
  optim::SGD sgd({p}, {.lr = 0.1});
  p.mutable_grad() = randn({5});  // a gradient of the wrong shape
  Profile prof;
  {
    auto running = prof.start();
    CHECK_THROWS_WITH_AS(sgd.step(), doctest::Contains("has a gradient of shape"), Error);
    Tensor after = zeros({1});
  }
  const EventList& events = prof.events();
  const int64_t step = find_one(events, "Optimizer.step#SGD.step");
  const int64_t after = find_one(events, "aten::zeros");
  CHECK(events[after].parent == -1);
  CHECK(events[step].end_ns <= events[after].start_ns);
}

TEST_CASE("training profile: an activation saved for backward is freed inside its node's backward step") {
  Tensor x = randn({128, 128}).requires_grad_();
  constexpr int64_t kBytes = 128 * 128 * 4;
  Profile prof({.profile_memory = true});
  {
    auto running = prof.start();
    Tensor loss = x.mul(2.0).exp().sum();  // exp keeps its output for backward; nothing else holds it
    loss.backward();
  }
  const EventList& events = prof.events();
  const int64_t exp = find_one(events, "aten::exp");
  const int64_t step = find_one(events, std::string(kEvaluate) + "ExpBackward0");
  const MemoryEvent* allocated = nullptr;
  for (const MemoryEvent& m : events.memory_events())
    if (m.bytes == kBytes && m.parent == exp) allocated = &m;
  REQUIRE_MESSAGE(allocated != nullptr, "aten::exp allocated no ", kBytes, "-byte output");
  const MemoryEvent* freed = nullptr;
  for (const MemoryEvent& m : events.memory_events())
    if (m.bytes == -kBytes && m.address == allocated->address && m.time_ns > allocated->time_ns) freed = &m;
  REQUIRE_MESSAGE(freed != nullptr, "the output of aten::exp was never freed");
  // Held from the forward until backward ran ExpBackward0, and freed there (PyTorch releases a node's
  // saved tensors right after the node, inside its evaluate_function).
  CHECK(freed->parent == step);
  CHECK(events[step].self_cpu_memory_usage <= -kBytes);
}

}  // namespace
}  // namespace tl::profiler
