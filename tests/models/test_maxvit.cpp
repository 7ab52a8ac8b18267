// tests/models/test_maxvit.cpp — MaxVit (maxvit_t) against torchvision 0.14
// (tests/reference/make_zoo_swin_maxvit_references.py): print(model), state_dict keys, shapes and seeded initial
// values (relative_position_index buffers included), eval logits at 224x224 (batch 1 and 3) and of a small
// configuration at 32x32, the stochastic depth schedule, and the errors for a wrong input, a configuration whose
// grids do not divide, and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>

#include "core/generator.h"
#include "fx/graph_module.h"
#include "fx/tracer.h"
#include "models/maxvit.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

const char* const kDir = "zoo_swin_maxvit";

/// The generator's small configuration: MaxVit((32, 32), 8, 2, [8, 16], `layers`, 4, 0.1, num_classes=10).
std::shared_ptr<MaxVit> small_maxvit(const Shape& layers = {1, 2}) {
  return std::make_shared<MaxVit>(8, 2, Shape{8, 16}, layers, 4, 0.1,
                                  MaxVitOptions{.input_size = {32, 32}, .num_classes = 10});
}

TEST_CASE("maxvit_t: print, state_dict, seeded initial weights and eval logits at 224 equal torchvision's") {
  CHECK(testing::zoo_model_mismatch(kDir, "maxvit_t", [] { return maxvit_t(); }, 30919624) == "");
}

TEST_CASE("maxvit: a small configuration (32x32, partition 2) as torchvision's; its stochastic depth schedule") {
  CHECK(testing::zoo_model_mismatch(kDir, "maxvit_small", [] { return small_maxvit(); }, 24142) == "");
  auto model = small_maxvit();
  // np.linspace(0, 0.1, 3): the first MBConv's p is 0, an Identity.
  CHECK(nn::repr(*model->get_submodule("blocks.0.layers.0.layers.MBconv.stochastic_depth")) == "Identity()");
  CHECK(nn::repr(*model->get_submodule("blocks.1.layers.0.layers.grid_attention.stochastic_dropout")) ==
        "StochasticDepth(p=0.05, mode=row)");
  CHECK(nn::repr(*model->get_submodule("blocks.1.layers.1.layers.MBconv.stochastic_depth")) ==
        "StochasticDepth(p=0.1, mode=row)");
  CHECK(model->get_buffer("blocks.0.layers.0.layers.window_attention.attn_layer.1.relative_position_index").shape() ==
        Shape{4, 4});
}

TEST_CASE("maxvit: a wrong input or configuration is refused; another variant's checkpoint loads nothing") {
  auto model = small_maxvit();
  model->eval();
  // torchvision fails later, in WindowDepartition's reshape ("shape '[1, 4, 4, 2, 2, 8]' is invalid for input of
  // size 800"); ours refuses before the stem runs. 31x31 gives the same 16x16 stem output as 32x32 and runs.
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 3, 40, 40})),
                       "MaxVit: an input of 40x40 gives a 20x20 stem output; the model was built for input_size "
                       "(32, 32) (16x16)",
                       Error);
  CHECK((*model)(zeros({1, 3, 31, 31})).shape() == Shape{1, 10});
  CHECK_THROWS_WITH_AS((*model)(zeros({3, 32, 32})), "MaxVit: expected an input (N, C, H, W), got [3, 32, 32]",
                       Error);
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 4, 32, 32})),
                       "conv2d: input [1, 4, 32, 32] has 4 channels but weight [8, 3, 3, 3] with groups=1 expects 3"
                       " (in module 'stem.0.0' (Conv2d) of MaxVit)",
                       Error);
  CHECK_THROWS_WITH_AS(MaxVit(8, 2, Shape{8, 16}, Shape{1, 2}, 4, 0.1, {.input_size = {40, 40}}),
                       "Input size (5, 5) of block 1 is not divisible by partition size 2. Consider changing the "
                       "partition size or the input size.\nCurrent configuration yields the following block input "
                       "sizes: [(10, 10), (5, 5)].",
                       Error);
  CHECK_THROWS_WITH_AS(maxvit::RelativePositionalMultiHeadAttention(64, 24, 49),
                       "feat_dim: 64 must be divisible by head_dim: 24", Error);
  CHECK_THROWS_WITH_AS(maxvit::PartitionAttentionLayer({.in_channels = 8, .head_dim = 4, .partition_size = 2,
                                                        .partition_type = "block", .grid_size = {4, 4}}),
                       "partition_type must be either 'grid' or 'window'", Error);
  testing::check_refuses_state_dict(*model, small_maxvit({1, 1})->state_dict(),
                                    "blocks.1.layers.1.layers.MBconv.layers.pre_norm.weight");
}

TEST_CASE("maxvit: symbolic_trace refuses WindowPartition's shape read, as torch.fx does") {
  // torch.fx: TraceError "Proxy object cannot be iterated" at `B, C, H, W = x.shape`.
  CHECK_THROWS_WITH_AS(fx::symbolic_trace(small_maxvit()), doctest::Contains("is a traced value (a Proxy)"), Error);
}

TEST_CASE("maxvit: WindowPartition and WindowDepartition are inverse; SwapAxes is a view") {
  const Tensor x = testing::zoo_input(2, 4);  // (2, 3, 4, 4)
  maxvit::WindowPartition partition;
  maxvit::WindowDepartition departition;
  const Tensor windows = partition.forward(x, 2);
  CHECK(windows.shape() == Shape{2, 4, 4, 3});
  // window (0, 1), token (1, 0): pixel (1, 2) of each channel
  CHECK_TENSOR_CLOSE(windows.index({0, 1, 2}), x.index({0, indexing::Slice(), 1, 2}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(departition.forward(windows, 2, 2, 2), x, 0.0, 0.0);
  maxvit::SwapAxes swap(-2, -3);
  const Tensor swapped = swap(windows);
  CHECK(swapped.shape() == Shape{2, 4, 4, 3});
  CHECK(swapped.storage() == windows.storage());
  CHECK(nn::repr(swap) == "SwapAxes()");
}

}  // namespace
}  // namespace tl::models
