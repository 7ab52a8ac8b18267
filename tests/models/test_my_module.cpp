// tests/models/test_my_module.cpp — the profiler tutorial's MyModule: both MASK INDICES paths
// against a plain scan, and the profile the tutorial reads (scopes, stacks, memory of the copy).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "fx/tracer.h"
#include "models/my_module.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/support/tensor_check.h"

namespace tl::models {
namespace {

// Coordinates (row-major) of the elements of `mask` greater than `threshold`, by a plain scan.
std::vector<int64_t> reference_indices(const Tensor& mask, double threshold) {
  std::vector<int64_t> coords;
  const Shape& s = mask.shape();
  for (int64_t i = 0; i < s[0]; ++i)
    for (int64_t j = 0; j < s[1]; ++j)
      for (int64_t k = 0; k < s[2]; ++k)
        if (testing::element_at(mask, (i * s[1] + j) * s[2] + k) > threshold) coords.insert(coords.end(), {i, j, k});
  return coords;
}

std::vector<int64_t> values(const Tensor& t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(static_cast<int64_t>(testing::element_at(t, i)));
  return v;
}

TEST_CASE("my_module: both MASK INDICES paths find the elements above the threshold") {
  for (DType dtype : {DType::Float64, DType::Float32}) {
    manual_seed(0);
    auto slow = std::make_shared<MyModule>(MyModuleOptions{.in_features = 6, .out_features = 3});
    auto fast = std::make_shared<MyModule>(MyModuleOptions{.in_features = 6, .out_features = 3, .use_nonzero = true});
    fast->load_state_dict(slow->state_dict());
    const Tensor input = rand({4, 6});
    // The threshold (the mean row sum of the output) does not depend on the mask: centre the mask
    // on it so that about half of the elements are above.
    const double threshold = (*slow)({input, zeros({1, 1, 1}, dtype)})[0].sum({1}).mean().item<double>();
    const Tensor mask = rand({5, 4, 3}, dtype) + (threshold - 0.5);
    const TensorList a = (*slow)({input, mask});
    const TensorList b = (*fast)({input, mask});
    CHECK(a[0].sum({1}).mean().item<double>() == threshold);
    const std::vector<int64_t> expected = reference_indices(mask, threshold);
    REQUIRE_FALSE(expected.empty());
    REQUIRE(expected.size() < static_cast<size_t>(mask.numel()) * 3);
    CHECK(a[1].shape() == Shape{static_cast<int64_t>(expected.size() / 3), 3});
    CHECK(a[1].dtype() == DType::Int64);
    CHECK(values(a[1]) == expected);
    CHECK(values(b[1]) == expected);
    CHECK(b[1].shape() == a[1].shape());
    CHECK_TENSOR_CLOSE(a[0], b[0], 0.0, 0.0);
    CHECK(a[0].shape() == Shape{4, 3});
  }
}

struct MaskProfile {
  int64_t mask_indices_self_memory = 0;
  int64_t copy_buffer_bytes = 0;
  int64_t hi_idx_bytes = 0;
  std::vector<std::string> copy_stack, linear_stack;
};

// A stack entry naming a frame of `file` whose text ends with `tail`.
bool is_frame_in(const std::string& entry, const std::string& file, const std::string& tail) {
  return entry.find(file) != std::string::npos && entry.size() >= tail.size() &&
         entry.compare(entry.size() - tail.size(), tail.size(), tail) == 0;
}

MaskProfile profile_forward(DType dtype, bool use_nonzero) {
  manual_seed(1);
  auto model = std::make_shared<MyModule>(MyModuleOptions{.in_features = 8, .out_features = 2, .use_nonzero = use_nonzero});
  const Tensor input = rand({3, 8});
  const Tensor mask = rand({6, 5, 4}, dtype);
  profiler::Profile prof({.profile_memory = true, .with_stack = true});
  MaskProfile out;
  {
    auto running = prof.start();
    out.hi_idx_bytes = (*model)({input, mask})[1].numel() * 8;
  }
  const profiler::EventList& events = prof.events();
  for (size_t i = 0; i < events.size(); ++i) {
    const profiler::FunctionEvent& e = events[i];
    if (e.name == "MASK INDICES") out.mask_indices_self_memory = e.self_cpu_memory_usage;
    const bool in_mask = e.cpu_parent >= 0 && events[e.cpu_parent].name == "MASK INDICES";
    if (in_mask && e.name == "aten::empty" && out.copy_buffer_bytes == 0) out.copy_buffer_bytes = e.cpu_memory_usage;
    if (in_mask && e.name == "aten::copy_") out.copy_stack = events.stack(i);
    if (e.name == "aten::linear") out.linear_stack = events.stack(i);
  }
  return out;
}

TEST_CASE("my_module: the profile shows the tutorial's scopes, stacks and the mask copy's memory") {
  const MaskProfile f64 = profile_forward(DType::Float64, false);
  const MaskProfile f32 = profile_forward(DType::Float32, false);
  const int64_t elements = 6 * 5 * 4;
  CHECK(f64.copy_buffer_bytes == elements * 8);
  CHECK(f32.copy_buffer_bytes == elements * 4);
  // The copy is freed inside the scope: its self memory drops by exactly the mask's bytes.
  CHECK(f64.mask_indices_self_memory - f32.mask_indices_self_memory == -elements * 4);
  // Scopes sit inside the models/ frame that opened them (the lines themselves are checked in
  // tests/profiler/test_source_frames.cpp); this test's own frames follow.
  REQUIRE(f64.copy_stack.size() >= 4);
  CHECK_MESSAGE(is_frame_in(f64.copy_stack[0], "models/my_module.cpp(", "numpy_argwhere"), f64.copy_stack[0]);
  CHECK(f64.copy_stack[1] == "MASK INDICES");
  CHECK_MESSAGE(is_frame_in(f64.copy_stack[2], "models/my_module.cpp(", "): tl::models::MyModule::forward"),
                f64.copy_stack[2]);
  CHECK(f64.copy_stack[3] == "nn.Module: MyModule_0");
  REQUIRE(f64.linear_stack.size() >= 4);
  CHECK(f64.linear_stack[0] == "nn.Module: Linear_0");
  CHECK(f64.linear_stack[1] == "LINEAR PASS");
  CHECK_MESSAGE(is_frame_in(f64.linear_stack[2], "models/my_module.cpp(", "): tl::models::MyModule::forward"),
                f64.linear_stack[2]);
  CHECK(f64.linear_stack[3] == "nn.Module: MyModule_0");
  const MaskProfile fast = profile_forward(DType::Float32, true);
  CHECK(fast.copy_buffer_bytes == 0);
  // The NumPy path's result is memory no profiler sees (NumPy's, which torch.from_numpy wraps): the scope
  // frees the copy and out.sum(1) (3 floats) and its mean, and allocates nothing. (mask > threshold) is a
  // bool tensor freed inside the scope; nonzero() allocates inside its op; the threshold tensor outlives
  // the scope, as the tutorial's Python local does.
  CHECK(f32.hi_idx_bytes > 0);
  CHECK(f64.mask_indices_self_memory == -elements * 8 - 3 * 4 - 4);
  CHECK(fast.mask_indices_self_memory - f32.mask_indices_self_memory == elements * 4 - elements + 4);
}

TEST_CASE("my_module: symbolic tracing makes one placeholder per input and computes what eager does") {
  manual_seed(0);
  auto model = std::make_shared<MyModule>(MyModuleOptions{.in_features = 6, .out_features = 3, .use_nonzero = true});
  auto traced = fx::symbolic_trace(model);
  const auto placeholders = traced->graph().find_nodes(fx::Opcode::Placeholder);
  REQUIRE(placeholders.size() == 2);
  CHECK(placeholders[0]->target() == "input");  // named input_1, as FX avoids Python's builtins
  CHECK(placeholders[1]->target() == "mask");
  const MyModuleInputs in = my_module_inputs(DType::Float32, 5, 4, 6);
  const TensorList eager = (*model)(TensorList{in.input, in.mask});
  const TensorList graph = (*traced)(TensorList{in.input, in.mask});
  REQUIRE(graph.size() == 2);
  CHECK_TENSOR_CLOSE(graph[0], eager[0], 0.0, 0.0);
  CHECK(values(graph[1]) == values(eager[1]));
  // The NumPy path reads the threshold's value, which a symbolic trace does not have.
  CHECK_THROWS_WITH_AS(fx::symbolic_trace(std::make_shared<MyModule>()),
                       doctest::Contains("is a traced value (a Proxy) in MyModule.forward"), Error);
}

TEST_CASE("my_module: arguments and repr") {
  auto model = std::make_shared<MyModule>(MyModuleOptions{.in_features = 3, .out_features = 2});
  CHECK_THROWS_WITH_AS((*model)(TensorList{zeros({1, 3})}),
                       "MyModule.forward takes 2 input(s) (input, mask), got 1; a module taking other inputs declares "
                       "them by overriding forward_signature()",
                       Error);
  CHECK_THROWS_WITH_AS(model->forward(nn::Inputs(*model, TensorList{zeros({1, 3})})), "MyModule: expected (input, mask), got 1 inputs",
                       Error);
  CHECK(model->extra_repr() == "mask_indices=numpy");
  CHECK(model->child("linear")->type_name() == "Linear");
  const MyModuleInputs in = my_module_inputs(DType::Float32, 4, 2, 3);
  CHECK(in.input.shape() == Shape{2, 3});
  CHECK(in.mask.shape() == Shape{4, 4, 4});
  CHECK(in.mask.dtype() == DType::Float32);
}

}  // namespace
}  // namespace tl::models
