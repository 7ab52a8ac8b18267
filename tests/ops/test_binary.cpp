// tests/ops/test_binary.cpp — add, sub, mul, div, pow (and in-place), clamp and where against a
// double-precision reference: every dtype pair, layouts, broadcasting, scalars, wrap-around and errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/reflected_forms.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::kAllDTypes;
using testing::kLayouts;
using testing::Layout;
using testing::to_doubles;

constexpr DType F32 = DType::Float32, F64 = DType::Float64, I64 = DType::Int64, I32 = DType::Int32,
                B = DType::Bool, BF = DType::BFloat16;

// torch.result_type in PyTorch 1.13, rows and columns in kAllDTypes order (generated with PyTorch).
constexpr DType kPromoteDims[6][6] = {
    {F32, F64, F32, F32, F32, F32}, {F64, F64, F64, F64, F64, F64}, {F32, F64, I64, I64, I64, BF},
    {F32, F64, I64, I32, I32, BF},  {F32, F64, I64, I32, B, BF},    {F32, F64, BF, BF, BF, BF}};
// A dimensioned tensor (row) with a 0-dim tensor (column).
constexpr DType kPromoteZeroDim[6][6] = {
    {F32, F32, F32, F32, F32, F32}, {F64, F64, F64, F64, F64, F64}, {F32, F64, I64, I64, I64, BF},
    {F32, F64, I32, I32, I32, BF},  {F32, F64, I64, I32, B, BF},    {BF, BF, BF, BF, BF, BF}};
// A tensor (row) with the Python numbers True, 2 and 2.5.
constexpr DType kPromoteScalar[6][3] = {{F32, F32, F32}, {F64, F64, F64}, {I64, I64, F32},
                                        {I32, I32, F32}, {B, I64, F32},   {BF, BF, BF}};

int index_of(DType d) {
  for (int i = 0; i < 6; ++i)
    if (kAllDTypes[i] == d) return i;
  return -1;
}

// Tensors of equal rank class promote as dimensioned ones; otherwise the 0-dim one counts less.
DType expected_result(DType da, const Shape& sa, DType db, const Shape& sb) {
  if (sa.empty() == sb.empty()) return kPromoteDims[index_of(da)][index_of(db)];
  return sa.empty() ? kPromoteZeroDim[index_of(db)][index_of(da)] : kPromoteZeroDim[index_of(da)][index_of(db)];
}

struct BinaryCase {
  const char* name;
  Tensor (*op)(const Tensor&, const Tensor&);
  Tensor (*with_scalar)(const Tensor&, const Scalar&);
  Tensor& (*inplace)(Tensor&, const Tensor&);
  double (*reference)(double, double);
  double a_lo, a_hi, b_lo, b_hi;  ///< ranges that keep the reference finite and integers exact
};

// The function, the method with a number and the in-place method of each op.
#define TL_BINARY_CASE(name)                                                      \
  #name, [](const Tensor& a, const Tensor& b) { return tl::name(a, b); },          \
      [](const Tensor& a, const Scalar& b) { return a.name(b); },                 \
      [](Tensor& a, const Tensor& b) -> Tensor& { return a.name##_(b); }
const BinaryCase kCases[] = {
    {TL_BINARY_CASE(add), [](double a, double b) { return a + b; }, -4, 4, -4, 4},
    {TL_BINARY_CASE(sub), [](double a, double b) { return a - b; }, -4, 4, -4, 4},
    {TL_BINARY_CASE(mul), [](double a, double b) { return a * b; }, -4, 4, -4, 4},
    {TL_BINARY_CASE(div), [](double a, double b) { return a / b; }, -4, 4, 0.5, 4},
    {TL_BINARY_CASE(pow), [](double a, double b) { return std::pow(a, b); }, 0.5, 3, 0, 3},
    {TL_BINARY_CASE(fmod), [](double a, double b) { return a - b * std::trunc(a / b); }, -4, 4, 0.5, 4},
    {TL_BINARY_CASE(remainder), [](double a, double b) { return a - b * std::floor(a / b); }, -4, 4, 0.5, 4},
};
#undef TL_BINARY_CASE

const std::pair<Shape, Shape> kShapePairs[] = {
    {{3}, {3}},         {{}, {5}},          {{5}, {}},          {{3, 1}, {1, 4}},     {{2, 3, 4}, {4}},
    {{2, 1, 3}, {4, 1}}, {{0, 3}, {1, 3}}, {{7, 33}, {7, 1}}, {{1000}, {1000}}, {{1}, {1000}}};

double rtol_for(DType dtype) {
  switch (dtype) {
    case DType::Float32: return 4e-6;
    case DType::Float64: return 1e-12;
    case DType::BFloat16: return 8e-3;
    default: return 0;
  }
}
double atol_for(DType dtype) { return dtype == DType::BFloat16 ? 1e-3 : is_floating_point(dtype) ? 1e-6 : 0; }

DType compute_dtype(const BinaryCase& c, DType result) {
  return std::string(c.name) == "div" && !is_floating_point(result) ? DType::Float32 : result;
}

bool is_modulo(const BinaryCase& c) { return std::string(c.name) == "fmod" || std::string(c.name) == "remainder"; }

// What the op must refuse for these operand dtypes; empty when it is allowed.
std::string refusal(const BinaryCase& c, DType a, DType b, DType compute) {
  const std::string name = c.name;
  if (name == "sub" && a == B && b == B) return "with two bool tensors is not supported";
  if (name == "sub" && (a == B || b == B)) return "with a bool tensor is not supported";
  if ((name == "pow" || is_modulo(c)) && compute == B) return "not implemented for torch.bool";
  return {};
}

// The reference in double, read back as the result dtype would hold it (bool: non-zero).
Tensor expected(const BinaryCase& c, const Tensor& a, const Tensor& b, DType out) {
  const Shape shape = broadcast_shapes(a.shape(), b.shape(), "test");
  return testing::reference(shape, {a, b}, [&](const auto& v) {
    const double r = c.reference(v[0], v[1]);
    return out == B ? static_cast<double>(r != 0) : r;
  });
}

void check_op(const BinaryCase& c, const Tensor& a, const Tensor& b, DType result) {
  if (is_modulo(c) && b.dtype() == B) return;  // a false divisor: integer zero division (its own test case)
  const DType compute = compute_dtype(c, result);
  const std::string refused = refusal(c, a.dtype(), b.dtype(), compute);
  if (!refused.empty()) {
    CHECK_THROWS_WITH_AS(c.op(a, b), doctest::Contains(refused.c_str()), Error);
    return;
  }
  const Tensor out = c.op(a, b);
  CHECK(out.dtype() == compute);
  // Operands are rounded to the compute dtype first (a float64 0-dim tensor meeting bfloat16).
  CHECK_TENSOR_CLOSE(out, expected(c, a.to(compute), b.to(compute), compute), rtol_for(compute), atol_for(compute));
}

TEST_CASE("binary: every dtype pair promotes like PyTorch and matches the reference") {
  std::mt19937_64 rng(11);
  for (const BinaryCase& c : kCases) {
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
          // Bool divisors would divide by zero: division by zero is checked on its own below.
          if (std::string(c.name) == "div" && db == B) continue;
          const Tensor a = testing::random_tensor(sa, da, rng, c.a_lo, c.a_hi);
          const Tensor b = testing::random_tensor(sb, db, rng, c.b_lo, c.b_hi);
          check_op(c, a, b, expected_result(da, sa, db, sb));
        }
      }
    }
  }
}

TEST_CASE("binary: layouts of either operand give the same answer") {
  std::mt19937_64 rng(12);
  for (const BinaryCase& c : kCases) {
    for (DType dtype : {DType::Float32, DType::Int64, DType::BFloat16}) {
      for (Layout la : kLayouts) {
        for (Layout lb : kLayouts) {
          for (const auto& entry : kShapePairs) {
            const auto& sa = entry.first;
            const auto& sb = entry.second;
            CAPTURE(std::string(c.name));
            CAPTURE(dtype);
            CAPTURE(testing::layout_name(la));
            CAPTURE(testing::layout_name(lb));
            CAPTURE(sa);
            CAPTURE(sb);
            const Tensor a = testing::make_input(sa, dtype, la, rng, c.a_lo, c.a_hi);
            const Tensor b = testing::make_input(sb, dtype, lb, rng, c.b_lo, c.b_hi);
            check_op(c, a, b, dtype);
          }
        }
      }
    }
  }
}

TEST_CASE("binary: loops split over threads, dense, broadcast and strided") {
  std::mt19937_64 rng(13);
  const Tensor a = testing::random_tensor({131, 257}, DType::Float32, rng);
  const Tensor row = testing::random_tensor({257}, DType::Float32, rng);
  const Tensor col = testing::random_tensor({131, 1}, DType::Float32, rng);
  const Tensor scalar = testing::random_tensor({}, DType::Float32, rng);
  const Tensor at = testing::make_input({131, 257}, DType::Float32, Layout::Transposed, rng);
  for (const BinaryCase& c : kCases) {
    if (std::string(c.name) == "pow" || std::string(c.name) == "div") continue;
    CAPTURE(std::string(c.name));
    for (const Tensor& b : {a, row, col, scalar, at}) {
      CAPTURE(b.shape());
      check_op(c, a, b, DType::Float32);
      check_op(c, b, a, DType::Float32);
    }
  }
}

TEST_CASE("binary: outputs past the streaming-store threshold, aligned or not") {
  // 16 MiB of float32 plus a few elements, so blocks, an unaligned head and a tail all occur.
  const int64_t n = (int64_t{4} << 20) + 7;
  std::mt19937_64 rng(20);
  const Tensor a = testing::random_tensor({n}, DType::Float32, rng);
  const Tensor b = testing::random_tensor({n}, DType::Float32, rng);
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  const Tensor sum = a + b, scaled = a * 3;
  const float* ps = sum.data<float>();
  const float* pc = scaled.data<float>();
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += ps[i] != pa[i] + pb[i] || pc[i] != pa[i] * 3.f;
  CHECK(wrong == 0);
  // In place on a view starting one element in: the output's first element is not 16-byte aligned.
  Tensor acc = a.clone();
  acc.slice(0, 1, std::nullopt).sub_(b.slice(0, 0, n - 1));
  const float* pacc = acc.data<float>();
  wrong = pacc[0] != pa[0];
  for (int64_t i = 1; i < n; ++i) wrong += pacc[i] != pa[i] - pb[i - 1];
  CHECK(wrong == 0);
}

TEST_CASE("binary: Python numbers promote as wrapped scalars") {
  std::mt19937_64 rng(14);
  const Scalar scalars[] = {true, 2, 2.5};
  for (const BinaryCase& c : kCases) {
    for (DType dtype : kAllDTypes) {
      for (int s = 0; s < 3; ++s) {
        CAPTURE(std::string(c.name));
        CAPTURE(dtype);
        CAPTURE(scalars[s]);
        const Tensor a = testing::random_tensor({2, 7}, dtype, rng, c.a_lo, c.a_hi);
        const DType compute = compute_dtype(c, kPromoteScalar[index_of(dtype)][s]);
        const DType scalar_dtype = s == 0 ? B : s == 1 ? I64 : F64;
        const std::string refused = refusal(c, dtype, scalar_dtype, compute);
        if (!refused.empty()) {
          CHECK_THROWS_WITH_AS(c.with_scalar(a, scalars[s]), doctest::Contains(refused.c_str()), Error);
          continue;
        }
        const Tensor out = c.with_scalar(a, scalars[s]);
        CHECK(out.dtype() == compute);
        const double value = scalars[s].to<double>();
        const Tensor ref = testing::reference(a.shape(), {a}, [&](const auto& v) {
          const double r = c.reference(v[0], value);
          return compute == B ? static_cast<double>(r != 0) : r;
        });
        CHECK_TENSOR_CLOSE(out, ref, rtol_for(compute), atol_for(compute));
      }
    }
  }
}

TEST_CASE("binary: in-place forms cast back only where torch.can_cast allows") {
  std::mt19937_64 rng(15);
  for (const BinaryCase& c : kCases) {
    for (DType ds : kAllDTypes) {
      for (DType dother : kAllDTypes) {
        CAPTURE(std::string(c.name));
        CAPTURE(ds);
        CAPTURE(dother);
        if ((std::string(c.name) == "div" || is_modulo(c)) && dother == B) continue;
        Tensor self = testing::random_tensor({3, 4}, ds, rng, c.a_lo, c.a_hi);
        const Tensor other = testing::random_tensor({4}, dother, rng, c.b_lo, c.b_hi);
        const Tensor before = self.clone();
        const DType compute = compute_dtype(c, kPromoteDims[index_of(ds)][index_of(dother)]);
        const std::string refused = refusal(c, ds, dother, compute);
        const bool castable = !(is_floating_point(compute) && !is_floating_point(ds)) && (compute == B || ds != B);
        if (!refused.empty()) {
          CHECK_THROWS_WITH_AS(c.inplace(self, other), doctest::Contains(refused.c_str()), Error);
        } else if (!castable) {
          const std::string message = std::string(c.name) + "_: result type " + dtype_name(compute) +
                                      " can't be cast to the desired output type " + dtype_name(ds);
          CHECK_THROWS_WITH_AS(c.inplace(self, other), message.c_str(), Error);
          CHECK(tl::equal(self, before));
        } else {
          Tensor& r = c.inplace(self, other);
          CHECK(&r == &self);
          CHECK(self.dtype() == ds);
          // The result is computed in `compute`, then rounded into self's dtype.
          const double tol = std::max(rtol_for(ds), rtol_for(compute));
          CHECK_TENSOR_CLOSE(self, expected(c, before.to(compute), other.to(compute), ds), tol, ds == BF ? 1e-3 : atol_for(compute));
        }
      }
    }
  }
}

TEST_CASE("binary: in-place writes through a transposed view into its base") {
  std::mt19937_64 rng(16);
  Tensor base = testing::random_tensor({4, 6}, DType::Float32, rng);
  const Tensor before = base.clone();
  const Tensor other = testing::random_tensor({6, 1}, DType::Float32, rng);
  Tensor view = base.t();
  view.mul_(other);
  const Tensor ref = testing::reference({6, 4}, {before.t(), other}, [](const auto& v) { return v[0] * v[1]; });
  CHECK_TENSOR_CLOSE(base.t(), ref, 4e-6, 1e-6);
  Tensor x = before.clone();
  x += x;
  CHECK_TENSOR_CLOSE(x, testing::reference(x.shape(), {before}, [](const auto& v) { return 2 * v[0]; }), 0, 0);
}

TEST_CASE("binary: in-place shape and memory errors") {
  Tensor self = ones({2});
  CHECK_THROWS_WITH_AS(self.add_(ones({2, 2})), "add_: output with shape [2] doesn't match the broadcast shape [2, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(self.mul_(ones({3})), doctest::Contains("mul_: shapes [2] and [3] cannot be broadcast"), Error);
  CHECK_THROWS_WITH_AS(tl::add(ones({2}), ones({3})), doctest::Contains("add: shapes [2] and [3] cannot be broadcast"),
                       Error);
  Tensor expanded = ones({3}).expand({2, 3});
  CHECK_THROWS_WITH_AS(expanded.add_(1), doctest::Contains("add_: unsupported operation: more than one element"), Error);
  Tensor x = arange(0, 8, 1, DType::Float32);
  Tensor tail = x.slice(0, 1, std::nullopt);
  CHECK_THROWS_WITH_AS(tail.add_(x.slice(0, 0, -1)),
                       "add_: unsupported operation: some elements of the input tensor and the written-to tensor "
                       "refer to a single memory location. Please clone() the tensor before performing the operation.",
                       Error);
  Tensor square = arange(0, 9, 1, DType::Float32).view({3, 3});
  CHECK_THROWS_WITH_AS(square.sub_(square.t()), doctest::Contains("some elements of the input tensor"), Error);
  CHECK_THROWS_WITH_AS(tl::add(ones({2}), Tensor()), "add: expected a tensor for 'other', got None", Error);
}

TEST_CASE("binary: add and sub scale other by alpha, in and out of place; alpha's type is checked as ATen's") {
  const Tensor a = from_vector<double>({1.5, -2.0, 0.25}, {3}), b = from_vector<double>({4.0, 0.5, -8.0}, {3});
  std::vector<double> plus, minus;
  for (size_t i = 0; i < 3; ++i) {
    plus.push_back(to_doubles(a)[i] + 2.5 * to_doubles(b)[i]);
    minus.push_back(to_doubles(a)[i] - 2.5 * to_doubles(b)[i]);
  }
  CHECK(to_doubles(tl::add(a, b, 2.5)) == plus);
  CHECK(to_doubles(tl::sub(a, b, 2.5)) == minus);
  Tensor inplace = a.clone();
  CHECK(to_doubles(inplace.add_(b, 2.5)) == plus);
  CHECK(to_doubles(a.sub(3.0, 2)) == to_doubles(a.sub(6.0)));
  const Tensor i = from_vector<int64_t>({1, 2, 3}, {3});
  CHECK(to_doubles(tl::add(i, i, -2)) == to_doubles(i.neg()));
  CHECK_THROWS_WITH_AS(tl::add(i, i, 0.5), "add: For integral input tensors, argument alpha must not be a floating point number.",
                       Error);
  CHECK_THROWS_WITH_AS(tl::add(a, b, true), "add: Boolean alpha only supported for Boolean results.", Error);
  Tensor unchanged = i.clone();
  CHECK_THROWS_WITH_AS(unchanged.sub_(i, 1.5), doctest::Contains("sub_: For integral input tensors"), Error);
  CHECK(to_doubles(unchanged) == to_doubles(i));
}

TEST_CASE("binary: integer arithmetic wraps around like two's complement") {
  const int64_t max = std::numeric_limits<int64_t>::max();
  const Tensor big = from_vector<int64_t>({max, max}, {2});
  const int64_t sum = static_cast<int64_t>(static_cast<uint64_t>(max) + 1u);
  const int64_t product = static_cast<int64_t>(static_cast<uint64_t>(max) * 3u);
  CHECK((big + 1).data<int64_t>()[0] == sum);
  CHECK((big * 3).data<int64_t>()[1] == product);
  const Tensor small = from_vector<int32_t>({std::numeric_limits<int32_t>::min()}, {1});
  const int32_t diff = static_cast<int32_t>(static_cast<uint32_t>(std::numeric_limits<int32_t>::min()) - 1u);
  CHECK((small - 1).dtype() == DType::Int32);
  CHECK((small - 1).data<int32_t>()[0] == diff);
}

TEST_CASE("binary: true division of integers gives float32, with IEEE zero division") {
  const Tensor a = from_vector<int64_t>({7, -7, 0, 1}, {4});
  const Tensor b = from_vector<int64_t>({2, 2, 0, 0}, {4});
  const Tensor q = a / b;
  CHECK(q.dtype() == DType::Float32);
  CHECK(q.data<float>()[0] == 3.5f);
  CHECK(q.data<float>()[1] == -3.5f);
  CHECK(std::isnan(q.data<float>()[2]));
  CHECK(q.data<float>()[3] == std::numeric_limits<float>::infinity());
  const Tensor mask = from_vector<bool>({true, false}, {2});
  const Tensor m = mask / mask;
  CHECK(m.data<float>()[0] == 1.f);
  CHECK(std::isnan(m.data<float>()[1]));
  Tensor i = from_vector<int64_t>({4}, {1});
  CHECK_THROWS_WITH_AS(i.div_(2), "div_: result type torch.float32 can't be cast to the desired output type torch.int64",
                       Error);
}

// Integer power by repeated multiplication; negative exponents as integer division would give.
int64_t int_pow_reference(int64_t base, int64_t exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? (exp % 2 == 0 ? 1 : -1) : 0;
  int64_t r = 1;
  for (int64_t k = 0; k < exp; ++k) r *= base;
  return r;
}

TEST_CASE("binary: integer pow, including negative tensor exponents") {
  const std::vector<int64_t> bases = {2, 1, -1, 0, 3, -1, -2, 5, 7}, exps = {-1, -1, -1, -2, 0, -2, 5, 3, 9};
  const Tensor out = tl::pow(from_vector<int64_t>(bases, {9}), from_vector<int64_t>(exps, {9}));
  CHECK(out.dtype() == DType::Int64);
  for (size_t k = 0; k < bases.size(); ++k) {
    CAPTURE(k);
    CHECK(out.data<int64_t>()[k] == int_pow_reference(bases[k], exps[k]));
  }
  const Tensor i = from_vector<int64_t>({4, 2}, {2});
  CHECK_THROWS_WITH_AS(tl::pow(i, -1), "pow: Integers to negative integer powers are not allowed.", Error);
  Tensor j = i.clone();
  CHECK_THROWS_WITH_AS(j.pow_(-2), "pow_: Integers to negative integer powers are not allowed.", Error);
  CHECK_THROWS_WITH_AS(j.pow_(2.0), doctest::Contains("pow_: result type torch.float32 can't be cast"), Error);
  CHECK(tl::pow(i, 2).data<int64_t>()[0] == 16);
  CHECK(tl::pow(i, 0.5).dtype() == DType::Float32);
  const Tensor mask = from_vector<bool>({true, false}, {2});
  CHECK(tl::pow(mask, 2).dtype() == DType::Int64);
  CHECK_THROWS_WITH_AS(tl::pow(mask, mask), "pow: not implemented for torch.bool", Error);
}

TEST_CASE("binary: bool arithmetic is logical for add and mul, refused for sub") {
  const Tensor a = from_vector<bool>({true, true, false, false}, {4});
  const Tensor b = from_vector<bool>({true, false, true, false}, {4});
  const Tensor sum = a + b, product = a * b;
  CHECK(sum.dtype() == DType::Bool);
  CHECK(product.dtype() == DType::Bool);
  for (int k = 0; k < 4; ++k) {
    CHECK(sum.data<bool>()[k] == (a.data<bool>()[k] || b.data<bool>()[k]));
    CHECK(product.data<bool>()[k] == (a.data<bool>()[k] && b.data<bool>()[k]));
  }
  CHECK_THROWS_WITH_AS(a - b,
                       "sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                       "`logical_xor()` operator instead.",
                       Error);
  CHECK_THROWS_WITH_AS(a - 1, doctest::Contains("sub: Subtraction, the `-` operator, with a bool tensor"), Error);
  CHECK_THROWS_WITH_AS(ones({2}) - true, doctest::Contains("with a bool tensor is not supported"), Error);
}

TEST_CASE("binary: operators and methods reach the same kernels") {
  std::mt19937_64 rng(17);
  const Tensor a = testing::random_tensor({3, 5}, DType::Float32, rng);
  const Tensor b = testing::random_tensor({5}, DType::Float32, rng, 0.5, 4);
  CHECK_TENSOR_CLOSE(a + b, tl::add(a, b), 0, 0);
  CHECK_TENSOR_CLOSE(a - b, tl::sub(a, b), 0, 0);
  CHECK_TENSOR_CLOSE(a * b, tl::mul(a, b), 0, 0);
  CHECK_TENSOR_CLOSE(a / b, tl::div(a, b), 0, 0);
  CHECK_TENSOR_CLOSE(a.add(b), tl::add(a, b), 0, 0);
  CHECK_TENSOR_CLOSE(a + 2, testing::reference(a.shape(), {a}, [](const auto& v) { return v[0] + 2; }), 4e-6, 1e-6);
  CHECK_TENSOR_CLOSE(a - 2.5, testing::reference(a.shape(), {a}, [](const auto& v) { return v[0] - 2.5; }), 4e-6, 1e-6);
  CHECK_TENSOR_CLOSE(a * 3, testing::reference(a.shape(), {a}, [](const auto& v) { return v[0] * 3; }), 4e-6, 1e-6);
  CHECK_TENSOR_CLOSE(a / 4, testing::reference(a.shape(), {a}, [](const auto& v) { return v[0] / 4; }), 4e-6, 1e-6);
  Tensor c = a.clone();
  c += b;
  c -= b;
  c *= b;
  c /= b;
  CHECK_TENSOR_CLOSE(c, a, 1e-6, 1e-6);
}

TEST_CASE("a number on the left and one-int dims give PyTorch's dtypes and values (reflected_operators.json)") {
  const nlohmann::json ref = testing::reflected_reference();
  const Tensor x = testing::reference_input(ref, "x", F32), xi = testing::reference_input(ref, "x_int64", I64);
  REQUIRE(ref.at("forms").size() == testing::reflected_forms().size());
  for (const testing::ReflectedForm& form : testing::reflected_forms()) {
    const nlohmann::json& expected = ref.at("forms").at(form.name);
    for (const char* dtype : {"float32", "int64"}) {
      if (!expected.contains(dtype)) continue;
      const Tensor want = testing::reference_tensor(expected.at(dtype));
      const Tensor got = form.f(std::string(dtype) == "float32" ? x : xi);
      CHECK_MESSAGE(got.dtype() == want.dtype(), form.name, " on ", dtype, " gives ", got.dtype(), ", PyTorch ", want.dtype());
      const std::string diff = testing::compare_tensors(got, want, 1e-6, 0);
      CHECK_MESSAGE(diff.empty(), form.name, " on ", dtype, ": ", diff);
    }
  }
  CHECK_THROWS_WITH_AS(x.mean(2), doctest::Contains("mean: dimension out of range (expected to be in range of [-2, 1], but got 2)"), Error);
  CHECK_THROWS_WITH_AS(2.0 - x.to(B), doctest::Contains("rsub: Subtraction, the `-` operator, with a bool tensor"), Error);
}

// min(max(x, lo), hi) written out, with PyTorch's NaN propagation: a NaN x stays NaN, and a NaN bound
// makes every element NaN when both bounds are given (ATen's clamp_out fills the result), but is
// ignored when it is the only one.
double clamp_reference(double x, std::optional<double> lo, std::optional<double> hi) {
  if (std::isnan(x)) return x;
  if (lo && hi && (std::isnan(*lo) || std::isnan(*hi))) return NAN;
  if (lo && x < *lo) x = *lo;
  if (hi && x > *hi) x = *hi;
  return x;
}

TEST_CASE("clamp: bounds, promotion, layouts and NaN") {
  std::mt19937_64 rng(18);
  const std::pair<std::optional<Scalar>, std::optional<Scalar>> bounds[] = {
      {-1, 2}, {-1, std::nullopt}, {std::nullopt, 2}, {3, 1}, {-1.5, 2.5},
      {NAN, 2}, {-1, NAN}, {NAN, std::nullopt}, {std::nullopt, NAN}};
  for (DType dtype : kAllDTypes) {
    for (Layout layout : kLayouts) {
      for (size_t k = 0; k < std::size(bounds); ++k) {
        const auto& [lo, hi] = bounds[k];
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        CAPTURE(k);
        const Tensor x = testing::make_input({5, 7}, dtype, layout, rng);
        std::vector<Scalar> present;
        for (const auto& s : {lo, hi})
          if (s) present.push_back(*s);
        const bool floating_bound = std::any_of(present.begin(), present.end(), [](const Scalar& s) { return s.is_floating_point(); });
        const DType result = floating_bound ? kPromoteScalar[index_of(dtype)][2] : kPromoteScalar[index_of(dtype)][1];
        const Tensor out = tl::clamp(x, lo, hi);
        CHECK(out.dtype() == result);
        const std::optional<double> l = lo ? std::optional(lo->to<double>()) : std::nullopt;
        const std::optional<double> h = hi ? std::optional(hi->to<double>()) : std::nullopt;
        CHECK_TENSOR_CLOSE(out, testing::reference(x.shape(), {x}, [&](const auto& v) { return clamp_reference(v[0], l, h); }),
                           0, 0);
      }
    }
  }
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(tl::clamp(from_vector<float>({nan}, {1}), 0, 1).data<float>()[0]));
  CHECK(tl::clamp(from_vector<bool>({true, false}, {2}), 0, 1).dtype() == DType::Int64);
  CHECK_THROWS_WITH_AS(tl::clamp(from_vector<bool>({true}, {1}), true), "clamp: not implemented for torch.bool", Error);
}

TEST_CASE("clamp: in-place form and errors") {
  Tensor x = from_vector<float>({-3, 0.5, 9}, {3});
  Tensor& r = x.clamp_(0, 1);
  CHECK(&r == &x);
  CHECK(x.data<float>()[0] == 0.f);
  CHECK(x.data<float>()[1] == 0.5f);
  CHECK(x.data<float>()[2] == 1.f);
  Tensor base = arange(0, 12, 1, DType::Int64).view({3, 4});
  base.t().clamp_(std::nullopt, 5);
  CHECK(base.data<int64_t>()[11] == 5);
  CHECK(base.data<int64_t>()[4] == 4);
  x.clamp_(0, NAN);
  CHECK(std::isnan(x.data<float>()[0]));
  CHECK(std::isnan(x.data<float>()[2]));
  CHECK_THROWS_WITH_AS(tl::clamp(x, std::nullopt, std::nullopt), "clamp: at least one of 'min' or 'max' must not be None",
                       Error);
  Tensor i = from_vector<int64_t>({1, 2}, {2});
  CHECK_THROWS_WITH_AS(i.clamp_(0.5), "clamp_: result type torch.float32 can't be cast to the desired output type torch.int64",
                       Error);
}

TEST_CASE("fmod and remainder: the dividend's and the divisor's sign, and integer division by zero refused") {
  const Tensor a = from_vector<int64_t>({5, -5, 7, -7}, {4}), b = from_vector<int64_t>({3, 3, -3, -3}, {4});
  CHECK_TENSOR_CLOSE(tl::fmod(a, b), from_vector<int64_t>({2, -2, 1, -1}, {4}), 0, 0);
  CHECK_TENSOR_CLOSE(tl::remainder(a, b), from_vector<int64_t>({2, 1, -2, -1}, {4}), 0, 0);
  const int64_t lowest = std::numeric_limits<int64_t>::min();
  CHECK_TENSOR_CLOSE(tl::remainder(from_vector<int64_t>({lowest}, {1}), -1), from_vector<int64_t>({0}, {1}), 0, 0);
  CHECK(tl::remainder(a, 2.5).dtype() == DType::Float32);
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = from_vector<float>({5, -5, -0.0f}, {3}), y = from_vector<float>({inf, inf, 2}, {3});
  CHECK_TENSOR_CLOSE(tl::remainder(x, y), from_vector<float>({5, inf, -0.0f}, {3}), 0, 0);
  CHECK_TENSOR_CLOSE(tl::fmod(x, y), from_vector<float>({5, -5, -0.0f}, {3}), 0, 0);
  CHECK_TENSOR_CLOSE(tl::fmod(x, 0.0).isnan(), ones({3}, DType::Bool), 0, 0);
  CHECK_THROWS_WITH_AS(tl::fmod(a, 0), "fmod: ZeroDivisionError", Error);
  CHECK_THROWS_WITH_AS(a.remainder(from_vector<int32_t>({1, 0, 1, 1}, {4})), "remainder: ZeroDivisionError", Error);
  Tensor c = a.clone();
  CHECK_THROWS_WITH_AS(c.fmod_(from_vector<int64_t>({1, 1, 0, 1}, {4})), "fmod_: ZeroDivisionError", Error);
  CHECK_TENSOR_CLOSE(c, a, 0, 0);
  CHECK_THROWS_WITH_AS(c.remainder_(1.5),
                       "remainder_: result type torch.float32 can't be cast to the desired output type torch.int64", Error);
  CHECK_TENSOR_CLOSE(c, a, 0, 0);
}

TEST_CASE("fmod and remainder differentiate as PyTorch's formulas") {
  Tensor x = from_vector<double>({5.5, -5.5, 7.25}, {3}).requires_grad_();
  Tensor y = from_vector<double>({2.0, 2.0, -3.0}, {3}).requires_grad_();
  (tl::fmod(x, y) + tl::remainder(x, y) * 10.0).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), full({3}, 11.0, DType::Float64), 0, 0);
  // -trunc(x / y) - 10 floor(x / y)
  CHECK_TENSOR_CLOSE(y.grad(), from_vector<double>({-2 - 20, 2 + 30, 2 + 30}, {3}), 0, 0);
}

TEST_CASE("clamp_min and clamp_max: one bound, promotion, layouts; a NaN bound makes every element NaN") {
  std::mt19937_64 rng(19);
  const Scalar bounds[] = {-1, 1.5, NAN};
  for (DType dtype : kAllDTypes) {
    for (Layout layout : kLayouts) {
      for (const Scalar& bound : bounds) {
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        CAPTURE(bound);
        const Tensor x = testing::make_input({5, 7}, dtype, layout, rng);
        const DType result = kPromoteScalar[index_of(dtype)][bound.is_floating_point() ? 2 : 1];
        const double b = bound.to<double>();
        const Tensor lo = tl::clamp_min(x, bound), hi = x.clamp_max(bound);
        CHECK(lo.dtype() == result);
        CHECK(hi.dtype() == result);
        CHECK_TENSOR_CLOSE(lo, testing::reference(x.shape(), {x}, [&](const auto& v) {
          return std::isnan(b) ? b : clamp_reference(v[0], b, std::nullopt);
        }), 0, 0);
        CHECK_TENSOR_CLOSE(hi, testing::reference(x.shape(), {x}, [&](const auto& v) {
          return std::isnan(b) ? b : clamp_reference(v[0], std::nullopt, b);
        }), 0, 0);
      }
    }
  }
  Tensor base = arange(0, 12, 1, DType::Int64).view({3, 4});
  Tensor view = base.t();
  Tensor& r = view.clamp_max_(5);
  CHECK(&r == &view);
  CHECK(base.data<int64_t>()[11] == 5);
  base.clamp_min_(3);
  CHECK(base.data<int64_t>()[0] == 3);
  const Tensor before = base.clone();
  CHECK_THROWS_WITH_AS(base.clamp_min_(0.5),
                       "clamp_min_: result type torch.float32 can't be cast to the desired output type torch.int64", Error);
  CHECK_TENSOR_CLOSE(base, before, 0, 0);
  Tensor x = from_vector<double>({-1, 0.5, 2}, {3}).requires_grad_();
  (x.clamp_min(0.0) + x.clamp_max(1.0) * 10.0).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), from_vector<double>({10, 11, 1}, {3}), 0, 0);
}

TEST_CASE("where: three-way broadcasting, promotion and layouts") {
  std::mt19937_64 rng(19);
  const Shape shapes[][3] = {{{4}, {4}, {4}},       {{3, 1}, {1, 4}, {}}, {{2, 1, 3}, {4, 1}, {3}},
                             {{0, 2}, {2}, {1, 2}}, {{1000}, {1}, {1000}}};
  const std::pair<DType, DType> dtypes[] = {{F32, F32}, {I32, F64}, {B, I64}, {BF, F32}, {I64, I64}};
  for (const auto& s : shapes) {
    for (const auto& entry : dtypes) {
      const auto& da = entry.first;
      const auto& db = entry.second;
      for (Layout layout : kLayouts) {
        CAPTURE(s[0]);
        CAPTURE(s[1]);
        CAPTURE(s[2]);
        CAPTURE(da);
        CAPTURE(db);
        CAPTURE(testing::layout_name(layout));
        const Tensor cond = testing::make_input(s[0], B, layout, rng);
        const Tensor a = testing::make_input(s[1], da, layout, rng);
        const Tensor b = testing::make_input(s[2], db, layout, rng);
        const Tensor out = tl::where(cond, a, b);
        const DType result = expected_result(da, s[1], db, s[2]);
        CHECK(out.dtype() == result);
        const Shape shape = broadcast_shapes(broadcast_shapes(s[0], s[1], "t"), s[2], "t");
        CHECK_TENSOR_CLOSE(out, testing::reference(shape, {cond, a, b}, [](const auto& v) { return v[0] != 0 ? v[1] : v[2]; }),
                           rtol_for(result), 0);
      }
    }
  }
  CHECK_THROWS_WITH_AS(tl::where(ones({2}), ones({2}), ones({2})),
                       "where: expected condition to be a boolean tensor, but got a tensor with dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(tl::where(ones({2}, DType::Bool), ones({3}), ones({2})),
                       doctest::Contains("where: shapes [2] and [3] cannot be broadcast"), Error);
}

}  // namespace
}  // namespace tl
