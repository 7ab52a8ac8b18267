// tests/autograd/test_graph_release.cpp — dropping the last tensor of a graph frees its nodes without
// recursing once per node (PyTorch frees a 1e6-node chain), and frees only what nothing else holds.
#include <doctest/doctest.h>

#include <memory>
#include <type_traits>

#include "autograd/node.h"
#include "core/autograd_meta.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

constexpr int kLongChain = 1'000'000;
// Deep enough that releasing it one recursion per node overflowed the default 8 MiB stack.
constexpr int kDeep = 200'000;

// The node that made `t` (its grad_fn), held weakly: expired once the graph released it.
std::weak_ptr<autograd::Node> node_of(const Tensor& t) { return TensorImplAccess::meta(t)->grad_fn; }

TEST_CASE("dropping a 1e6-node chain frees it without overflowing the stack") {
  Tensor x = ones({1}).requires_grad_();
  Tensor y = x * 1.0;
  const std::weak_ptr<autograd::Node> first = node_of(y);
  for (int i = 0; i < kLongChain; ++i) y = y * 1.0;
  const std::weak_ptr<autograd::Node> last = node_of(y);
  y = Tensor();
  CHECK(last.expired());
  CHECK(first.expired());
}

TEST_CASE("a chain whose every step also reads a leaf (two edges per node) is freed too") {
  Tensor x = ones({1}).requires_grad_(), w = ones({1}).requires_grad_();
  Tensor y = x * 1.0;
  const std::weak_ptr<autograd::Node> first = node_of(y);
  for (int i = 0; i < kDeep; ++i) y = y * 1.0 + w;
  y = Tensor();
  CHECK(first.expired());
  // The leaves' accumulators went with the graph; the leaves did not.
  CHECK(TensorImplAccess::meta(w)->grad_accumulator.expired());
  CHECK(w.requires_grad());
}

TEST_CASE("a wide graph (long branches joined by one node) and a chain of diamonds are freed") {
  Tensor x = ones({1}).requires_grad_();
  TensorList branches;
  std::vector<std::weak_ptr<autograd::Node>> starts;
  for (int b = 0; b < 4; ++b) {
    Tensor y = x * 1.0;
    starts.push_back(node_of(y));
    for (int i = 0; i < kDeep / 4; ++i) y = y * 1.0;
    branches.push_back(y);
  }
  Tensor joined = cat(branches, 0);
  branches.clear();
  joined = Tensor();
  for (const auto& s : starts) CHECK(s.expired());

  // Each step's node is held by both nodes of the next step: freed once, after the second lets go.
  Tensor y = x * 1.0;
  const std::weak_ptr<autograd::Node> first = node_of(y);
  for (int i = 0; i < kDeep / 2; ++i) y = y * 1.0 + y * 2.0;
  y = Tensor();
  CHECK(first.expired());
}

TEST_CASE("a long chain of in-place ops on a view (CopySlices holding their op's node) is freed") {
  Tensor x = ones({2}).requires_grad_();
  Tensor base = x * 1.0;
  const std::weak_ptr<autograd::Node> first = node_of(base);
  for (int i = 0; i < kDeep; ++i) base.select(0, 0).mul_(1.0);
  REQUIRE(base.grad_fn_name() == "CopySlices");
  base = Tensor();
  CHECK(first.expired());
}

TEST_CASE("dropping a long graph leaves the part another tensor still holds intact") {
  Tensor x = ones({2}).requires_grad_();
  Tensor y = x * 1.0;
  for (int i = 0; i < kDeep / 2; ++i) y = y * 1.0;
  Tensor kept = y * 3.0;  // shares y's history
  for (int i = 0; i < kDeep / 2; ++i) y = y * 1.0;
  const std::weak_ptr<autograd::Node> dropped = node_of(y);
  y = Tensor();
  CHECK(dropped.expired());
  REQUIRE(kept.requires_grad());
  kept.sum().backward();
  const std::string diff = testing::compare_tensors(x.grad(), full({2}, 3.0), 0, 0);
  CHECK_MESSAGE(diff.empty(), diff);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
// One version more, the old names still compile: TensorAccess, and GradMeta and InputInfo, now one type.
static_assert(std::is_same_v<TensorAccess, TensorImplAccess>);
static_assert(std::is_same_v<autograd::GradMeta, autograd::TensorInfo>);
static_assert(std::is_same_v<autograd::InputInfo, autograd::TensorInfo>);
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl
