// tests/profiler/test_training_profile.cpp — profiling training as PyTorch 1.13 does: forward ops carry
// the sequence number of the backward node they recorded; backward runs each node as
// "autograd::engine::evaluate_function: <node>" around "<node>" around the formula's ops, linked to
// the forward op and recorded on the thread that runs backward; optimizers open
// "Optimizer.step#<kind>.step" and "Optimizer.zero_grad#<kind>.zero_grad"; profile_memory sees an
// activation held for backward freed during it; one ResNet18 training step's forward events and its
// backward and optimizer scopes equal PyTorch 1.13's (tests/reference/op_tree_resnet18_train.txt and
// profiler_train_step.txt, from tests/reference/make_op_tree_references.py and make_profiler_references.py).
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "core/autograd_meta.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "models/resnet.h"
#include "nn/functional.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "optim/sgd.h"
#include "profiler/profile.h"
#include "op_tree_util.h"
#include "profiler_test_util.h"
#include "tests/support/reference_files.h"

namespace tl::profiler {
namespace {

using testing::event_names;
using testing::find_all;
using testing::find_one;

constexpr const char* kEvaluate = "autograd::engine::evaluate_function: ";

const autograd::Node& grad_fn(const Tensor& t) { return *TensorImplAccess::meta(t)->grad_fn; }

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
  const std::vector<std::string> backward(names.begin() + find_one(events, std::string(kEvaluate) + "SumBackward0"),
                                          names.end());
  CHECK(backward == std::vector<std::string>{
                        "autograd::engine::evaluate_function: SumBackward0", "SumBackward0", "aten::expand",
                        "aten::as_strided",
                        "autograd::engine::evaluate_function: MulBackward0", "MulBackward0", "aten::full", "aten::fill_", "aten::mul", "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
                        "torch::autograd::AccumulateGrad"});
  for (const char* node : {"SumBackward0", "MulBackward0"}) {
    const int64_t step = find_one(events, std::string(kEvaluate) + node), scope = find_one(events, node);
    CAPTURE(node);
    CHECK(events[step].kind == EventKind::Function);
    CHECK(events[scope].kind == EventKind::Function);
    CHECK(events[scope].parent == step);
    CHECK(events[step].parent == -1);
    const std::string forward = std::string(node) == "SumBackward0" ? "aten::sum" : "aten::mul";
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
  Tensor& p_grad = p.mutable_grad();  // the raw slot: assigning .grad would refuse the wrong shape
  p_grad = randn({5});               // a gradient of the wrong shape
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

// ---- one ResNet18 training step against PyTorch 1.13's ----
//
// Compared exactly, in order: every top-level backward step ("autograd::engine::evaluate_function: X"),
// its direct children (the node "X", and the engine's own ops after it: aten::add where gradients for a
// shared input meet), the node's direct children (the top ops of its formula), and the optimizer scopes
// with Optimizer.step's direct children. Deliberately not compared:
//  - the forward pass: the test case before this one compares its events (tests/reference/op_tree_resnet18_train.txt);
//  - what runs below a formula's top ops (ATen's kernels call empty, as_strided, resolve_conj ...);
//  - zero_grad's children: torchless has no aten::zero_, zero_grad(false) writes zeros with aten::copy_
//    (the reference keeps the scope's name only);
//  - the steps kCoarserForward lists, where the coarser forward ops make backward run other nodes.

// PyTorch's backward step for `pytorch_node`, and torchless's at the same place (null: torchless has no
// step there). A mapped step is compared by its names only: the formulas follow the forward ops.
struct CoarserForward {
  const char* pytorch_node;
  const char* torchless_node;
  const char* why;
};
constexpr CoarserForward kCoarserForward[] = {
    {"TBackward0", nullptr, "ATen's linear is t() then addmm; torchless's autograd records aten::linear as one node "
                            "(its t and addmm are scopes, #20 item 3)"},
    {"AddmmBackward0", "AddmmBackward0",
     "the node is aten::linear's (named as PyTorch names linear's addmm): its formula is linear's, and it "
     "sums the bias gradient itself where PyTorch's engine does (aten::sum, aten::view) (#20 item 3)"},
    {"MeanBackward1", "AdaptiveAvgPool2DBackward0",
     "ATen's adaptive_avg_pool2d to 1x1 is a mean over H and W; torchless's is one op (#20 item 3)"},
};

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The reference's outline of a profile (see make_profiler_references.py): each top-level optimizer scope
// (Optimizer.step with its direct children) and each top-level backward step with its direct children
// and its node's direct children, two spaces per level.
std::vector<std::string> outline(const EventList& events) {
  std::vector<std::vector<int64_t>> children(events.size());
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i].parent >= 0) children[events[i].parent].push_back(static_cast<int64_t>(i));
  std::vector<std::string> lines;
  for (size_t i = 0; i < events.size(); ++i) {
    const std::string& name = events[i].name;
    if (events[i].parent >= 0 || !(starts_with(name, "Optimizer.") || starts_with(name, kEvaluate))) continue;
    lines.push_back(name);
    if (starts_with(name, "Optimizer.zero_grad#")) continue;
    for (int64_t c : children[i]) {
      lines.push_back("  " + events[c].name);
      if (starts_with(name, kEvaluate) && !starts_with(events[c].name, "aten::"))  // the node: its formula's ops
        for (int64_t op : children[c]) lines.push_back("    " + events[op].name);
    }
  }
  return lines;
}

// Outline lines grouped per top-level entry.
using Block = std::vector<std::string>;
std::vector<Block> blocks(const std::vector<std::string>& lines) {
  std::vector<Block> out;
  for (const std::string& line : lines) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] != ' ') out.emplace_back();
    else if (out.empty()) FAIL("an indented outline line before any entry: ", line);
    out.back().push_back(line);
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string joined(const Block& block) {
  std::string out;
  for (const std::string& line : block) out += line + "\n";
  return out;
}

// PyTorch's blocks with kCoarserForward applied, and torchless's made comparable with them (see above).
// Returns, per block, why it is compared by its names only (null: compared whole).
std::vector<const char*> normalize(std::vector<Block>& pytorch, std::vector<Block>& ours) {
  std::vector<Block> mapped;
  std::vector<const char*> names_only;
  for (Block& block : pytorch) {
    const CoarserForward* known = nullptr;
    for (const CoarserForward& k : kCoarserForward)
      if (block[0] == kEvaluate + std::string(k.pytorch_node)) known = &k;
    if (known && known->torchless_node == nullptr) continue;
    if (known) block = {kEvaluate + std::string(known->torchless_node), "  " + std::string(known->torchless_node)};
    mapped.push_back(block);
    names_only.push_back(known ? known->why : nullptr);
  }
  pytorch = std::move(mapped);
  for (size_t i = 0; i < ours.size(); ++i) {
    Block& block = ours[i];
    if (i < names_only.size() && names_only[i] != nullptr && block.size() > 2) block.resize(2);
  }
  return names_only;
}

// The events of the ResNet18 training step tests/reference/make_profiler_references.py profiles (seed 0,
// batch 2x3x64x64, cross-entropy, SGD momentum 0.9), recorded after one warm-up step as the reference's:
// .grad and the momentum buffers exist.
EventList profile_training_step(const ProfileOptions& options) {
  manual_seed(0);
  auto model = models::resnet18();
  model->train();
  const Tensor x = randn({2, 3, 64, 64});
  const Tensor target = from_vector<int64_t>({1, 2}, {2});
  optim::SGD sgd(model->parameters(), {.lr = 0.1, .momentum = 0.9});
  auto step = [&] {
    sgd.zero_grad(false);
    nn::functional::cross_entropy((*model)(x), target).backward();
    sgd.step();
  };
  step();
  Profile prof(options);
  {
    auto running = prof.start();
    step();
  }
  return prof.events();
}

TEST_CASE("training profile: a ResNet18 step's forward events are PyTorch 1.13's") {
  const EventList events = profile_training_step({.record_shapes = true});
  // The whole forward: the model, the loss (cross_entropy_loss -> log_softmax, nll_loss_nd -> nll_loss ->
  // nll_loss_forward) and the seed gradient backward() makes (ones_like -> fill_).
  auto forward = [](const FunctionEvent& e) {
    return !starts_with(e.name, "autograd::engine::") && !starts_with(e.name, "Optimizer.");
  };
  testing::check_same_tree(testing::our_tree(events, forward),
                           testing::reference_tree("op_tree_resnet18_train.txt", ""));
}

TEST_CASE("training profile: a ResNet18 step's backward and optimizer scopes are PyTorch 1.13's") {
  const EventList events = profile_training_step({});
  std::vector<Block> pytorch = blocks(lines_of(tl::testing::read_reference("profiler_train_step.txt")));
  std::vector<Block> ours = blocks(outline(events));
  const std::vector<const char*> names_only = normalize(pytorch, ours);
  CHECK(ours.size() == pytorch.size());
  for (size_t i = 0; i < std::min(ours.size(), pytorch.size()); ++i) {
    if (ours[i] == pytorch[i]) continue;
    FAIL("entry ", i, " of the step differs", names_only[i] ? std::string(" (names only: ") + names_only[i] + ")" : "",
         "\nPyTorch 1.13:\n", joined(pytorch[i]), "torchless:\n", joined(ours[i]));
  }
}

TEST_CASE("training profile: the fc layer's backward (2-D input) records no reshape, as PyTorch's AddmmBackward0") {
  // Its block is compared by names only above (the node is aten::linear's); PyTorch's has t and mm alone.
  const std::vector<Block> ours = blocks(outline(profile_training_step({})));
  const auto addmm = std::find_if(ours.begin(), ours.end(), [](const Block& b) {
    return b[0] == kEvaluate + std::string("AddmmBackward0");
  });
  REQUIRE(addmm != ours.end());
  INFO(joined(*addmm));
  CHECK(std::none_of(addmm->begin(), addmm->end(), [](const std::string& line) {
    return line.find("aten::reshape") != std::string::npos;
  }));
}

}  // namespace
}  // namespace tl::profiler
