// tests/ops/test_f64_kernels.cpp — float64 conv2d (im2col + GEMM, ops/conv_f64.cpp) and batch_norm
// against the naive double references of the float32 tests, at float64 tolerances, over the same
// sweeps; and the mixed-dtype errors (float64 with float32), which PyTorch raises too.
#include <doctest/doctest.h>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/ops/nn_references.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::ConvCase;
using testing::reference_batch_norm;
using testing::reference_conv2d;
using testing::weight_shape;

constexpr DType kF64 = DType::Float64;
constexpr double kTol = 1e-11;

TEST_CASE("conv2d float64: matches the naive reference over groups, strides, padding, dilation and layouts") {
  manual_seed(30);
  for (const ConvCase& c : testing::kConvCases)
    for (testing::NchwLayout layout : testing::kNchwLayouts) {
      INFO("input ", c.input, " ", testing::layout_name(layout), ", weight ", weight_shape(c), ", stride ", c.stride,
           ", padding ", c.padding, ", dilation ", c.dilation, ", groups ", c.groups, ", bias ", c.bias);
      const Tensor x = testing::random_nchw(c.input, layout, kF64);
      const Tensor w = randn(weight_shape(c), kF64);
      const Tensor b = c.bias ? randn({c.out_channels}, kF64) : Tensor();
      const Tensor out = conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
      CHECK(out.dtype() == kF64);
      // As ATen lays it out: channels-last for a channels-last input, else contiguous (test_memory_format.cpp).
      CHECK(out.strides() == (layout == testing::NchwLayout::ChannelsLast ? testing::channels_last_strides(out.shape())
                                                                          : out.contiguous().strides()));
      CHECK_TENSOR_CLOSE(out, reference_conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups), kTol, kTol);
    }
}

TEST_CASE("conv2d float64: 1x1 kernels with and without the direct (no im2col) product") {
  manual_seed(31);
  const Tensor w = randn({6, 4, 1, 1}, kF64), b = randn({6}, kF64);
  const Tensor channel_sliced = randn({2, 8, 5, 7}, kF64).slice(1, 1, 8, 2);  // channel stride 70, rows contiguous
  const Tensor column_sliced = testing::random_nchw({2, 4, 5, 7}, testing::NchwLayout::Sliced, kF64);
  for (const Tensor& x : {randn({3, 4, 5, 7}, kF64), channel_sliced, column_sliced})
    for (const Shape& stride : {Shape{1, 1}, Shape{2, 1}})
      for (const Shape& padding : {Shape{0, 0}, Shape{1, 0}}) {
        INFO("input ", x.shape(), " strides ", x.strides(), ", stride ", stride, ", padding ", padding);
        CHECK_TENSOR_CLOSE(conv2d(x, w, b, stride, padding), reference_conv2d(x, w, b, stride, padding, {1, 1}, 1), kTol,
                           kTol);
      }
}

TEST_CASE("conv2d float64: strided weight and bias, broadcast, unbatched and empty inputs, a ResNet-sized layer") {
  manual_seed(32);
  const Tensor x = randn({2, 4, 6, 7}, kF64);
  const Tensor w = randn({3, 3, 4, 6}, kF64).permute({3, 2, 0, 1});  // (6, 4, 3, 3), not contiguous
  const Tensor b = randn({12}, kF64).slice(0, 0, 12, 2);
  CHECK_TENSOR_CLOSE(conv2d(x, w, b, {2}, {1}), reference_conv2d(x, w, b, {2, 2}, {1, 1}, {1, 1}, 1), kTol, kTol);
  const Tensor broadcast = randn({1, 4, 1, 7}, kF64).expand({3, 4, 5, 7});  // stride 0 along N and H
  CHECK_TENSOR_CLOSE(conv2d(broadcast, w, b, {1}, {1}), reference_conv2d(broadcast, w, b, {1, 1}, {1, 1}, {1, 1}, 1), kTol,
                     kTol);

  const Tensor unbatched = randn({4, 6, 5}, kF64);
  const Tensor out = conv2d(unbatched, w, b, {1, 1}, {1, 1});
  CHECK(out.shape() == Shape{6, 6, 5});
  CHECK_TENSOR_CLOSE(out, reference_conv2d(unbatched.unsqueeze(0), w, b, {1, 1}, {1, 1}, {1, 1}, 1).squeeze(0), kTol, kTol);
  CHECK(conv2d(randn({0, 4, 6, 5}, kF64), w, b).shape() == Shape{0, 6, 4, 3});
  CHECK_THROWS_AS(conv2d(randn({2, 4, 6, 5}, kF64), randn({0, 4, 3, 3}, kF64)), Error);  // as PyTorch, no output channels
  const Tensor no_channels = randn({2, 0, 6, 5}, kF64), empty_weight = randn({6, 0, 3, 3}, kF64);
  CHECK_TENSOR_CLOSE(conv2d(no_channels, empty_weight, b),
                     reference_conv2d(no_channels, empty_weight, b, {1, 1}, {0, 0}, {1, 1}, 1), 0, 0);

  // Large enough for the parallel im2col and the multi-threaded GEMM (one image) and for one slot
  // of images per thread (three images).
  for (int64_t n : {1, 3}) {
    const Tensor big = randn({n, 32, 20, 20}, kF64), big_w = randn({48, 32, 3, 3}, kF64), big_b = randn({48}, kF64);
    CHECK_TENSOR_CLOSE(conv2d(big, big_w, big_b, {1}, {1}), reference_conv2d(big, big_w, big_b, {1, 1}, {1, 1}, {1, 1}, 1),
                       1e-10, 1e-10);
  }
}

TEST_CASE("conv2d float64: mixed dtypes are rejected naming both") {
  const Tensor x = randn({1, 4, 5, 5}, kF64), w = randn({8, 4, 3, 3}, kF64);
  CHECK_THROWS_WITH_AS(conv2d(x, w.to(DType::Float32)),
                       "conv2d: weight dtype torch.float32 differs from input dtype torch.float64", Error);
  CHECK_THROWS_WITH_AS(conv2d(x.to(DType::Float32), w),
                       "conv2d: weight dtype torch.float64 differs from input dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, randn({8})), "conv2d: bias dtype torch.float32 differs from input dtype torch.float64",
                       Error);
  // Shape errors read the same for every dtype.
  CHECK_THROWS_WITH_AS(conv2d(x, randn({8, 3, 3, 3}, kF64)),
                       "conv2d: input [1, 4, 5, 5] has 4 channels but weight [8, 3, 3, 3] with groups=1 expects 3", Error);
}

struct Params {
  Tensor weight, bias, running_mean, running_var;
};

Params random_params(int64_t C, bool affine) {
  Params p;
  if (affine) p.weight = randn({C}, kF64), p.bias = randn({C}, kF64);
  p.running_mean = randn({C}, kF64), p.running_var = rand({C}, kF64) + 0.5;
  return p;
}

TEST_CASE("batch_norm float64: inference and training over shapes, layouts and momenta") {
  manual_seed(33);
  for (const Shape& shape : {Shape{2, 3, 5, 7}, Shape{5, 4, 3, 1}, Shape{1, 6, 2, 3}, Shape{2, 16, 9, 1}})
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (bool training : {false, true})
        for (double momentum : {0.1, 0.75}) {
          INFO("input ", shape, " ", testing::layout_name(layout), ", training ", training, ", momentum ", momentum);
          const Tensor x = testing::random_nchw(shape, layout, kF64);
          const Params p = random_params(shape[1], /*affine=*/momentum < 0.5);
          const testing::BatchNormReference ref =
              reference_batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, training, momentum, 1e-5);
          const Tensor out = batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, training, momentum, 1e-5, true);
          CHECK(out.dtype() == kF64);
          CHECK_TENSOR_CLOSE(out, ref.out, kTol, kTol);
          CHECK_TENSOR_CLOSE(p.running_mean, ref.running_mean, kTol, kTol);
          CHECK_TENSOR_CLOSE(p.running_var, ref.running_var, kTol, kTol);
        }
}

TEST_CASE("batch_norm float64: ranks 2 to 5 and no running statistics") {
  manual_seed(34);
  for (const Shape& shape : {Shape{6, 3}, Shape{4, 3, 7}, Shape{2, 3, 2, 3, 4}}) {
    INFO("input ", shape);
    const Tensor x = randn(shape, kF64);
    const Params p = random_params(3, true);
    const testing::BatchNormReference ref =
        reference_batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, 0.2, 1e-5);
    CHECK_TENSOR_CLOSE(batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, 0.2, 1e-5, true), ref.out, kTol, kTol);
    CHECK_TENSOR_CLOSE(p.running_var, ref.running_var, kTol, kTol);
    CHECK_TENSOR_CLOSE(batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5, true), reference_batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5).out,
                       kTol, kTol);
  }
}

TEST_CASE("batch_norm float64: mixed dtypes are rejected naming both") {
  const Tensor x = randn({2, 3, 4, 4}, kF64), c64 = ones({3}, kF64), c32 = ones({3});
  CHECK_THROWS_WITH_AS(batch_norm(x, c32, c64, c64, c64, false, 0.1, 1e-5, true),
                       "batch_norm: weight dtype torch.float32 differs from input dtype torch.float64", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, c64, c64, c32, c64, true, 0.1, 1e-5, true),
                       "batch_norm: running_mean dtype torch.float32 differs from input dtype torch.float64", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x.to(DType::Float32), {}, {}, c32, c64, false, 0.1, 1e-5, true),
                       "batch_norm: running_var dtype torch.float64 differs from input dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x.to(DType::BFloat16), {}, {}, c64, c64, false, 0.1, 1e-5, true),
                       "batch_norm: running_mean dtype torch.float64 differs from input dtype torch.bfloat16", Error);
}

}  // namespace
}  // namespace tl
