// tests/ops/test_ternary.cpp — lerp, addcmul, addcdiv and clamp with tensor bounds against a double-precision
// reference over dtypes, layouts and broadcasts; their dtype rules, gradients and errors as PyTorch's.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::kLayouts;
using testing::Layout;

double rtol_for(DType dtype) { return dtype == DType::BFloat16 ? 1e-2 : dtype == DType::Float64 ? 1e-12 : 2e-6; }
double atol_for(DType dtype) { return dtype == DType::BFloat16 ? 1e-2 : 1e-6; }

// self, tensor1 / end and tensor2 / weight of `shape` in `layout`, the last broadcast from one row.
struct Operands {
  Tensor a, b, c;
};
Operands operands(const Shape& shape, DType dtype, Layout layout, std::mt19937_64& rng) {
  Shape row = shape;
  if (!row.empty()) row[0] = 1;
  return {testing::make_input(shape, dtype, layout, rng, -3, 3), testing::make_input(shape, dtype, layout, rng, -3, 3),
          testing::make_input(row, dtype, Layout::Contiguous, rng, 0.5, 2)};
}

const Shape kShapes[] = {{}, {7}, {33}, {3, 7}, {2, 3, 5}, {0, 3}, {1000}};

TEST_CASE("ternary: lerp, addcmul and addcdiv match the reference over dtypes, layouts and a broadcast operand") {
  std::mt19937_64 rng(4);
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    for (Layout layout : kLayouts) {
      for (const Shape& shape : kShapes) {
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        CAPTURE(shape);
        const auto [a, b, c] = operands(shape, dtype, layout, rng);
        const Tensor weight = c - 1.0;  // in [-0.5, 1]: both of lerp's formulas
        CHECK_TENSOR_CLOSE(tl::lerp(a, b, weight), testing::reference(shape, {a, b, weight}, [](const auto& v) {
                             return v[0] + v[2] * (v[1] - v[0]);
                           }), rtol_for(dtype), atol_for(dtype));
        CHECK_TENSOR_CLOSE(tl::lerp(a, b, 0.75), testing::reference(shape, {a, b}, [](const auto& v) {
                             return v[0] + 0.75 * (v[1] - v[0]);
                           }), rtol_for(dtype), atol_for(dtype));
        CHECK_TENSOR_CLOSE(a.addcmul(b, c, 0.5), testing::reference(shape, {a, b, c}, [](const auto& v) {
                             return v[0] + 0.5 * v[1] * v[2];
                           }), rtol_for(dtype), atol_for(dtype));
        CHECK_TENSOR_CLOSE(tl::addcdiv(a, b, c, -2), testing::reference(shape, {a, b, c}, [](const auto& v) {
                             return v[0] - 2 * v[1] / v[2];
                           }), rtol_for(dtype), 4 * atol_for(dtype));
      }
    }
  }
}

TEST_CASE("ternary: lerp is exact at both ends") {
  const Tensor a = from_vector<float>({0.1f, -3.7f, 1e30f}, {3}), b = from_vector<float>({0.3f, 2.2f, -1e30f}, {3});
  CHECK_TENSOR_CLOSE(tl::lerp(a, b, 0.0), a, 0, 0);
  CHECK_TENSOR_CLOSE(tl::lerp(a, b, 1.0), b, 0, 0);
}

TEST_CASE("ternary: addcmul promotes as PyTorch's and takes integers; addcdiv refuses integer division") {
  const Tensor f = ones({2}), d = ones({2}, DType::Float64), i = from_vector<int64_t>({1, 2}, {2});
  CHECK(tl::addcmul(f, d, f).dtype() == DType::Float64);
  CHECK_TENSOR_CLOSE(tl::addcmul(i, i, i, 3), from_vector<int64_t>({4, 14}, {2}), 0, 0);
  CHECK_TENSOR_CLOSE(tl::addcdiv(i, f, i), from_vector<float>({2, 2.5f}, {2}), 0, 0);
  CHECK_THROWS_WITH_AS(tl::addcdiv(f, i, i), doctest::Contains("Integer division with addcdiv is no longer supported"),
                       Error);
  CHECK_THROWS_AS(tl::addcmul(i.gt(Scalar(0)), i.gt(Scalar(0)), i.gt(Scalar(0))), Error);
}

TEST_CASE("ternary: lerp refuses mixed dtypes, integers and shapes that do not broadcast") {
  const Tensor f = ones({2}), d = ones({2}, DType::Float64);
  CHECK_THROWS_WITH_AS(tl::lerp(f, d, 0.5), "lerp: expected dtype torch.float32 for `end` but got dtype torch.float64",
                       Error);
  CHECK_THROWS_WITH_AS(tl::lerp(f, f, d), "lerp: expected dtype torch.float32 for `weight` but got dtype torch.float64",
                       Error);
  CHECK_THROWS_WITH_AS(tl::lerp(from_vector<int64_t>({1, 2}, {2}), from_vector<int64_t>({1, 2}, {2}), 1),
                       "lerp: expected a floating point dtype, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(tl::lerp(f, ones({3}), 0.5), doctest::Contains("cannot be broadcast"), Error);
  CHECK_THROWS_WITH_AS(tl::addcmul(f, ones({3}), f), doctest::Contains("cannot be broadcast"), Error);
}

TEST_CASE("ternary: gradients flow as PyTorch's derivatives (LerpBackward1, AddcmulBackward0, AddcdivBackward0)") {
  const Tensor a = from_vector<float>({1, 2}, {2}).requires_grad_(), b = from_vector<float>({3, -1}, {2}).requires_grad_();
  const Tensor w = from_vector<float>({0.25f, 0.75f}, {2}).requires_grad_();
  const Tensor y = tl::lerp(a, b, w);
  CHECK(y.grad_fn_name() == "LerpBackward1");
  y.sum().backward();
  CHECK_TENSOR_CLOSE(a.grad(), from_vector<float>({0.75f, 0.25f}, {2}), 0, 0);
  CHECK_TENSOR_CLOSE(b.grad(), from_vector<float>({0.25f, 0.75f}, {2}), 0, 0);
  CHECK_TENSOR_CLOSE(w.grad(), from_vector<float>({2, -3}, {2}), 0, 0);
  CHECK(tl::addcmul(a, b, w).grad_fn_name() == "AddcmulBackward0");
  CHECK(tl::addcdiv(a, b, w).grad_fn_name() == "AddcdivBackward0");
  CHECK(tl::lerp(a, b, 0.5).grad_fn_name() == "LerpBackward0");  // lerp.Scalar
}

TEST_CASE("ternary: clamp with tensor bounds, its gradients to self and to both bounds (ClampBackward0)") {
  // self below, inside, above, and bounds that cross (min > max gives max; only max gets that gradient).
  const Tensor x = from_vector<float>({-2, 0.5f, 3, 2}, {4}).requires_grad_();
  const Tensor lo = from_vector<float>({0, 0, 0, 3}, {4}).requires_grad_();
  const Tensor hi = from_vector<float>({1, 1, 1, 1}, {4}).requires_grad_();
  const Tensor y = tl::clamp(x, lo, hi);
  CHECK(y.grad_fn_name() == "ClampBackward0");
  CHECK_TENSOR_CLOSE(y, from_vector<float>({0, 0.5f, 1, 1}, {4}), 0, 0);
  y.sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), from_vector<float>({0, 1, 0, 0}, {4}), 0, 0);
  CHECK_TENSOR_CLOSE(lo.grad(), from_vector<float>({1, 0, 0, 0}, {4}), 0, 0);
  CHECK_TENSOR_CLOSE(hi.grad(), from_vector<float>({0, 0, 1, 1}, {4}), 0, 0);
  CHECK(tl::clamp_min(x, lo).grad_fn_name() == "ClampMinBackward1");
  CHECK(tl::clamp_max(x, hi).grad_fn_name() == "ClampMaxBackward1");
  // A NaN anywhere gives NaN; an int64 self with float bounds is float32; one bound alone.
  const Tensor nan = from_vector<float>({std::nanf(""), 0}, {2});
  CHECK(std::isnan(tl::clamp(from_vector<float>({1, 1}, {2}), nan, Tensor()).flatten()[0].item<float>()));
  CHECK(tl::clamp(from_vector<int64_t>({5, -5}, {2}), zeros({2}), ones({2})).dtype() == DType::Float32);
  CHECK_TENSOR_CLOSE(from_vector<float>({5, -5}, {2}).clamp(Tensor(), zeros({2})), from_vector<float>({0, -5}, {2}), 0, 0);
}

TEST_CASE("ternary: clamp with tensor bounds refuses what PyTorch refuses and leaves self as it was") {
  const Tensor f = from_vector<float>({1, 2}, {2});
  CHECK_THROWS_WITH_AS(tl::clamp(f, Tensor(), Tensor()), "clamp: at least one of 'min' or 'max' must not be None", Error);
  CHECK_THROWS_WITH_AS(tl::clamp(f, ones({3}), Tensor()), doctest::Contains("cannot be broadcast"), Error);
  Tensor i = from_vector<int64_t>({1, 2}, {2});
  CHECK_THROWS_WITH_AS(i.clamp_(zeros({2}), Tensor()),
                       "clamp_: result type torch.float32 can't be cast to the desired output type torch.int64", Error);
  CHECK_TENSOR_CLOSE(i, from_vector<int64_t>({1, 2}, {2}), 0, 0);
  Tensor small = from_vector<float>({1, 2}, {2});
  CHECK_THROWS_AS(small.clamp_min_(zeros({3, 2})), Error);  // the result would be larger than self
  CHECK_TENSOR_CLOSE(small, from_vector<float>({1, 2}, {2}), 0, 0);
}

}  // namespace
}  // namespace tl
