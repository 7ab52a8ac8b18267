// tests/ops/test_creation.cpp — factories: zeros/ones/full/empty (and *_like) over dtypes and shapes, arange
// with integer and float steps, eye / linspace / logspace against PyTorch 1.13 (data/index_cases.json),
// tl::tensor's dtype inference, from_blob's aliasing, rand/randn reproducibility, and the errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/generator.h"
#include "core/parallel.h"
#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/ops/loss_cases.h"
#include "tests/ops/vector_isa.h"
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

TEST_CASE("full, masked_fill, clamp, linspace: a float value beyond the dtype's range throws (as PyTorch 1.13)") {
  // PyTorch's Scalar::to<T> (c10::checked_convert): a finite double above the type's max or below its
  // lowest overflows; infinity and NaN pass; float32's max itself fits.
  const char* f32 = "value 1e+40 cannot be converted to type float without overflow";
  CHECK_THROWS_WITH_AS(full({2}, 1e40), f32, Error);
  CHECK_THROWS_WITH_AS(full({2}, -1e40), "value -1e+40 cannot be converted to type float without overflow", Error);
  CHECK_THROWS_WITH_AS(full_like(zeros({2}), 1e40), f32, Error);
  CHECK_THROWS_WITH_AS(full({1}, 3.4028235e38), "value 3.40282e+38 cannot be converted to type float without overflow",
                       Error);
  CHECK_THROWS_WITH_AS(full({1}, 1e39, DType::BFloat16),
                       "value 1e+39 cannot be converted to type at::BFloat16 without overflow", Error);
  CHECK_THROWS_WITH_AS(full({1}, 3.39e38, DType::BFloat16), doctest::Contains("type at::BFloat16 without overflow"), Error);
  const Tensor mask = tensor({true, false}, DType::Bool);
  Tensor x = zeros({2});
  CHECK_THROWS_WITH_AS(x.masked_fill(mask, 1e40), f32, Error);
  CHECK_THROWS_WITH_AS(x.masked_fill_(mask, 1e40), f32, Error);
  CHECK_TENSOR_CLOSE(x, zeros({2}), 0.0, 0.0);
  CHECK_THROWS_WITH_AS(x.clamp(std::nullopt, 1e40), f32, Error);
  CHECK_THROWS_WITH_AS(x.clamp_min(-1e40), "value -1e+40 cannot be converted to type float without overflow", Error);
  CHECK_THROWS_WITH_AS(linspace(0, 1e40, 3), f32, Error);
  CHECK(full({1}, std::numeric_limits<float>::max()).item<float>() == std::numeric_limits<float>::max());
  CHECK(full({1}, 3.3895313892515355e38, DType::BFloat16).item<double>() == 3.3895313892515355e38);
  CHECK(std::isinf(full({1}, -INFINITY).item<float>()));
  CHECK(std::isnan(x.masked_fill(mask, NAN)[0].item<float>()));
  CHECK(full({1}, 1e300, DType::Float64).item<double>() == 1e300);
  // a float32 tensor meets a float in arithmetic as a wrapped number, not a conversion: inf, as PyTorch
  CHECK(std::isinf((x + 1e40)[0].item<float>()));
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

TEST_CASE("zeros_like, ones_like, full_like, empty_like: self's shape and dtype, or the dtype given") {
  for (DType dtype : kAllDTypes) {
    for (const Shape& shape : kShapes) {
      CAPTURE(dtype);
      CAPTURE(shape);
      const Tensor x = full(shape, 1, dtype);
      const Tensor z = zeros_like(x), o = ones_like(x), f = full_like(x, 1), e = empty_like(x);
      for (const Tensor& t : {z, o, f, e}) {
        CHECK(t.shape() == shape);
        CHECK(t.dtype() == dtype);
      }
      CHECK_TENSOR_CLOSE(z, zeros(shape, dtype), 0, 0);
      CHECK_TENSOR_CLOSE(o, ones(shape, dtype), 0, 0);
      CHECK_TENSOR_CLOSE(f, x, 0, 0);
      CHECK(zeros_like(x, kDouble).dtype() == kDouble);
      CHECK(empty_like(x, kBool).dtype() == kBool);
      CHECK_TENSOR_CLOSE(full_like(x, 2.5, kFloat), full(shape, 2.5), 0, 0);
    }
  }
  const Tensor w = ones({2}).requires_grad_();
  CHECK_FALSE(zeros_like(w).requires_grad());
  CHECK_THROWS_WITH_AS(full_like(zeros({2}, kLong), 1e30), "value 1e+30 cannot be converted to a 64-bit integer without overflow",
                       Error);
}

TEST_CASE("eye, linspace, logspace: every case matches PyTorch 1.13 bit for bit") {
  int checked = 0;
  for (const testing::OpCase& c : testing::op_cases("index_cases.json")) {
    if (c.op != "linspace" && c.op != "logspace" && c.op != "eye") continue;
    CAPTURE(c.name);
    const auto num = [&](const char* name) { return c.numbers.at(name); };
    const auto number = [&](const char* name) {  // as Python wrote it: 2 is an int, 2.5 a float
      return num(name) == std::floor(num(name)) ? Scalar(static_cast<int64_t>(num(name))) : Scalar(num(name));
    };
    const DType dtype = c.dtype == "float64" ? kDouble : c.dtype == "int64" ? kLong : kFloat;
    const auto steps = static_cast<int64_t>(c.dtype.empty() ? 0 : num("steps"));
    const Tensor got = c.op == "eye"        ? eye(static_cast<int64_t>(num("n")), static_cast<int64_t>(num("m")))
                       : c.op == "linspace" ? linspace(number("start"), number("end"), steps, dtype)
                                            : logspace(number("start"), number("end"), steps, num("base"), dtype);
    CHECK(got.dtype() == c.expected[0].dtype());
    CHECK_TENSOR_CLOSE(got, c.expected[0], 0, 0);  // bit for bit
    ++checked;
  }
  CHECK(checked == 46);
}

TEST_CASE("eye, linspace, logspace: errors as PyTorch's") {
  CHECK_THROWS_WITH_AS(eye(-1), "n must be greater or equal to 0, got -1", Error);
  CHECK_THROWS_WITH_AS(eye(2, -1), "m must be greater or equal to 0, got -1", Error);
  CHECK_THROWS_WITH_AS(linspace(0, 1, -1), "number of steps must be non-negative", Error);
  CHECK_THROWS_WITH_AS(logspace(0, 1, -1), "number of steps must be non-negative", Error);
  CHECK(linspace(0, 1, 0).shape() == Shape{0});
  CHECK(eye(3, std::nullopt, kBool).dtype() == kBool);
}

// linspace's vectors split over threads (ops/creation.cpp); each depends on its position alone.
TEST_CASE("linspace: on two threads, the values of one") {
  const int threads = get_num_threads();
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int64}) {
    CAPTURE(dtype);
    set_num_threads(1);
    const Tensor one = linspace(-3.25, 1e4, 100003, dtype);
    set_num_threads(2);
    const Tensor two = linspace(-3.25, 1e4, 100003, dtype);
    CHECK(equal(one, two));
  }
  set_num_threads(threads);
}

// linspace's vectors run at the CPU's width (ops/creation.cpp); each width gives the SSE2 build's bits.
TEST_CASE("linspace: every ISA build gives the SSE2 build's bits") {
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int64}) {
    CAPTURE(dtype);
    std::vector<Tensor> results;
    testing::for_each_vector_isa([&](const char*) {
      results.push_back(linspace(-3.25, 100, 100003, dtype));
      results.push_back(linspace(7, -1.5, 37, dtype));
    });
    for (size_t i = 2; i < results.size(); ++i) CHECK_TENSOR_CLOSE(results[i], results[i % 2], 0, 0);
  }
}

TEST_CASE("tensor: nested braced lists with LibTorch's dtype inference") {
  const Tensor f = tensor({1.0, 2.0, 3.5});
  CHECK(f.dtype() == kFloat);
  CHECK(f.shape() == Shape{3});
  CHECK_TENSOR_CLOSE(f, from_vector<float>({1.0f, 2.0f, 3.5f}, {3}), 0, 0);
  const Tensor i = tensor({{1, 2, 3}, {4, 5, 6}});
  CHECK(i.dtype() == kLong);
  CHECK_TENSOR_CLOSE(i, from_vector<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3}), 0, 0);
  CHECK(tensor({true, false}).dtype() == kBool);
  CHECK(tensor({int64_t{1} << 60}).item<int64_t>() == int64_t{1} << 60);
  CHECK(tensor(2.5).dim() == 0);
  CHECK(tensor({{1.0}, {2.0}}, kDouble).dtype() == kDouble);
  const std::vector<float> values{1, 2, 3, 4, 5, 6};
  const Tensor v = tensor(values).reshape({2, 3});
  CHECK(v.dtype() == kFloat);
  CHECK(v.index({1, 2}).item<float>() == 6.0f);
  CHECK(tensor({{{1}, {2}}, {{3}, {4}}}).shape() == Shape{2, 2, 1});
  CHECK_THROWS_WITH_AS(tensor({{1.0, 2.0}, {3.0}}), "Expected all sub-lists to have sizes: [2], but got sub-list 1 with sizes: [1]",
                       Error);
  CHECK_THROWS_WITH_AS(tensor({1.0, 2}),
                       "Expected all elements of the tensor to have the same scalar type: torch.float64, but got element "
                       "of scalar type: torch.int32",
                       Error);
}

TEST_CASE("from_blob: a view of the caller's memory, not copied and not owned") {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(data.data(), {2, 3});
  CHECK(t.dtype() == kFloat);
  CHECK(t.data<float>() == data.data());
  data[4] = 50;
  CHECK(t.index({1, 1}).item<float>() == 50.0f);
  t.index_put_({0, 0}, 10);
  CHECK(data[0] == 10.0f);
  std::vector<double> wide{1, 2, 3, 4, 5, 6};
  const Tensor cols = from_blob(wide.data(), {3, 2}, {1, 3}, kDouble);
  CHECK_TENSOR_CLOSE(cols, from_vector<double>({1, 4, 2, 5, 3, 6}, {3, 2}), 0, 0);
  CHECK(from_blob(nullptr, {0, 3}).numel() == 0);
  CHECK_THROWS_WITH_AS(from_blob(nullptr, {2}), "from_blob: null data for sizes [2]", Error);
  CHECK_THROWS_WITH_AS(from_blob(data.data(), {2, 3}, {3}), "from_blob: expected 2 strides for sizes [2, 3], got [3]", Error);
  CHECK_THROWS_WITH_AS(from_blob(data.data(), {-1}), "from_blob: negative dimension -1 in size [-1]", Error);
}

}  // namespace
}  // namespace tl
