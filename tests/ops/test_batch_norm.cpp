// tests/ops/test_batch_norm.cpp — batch_norm against a naive double-precision reference: inference
// with running statistics, training with batch statistics and PyTorch's in-place running-stat
// update (unbiased variance), optional parameters, ranks 2 to 6, strided input, dtypes, and errors.
#include <doctest/doctest.h>

#include <cmath>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/ops/nn_references.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using Reference = testing::BatchNormReference;
using testing::reference_batch_norm;

struct Params {
  Tensor weight, bias, running_mean, running_var;
};

Params random_params(int64_t C, bool affine, bool running) {
  Params p;
  if (affine) p.weight = randn({C}), p.bias = randn({C});
  if (running) p.running_mean = randn({C}), p.running_var = rand({C}) + 0.5;
  return p;
}

/// As ATen lays batch_norm's result out: channels-last for a channels-last input, else contiguous.
Strides expected_strides(const Tensor& out, testing::NchwLayout layout) {
  return layout == testing::NchwLayout::ChannelsLast ? testing::channels_last_strides(out.shape())
                                                     : out.contiguous().strides();
}

TEST_CASE("batch_norm: inference uses the running statistics") {
  manual_seed(10);
  for (const Shape& shape : {Shape{1, 3, 5, 7}, Shape{4, 5, 3, 3}, Shape{2, 16, 9, 1}})
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (bool affine : {true, false}) {
        INFO("input ", shape, " ", testing::layout_name(layout), ", affine ", affine);
        const Tensor x = testing::random_nchw(shape, layout);
        const Params p = random_params(shape[1], affine, true);
        const Tensor mean_before = p.running_mean.clone();
        const Tensor out = batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, false, 0.1, 1e-5, true);
        CHECK(out.strides() == expected_strides(out, layout));
        CHECK_TENSOR_CLOSE(out, reference_batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, false, 0.1, 1e-5).out,
                           1e-5, 1e-5);
        CHECK(equal(p.running_mean, mean_before));
      }
}

TEST_CASE("batch_norm: training uses batch statistics and updates the running ones in place") {
  manual_seed(11);
  for (const Shape& shape : {Shape{2, 3, 5, 7}, Shape{5, 4, 3, 1}, Shape{1, 6, 2, 3}})
    for (testing::NchwLayout layout : testing::kNchwLayouts)
      for (double momentum : {0.1, 0.75}) {
        INFO("input ", shape, " ", testing::layout_name(layout), ", momentum ", momentum);
        const Tensor x = testing::random_nchw(shape, layout);
        const Params p = random_params(shape[1], true, true);
        const Reference ref =
            reference_batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, momentum, 1e-3);
        const Tensor out = batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, momentum, 1e-3, true);
        CHECK(out.strides() == expected_strides(out, layout));
        CHECK_TENSOR_CLOSE(out, ref.out, 1e-4, 1e-4);
        CHECK_TENSOR_CLOSE(p.running_mean, ref.running_mean, 1e-5, 1e-6);
        CHECK_TENSOR_CLOSE(p.running_var, ref.running_var, 1e-5, 1e-6);
      }
}

TEST_CASE("batch_norm: training without running statistics or affine parameters") {
  manual_seed(12);
  const Tensor x = randn({3, 4, 5, 5});
  const Reference ref = reference_batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5);
  CHECK_TENSOR_CLOSE(batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5, true), ref.out, 1e-4, 1e-4);
  const Tensor w = randn({4});
  CHECK_TENSOR_CLOSE(batch_norm(x, w, {}, {}, {}, true, 0.1, 1e-5, true), reference_batch_norm(x, w, {}, {}, {}, true, 0.1, 1e-5).out,
                     1e-4, 1e-4);
}

TEST_CASE("batch_norm: ranks 2 to 6, strided parameters, broadcast and empty input") {
  manual_seed(13);
  for (const Shape& shape : {Shape{6, 3}, Shape{4, 3, 7}, Shape{2, 3, 2, 3, 4}, Shape{2, 3, 2, 1, 3, 2}}) {
    INFO("input ", shape);
    const Tensor x = randn(shape);
    const Params p = random_params(3, true, true);
    const Reference ref = reference_batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, 0.2, 1e-5);
    CHECK_TENSOR_CLOSE(batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, 0.2, 1e-5, true), ref.out, 1e-4, 1e-4);
    CHECK_TENSOR_CLOSE(p.running_var, ref.running_var, 1e-5, 1e-6);
  }
  const Tensor x = randn({2, 3, 4, 4});
  const Tensor w = randn({6}).slice(0, 0, 6, 2), rm = randn({3, 2}).select(1, 1), rv = (rand({6}) + 0.5).slice(0, 1, 6, 2);
  const Tensor rm_before = rm.clone(), rv_before = rv.clone();
  const Reference ref = reference_batch_norm(x, w, {}, rm, rv, true, 0.1, 1e-5);
  CHECK_TENSOR_CLOSE(batch_norm(x, w, {}, rm, rv, true, 0.1, 1e-5, true), ref.out, 1e-4, 1e-4);
  CHECK_TENSOR_CLOSE(rm, ref.running_mean, 1e-5, 1e-6);
  CHECK_TENSOR_CLOSE(rv, ref.running_var, 1e-5, 1e-6);
  CHECK_TENSOR_CLOSE(batch_norm(x, w, {}, rm_before, rv_before, false, 0.1, 1e-5, true),
                     reference_batch_norm(x, w, {}, rm_before, rv_before, false, 0.1, 1e-5).out, 1e-5, 1e-5);
  CHECK(batch_norm(randn({0, 3, 4, 4}), {}, {}, rm, rv, false, 0.1, 1e-5, true).shape() == Shape{0, 3, 4, 4});
  const Tensor broadcast = randn({2, 3, 1, 4}).expand({2, 3, 5, 4});
  CHECK_TENSOR_CLOSE(batch_norm(broadcast, w, {}, {}, {}, true, 0.1, 1e-5, true),
                     reference_batch_norm(broadcast, w, {}, {}, {}, true, 0.1, 1e-5).out, 1e-4, 1e-4);
}

TEST_CASE("batch_norm: bfloat16 input with float32 parameters; float64 throughout") {
  manual_seed(14);
  for (bool training : {false, true})
  for (testing::NchwLayout layout : {testing::NchwLayout::Contiguous, testing::NchwLayout::ChannelsLast}) {
    INFO("training ", training, ", ", testing::layout_name(layout));
    const Tensor x = testing::random_nchw({2, 4, 5, 5}, layout, DType::BFloat16);
    const Params p = random_params(4, true, true);
    const Reference ref = reference_batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, training, 0.1, 1e-5);
    const Tensor out = batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, training, 0.1, 1e-5, true);
    CHECK(out.dtype() == DType::BFloat16);
    CHECK(out.strides() == expected_strides(out, layout));
    CHECK_TENSOR_CLOSE(out, ref.out, 1e-2, 2e-2);
    CHECK_TENSOR_CLOSE(p.running_var, ref.running_var, 1e-5, 1e-6);
  }
  for (const Tensor& x : {randn({3, 5, 4, 3}, DType::Float64).permute({0, 1, 3, 2}),
                          testing::random_nchw({3, 5, 4, 3}, testing::NchwLayout::ChannelsLast, DType::Float64)}) {
    Params p = random_params(5, true, true);
    for (Tensor* t : {&p.weight, &p.bias, &p.running_mean, &p.running_var}) *t = t->to(DType::Float64);
    const Reference ref = reference_batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, 0.1, 1e-5);
    const Tensor out = batch_norm(x, p.weight, p.bias, p.running_mean, p.running_var, true, 0.1, 1e-5, true);
    CHECK(out.dtype() == DType::Float64);
    CHECK_TENSOR_CLOSE(out, ref.out, 1e-12, 1e-12);
    CHECK_TENSOR_CLOSE(p.running_var, ref.running_var, 1e-12, 1e-12);
  }
}

TEST_CASE("batch_norm: rejects bad input with the values involved") {
  const Tensor x = randn({2, 3, 5, 5}), c3 = ones({3});
  CHECK_THROWS_WITH_AS(batch_norm(x, ones({4}), {}, {}, {}, true, 0.1, 1e-5, true),
                       "batch_norm: weight has 4 elements (shape [4]) but input [2, 3, 5, 5] has 3 channels", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, c3, ones({2}), {}, {}, true, 0.1, 1e-5, true),
                       "batch_norm: bias has 2 elements (shape [2]) but input [2, 3, 5, 5] has 3 channels", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, {}, {}, zeros({5}), c3, false, 0.1, 1e-5, true),
                       "batch_norm: running_mean has 5 elements (shape [5]) but input [2, 3, 5, 5] has 3 channels", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, {}, {}, c3, ones({2, 2}), false, 0.1, 1e-5, true),
                       "batch_norm: running_var has 4 elements (shape [2, 2]) but input [2, 3, 5, 5] has 3 channels", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, {}, {}, {}, {}, false, 0.1, 1e-5, true),
                       "batch_norm: running_mean and running_var must be defined in evaluation mode (training=false)", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, {}, {}, c3, {}, true, 0.1, 1e-5, true),
                       "batch_norm: running_mean and running_var must both be given or both be None", Error);
  CHECK_THROWS_WITH_AS(batch_norm(randn({1, 3, 1, 1}), {}, {}, {}, {}, true, 0.1, 1e-5, true),
                       "batch_norm: expected more than 1 value per channel when training, got input size [1, 3, 1, 1]", Error);
  CHECK_THROWS_WITH_AS(batch_norm(randn({3}), {}, {}, {}, {}, true, 0.1, 1e-5, true),
                       "batch_norm: expected at least 2-D input (N, C, ...), got [3]", Error);
  CHECK_THROWS_WITH_AS(batch_norm(ones({2, 3}, DType::Int64), {}, {}, {}, {}, true, 0.1, 1e-5, true),
                       "batch_norm: expected a floating point input, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, ones({3}, DType::Int64), {}, {}, {}, true, 0.1, 1e-5, true),
                       "batch_norm: weight dtype torch.int64 differs from input dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(batch_norm(x, {}, {}, c3, c3, false, 0.1, -1.0, true), "batch_norm: eps must be non-negative, got -1", Error);
}

}  // namespace
}  // namespace tl
