// tests/ops/test_compare.cpp — gt, lt, ge, le, eq, ne and the logical ops against a reference over dtype
// pairs, scalars, layouts and broadcasting; allclose and equal against plain loops, NaN and infinity rules,
// errors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/op_kind.h"
#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::kAllDTypes;
using testing::kLayouts;
using testing::Layout;

using TensorMethod = Tensor (Tensor::*)(const Tensor&) const;
using ScalarMethod = Tensor (Tensor::*)(const Scalar&) const;

struct CompareCase {
  const char* name;
  TensorMethod with_tensor;
  ScalarMethod with_scalar;
  bool (*reference)(double, double);
};

const CompareCase kCases[] = {
    {"gt", &Tensor::gt, &Tensor::gt, [](double a, double b) { return a > b; }},
    {"lt", &Tensor::lt, &Tensor::lt, [](double a, double b) { return a < b; }},
    {"ge", &Tensor::ge, &Tensor::ge, [](double a, double b) { return a >= b; }},
    {"le", &Tensor::le, &Tensor::le, [](double a, double b) { return a <= b; }},
    {"eq", &Tensor::eq, &Tensor::eq, [](double a, double b) { return a == b; }},
    {"ne", &Tensor::ne, &Tensor::ne, [](double a, double b) { return a != b; }},
    // Any non-zero value, NaN included, is true.
    {"logical_and", &Tensor::logical_and, &Tensor::logical_and, [](double a, double b) { return a != 0 && b != 0; }},
    {"logical_or", &Tensor::logical_or, &Tensor::logical_or, [](double a, double b) { return a != 0 || b != 0; }},
    {"logical_xor", &Tensor::logical_xor, &Tensor::logical_xor, [](double a, double b) { return (a != 0) != (b != 0); }},
};

const std::pair<Shape, Shape> kShapePairs[] = {{{3}, {3}},         {{}, {5}},       {{5}, {}},
                                               {{3, 1}, {1, 4}},   {{2, 3, 4}, {4}}, {{0, 3}, {1, 3}},
                                               {{7, 33}, {7, 1}}, {{1000}, {1000}}};

// Small whole numbers: every dtype holds them exactly, so promotion cannot change an answer, and
// equal elements are common, so eq/ne/ge/le see both outcomes.
Tensor draw(const Shape& shape, DType dtype, Layout layout, std::mt19937_64& rng) {
  return testing::make_input(shape, dtype, layout, rng, -2, 2, true);
}

void check_compare(const CompareCase& c, const Tensor& a, const Tensor& b) {
  const Tensor out = (a.*c.with_tensor)(b);
  CHECK(out.dtype() == DType::Bool);
  // Both operands are compared in their promoted dtype.
  const DType common = promote_types(a.dtype(), b.dtype());
  const Tensor x = a.to(common), y = b.to(common);
  const Shape shape = broadcast_shapes(a.shape(), b.shape(), "test");
  CHECK_TENSOR_CLOSE(out, testing::reference(shape, {x, y}, [&](const auto& v) { return c.reference(v[0], v[1]) ? 1.0 : 0.0; }),
                     0, 0);
}

TEST_CASE("compare: every op over dtype pairs and broadcast shapes") {
  std::mt19937_64 rng(21);
  for (const CompareCase& c : kCases) {
    for (DType da : kAllDTypes) {
      for (DType db : kAllDTypes) {
        // Named members, not a structured binding: clang 14 cannot capture one in CAPTURE/INFO.
        for (const auto& entry : kShapePairs) {
          const auto& sa = entry.first;
          const auto& sb = entry.second;
          CAPTURE(std::string(c.name));
          CAPTURE(da);
          CAPTURE(db);
          CAPTURE(sa);
          CAPTURE(sb);
          check_compare(c, draw(sa, da, Layout::Contiguous, rng), draw(sb, db, Layout::Contiguous, rng));
        }
      }
    }
  }
}

TEST_CASE("compare: layouts of either operand") {
  std::mt19937_64 rng(22);
  for (const CompareCase& c : kCases) {
    for (DType dtype : {DType::Float32, DType::Int32, DType::Bool, DType::BFloat16}) {
      for (Layout la : kLayouts) {
        for (Layout lb : kLayouts) {
          CAPTURE(std::string(c.name));
          CAPTURE(dtype);
          CAPTURE(testing::layout_name(la));
          CAPTURE(testing::layout_name(lb));
          check_compare(c, draw({6, 5}, dtype, la, rng), draw({6, 5}, dtype, lb, rng));
          // Above kGrainSize elements the loop splits over threads.
          if (dtype == DType::Float32 && std::string(c.name) == "le")
            check_compare(c, draw({131, 257}, dtype, la, rng), draw({257}, dtype, lb, rng));
        }
      }
    }
  }
}

TEST_CASE("compare: Python numbers and NaN") {
  std::mt19937_64 rng(23);
  const Scalar scalars[] = {true, 1, -1, 0.5};
  for (const CompareCase& c : kCases) {
    for (DType dtype : kAllDTypes) {
      for (const Scalar& s : scalars) {
        CAPTURE(std::string(c.name));
        CAPTURE(dtype);
        CAPTURE(s);
        const Tensor a = testing::random_tensor({4, 5}, dtype, rng, -2, 2);
        const Tensor out = (a.*c.with_scalar)(s);
        CHECK(out.dtype() == DType::Bool);
        const double value = s.to<double>();
        CHECK_TENSOR_CLOSE(out, testing::reference(a.shape(), {a}, [&](const auto& v) { return c.reference(v[0], value) ? 1.0 : 0.0; }),
                           0, 0);
      }
    }
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = from_vector<float>({nan, 1.f}, {2});
  const Tensor y = from_vector<float>({nan, nan}, {2});
  for (const CompareCase& c : kCases) {
    const Tensor out = (x.*c.with_tensor)(y);
    CAPTURE(std::string(c.name));
    CHECK(out.data<bool>()[0] == c.reference(NAN, NAN));
    CHECK(out.data<bool>()[1] == c.reference(1.0, NAN));
  }
}

TEST_CASE("compare: operators reach the same kernels") {
  std::mt19937_64 rng(24);
  const Tensor a = draw({3, 4}, DType::Float32, Layout::Contiguous, rng);
  const Tensor b = draw({4}, DType::Float32, Layout::Contiguous, rng);
  CHECK(tl::equal(a > b, a.gt(b)));
  CHECK(tl::equal(a < b, a.lt(b)));
  CHECK(tl::equal(a >= b, a.ge(b)));
  CHECK(tl::equal(a <= b, a.le(b)));
  CHECK(tl::equal(a > 0, a.gt(0)));
  CHECK(tl::equal(a < 0.5, a.lt(0.5)));
  CHECK(tl::equal(a >= 1, a.ge(1)));
  CHECK(tl::equal(a <= -1, a.le(-1)));
  CHECK_THROWS_WITH_AS(a.gt(ones({3})), doctest::Contains("gt: shapes [3, 4] and [3] cannot be broadcast"), Error);
}

// allclose written as a plain loop over the broadcast elements.
bool allclose_reference(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape(), "test");
  const Tensor flags = testing::reference(shape, {a, b}, [&](const auto& v) {
    const double x = v[0], y = v[1];
    if (std::isnan(x) || std::isnan(y)) return equal_nan && std::isnan(x) && std::isnan(y) ? 1.0 : 0.0;
    if (x == y) return 1.0;
    return std::fabs(x - y) <= atol + rtol * std::fabs(y) ? 1.0 : 0.0;
  });
  for (int64_t i = 0; i < flags.numel(); ++i)
    if (flags.data<double>()[i] == 0) return false;
  return true;
}

TEST_CASE("allclose: tolerances, broadcasting and dtypes against a plain loop") {
  std::mt19937_64 rng(25);
  const double noises[] = {0, 1e-9, 1e-6, 1e-4, 1e-2};
  int outcomes[2] = {0, 0};
  const std::pair<double, double> tolerances[] = {{1e-5, 1e-8}, {0, 1e-3}, {1e-3, 0}, {0, 0}, {0.1, 0.1}};
  // (shape of a, shape of b): b broadcasts against a = b + noise.
  const std::pair<Shape, Shape> shapes[] = {{{40}, {40}}, {{3, 4}, {1, 4}}, {{5, 7}, {7}}, {{6}, {}}, {{0, 2}, {2}}};
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    for (double noise : noises) {
      for (const auto& tolerance : tolerances) {
        const auto& rtol = tolerance.first;
        const auto& atol = tolerance.second;
        for (const auto& entry : shapes) {
          const auto& sa = entry.first;
          const auto& sb = entry.second;
          CAPTURE(dtype);
          CAPTURE(noise);
          CAPTURE(rtol);
          CAPTURE(atol);
          CAPTURE(sa);
          const Tensor b = testing::random_tensor(sb, dtype, rng);
          const Tensor a = b.expand(sa) + testing::random_tensor(sa, dtype, rng, -noise, noise);
          const bool close = allclose_reference(a, b, rtol, atol, false);
          CHECK(tl::allclose(a, b, rtol, atol) == close);
          CHECK(tl::allclose(b, a, rtol, atol) == allclose_reference(b, a, rtol, atol, false));
          ++outcomes[close];
        }
      }
    }
  }
  // The sweep must have seen both answers, or it proves little.
  CHECK(outcomes[0] > 10);
  CHECK(outcomes[1] > 10);
  const Tensor i = from_vector<int64_t>({1, 2}, {2}), j = from_vector<int64_t>({1, 4}, {2});
  CHECK(tl::allclose(i, j, 0, 2) == allclose_reference(i, j, 0, 2, false));
  CHECK(tl::allclose(i, j, 0, 1) == allclose_reference(i, j, 0, 1, false));
  CHECK(tl::allclose(i, i.to(DType::Float32)));
  const Tensor m = from_vector<bool>({true, false}, {2});
  CHECK(tl::allclose(m, m));
  CHECK_FALSE(tl::allclose(m, from_vector<bool>({true, true}, {2}), 0, 10));
}

TEST_CASE("allclose: NaN, infinities, the 0-dim result and errors") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = from_vector<double>({inf, -inf, nan, 1}, {4});
  CHECK(tl::allclose(a.slice(0, 0, 2), a.slice(0, 0, 2).clone()));
  CHECK_FALSE(tl::allclose(a.slice(0, 0, 1), a.slice(0, 1, 2), 1, 1e30));
  CHECK_FALSE(tl::allclose(a, a.clone()));
  CHECK(tl::allclose(a, a.clone(), 1e-5, 1e-8, true));
  const Tensor in[] = {ones({2}), ones({2})};
  const Tensor flag = dispatch::call_single_output(OpKind::Allclose, in, {{"rtol", 1e-5}, {"atol", 1e-8}, {"equal_nan", false}});
  CHECK(flag.dim() == 0);
  CHECK(flag.dtype() == DType::Bool);
  CHECK(flag.item<bool>());
  CHECK_THROWS_WITH_AS(tl::allclose(ones({2}), ones({3})), doctest::Contains("allclose: shapes [2] and [3] cannot be broadcast"),
                       Error);
  CHECK_THROWS_WITH_AS(tl::allclose(ones({2}), ones({2}), -1), "allclose: rtol must be greater than or equal to zero, but got -1",
                       Error);
  CHECK_THROWS_WITH_AS(tl::allclose(ones({2}), ones({2}), 0, -0.5),
                       "allclose: atol must be greater than or equal to zero, but got -0.5", Error);
}

TEST_CASE("equal: same shape and values, promoted, any layout") {
  std::mt19937_64 rng(26);
  for (DType dtype : kAllDTypes) {
    for (Layout layout : kLayouts) {
      CAPTURE(dtype);
      CAPTURE(testing::layout_name(layout));
      const Tensor a = testing::make_input({7, 9}, dtype, layout, rng);
      CHECK(tl::equal(a, a));
      CHECK(tl::equal(a, a.clone()));
      CHECK(tl::equal(a.clone(), a));
      Tensor changed = a.clone();
      changed.select(0, 3).select(0, 4).copy_(tl::where(a.select(0, 3).select(0, 4).eq(0), ones({}), zeros({})));
      CHECK_FALSE(tl::equal(a, changed));
    }
  }
  const Tensor i = arange(0, 6, 1, DType::Int64);
  CHECK(tl::equal(i, i.to(DType::Float32)));
  CHECK(tl::equal(i.to(DType::BFloat16), i.to(DType::Float64)));
  CHECK_FALSE(tl::equal(i, i.view({1, 6})));
  CHECK_FALSE(tl::equal(ones({3}), ones({1})));
  CHECK(tl::equal(zeros({0, 3}), ones({0, 3})));
  CHECK(tl::equal(full({}, 2.0), full({}, 2, DType::Int32)));
  const Tensor n = from_vector<float>({NAN}, {1});
  CHECK_FALSE(tl::equal(n, n));
  const Tensor in[] = {ones({2}), ones({2})};
  const Tensor flag = dispatch::call_single_output(OpKind::Equal, in, {});
  CHECK(flag.dim() == 0);
  CHECK(flag.dtype() == DType::Bool);
}

}  // namespace
}  // namespace tl
