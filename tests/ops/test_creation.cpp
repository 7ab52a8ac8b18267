// tests/ops/test_creation.cpp — factories: zeros/ones/full/empty over dtypes and shapes, arange with
// integer and float steps, rand/randn reproducibility and statistics, and the size errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::element_at;
using testing::kAllDTypes;

const Shape kShapes[] = {{}, {0}, {3, 0, 2}, {1}, {7}, {3, 5}, {2, 3, 33}, {40000}};

TEST_CASE("creation: zeros, ones and full fill every dtype and shape") {
  for (DType dtype : kAllDTypes) {
    for (const Shape& shape : kShapes) {
      CAPTURE(dtype);
      CAPTURE(shape);
      const Tensor z = zeros(shape, dtype), o = ones(shape, dtype), f = full(shape, 3, dtype);
      for (const Tensor& t : {z, o, f, empty(shape, dtype)}) {
        CHECK(t.shape() == shape);
        CHECK(t.dtype() == dtype);
        CHECK(t.is_contiguous());
        CHECK(t.numel() == numel_of(shape));
      }
      const double three = dtype == DType::Bool ? 1 : 3;
      CHECK_TENSOR_CLOSE(z, testing::reference(shape, {}, [](const auto&) { return 0.0; }), 0, 0);
      CHECK_TENSOR_CLOSE(o, testing::reference(shape, {}, [](const auto&) { return 1.0; }), 0, 0);
      CHECK_TENSOR_CLOSE(f, testing::reference(shape, {}, [&](const auto&) { return three; }), 0, 0);
    }
  }
  CHECK(element_at(full({2}, -2.5), 1) == -2.5);
  CHECK(element_at(full({2}, 2.75, DType::Int64), 0) == 2);
  CHECK(full({}, true, DType::Bool).item<bool>());
  CHECK(scalar_tensor(4, DType::Int32).dim() == 0);
  CHECK(scalar_tensor(4, DType::Int32).item<int64_t>() == 4);
}

TEST_CASE("full: an integer fill keeps every bit; a value the dtype cannot hold throws (as PyTorch 1.13)") {
  const int64_t odd = (int64_t{1} << 53) + 1;  // not a double
  CHECK(full({1}, odd, DType::Int64).item<int64_t>() == odd);
  CHECK(scalar_tensor(std::numeric_limits<int64_t>::max() - 1, DType::Int64).item<int64_t>() ==
        std::numeric_limits<int64_t>::max() - 1);
  CHECK_THROWS_WITH_AS(full({1}, int64_t{1} << 40, DType::Int32),
                       "value 1099511627776 cannot be converted to a 32-bit integer without overflow", Error);
  CHECK_THROWS_WITH_AS(full({1}, 1e30, DType::Int64), "value 1e+30 cannot be converted to a 64-bit integer without overflow",
                       Error);
  CHECK_THROWS_WITH_AS(full({1}, NAN, DType::Int64), "value nan cannot be converted to a 64-bit integer without overflow",
                       Error);
}

TEST_CASE("creation: negative and overflowing sizes throw") {
  CHECK_THROWS_WITH_AS(zeros({2, -1}), "zeros: negative dimension -1 in size [2, -1]", Error);
  CHECK_THROWS_WITH_AS(ones({-3}), doctest::Contains("negative dimension -3"), Error);
  CHECK_THROWS_WITH_AS(empty({-1}), doctest::Contains("negative dimension"), Error);
  CHECK_THROWS_WITH_AS(rand({-1}), doctest::Contains("negative dimension"), Error);
  const int64_t big = int64_t{1} << 40;
  CHECK_THROWS_WITH_AS(zeros({big, big}), "zeros: size [1099511627776, 1099511627776] has more elements than int64 can count",
                       Error);
  CHECK_THROWS_WITH_AS(full({big, big, 4}, 1), doctest::Contains("more elements than int64 can count"), Error);
  // Countable elements whose bytes overflow int64.
  CHECK_THROWS_WITH_AS(empty({int64_t{1} << 61, 2}), doctest::Contains("needs more bytes than int64 can count"), Error);
  // A 0-size dimension allows no more: the other sizes must still multiply within int64 (the strides).
  CHECK(zeros({0, int64_t{1} << 31, int64_t{1} << 31}).numel() == 0);
  CHECK_THROWS_WITH_AS(zeros({0, big, big}), doctest::Contains("size [0, 1099511627776, 1099511627776] is too large"),
                       Error);
  CHECK_THROWS_WITH_AS(zeros({0, 3}).view({0, big, big}), doctest::Contains("nonzero dimensions multiply past int64"),
                       Error);
}

TEST_CASE("arange: integer and float steps against start + i * step") {
  struct Case {
    double start, end, step;
  };
  const Case cases[] = {{0, 10, 1}, {0, 1, 0.1}, {-3, 4, 0.5}, {5, -5, -1}, {1, 2, 0.3}, {0, 0, 1}, {2.5, -1.2, -0.7}};
  for (const Case& c : cases) {
    for (DType dtype : {DType::Float32, DType::Float64}) {
      CAPTURE(c.start);
      CAPTURE(c.end);
      CAPTURE(c.step);
      CAPTURE(dtype);
      const Tensor a = arange(c.start, c.end, c.step, dtype);
      // The count Python's range would give for these bounds.
      int64_t count = 0;
      while (c.step > 0 ? c.start + count * c.step < c.end : c.start + count * c.step > c.end) ++count;
      REQUIRE(a.shape() == Shape{count});
      CHECK(a.dtype() == dtype);
      std::vector<double> expected(static_cast<size_t>(count));
      for (int64_t i = 0; i < count; ++i) expected[static_cast<size_t>(i)] = c.start + static_cast<double>(i) * c.step;
      CHECK_TENSOR_CLOSE(a, from_vector<double>(expected, {count}), dtype == DType::Float32 ? 1e-6 : 1e-15, 1e-6);
    }
  }
  const Tensor ints = arange(7);
  CHECK(ints.dtype() == DType::Int64);
  CHECK(ints.shape() == Shape{7});
  for (int64_t i = 0; i < 7; ++i) CHECK(element_at(ints, i) == i);
  CHECK(arange(1, 10, 3).dtype() == DType::Int64);
  CHECK(arange(0, 1, 0.25).dtype() == DType::Float32);
  CHECK(arange(0.0, 3).shape() == Shape{3});
  CHECK(arange(0, 5, 2, DType::Int32).shape() == Shape{3});
}

TEST_CASE("arange: an integer dtype counts and steps in int64, exact past 2^53 (as PyTorch 1.13)") {
  struct Case {
    Scalar start, end, step;
  };
  const int64_t big = int64_t{1} << 53;
  // PyTorch truncates each bound to an integer first: (0, 5, 1.5) steps by 1.
  const Case cases[] = {{big, big + 3, 1},  {0, big + 1, big / 2}, {10, 0, -3},     {0, 5, 1.5},
                        {0.5, 5, 1},        {-big - 5, -big, 2},   {int64_t{1} << 62, std::numeric_limits<int64_t>::max(), int64_t{1} << 61}};
  for (const Case& c : cases) {
    const int64_t start = c.start.to<int64_t>(), end = c.end.to<int64_t>(), step = c.step.to<int64_t>();
    CAPTURE(start);
    CAPTURE(end);
    CAPTURE(step);
    std::vector<int64_t> expected;  // a plain loop in 128-bit arithmetic
    for (__int128 v = start; step > 0 ? v < end : v > end; v += step) expected.push_back(static_cast<int64_t>(v));
    const Tensor a = arange(c.start, c.end, c.step, DType::Int64);
    REQUIRE(a.shape() == Shape{static_cast<int64_t>(expected.size())});
    for (size_t i = 0; i < expected.size(); ++i) CHECK(a.data<int64_t>()[i] == expected[i]);
  }
  CHECK_THROWS_WITH_AS(arange(0, 5, 0.5, DType::Int64), "arange: step must be nonzero", Error);
}

TEST_CASE("arange: errors") {
  CHECK_THROWS_WITH_AS(arange(0, 5, 0), "arange: step must be nonzero", Error);
  CHECK_THROWS_WITH_AS(arange(0, 5, -1), doctest::Contains("arange: upper bound and larger bound inconsistent with step sign"),
                       Error);
  CHECK_THROWS_WITH_AS(arange(5, 0, 1), doctest::Contains("inconsistent with step sign"), Error);
  CHECK_THROWS_WITH_AS(arange(0, std::numeric_limits<double>::infinity(), 1), doctest::Contains("arange: unsupported range"),
                       Error);
  CHECK_THROWS_WITH_AS(arange(0, 1e300, 1e-300), doctest::Contains("has too many elements"), Error);
  CHECK_THROWS_WITH_AS(arange(0, 3, 1, DType::Bool), "arange: not implemented for torch.bool", Error);
}

TEST_CASE("rand and randn: reproducible from the seed, in range, sane statistics") {
  manual_seed(123);
  const Tensor a = rand({1000});
  const Tensor an = randn({1000});
  manual_seed(123);
  const Tensor b = rand({1000});
  const Tensor bn = randn({1000});
  CHECK_TENSOR_CLOSE(a, b, 0, 0);
  CHECK_TENSOR_CLOSE(an, bn, 0, 0);
  manual_seed(124);
  CHECK_FALSE(tl::equal(rand({1000}), a));

  manual_seed(7);
  const int64_t n = 100000;
  const Tensor u = rand({n}), g = randn({n}, DType::Float64);
  double lo = 1, hi = 0, sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double x = element_at(u, i);
    lo = std::min(lo, x);
    hi = std::max(hi, x);
    const double y = element_at(g, i);
    sum += y;
    sum_sq += y * y;
  }
  CHECK(lo >= 0);
  CHECK(hi < 1);
  CHECK(lo < 0.001);
  CHECK(hi > 0.999);
  const double mean = sum / n, stddev = std::sqrt(sum_sq / n - mean * mean);
  CHECK(std::fabs(mean) < 0.02);
  CHECK(std::fabs(stddev - 1) < 0.02);
  CHECK(rand({2, 3}, DType::BFloat16).dtype() == DType::BFloat16);
  CHECK(rand({}).dim() == 0);
  CHECK(randn({0, 3}).numel() == 0);
  CHECK_THROWS_WITH_AS(rand({2}, DType::Int64), "rand: expected a floating point dtype, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(randn({2}, DType::Bool), "randn: expected a floating point dtype, got torch.bool", Error);
}

}  // namespace
}  // namespace tl
