// tests/ops/test_linalg.cpp — mm, bmm, matmul, addmm and linear against a naive triple loop in double,
// over odd and empty sizes, every operand layout, batch broadcasting, float32 / float64 and every
// GEMM build the CPU supports; linear's dispatch structure (as PyTorch profiles it) and the errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "ops/gemm.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::broadcast_value;
using testing::kLayouts;
using testing::Layout;
using testing::make_input;
using testing::ravel;
using testing::unravel;

constexpr DType kFloatTypes[] = {DType::Float32, DType::Float64};

// `t` as row-major doubles, read one element at a time through its strides.
std::vector<double> values_of(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = testing::element_at(t, i);
  return v;
}

// Row-major index into `t`'s batch dims of output batch `index` (t aligned right, size-1 dims repeat).
int64_t batch_offset(const Tensor& t, const std::vector<int64_t>& index) {
  const int64_t lead = static_cast<int64_t>(index.size()) - (t.dim() - 2);
  int64_t flat = 0;
  for (int64_t d = 0; d < t.dim() - 2; ++d)
    flat = flat * t.size(d) + (t.size(d) == 1 ? 0 : index[static_cast<size_t>(lead + d)]);
  return flat;
}

// The reference product of a (batch_a..., m, k) and b (batch_b..., k, n), batch dims broadcast,
// as a (batch..., m, n) float64 tensor: a plain triple loop per batch.
Tensor reference_product(const Tensor& a, const Tensor& b) {
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  const Shape batch = broadcast_shapes(Shape(std::vector<int64_t>(a.shape().begin(), a.shape().end() - 2)),
                                       Shape(std::vector<int64_t>(b.shape().begin(), b.shape().end() - 2)), "reference");
  const std::vector<double> va = values_of(a), vb = values_of(b);
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  std::vector<double> out(static_cast<size_t>(numel_of(shape)), 0.0);
  for (int64_t bi = 0; bi < numel_of(batch); ++bi) {
    const std::vector<int64_t> index = unravel(bi, batch);
    const double* pa = va.data() + batch_offset(a, index) * m * k;
    const double* pb = vb.data() + batch_offset(b, index) * k * n;
    double* pc = out.data() + bi * m * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) pc[i * n + j] += pa[i * k + p] * pb[p * n + j];
  }
  return from_vector<double>(out, shape);
}

// A float64 copy of the reference reshaped to `shape` (drops the dims 1-D operands never had).
Tensor reference_matmul(const Tensor& a, const Tensor& b, const Shape& shape) {
  const Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a;
  const Tensor b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  return reference_product(a2, b2).reshape(shape);
}

// Inputs lie in [-1, 1]: sums of k products stay well inside these bounds for k <= 200.
double tol(DType dtype) { return dtype == DType::Float32 ? 5e-5 : 1e-12; }

Tensor make_operand(const Shape& shape, DType dtype, Layout layout, std::mt19937_64& rng) {
  return make_input(shape, dtype, layout, rng, -1, 1);
}

// The GEMMs this CPU can run (oneDNN's sgemm, the default, then the Eigen builds); restores the default when
// destroyed.
struct EachIsa {
  std::string initial = detail::gemm_isa();
  std::vector<std::string> supported() const {
    std::vector<std::string> names;
    for (const char* name : {"onednn", "avx512", "avx2", "sse2"})
      if (detail::set_gemm_isa(name)) names.push_back(name);
    detail::set_gemm_isa(initial.c_str());
    return names;
  }
  ~EachIsa() { detail::set_gemm_isa(initial.c_str()); }
};

TEST_CASE("gemm: oneDNN's by default, and any supported Eigen build can be forced") {
  EachIsa isas;
  const std::vector<std::string> names = isas.supported();
  REQUIRE(names.size() >= 2);
  CHECK(names.front() == "onednn");
  CHECK(names.back() == "sse2");
  CHECK(isas.initial == names.front());
  CHECK(!detail::set_gemm_isa("avx1024"));
  CHECK(detail::gemm_isa() == isas.initial);
}

TEST_CASE("mm: matches a triple loop over sizes, layouts, dtypes and every GEMM build") {
  EachIsa isas;
  std::mt19937_64 rng(31);
  struct Size {
    int64_t m, k, n;
  };
  const Size sizes[] = {{1, 1, 1}, {3, 5, 7}, {17, 1, 9}, {1, 9, 1}, {0, 3, 4}, {3, 0, 4}, {4, 3, 0}, {33, 65, 17}, {70, 130, 90}};
  for (const std::string& isa : isas.supported()) {
    REQUIRE(detail::set_gemm_isa(isa.c_str()));
    for (const Size& s : sizes) {
      for (Layout la : kLayouts) {
        for (Layout lb : kLayouts) {
          for (DType dtype : kFloatTypes) {
            // Every build runs every layout; the default one also every size.
            if (isa != isas.initial && s.m * s.k * s.n > 10000 && la != lb) continue;
            CAPTURE(isa);
            CAPTURE(s.m);
            CAPTURE(s.k);
            CAPTURE(s.n);
            CAPTURE(testing::layout_name(la));
            CAPTURE(testing::layout_name(lb));
            CAPTURE(dtype);
            const Tensor a = make_operand({s.m, s.k}, dtype, la, rng), b = make_operand({s.k, s.n}, dtype, lb, rng);
            const Tensor c = mm(a, b);
            CHECK(c.dtype() == dtype);
            CHECK(c.is_contiguous());
            CHECK_TENSOR_CLOSE(c, reference_product(a, b), tol(dtype), tol(dtype));
            CHECK_TENSOR_CLOSE(a.mm(b), reference_product(a, b), tol(dtype), tol(dtype));
          }
        }
      }
    }
  }
}

TEST_CASE("mm: NaN and inf propagate on every GEMM, a zero times NaN included, and beta = 0 ignores C") {
  EachIsa isas;
  for (const std::string& isa : isas.supported()) {
    REQUIRE(detail::set_gemm_isa(isa.c_str()));
    for (DType dtype : kFloatTypes) {
      CAPTURE(isa);
      CAPTURE(dtype);
      // Big enough for oneDNN's JIT kernels and both threads; row 1 of a holds NaN, row 2 inf, row 3 -inf, and
      // only row 9 of b is not zero.
      std::vector<double> va(40 * 64, 1.0), vb(64 * 48, 0.0);
      va[1 * 64 + 5] = NAN;
      va[2 * 64 + 7] = INFINITY;
      va[3 * 64 + 9] = -INFINITY;
      std::fill(vb.begin() + 9 * 48, vb.begin() + 10 * 48, 1.0);
      const Tensor a = from_vector<double>(va, {40, 64}).to(dtype), b = from_vector<double>(vb, {64, 48}).to(dtype);
      const Tensor c = mm(a, b).to(DType::Float64);
      const double* pc = c.data<double>();
      CHECK(std::isnan(pc[1 * 48 + 0]));   // NaN * 0
      CHECK(std::isnan(pc[2 * 48 + 47]));  // inf * 0
      CHECK(pc[3 * 48 + 0] == -INFINITY);  // -inf * 1, plus zeros
      CHECK(pc[0] == 1.0);
      CHECK_TENSOR_CLOSE(addmm(full({36, 48}, NAN, dtype), a.narrow(0, 4, 36), b, 0, 1), full({36, 48}, 1.0, dtype), 0, 0);
    }
  }
}

TEST_CASE("mm and addmm: large float32 products (a cached oneDNN matmul primitive) match float64 over layouts, alpha and beta") {
  // 512^3 multiply-adds is where ops/gemm_onednn.cpp leaves sgemm for the primitive; the float64 reference runs on
  // Eigen. Sums of 512 products of values in [-1, 1] (magnitudes up to ~40 after alpha): float32's error measured
  // up to 8e-5, against a bound of 1e-4 + 1e-4 |expected|.
  std::mt19937_64 rng(35);
  onednn::PrimitiveCache& cache = onednn::primitive_cache();
  const int64_t misses = cache.stats().misses;
  for (Layout la : kLayouts) {
    for (Layout lb : kLayouts) {
      CAPTURE(testing::layout_name(la));
      CAPTURE(testing::layout_name(lb));
      const Tensor a = make_operand({512, 512}, DType::Float32, la, rng);
      const Tensor b = make_operand({512, 512}, DType::Float32, lb, rng);
      const Tensor a64 = a.to(DType::Float64), b64 = b.to(DType::Float64);
      CHECK_TENSOR_CLOSE(mm(a, b), mm(a64, b64), 1e-4, 1e-4);
      const Tensor self = make_operand({512, 512}, DType::Float32, Layout::Contiguous, rng);
      CHECK_TENSOR_CLOSE(addmm(self, a, b, 0.5, -2), addmm(self.to(DType::Float64), a64, b64, 0.5, -2), 1e-4, 1e-4);
      CHECK_TENSOR_CLOSE(addmm(full({512, 512}, NAN), a, b, 0, 1), mm(a64, b64), 1e-4, 1e-4);
    }
  }
  CHECK(cache.stats().misses > misses);  // the primitive path ran
}

TEST_CASE("addmm: alpha = 0 skips the product, as BLAS and PyTorch do: an inf or NaN in mat1 or mat2 stays out") {
  EachIsa isas;
  for (const std::string& isa : isas.supported()) {
    REQUIRE(detail::set_gemm_isa(isa.c_str()));
    for (DType dtype : kFloatTypes) {
      for (int64_t m : {5, 511, 512}) {  // 512 x 512 x 512: the oneDNN build's matmul primitive
        CAPTURE(isa);
        CAPTURE(dtype);
        CAPTURE(m);
        std::vector<double> va(static_cast<size_t>(m * 512), 1.0);
        va[0] = INFINITY;
        va[512 + 3] = NAN;
        const Tensor a = from_vector<double>(va, {m, 512}).to(dtype);
        const Tensor b = ones({512, 512}, dtype), self = full({m, 512}, 2.0, dtype);
        CHECK_TENSOR_CLOSE(addmm(self, a, b, 0.5, 0), full({m, 512}, 1.0, dtype), 0, 0);
        CHECK_TENSOR_CLOSE(addmm(full({m, 512}, NAN, dtype), a, b, 0, 0), zeros({m, 512}, dtype), 0, 0);
      }
    }
  }
}

TEST_CASE("bmm: matches a triple loop per batch over layouts, empty batches and large batch counts") {
  std::mt19937_64 rng(32);
  const Shape shapes[][2] = {{{3, 4, 5}, {3, 5, 6}}, {{1, 7, 3}, {1, 3, 2}}, {{0, 2, 3}, {0, 3, 4}},
                             {{2, 0, 3}, {2, 3, 4}}, {{2, 3, 0}, {2, 0, 4}}, {{64, 20, 30}, {64, 30, 40}}};
  for (const auto& pair : shapes) {
    for (Layout la : kLayouts) {
      for (Layout lb : kLayouts) {
        for (DType dtype : kFloatTypes) {
          CAPTURE(pair[0]);
          CAPTURE(pair[1]);
          CAPTURE(testing::layout_name(la));
          CAPTURE(testing::layout_name(lb));
          CAPTURE(dtype);
          const Tensor a = make_operand(pair[0], dtype, la, rng), b = make_operand(pair[1], dtype, lb, rng);
          CHECK_TENSOR_CLOSE(bmm(a, b), reference_product(a, b), tol(dtype), tol(dtype));
        }
      }
    }
  }
}

TEST_CASE("matmul: follows torch.matmul's 1-D, 2-D and broadcast batch rules") {
  std::mt19937_64 rng(33);
  struct Case {
    Shape a, b, expected;
  };
  // Expected shapes as torch.matmul gives them.
  const Case cases[] = {{{3}, {3}, {}},
                        {{2, 3}, {3}, {2}},
                        {{3}, {3, 4}, {4}},
                        {{2, 3}, {3, 4}, {2, 4}},
                        {{2, 3, 4}, {4}, {2, 3}},
                        {{4}, {2, 4, 5}, {2, 5}},
                        {{2, 3, 4}, {4, 5}, {2, 3, 5}},
                        {{3, 4}, {2, 4, 5}, {2, 3, 5}},
                        {{7, 1, 3, 4}, {5, 4, 2}, {7, 5, 3, 2}},
                        {{2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}},
                        {{1, 3, 4}, {2, 4, 5}, {2, 3, 5}},
                        {{0, 3, 4}, {4, 5}, {0, 3, 5}},
                        {{2, 3, 0}, {0, 5}, {2, 3, 5}},
                        {{0, 3}, {3, 0}, {0, 0}},
                        {{4, 30, 20}, {20, 70}, {4, 30, 70}}};
  for (const Case& c : cases) {
    for (Layout la : kLayouts) {
      for (Layout lb : kLayouts) {
        for (DType dtype : kFloatTypes) {
          CAPTURE(c.a);
          CAPTURE(c.b);
          CAPTURE(testing::layout_name(la));
          CAPTURE(testing::layout_name(lb));
          CAPTURE(dtype);
          const Tensor a = make_operand(c.a, dtype, la, rng), b = make_operand(c.b, dtype, lb, rng);
          const Tensor got = matmul(a, b);
          CHECK(got.shape() == c.expected);
          CHECK_TENSOR_CLOSE(got, reference_matmul(a, b, c.expected), tol(dtype), tol(dtype));
          CHECK_TENSOR_CLOSE(a.matmul(b), reference_matmul(a, b, c.expected), tol(dtype), tol(dtype));
        }
      }
    }
  }
}

TEST_CASE("addmm: beta * self + alpha * (mat1 @ mat2), self broadcast, beta = 0 ignores self") {
  std::mt19937_64 rng(34);
  const Shape selves[] = {{5, 7}, {7}, {1, 7}, {5, 1}, {}, {1, 1}};
  const double scales[][2] = {{1, 1}, {0.5, 2}, {0, 1}, {-1, 0.25}};
  for (const Shape& self_shape : selves) {
    for (const auto& scale : scales) {
      for (Layout layout : kLayouts) {
        for (DType dtype : kFloatTypes) {
          CAPTURE(self_shape);
          CAPTURE(scale[0]);
          CAPTURE(scale[1]);
          CAPTURE(testing::layout_name(layout));
          CAPTURE(dtype);
          const double beta = scale[0], alpha = scale[1];
          Tensor self = make_operand(self_shape, dtype, layout, rng);
          if (beta == 0) self = full(self_shape, NAN, dtype);
          const Tensor a = make_operand({5, 3}, dtype, layout, rng), b = make_operand({3, 7}, dtype, Layout::Contiguous, rng);
          const Tensor product = reference_product(a, b);
          std::vector<double> expected(35);
          for (int64_t i = 0; i < 35; ++i) {
            const double s = beta == 0 ? 0.0 : beta * broadcast_value(self, {i / 7, i % 7});
            expected[static_cast<size_t>(i)] = s + alpha * testing::element_at(product, i);
          }
          CHECK_TENSOR_CLOSE(addmm(self, a, b, beta, alpha), from_vector<double>(expected, {5, 7}), tol(dtype), tol(dtype));
        }
      }
    }
  }
  CHECK_TENSOR_CLOSE(addmm(full({2, 4}, 3.0), zeros({2, 0}), zeros({0, 4}), 2, 1), full({2, 4}, 6.0), 0, 0);
}

TEST_CASE("linear: input @ weight.T + bias for 1-D to 4-D inputs, contiguous or not") {
  std::mt19937_64 rng(35);
  const Shape inputs[] = {{6}, {4, 6}, {2, 3, 6}, {2, 2, 3, 6}, {0, 6}};
  for (const Shape& shape : inputs) {
    for (Layout layout : kLayouts) {
      for (bool with_bias : {false, true}) {
        CAPTURE(shape);
        CAPTURE(testing::layout_name(layout));
        CAPTURE(with_bias);
        const Tensor x = make_operand(shape, DType::Float32, layout, rng);
        const Tensor w = make_operand({5, 6}, DType::Float32, layout, rng);
        const Tensor bias = with_bias ? make_operand({5}, DType::Float32, Layout::Contiguous, rng) : Tensor();
        Shape out_shape(std::vector<int64_t>(shape.begin(), shape.end() - 1));
        out_shape.push_back(5);
        const Tensor product = reference_matmul(x, w.t(), out_shape);
        std::vector<double> expected(static_cast<size_t>(product.numel()));
        for (int64_t i = 0; i < product.numel(); ++i)
          expected[static_cast<size_t>(i)] = testing::element_at(product, i) + (with_bias ? testing::element_at(bias, i % 5) : 0.0);
        CHECK_TENSOR_CLOSE(linear(x, w, bias), from_vector<double>(expected, out_shape), 2e-5, 2e-5);
      }
    }
  }
}

TEST_CASE("linear: a 1-D weight gives one output per row, as torch.nn.functional.linear") {
  const Tensor x = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}), w = from_vector<float>({1, 0, -1}, {3});
  CHECK_TENSOR_CLOSE(linear(x, w), from_vector<float>({-2, -2}, {2}), 0, 0);
  CHECK_TENSOR_CLOSE(linear(w, w, scalar_tensor(1.0, DType::Float32)), scalar_tensor(3.0, DType::Float32), 0, 0);
}

// Records "name{" on entry and "}" on exit of every op, so nesting is visible.
struct Nesting : DispatchHook {
  std::string trace;
  void before(const OpCall& c) override { trace += std::string(op_info(c.op).aten_name) + "{"; }
  void after(const OpCall&, const TensorList*) override { trace += "}"; }
};

TEST_CASE("linear: dispatches aten::t and aten::addmm (or matmul and add_) inside aten::linear, as PyTorch") {
  const Tensor w = ones({5, 6}), b = ones({5});
  const Tensor x2 = ones({4, 6}), x3 = ones({2, 3, 6}), x3t = x3.transpose(0, 1);
  const auto trace = [](const auto& f) {
    Nesting hook;
    dispatch::HookGuard guard(&hook);
    f();
    return hook.trace;
  };
  CHECK(trace([&] { linear(x2, w, b); }) == "aten::linear{aten::t{}aten::addmm{}}");
  CHECK(trace([&] { linear(x3, w, b); }) == "aten::linear{aten::t{}aten::view{}aten::addmm{}aten::view{}}");
  CHECK(trace([&] { linear(x2, w); }) == "aten::linear{aten::t{}aten::matmul{}}");
  CHECK(trace([&] { linear(x3t, w, b); }) == "aten::linear{aten::t{}aten::matmul{}aten::add_{}}");
}

TEST_CASE("linear algebra: errors name the shapes and dtypes") {
  CHECK_THROWS_WITH_AS(mm(zeros({2, 3}), zeros({4, 5})), "mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
                       Error);
  CHECK_THROWS_WITH_AS(mm(zeros({2, 3}), zeros({3})), "mm: expected 2-D matrices, got mat1 of size [2, 3] and mat2 of size [3]",
                       Error);
  CHECK_THROWS_WITH_AS(mm(zeros({2, 3}), zeros({3, 4}, DType::Float64)),
                       "mm: expected both operands to have the same dtype, got torch.float32 and torch.float64", Error);
  CHECK_THROWS_WITH_AS(mm(zeros({2, 3}, DType::Int64), zeros({3, 4}, DType::Int64)),
                       "mm: expected float32, float64 or bfloat16 operands, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(matmul(zeros({2, 3}, DType::Bool), zeros({3}, DType::Bool)),
                       "matmul: expected float32, float64 or bfloat16 operands, got torch.bool", Error);
  CHECK_THROWS_WITH_AS(bmm(zeros({2, 3}), zeros({2, 3, 4})),
                       "bmm: expected 3-D tensors, got self of size [2, 3] and mat2 of size [2, 3, 4]", Error);
  CHECK_THROWS_WITH_AS(bmm(zeros({2, 2, 3}), zeros({3, 3, 4})),
                       "bmm: expected mat2 of size [2, 3, *] to multiply self of size [2, 2, 3], got [3, 3, 4]", Error);
  CHECK_THROWS_WITH_AS(matmul(scalar_tensor(1.0, DType::Float32), zeros({3})),
                       "matmul: both arguments need to be at least 1D, but they are 0D and 1D", Error);
  CHECK_THROWS_WITH_AS(matmul(zeros({3}), zeros({4})),
                       "matmul: self of size [3] and other of size [4] cannot be multiplied (3 vs 4 in the contracted "
                       "dimension)",
                       Error);
  CHECK_THROWS_WITH_AS(matmul(zeros({2, 3, 4}), zeros({5, 4, 5})),
                       doctest::Contains("matmul: shapes [2] and [5] cannot be broadcast"), Error);
  CHECK_THROWS_WITH_AS(addmm(zeros({3}), zeros({2, 3}), zeros({3, 4})),
                       "addmm: self of size [3] cannot be broadcast to the product's size [2, 4]", Error);
  CHECK_THROWS_WITH_AS(addmm(zeros({2, 4, 1}), zeros({2, 3}), zeros({3, 4})),
                       "addmm: self of size [2, 4, 1] cannot be broadcast to the product's size [2, 4]", Error);
  CHECK_THROWS_WITH_AS(addmm(zeros({4}, DType::Float64), zeros({2, 3}), zeros({3, 4})),
                       "addmm: expected self to have dtype torch.float32 like mat1, got torch.float64", Error);
  CHECK_THROWS_WITH_AS(linear(zeros({2, 3}), zeros({4, 5}), zeros({4})),
                       "addmm: mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)", Error);
}

}  // namespace
}  // namespace tl
