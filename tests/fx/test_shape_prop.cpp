// tests/fx/test_shape_prop.cpp — ShapeProp's TensorMeta as PyTorch 1.13's TensorMetadata: strides and
// memory format of a channels-last input and of a transposed view. Expected values are printed by
// tests/fx/gen_fx_printing_cases.py.
#include <doctest/doctest.h>

#include "core/op_kind.h"
#include "fx/graph_module.h"
#include "fx/shape_prop.h"
#include "nn/container.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

// symbolic_trace of `def forward(self, x): return x.transpose(1, 2)`.
std::shared_ptr<GraphModule> transposed() {
  auto g = std::make_unique<Graph>();
  Node* x = g->placeholder("x");
  g->output(g->call_method(OpKind::Transpose, {x, int64_t{1}, int64_t{2}}));
  return std::make_shared<GraphModule>(nn::Sequential(), std::move(g));
}

const TensorMeta& meta_of(GraphModule& gm, const std::string& name) {
  for (Node* n : gm.graph().nodes())
    if (n->name() == name) {
      REQUIRE(n->tensor_meta() != nullptr);
      return *n->tensor_meta();
    }
  FAIL("no node " << name);
  throw Error("unreachable");
}

TEST_CASE("ShapeProp: strides and memory format of a channels-last input and its transposed view") {
  // PyTorch 1.13, x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last):
  //   x:         shape=(2, 3, 4, 5) stride=(60, 1, 15, 3) memory_format=torch.channels_last
  //   transpose: shape=(2, 4, 3, 5) stride=(60, 15, 1, 3) memory_format=None
  auto gm = transposed();
  const Tensor x = randn({2, 4, 5, 3}).permute({0, 3, 1, 2});
  ShapeProp(gm).propagate({x});
  const TensorMeta& in = meta_of(*gm, "x");
  CHECK(in.shape == Shape{2, 3, 4, 5});
  CHECK(in.stride == Strides{60, 1, 15, 3});
  CHECK(in.dtype == DType::Float32);
  CHECK(in.memory_format == MemoryFormat::ChannelsLast);
  const TensorMeta& t = meta_of(*gm, "transpose");
  CHECK(t.shape == Shape{2, 4, 3, 5});
  CHECK(t.stride == Strides{60, 15, 1, 3});
  CHECK(t.memory_format == std::nullopt);
}

TEST_CASE("ShapeProp: a contiguous input is contiguous_format, its transpose none") {
  auto gm = transposed();
  ShapeProp(gm).propagate({randn({2, 3, 4, 5})});
  CHECK(meta_of(*gm, "x").stride == Strides{60, 20, 5, 1});
  CHECK(meta_of(*gm, "x").memory_format == MemoryFormat::Contiguous);
  CHECK(meta_of(*gm, "transpose").stride == Strides{60, 5, 20, 1});
  CHECK(meta_of(*gm, "transpose").memory_format == std::nullopt);
}

TEST_CASE("is_contiguous per memory format, as Tensor.is_contiguous(memory_format=...)") {
  using F = MemoryFormat;
  // (2, 3, 1, 1) with stride (3, 1, 1, 1) is both; PyTorch's ShapeProp may report either (set order).
  CHECK(is_contiguous({2, 3, 1, 1}, {3, 1, 1, 1}, F::Contiguous));
  CHECK(is_contiguous({2, 3, 1, 1}, {3, 1, 1, 1}, F::ChannelsLast));
  CHECK(extract_tensor_metadata(randn({2, 3, 1, 1})).memory_format == F::Contiguous);
  // Empty tensors: always contiguous_format, channels_last only by their strides.
  CHECK(is_contiguous({0, 4, 3, 5}, {60, 5, 20, 1}, F::Contiguous));
  CHECK_FALSE(is_contiguous({0, 4, 3, 5}, {60, 5, 20, 1}, F::ChannelsLast));
  CHECK(is_contiguous({2, 3, 0, 5}, {1, 2, 2, 6}, F::Contiguous));
  CHECK_FALSE(is_contiguous({2, 3, 0, 5}, {1, 2, 2, 6}, F::ChannelsLast));
  CHECK(is_contiguous({1, 2, 3, 4, 5}, {120, 1, 40, 10, 2}, F::ChannelsLast3d));
  CHECK_FALSE(is_contiguous({1, 2, 3, 4, 5}, {120, 1, 40, 10, 2}, F::Contiguous));
  CHECK_FALSE(is_contiguous({1, 2, 3, 4, 5}, {120, 1, 40, 10, 2}, F::ChannelsLast));
  CHECK_FALSE(is_contiguous({3, 2}, {4, 2}, F::Contiguous));  // torch.randn(3, 4)[:, ::2]
  CHECK(std::string(memory_format_name(F::ChannelsLast)) == "torch.channels_last");
  CHECK_THROWS_WITH_AS(is_contiguous({2, 3}, {1}, F::Contiguous),
                       "is_contiguous: size [2, 3] and stride [1] differ in length", Error);
}

}  // namespace
}  // namespace tl::fx
