// tests/ops/test_unary.cpp — unary kernels against a double-precision reference over every dtype,
// layout and odd or empty shape; float32 promotion of integers, in-place forms and their errors.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::kAllDTypes;
using testing::kLayouts;
using testing::Layout;

struct UnaryCase {
  const char* name;
  Tensor (*op)(const Tensor&);
  Tensor& (Tensor::*inplace)();
  double (*reference)(double);
  bool float_result;  ///< integral and bool inputs give float32
  bool accepts_bool;
  double lo, hi;      ///< input range inside the op's domain
};

const UnaryCase kCases[] = {
    {"neg", tl::neg, &Tensor::neg_, [](double x) { return -x; }, false, false, -4, 4},
    {"abs", tl::abs, &Tensor::abs_, [](double x) { return std::fabs(x); }, false, false, -4, 4},
    {"relu", tl::relu, &Tensor::relu_, [](double x) { return x < 0 ? 0.0 : x; }, false, false, -4, 4},
    {"exp", tl::exp, &Tensor::exp_, [](double x) { return std::exp(x); }, true, true, -4, 4},
    {"log", tl::log, &Tensor::log_, [](double x) { return std::log(x); }, true, false, 0.1, 8},
    {"sqrt", tl::sqrt, &Tensor::sqrt_, [](double x) { return std::sqrt(x); }, true, true, 0, 8},
    {"rsqrt", tl::rsqrt, &Tensor::rsqrt_, [](double x) { return 1 / std::sqrt(x); }, true, false, 0.1, 8},
    {"sigmoid", tl::sigmoid, &Tensor::sigmoid_, [](double x) { return 1 / (1 + std::exp(-x)); }, true, true, -8, 8},
    {"tanh", tl::tanh, &Tensor::tanh_, [](double x) { return std::tanh(x); }, true, true, -4, 4},
    {"floor", tl::floor, &Tensor::floor_, [](double x) { return std::floor(x); }, false, false, -4, 4},
    {"ceil", tl::ceil, &Tensor::ceil_, [](double x) { return std::ceil(x); }, false, false, -4, 4},
    {"round", tl::round, &Tensor::round_, [](double x) { return std::nearbyint(x); }, false, false, -4, 4},
    {"trunc", tl::trunc, &Tensor::trunc_, [](double x) { return std::trunc(x); }, false, false, -4, 4},
    {"sign", tl::sign, &Tensor::sign_, [](double x) { return double((0 < x) - (x < 0)); }, false, true, -4, 4},
    {"erf", tl::erf, &Tensor::erf_, [](double x) { return std::erf(x); }, true, true, -3, 3},
};

const Shape kShapes[] = {{}, {1}, {3}, {7}, {33}, {1000}, {3, 7}, {2, 3, 5}, {0}, {3, 0, 2}, {1, 33, 1}};

// Tolerances for a result of `dtype` computed from exactly representable inputs.
double rtol_for(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 2e-6;
    case DType::Float64: return 1e-12;
    case DType::BFloat16: return 8e-3;
    default: return 0;
  }
}
double atol_for(DType dtype) { return dtype == DType::BFloat16 ? 1e-3 : is_floating_point(dtype) ? 1e-6 : 0; }

DType expected_dtype(const UnaryCase& c, DType input) {
  return c.float_result && !is_floating_point(input) ? DType::Float32 : input;
}

// Calls check(layout, shape) for every layout and shape, with the op, dtype, layout and shape captured.
template <typename Check>
void for_each_layout_and_shape(const char* op, DType dtype, const Check& check) {
  for (Layout layout : kLayouts) {
    for (const Shape& shape : kShapes) {
      CAPTURE(std::string(op));
      CAPTURE(dtype);
      CAPTURE(testing::layout_name(layout));
      CAPTURE(shape);
      check(layout, shape);
    }
  }
}

TEST_CASE("unary: every op matches the reference over dtypes, layouts and shapes") {
  std::mt19937_64 rng(1);
  for (const UnaryCase& c : kCases) {
    for (DType dtype : kAllDTypes) {
      if (dtype == DType::Bool && !c.accepts_bool) continue;
      for_each_layout_and_shape(c.name, dtype, [&](Layout layout, const Shape& shape) {
        const Tensor x = testing::make_input(shape, dtype, layout, rng, c.lo, c.hi);
        const Tensor y = c.op(x);
        const DType out = expected_dtype(c, dtype);
        CHECK(y.dtype() == out);
        // As ATen's TensorIterator: a transposed (dense) input gives a transposed result, the others contiguous.
        CHECK(y.is_contiguous() == (layout != Layout::Transposed || x.is_contiguous()));
        CHECK_TENSOR_CLOSE(y, testing::reference(shape, {x}, [&](const auto& v) { return c.reference(v[0]); }),
                           rtol_for(out), atol_for(out));
      });
    }
  }
}

TEST_CASE("unary: loops split over threads give the same answer") {
  std::mt19937_64 rng(2);
  for (Layout layout : kLayouts) {
    const Tensor x = testing::make_input({131, 257}, DType::Float32, layout, rng);
    CAPTURE(testing::layout_name(layout));
    CHECK_TENSOR_CLOSE(tl::tanh(x), testing::reference(x.shape(), {x}, [](const auto& v) { return std::tanh(v[0]); }),
                       2e-6, 1e-6);
    CHECK_TENSOR_CLOSE(tl::neg(x), testing::reference(x.shape(), {x}, [](const auto& v) { return -v[0]; }), 0, 0);
  }
}

// PyTorch 1.13: torch.randn(3, 5).t().sin().stride() is (1, 5), and so is that of an int64 input's float32 sin;
// a column slice (not dense) gives a contiguous result.
TEST_CASE("unary: a result is laid out as its dense input, as ATen's TensorIterator lays it out") {
  const Tensor x = arange(15).view({3, 5}).to(kFloat).t();
  const Tensor y = x.sin();
  CHECK(y.strides() == Shape{1, 5});
  CHECK_TENSOR_CLOSE(y, x.contiguous().sin(), 0, 0);
  const Tensor promoted = arange(15).view({3, 5}).t().sin();
  CHECK(promoted.dtype() == DType::Float32);
  CHECK(promoted.strides() == Shape{1, 5});
  CHECK_TENSOR_CLOSE(promoted, y, 0, 0);
  const Tensor column = arange(15).view({3, 5}).to(kFloat).slice(1, 1, 2);
  CHECK(column.exp().strides() == Shape{1, 1});
}

TEST_CASE("unary: in-place forms write through views into the base tensor") {
  std::mt19937_64 rng(3);
  for (const UnaryCase& c : kCases) {
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
      CAPTURE(std::string(c.name));
      CAPTURE(dtype);
      Tensor base = testing::random_tensor({5, 9}, dtype, rng, c.lo, c.hi);
      const Tensor before = base.clone();
      Tensor view = base.t();
      Tensor& result = (view.*c.inplace)();
      CHECK(&result == &view);
      CHECK_TENSOR_CLOSE(base, testing::reference(base.shape(), {before}, [&](const auto& v) { return c.reference(v[0]); }),
                         rtol_for(dtype), atol_for(dtype));
    }
  }
}

TEST_CASE("unary: an in-place op on a strided view leaves the skipped elements alone") {
  std::mt19937_64 rng(4);
  const Tensor before = testing::random_tensor({6, 7}, DType::Float32, rng);
  Tensor base = before.clone();
  base.slice(1, 0, std::nullopt, 2).neg_();
  for (int64_t j = 0; j < 7; ++j) {
    const Tensor col = base.select(1, j), was = before.select(1, j);
    CAPTURE(j);
    CHECK_TENSOR_CLOSE(col, j % 2 == 0 ? tl::neg(was) : was, 0, 0);
  }
}

TEST_CASE("unary: integer results wrap and keep their dtype") {
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  const Tensor x = from_vector<int64_t>({lowest, -3, 0, 5}, {4});
  // Two's complement negation, computed independently of the kernel.
  const int64_t wrapped = static_cast<int64_t>(0 - static_cast<uint64_t>(lowest));
  CHECK(tl::neg(x).dtype() == DType::Int64);
  CHECK(tl::neg(x).data<int64_t>()[0] == wrapped);
  CHECK(tl::abs(x).data<int64_t>()[0] == wrapped);
  CHECK(tl::abs(x).data<int64_t>()[1] == 3);
  CHECK(tl::relu(x).data<int64_t>()[1] == 0);
  const Tensor small = from_vector<int32_t>({-7, 7}, {2});
  CHECK(tl::neg(small).dtype() == DType::Int32);
  CHECK(tl::neg(small).data<int32_t>()[0] == 7);
}

TEST_CASE("unary: NaN and infinities follow IEEE rules") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const Tensor x = from_vector<float>({nan, -inf, inf, -100.f, 100.f}, {5});
  const Tensor r = tl::relu(x), s = tl::sigmoid(x), e = tl::exp(x);
  CHECK(std::isnan(r.data<float>()[0]));
  CHECK(r.data<float>()[1] == 0.f);
  CHECK(r.data<float>()[2] == inf);
  CHECK(s.data<float>()[1] == 0.f);
  CHECK(s.data<float>()[2] == 1.f);
  CHECK(s.data<float>()[3] >= 0.f);
  CHECK(s.data<float>()[4] == 1.f);
  CHECK(e.data<float>()[1] == 0.f);
  CHECK(e.data<float>()[2] == inf);
  const Tensor zero = from_vector<int64_t>({0, -1}, {2});
  CHECK(tl::rsqrt(zero).data<float>()[0] == inf);
  CHECK(std::isnan(tl::sqrt(zero).data<float>()[1]));
  CHECK(tl::log(zero).data<float>()[0] == -inf);
}

TEST_CASE("unary: bool inputs are refused where PyTorch refuses them") {
  const Tensor mask = from_vector<bool>({true, false}, {2});
  CHECK_THROWS_WITH_AS(tl::neg(mask),
                       "neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                       "invert a mask, use the `~` or `logical_not()` operator instead.",
                       Error);
  CHECK_THROWS_WITH_AS(-mask, doctest::Contains("Negation, the `-` operator, on a bool tensor"), Error);
  Tensor m = mask.clone();
  CHECK_THROWS_WITH_AS(m.neg_(), doctest::Contains("neg_: Negation"), Error);
  CHECK_THROWS_WITH_AS(tl::abs(mask), "abs: not implemented for torch.bool", Error);
  CHECK_THROWS_WITH_AS(tl::relu(mask), "relu: boolean inputs not supported for relu", Error);
  CHECK(tl::exp(mask).dtype() == DType::Float32);
}

TEST_CASE("unary: round takes halves to even, and the rounding ops copy integers") {
  const Tensor halves = from_vector<double>({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5}, {7});
  CHECK_TENSOR_CLOSE(tl::round(halves), from_vector<double>({-2, -2, -0.0, 0, 2, 2, 4}, {7}), 0, 0);
  CHECK(std::signbit(tl::round(halves).data<double>()[2]));
  const Tensor i = from_vector<int64_t>({-3, 0, 5}, {3});
  for (Tensor (*op)(const Tensor&) : {tl::floor, tl::ceil, tl::round, tl::trunc}) {
    const Tensor r = op(i);
    CHECK(r.dtype() == DType::Int64);
    CHECK_TENSOR_CLOSE(r, i, 0, 0);
    CHECK(r.storage() != i.storage());
  }
  CHECK_TENSOR_CLOSE(tl::sign(i), from_vector<int64_t>({-1, 0, 1}, {3}), 0, 0);
  CHECK_THROWS_WITH_AS(tl::floor(from_vector<bool>({true}, {1})), "floor: not implemented for torch.bool", Error);
}

TEST_CASE("unary: nan_to_num replaces NaN and infinities by its arguments or the dtype's extremes") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Tensor x = from_vector<double>({nan, inf, -inf, 1.5}, {4});
  const double big = std::numeric_limits<double>::max();
  CHECK_TENSOR_CLOSE(nan_to_num(x), from_vector<double>({0, big, -big, 1.5}, {4}), 0, 0);
  CHECK_TENSOR_CLOSE(x.nan_to_num(1.0, 2.0, -3.0), from_vector<double>({1, 2, -3, 1.5}, {4}), 0, 0);
  CHECK_TENSOR_CLOSE(x.to(DType::Float32).nan_to_num(std::nullopt, 5.0),
                     from_vector<float>({0, 5, -std::numeric_limits<float>::max(), 1.5f}, {4}), 0, 0);
  const Tensor b = x.to(DType::BFloat16).nan_to_num();  // bfloat16's largest finite value is 0x7f7f
  CHECK(b.to(DType::Float32).data<float>()[1] == std::bit_cast<float>(uint32_t{0x7f7f0000}));
  const Tensor i = from_vector<int64_t>({1, -2}, {2});
  CHECK_TENSOR_CLOSE(nan_to_num(i, 0.5), i, 0, 0);
  Tensor y = x.clone();
  Tensor& same = y.nan_to_num_(0.0, 1.0, -1.0);
  CHECK(&same == &y);
  CHECK_TENSOR_CLOSE(y, from_vector<double>({0, 1, -1, 1.5}, {4}), 0, 0);
}

TEST_CASE("unary: isnan, isinf, isfinite and logical_not give bool for every dtype") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    CAPTURE(dtype);
    const Tensor x = from_vector<double>({nan, inf, -inf, 0.0, -2.0}, {5}).to(dtype);
    CHECK_TENSOR_CLOSE(isnan(x), from_vector<bool>({true, false, false, false, false}, {5}), 0, 0);
    CHECK_TENSOR_CLOSE(x.isinf(), from_vector<bool>({false, true, true, false, false}, {5}), 0, 0);
    CHECK_TENSOR_CLOSE(isfinite(x), from_vector<bool>({false, false, false, true, true}, {5}), 0, 0);
    // NaN is true
    CHECK_TENSOR_CLOSE(logical_not(x), from_vector<bool>({false, false, false, true, false}, {5}), 0, 0);
  }
  for (DType dtype : {DType::Int64, DType::Int32, DType::Bool}) {
    CAPTURE(dtype);
    const Tensor x = from_vector<int64_t>({0, 1, 3}, {3}).to(dtype);
    CHECK_TENSOR_CLOSE(isnan(x), zeros({3}, DType::Bool), 0, 0);
    CHECK_TENSOR_CLOSE(isinf(x), zeros({3}, DType::Bool), 0, 0);
    CHECK_TENSOR_CLOSE(isfinite(x), ones({3}, DType::Bool), 0, 0);
    CHECK_TENSOR_CLOSE(x.logical_not(), from_vector<bool>({true, false, false}, {3}), 0, 0);
  }
}

TEST_CASE("unary: floor, round, sign and erf differentiate as PyTorch's formulas") {
  Tensor x = from_vector<double>({-1.5, 0.25, 2.0}, {3}).requires_grad_();
  (tl::floor(x) + tl::round(x) + tl::sign(x) + tl::trunc(x) + tl::ceil(x)).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), zeros({3}, DType::Float64), 0, 0);
  x.mutable_grad() = Tensor();
  tl::erf(x).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), testing::reference({3}, {x.detach()}, [](const auto& v) {
    return 2 / std::sqrt(M_PI) * std::exp(-v[0] * v[0]);
  }), 1e-12, 0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor y = from_vector<double>({nan, 1.0}, {2}).requires_grad_();
  y.nan_to_num().sum().backward();
  CHECK_TENSOR_CLOSE(y.grad(), from_vector<double>({0, 1}, {2}), 0, 0);
}

TEST_CASE("unary: in-place forms refuse results their tensor cannot hold") {
  Tensor i = from_vector<int64_t>({1, 4}, {2});
  CHECK_THROWS_WITH_AS(i.exp_(), "exp_: result type torch.float32 can't be cast to the desired output type torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(i.sqrt_(), doctest::Contains("sqrt_: result type torch.float32 can't be cast"), Error);
  CHECK_THROWS_WITH_AS(i.erf_(), "erf_: result type torch.float32 can't be cast to the desired output type torch.int64",
                       Error);
  CHECK_TENSOR_CLOSE(i, from_vector<int64_t>({1, 4}, {2}), 0, 0);
  i.neg_();
  CHECK(i.data<int64_t>()[1] == -4);
  Tensor b = from_vector<bool>({true}, {1});
  CHECK_THROWS_WITH_AS(b.sigmoid_(), doctest::Contains("torch.bool"), Error);
  Tensor expanded = ones({3}).expand({2, 3});
  CHECK_THROWS_WITH_AS(expanded.relu_(),
                       "relu_: unsupported operation: more than one element of the written-to tensor refers to a "
                       "single memory location. Please clone() the tensor before performing the operation.",
                       Error);
}

TEST_CASE("unary: methods and operators reach the same kernels") {
  std::mt19937_64 rng(5);
  const Tensor x = testing::random_tensor({4, 3}, DType::Float32, rng);
  CHECK_TENSOR_CLOSE(-x, tl::neg(x), 0, 0);
  CHECK_TENSOR_CLOSE(x.neg(), tl::neg(x), 0, 0);
  CHECK_TENSOR_CLOSE(x.abs().sqrt(), tl::sqrt(tl::abs(x)), 0, 0);
  CHECK_TENSOR_CLOSE(x.sigmoid(), tl::sigmoid(x), 0, 0);
  CHECK_TENSOR_CLOSE(x.relu(), tl::relu(x), 0, 0);
}

TEST_CASE("unary: gelu, exact and tanh forms, matches the reference over floating dtypes and layouts") {
  std::mt19937_64 rng(2);
  const auto exact = [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
  const auto approx = [](double x) { return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))); };
  for (const char* approximate : {"none", "tanh"}) {
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
      for_each_layout_and_shape(approximate, dtype, [&](Layout layout, const Shape& shape) {
        const Tensor x = testing::make_input(shape, dtype, layout, rng, -6, 6);
        const Tensor y = tl::gelu(x, approximate);
        CHECK(y.dtype() == dtype);
        const bool tanh_form = std::string(approximate) == "tanh";
        CHECK_TENSOR_CLOSE(y, testing::reference(shape, {x}, [&](const auto& v) { return tanh_form ? approx(v[0]) : exact(v[0]); }),
                           rtol_for(dtype), atol_for(dtype));
      });
    }
  }
}

// The floating-point activations with a backward kernel (grad, self): each against its reference and derivative.
// An op with arguments is called with fixed ones; `method` is null for an op without a Tensor method.
struct ActivationCase {
  const char* name;
  Tensor (*op)(const Tensor&);
  Tensor (Tensor::*method)() const;
  Tensor (*backward)(const Tensor&, const Tensor&);
  double (*reference)(double);
  double (*derivative)(double);
};

double sigmoid_of(double x) { return 1 / (1 + std::exp(-x)); }
double mish_tanh(double x) { return std::tanh(std::log1p(std::exp(x))); }

const ActivationCase kActivations[] = {
    {"hardswish", tl::hardswish, &Tensor::hardswish, tl::hardswish_backward,
     [](double x) { return x * std::min(std::max(x + 3, 0.0), 6.0) / 6; },
     [](double x) { return x < -3 ? 0.0 : x >= 3 ? 1.0 : x / 3 + 0.5; }},
    {"silu", tl::silu, &Tensor::silu, tl::silu_backward, [](double x) { return x * sigmoid_of(x); },
     [](double x) { return sigmoid_of(x) * (1 + x * (1 - sigmoid_of(x))); }},
    {"mish", tl::mish, nullptr, tl::mish_backward, [](double x) { return x * mish_tanh(x); },
     [](double x) { return mish_tanh(x) + x * sigmoid_of(x) * (1 - mish_tanh(x) * mish_tanh(x)); }},
    {"leaky_relu", [](const Tensor& x) { return tl::leaky_relu(x, 0.2); }, nullptr,
     [](const Tensor& g, const Tensor& x) { return tl::leaky_relu_backward(g, x, 0.2, false); },
     [](double x) { return x > 0 ? x : 0.2 * x; }, [](double x) { return x > 0 ? 1.0 : 0.2; }},
    {"elu", [](const Tensor& x) { return tl::elu(x, 0.5, 2.0, 1.5); }, nullptr,
     [](const Tensor& g, const Tensor& x) { return tl::elu_backward(g, 0.5, 2.0, 1.5, false, x); },
     [](double x) { return x > 0 ? 2 * x : 0.5 * 2 * std::expm1(1.5 * x); },
     [](double x) { return x > 0 ? 2.0 : 1.5 * 0.5 * 2 * std::exp(1.5 * x); }},
    {"softplus", [](const Tensor& x) { return tl::softplus(x, 2, 1.5); }, nullptr,
     [](const Tensor& g, const Tensor& x) { return tl::softplus_backward(g, x, 2, 1.5); },
     [](double x) { return 2 * x > 1.5 ? x : std::log1p(std::exp(2 * x)) / 2; },
     [](double x) { return 2 * x > 1.5 ? 1.0 : sigmoid_of(2 * x); }},
    {"hardsigmoid", tl::hardsigmoid, nullptr, tl::hardsigmoid_backward,
     [](double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; },
     [](double x) { return x > -3 && x < 3 ? 1.0 / 6 : 0.0; }},
    {"hardtanh", [](const Tensor& x) { return tl::hardtanh(x, -0.5, 1.25); }, nullptr,
     [](const Tensor& g, const Tensor& x) { return tl::hardtanh_backward(g, x, -0.5, 1.25); },
     [](double x) { return std::min(std::max(x, -0.5), 1.25); }, [](double x) { return x > -0.5 && x < 1.25 ? 1.0 : 0.0; }},
};

TEST_CASE("unary: the activations and their backwards match the reference over floating dtypes and layouts") {
  for (const ActivationCase& c : kActivations) {
    std::mt19937_64 rng(3);
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
      for_each_layout_and_shape(c.name, dtype, [&](Layout layout, const Shape& shape) {
        const Tensor x = testing::make_input(shape, dtype, layout, rng, -6, 6);
        const Tensor g = testing::make_input(shape, dtype, layout, rng, -2, 2);
        const Tensor y = c.op(x);
        CHECK(y.dtype() == dtype);
        CHECK_TENSOR_CLOSE(y, testing::reference(shape, {x}, [&](const auto& v) { return c.reference(v[0]); }),
                           rtol_for(dtype), atol_for(dtype));
        if (c.method) CHECK_TENSOR_CLOSE((x.*c.method)(), y, 0, 0);
        CHECK_TENSOR_CLOSE(c.backward(g, x),
                           testing::reference(shape, {g, x}, [&](const auto& v) { return v[0] * c.derivative(v[1]); }),
                           rtol_for(dtype), atol_for(dtype));
      });
    }
  }
}

// elu skips the exponential for a block (64 dense elements) whose inputs are all positive: a run of positive
// inputs then a mixed one (with 0, -0.0 and NaN inside an otherwise positive block), out of place, in place and
// strided, in every floating dtype, each against the formula.
TEST_CASE("unary: elu's positive blocks and mixed blocks both give the formula's values") {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> positive(0.01, 6), any(-6, 6);
  std::vector<double> v(1000);
  for (size_t i = 0; i < v.size(); ++i) v[i] = i < 300 ? positive(rng) : any(rng);
  v[130] = 0.0;
  v[131] = -0.0;
  v[200] = std::numeric_limits<double>::quiet_NaN();
  const auto formula = [](double x) { return x > 0 ? 2 * x : 0.5 * 2 * std::expm1(1.5 * x); };
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    CAPTURE(dtype);
    const Tensor x = from_vector<double>(v, {1000}).to(dtype);
    const Tensor want = testing::reference({1000}, {x}, [&](const auto& e) { return formula(e[0]); });
    CHECK_TENSOR_CLOSE(tl::elu(x, 0.5, 2.0, 1.5), want, rtol_for(dtype), atol_for(dtype));
    const Tensor in_place = x.clone();
    tl::elu_(in_place, 0.5, 2.0, 1.5);
    CHECK_TENSOR_CLOSE(in_place, tl::elu(x, 0.5, 2.0, 1.5), 0, 0);
    const Tensor strided = x.view({500, 2}).select(1, 0);
    CHECK_TENSOR_CLOSE(tl::elu(strided, 0.5, 2.0, 1.5), want.view({500, 2}).select(1, 0), rtol_for(dtype),
                       atol_for(dtype));
  }
}

TEST_CASE("unary: hardswish refuses integer input; its backward refuses mixed dtypes") {
  CHECK_THROWS_WITH_AS(tl::hardswish(from_vector<int64_t>({1, 2}, {2})),
                       "hardswish: expected a floating point dtype, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(hardswish_backward(ones({2}), ones({2}, DType::Float64)),
                       "hardswish_backward: expected grad_output and self of one floating point dtype, got torch.float32 "
                       "and torch.float64",
                       Error);
}

TEST_CASE("unary: silu refuses integer input; its backward refuses mixed dtypes and shapes that do not broadcast") {
  CHECK_THROWS_WITH_AS(tl::silu(from_vector<int64_t>({1, 2}, {2})), "silu: expected a floating point dtype, got torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(silu_backward(ones({2}), ones({2}, DType::Float64)),
                       "silu_backward: expected grad_output and self of one floating point dtype, got torch.float32 "
                       "and torch.float64",
                       Error);
  CHECK_THROWS_WITH_AS(silu_backward(ones({2}), ones({3})),
                       "silu_backward: shapes [2] and [3] cannot be broadcast (size 2 vs 3 at dimension 0)", Error);
}

TEST_CASE("unary: leaky_relu_ and elu_ write through a strided view and refuse what cannot be written") {
  std::mt19937_64 rng(5);
  for (bool elu : {false, true}) {
    CAPTURE(elu);
    const Tensor base = testing::random_tensor({4, 6}, DType::Float32, rng, -3, 3), before = base.clone();
    const Tensor view = base.slice(1, 1, std::nullopt, 2);
    const Tensor expected = elu ? tl::elu(view, 0.5) : tl::leaky_relu(view, 0.2);
    const Tensor out = elu ? tl::elu_(view, 0.5) : tl::leaky_relu_(view, 0.2);
    CHECK(out.is_same(view));
    CHECK_TENSOR_CLOSE(view, expected, 0, 0);
    CHECK_TENSOR_CLOSE(base.slice(1, 0, std::nullopt, 2), before.slice(1, 0, std::nullopt, 2), 0, 0);
  }
  const Tensor expanded = ones({3}).expand({2, 3});
  CHECK_THROWS_AS(tl::leaky_relu_(expanded), Error);
  const Tensor i = from_vector<int64_t>({-1, 2}, {2});
  CHECK_THROWS_WITH_AS(tl::elu_(i), "elu_: expected a floating point dtype, got torch.int64", Error);
  CHECK_TENSOR_CLOSE(i, from_vector<int64_t>({-1, 2}, {2}), 0, 0);
}

TEST_CASE("unary: prelu and its backward match a per-channel reference") {
  std::mt19937_64 rng(6);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    for (int64_t channels : {1, 3}) {
      CAPTURE(dtype);
      CAPTURE(channels);
      const Tensor x = testing::make_input({2, 3, 5}, dtype, Layout::Transposed, rng, -3, 3);
      const Tensor g = testing::random_tensor({2, 3, 5}, dtype, rng, -2, 2);
      const Tensor w = testing::random_tensor({channels}, dtype, rng, -1, 1);
      const Tensor wx = channels == 1 ? w : w.view({3, 1});  // the slope of each element, broadcast
      CHECK_TENSOR_CLOSE(tl::prelu(x, w), testing::reference({2, 3, 5}, {x, wx}, [](const auto& v) {
                           return v[0] > 0 ? v[0] : v[1] * v[0];
                         }), rtol_for(dtype), atol_for(dtype));
      auto [grad_input, grad_weight] = tl::prelu_backward(g, x, w);
      CHECK_TENSOR_CLOSE(grad_input, testing::reference({2, 3, 5}, {g, x, wx}, [](const auto& v) {
                           return v[1] > 0 ? v[0] : v[2] * v[0];
                         }), rtol_for(dtype), atol_for(dtype));
      const Tensor terms = testing::reference({2, 3, 5}, {g, x}, [](const auto& v) { return v[1] > 0 ? 0.0 : v[0] * v[1]; });
      const Tensor expected = channels == 1 ? terms.sum().reshape({1}) : terms.sum({0, 2});
      CHECK(grad_weight.shape() == w.shape());
      CHECK_TENSOR_CLOSE(grad_weight, expected, 1e-5, 1e-5);
    }
  }
}

TEST_CASE("unary: gelu refuses integer input and an unknown approximation") {
  CHECK_THROWS_WITH_AS(tl::gelu(from_vector<int64_t>({1, 2}, {2})), "gelu: expected a floating point dtype, got torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(tl::gelu(ones({2}), "erf"), "gelu: approximate argument must be either none or tanh, got 'erf'",
                       Error);
}

}  // namespace
}  // namespace tl
