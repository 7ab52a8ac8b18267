// tests/ops/test_batch_norm_backward.cpp — native_batch_norm_backward against float64 loops of the
// analytic gradients (train: through the batch statistics; eval: the running ones), the loops against
// central differences of the float64 batch_norm forward; output_mask, saved statistics, and its errors.
#include <doctest/doctest.h>

#include <array>
#include <cmath>

#include "core/generator.h"
#include "core/op_kind.h"
#include "ops/ops.h"
#include "tests/ops/nn_references.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

constexpr std::array<bool, 3> kAll{true, true, true};
constexpr double kEps = 1e-5;

struct BnGradients {
  Tensor input, weight, bias;
};

/// Per channel, in double: xhat = (x - mean) * invstd; grad_bias = sum(g), grad_weight = sum(g * xhat),
/// grad_input = weight * invstd * (g - [train] (grad_bias + xhat * grad_weight) / count).
BnGradients reference_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& rm,
                               const Tensor& rv, bool train) {
  const std::vector<double> g = testing::to_doubles(grad), in = testing::to_doubles(x);
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / (N * C);
  const std::vector<double> w = weight.defined() ? testing::to_doubles(weight) : std::vector<double>(C, 1.0);
  std::vector<double> mean = testing::to_doubles(rm), var = testing::to_doubles(rv);
  std::vector<double> gi(in.size()), gw(static_cast<size_t>(C)), gb(static_cast<size_t>(C));
  const double count = static_cast<double>(N * S);
  for (int64_t c = 0; c < C; ++c) {
    if (train) {
      double sum = 0, squares = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < S; ++s) sum += in[(n * C + c) * S + s];
      mean[c] = sum / count;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < S; ++s) squares += std::pow(in[(n * C + c) * S + s] - mean[c], 2);
      var[c] = squares / count;
    }
    const double invstd = 1 / std::sqrt(var[c] + kEps);
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = (n * C + c) * S + s;
        gb[c] += g[i];
        gw[c] += g[i] * (in[i] - mean[c]) * invstd;
      }
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = (n * C + c) * S + s;
        const double xhat = (in[i] - mean[c]) * invstd;
        gi[i] = w[c] * invstd * (g[i] - (train ? (gb[c] + xhat * gw[c]) / count : 0.0));
      }
  }
  return {testing::from_doubles(gi, x.shape()), testing::from_doubles(gw, {C}), testing::from_doubles(gb, {C})};
}

BnGradients run(const Tensor& grad, const Tensor& x, const Tensor& w, const Tensor& rm, const Tensor& rv, bool train,
                std::array<bool, 3> mask = kAll, const Tensor& save_mean = {}, const Tensor& save_invstd = {}) {
  const auto [gi, gw, gb] = native_batch_norm_backward(grad, x, w, rm, rv, save_mean, save_invstd, train, kEps, mask);
  return {gi, gw, gb};
}

/// The gradients are `want`'s; grad_input laid out as ATen's: channels-last for a channels-last input, else
/// contiguous.
void check_close(const BnGradients& got, const BnGradients& want, double rtol, double atol,
                 bool channels_last = false) {
  if (got.input.defined())
    CHECK(got.input.strides() ==
          (channels_last ? testing::channels_last_strides(got.input.shape()) : got.input.contiguous().strides()));
  CHECK_TENSOR_CLOSE(got.input, want.input, rtol, atol);
  CHECK_TENSOR_CLOSE(got.weight, want.weight, rtol, atol);
  CHECK_TENSOR_CLOSE(got.bias, want.bias, rtol, atol);
}

TEST_CASE("native_batch_norm_backward: the reference loops agree with central differences of the forward") {
  manual_seed(21);
  for (bool train : {true, false}) {
    INFO("train ", train);
    const Tensor x = randn({3, 2, 3, 2}, DType::Float64), w = randn({2}, DType::Float64), b = randn({2}, DType::Float64);
    const Tensor rm = randn({2}, DType::Float64), rv = rand({2}, DType::Float64) + 0.5;
    const Tensor grad = randn(x.shape(), DType::Float64);
    const BnGradients want = reference_backward(grad, x, w, rm, rv, train);
    // L = sum(grad * batch_norm(x, w, b)); momentum 0 keeps the running stats as they are.
    const auto loss = [&] {
      return (grad * batch_norm(x, w, b, rm, rv, train, 0.0, kEps, true)).sum().item<double>();
    };
    const double h = 1e-6;
    const std::pair<Tensor, Tensor> operands[] = {{x, want.input}, {w, want.weight}, {b, want.bias}};
    for (const auto& operand : operands)
      for (int64_t k = 0; k < operand.first.numel(); k += 5) {
        double* p = operand.first.data<double>() + k;
        const double saved = *p;
        *p = saved + h;
        const double up = loss();
        *p = saved - h;
        const double down = loss();
        *p = saved;
        // Truncation error O(h^2 * L''') ~ 1e-12 and rounding ~ 1e-16 * |L| / h ~ 1e-9.
        CHECK((up - down) / (2 * h) == doctest::Approx(operand.second.data<double>()[k]).epsilon(1e-6));
      }
  }
}

TEST_CASE("native_batch_norm_backward: float32, float64 and bfloat16 against the float64 loops") {
  manual_seed(22);
  const Shape shapes[] = {{2, 3, 4, 5}, {4, 3}, {5, 2, 7}, {1, 16, 3, 3}, {3, 70, 5, 3}};
  for (const Shape& shape : shapes)
    for (bool train : {true, false})
      for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16})
      for (bool channels_last : {false, true}) {
        if (channels_last && shape.size() != 4) continue;
        INFO("input ", shape, ", train ", train, ", ", dtype, ", channels-last ", channels_last);
        const int64_t C = shape[1];
        const auto layout = channels_last ? testing::NchwLayout::ChannelsLast : testing::NchwLayout::Contiguous;
        const Tensor x = shape.size() == 4 ? testing::random_nchw(shape, layout, dtype) * 2.0 + 0.5
                                           : randn(shape, dtype) * 2.0 + 0.5;
        const Tensor grad = shape.size() == 4 ? testing::random_nchw(shape, layout, dtype) : randn(shape, dtype);
        const DType param = dtype == DType::BFloat16 ? DType::Float32 : dtype;  // as PyTorch's mixed bf16 allows
        const Tensor w = randn({C}, param), rm = randn({C}, param), rv = rand({C}, param) + 0.5;
        const BnGradients got = run(grad, x, w, rm, rv, train);
        CHECK(got.input.dtype() == dtype);
        CHECK(got.weight.dtype() == param);
        // float32: per-channel sums of at most 60 terms, then a few operations; bfloat16 rounds each
        // result to 8 significant bits.
        const double tol = dtype == DType::Float64 ? 1e-12 : dtype == DType::Float32 ? 1e-5 : 2e-2;
        check_close(got, reference_backward(grad, x, w, rm, rv, train), tol, tol, channels_last);
      }
}

TEST_CASE("native_batch_norm_backward: strided operands, saved statistics, no weight, output_mask") {
  manual_seed(23);
  const Shape shape{2, 3, 4, 5};
  const Tensor rm = randn({3}), rv = rand({3}) + 0.5;
  for (testing::NchwLayout layout : testing::kNchwLayouts) {
    INFO(testing::layout_name(layout));
    const Tensor x = testing::random_nchw(shape, layout), grad = testing::random_nchw(shape, layout);
    const Tensor w = randn({6}).slice(0, 0, 6, 2);
    check_close(run(grad, x, w, rm, rv, true), reference_backward(grad, x, w, rm, rv, true), 1e-5, 1e-5,
                layout == testing::NchwLayout::ChannelsLast);
  }
  // A channels-last input with a contiguous grad_out (a gradient from a contiguous consumer): channels-last.
  const Tensor x_cl = testing::random_nchw(shape, testing::NchwLayout::ChannelsLast), grad_plain = randn(shape);
  check_close(run(grad_plain, x_cl, Tensor(), rm, rv, true), reference_backward(grad_plain, x_cl, Tensor(), rm, rv, true),
              1e-5, 1e-5, true);
  const Tensor x = randn(shape), grad = randn(shape);
  // The forward's saved statistics give the same gradients as computing them from input.
  const Tensor mean = x.mean({0, 2, 3}), var = ((x - mean.view({1, 3, 1, 1})) * (x - mean.view({1, 3, 1, 1}))).mean({0, 2, 3});
  const Tensor invstd = (var + kEps).rsqrt();
  const BnGradients want = reference_backward(grad, x, Tensor(), rm, rv, true);
  check_close(run(grad, x, Tensor(), rm, rv, true, kAll, mean, invstd), want, 1e-5, 1e-5);
  const auto channels_last = [](const Tensor& t) { return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); };
  check_close(run(channels_last(grad), channels_last(x), Tensor(), rm, rv, true, kAll, mean, invstd), want, 1e-5, 1e-5,
              true);
  // Without a weight the gradients are the weight-one ones, in the input's dtype.
  const BnGradients no_weight = run(grad, x, Tensor(), Tensor(), Tensor(), true);
  check_close(no_weight, want, 1e-5, 1e-5);
  const BnGradients input_only = run(grad, x, Tensor(), rm, rv, false, {true, false, false});
  CHECK_TENSOR_CLOSE(input_only.input, reference_backward(grad, x, Tensor(), rm, rv, false).input, 1e-5, 1e-5);
  CHECK_FALSE(input_only.weight.defined());
  CHECK_FALSE(input_only.bias.defined());
  const BnGradients params_only = run(grad, x, Tensor(), rm, rv, true, {false, true, true});
  CHECK_FALSE(params_only.input.defined());
  CHECK_TENSOR_CLOSE(params_only.weight, want.weight, 1e-5, 1e-5);
  CHECK_TENSOR_CLOSE(params_only.bias, want.bias, 1e-5, 1e-5);
}

TEST_CASE("native_batch_norm_backward: rejects bad input with the values involved, changing nothing") {
  const Tensor x = randn({2, 3, 4}), grad = randn({2, 3, 4}), w = randn({3}), rm = randn({3}), rv = rand({3});
  const Tensor x0 = x.clone(), grad0 = grad.clone(), rm0 = rm.clone(), rv0 = rv.clone();
  CHECK_THROWS_WITH_AS(run(randn({2, 3, 5}), x, w, rm, rv, true),
                       "native_batch_norm_backward: grad_out [2, 3, 5] differs from input [2, 3, 4]", Error);
  CHECK_THROWS_WITH_AS(run(grad.to(DType::Float64), x, w, rm, rv, true),
                       "native_batch_norm_backward: grad_out dtype torch.float64 differs from input dtype torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(run(grad, x, randn({4}), rm, rv, true),
                       "native_batch_norm_backward: weight has 4 elements (shape [4]) but input [2, 3, 4] has 3 channels",
                       Error);
  CHECK_THROWS_WITH_AS(run(grad, x, w, rm, rv.to(DType::Float64), false),
                       "native_batch_norm_backward: running_var dtype torch.float64 differs from input dtype torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(run(grad, x, w, rm, rv, true, kAll, rm),
                       "native_batch_norm_backward: save_mean and save_invstd must both be given or both be None", Error);
  CHECK_THROWS_WITH_AS(run(grad, x, w, Tensor(), Tensor(), false),
                       "native_batch_norm_backward: running_mean and running_var must be defined when train=false", Error);
  CHECK_THROWS_WITH_AS(run(randn({3}), randn({3}), Tensor(), Tensor(), Tensor(), true),
                       "native_batch_norm_backward: expected at least 2-D input (N, C, ...), got [3]", Error);
  const Tensor in[] = {grad, x, w, rm, rv, Tensor(), Tensor()};
  CHECK_THROWS_WITH_AS(dispatch::call(OpKind::NativeBatchNormBackward, in,
                                      {{"train", true}, {"eps", kEps}, {"output_mask", Shape{1, 1, 1, 1}}}),
                       "native_batch_norm_backward: expected output_mask to have 3 values (0 or 1), got [1, 1, 1, 1]",
                       Error);
  CHECK_TENSOR_CLOSE(x, x0, 0, 0);
  CHECK_TENSOR_CLOSE(grad, grad0, 0, 0);
  CHECK_TENSOR_CLOSE(rm, rm0, 0, 0);
  CHECK_TENSOR_CLOSE(rv, rv0, 0, 0);
}

}  // namespace
}  // namespace tl
