// tests/ops/test_index.cpp — nonzero / argwhere, index_select and masked_select against naive
// references (one element at a time) over odd and empty shapes, every layout and dtype, broadcast
// masks, int32 / int64 / 0-d / strided indices, multi-chunk inputs and the error messages.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::broadcast_value;
using testing::element_at;
using testing::kAllDTypes;
using testing::kLayouts;
using testing::Layout;
using testing::make_input;
using testing::ravel;
using testing::unravel;

void set_element(const Tensor& t, int64_t flat, double value) {
  const std::vector<int64_t> index = unravel(flat, t.shape());
  int64_t offset = 0;
  for (int64_t d = 0; d < t.dim(); ++d) offset += index[static_cast<size_t>(d)] * t.strides()[d];
  char* p = static_cast<char*>(t.raw_data()) + offset * t.element_size();
  TL_DISPATCH_ALL_TYPES(t.dtype(), "set_element", [&] { *reinterpret_cast<scalar_t*>(p) = static_cast<scalar_t>(value); });
}

// Nonzero (1, -2 or NaN) with probability `density`, else zero (0.0 or -0.0, which is zero too).
Tensor sparse_input(const Shape& shape, DType dtype, Layout layout, std::mt19937_64& rng, double density = 0.5) {
  Tensor t = make_input(shape, dtype, layout, rng);
  const double kNonzero[] = {1.0, -2.0, std::numeric_limits<double>::quiet_NaN()};
  std::bernoulli_distribution hit(density), negative_zero(0.5);
  std::uniform_int_distribution<int> pick(0, is_floating_point(dtype) ? 2 : 1);
  for (int64_t flat = 0; flat < t.numel(); ++flat)
    set_element(t, flat, hit(rng) ? kNonzero[pick(rng)] : negative_zero(rng) ? -0.0 : 0.0);
  return t;
}

// The reference nonzero: (n, rank) coordinates in row-major order.
Tensor reference_nonzero(const Tensor& x) {
  std::vector<int64_t> coords;
  int64_t n = 0;
  for (int64_t flat = 0; flat < x.numel(); ++flat) {
    if (element_at(x, flat) == 0.0) continue;
    for (int64_t i : unravel(flat, x.shape())) coords.push_back(i);
    ++n;
  }
  return from_vector<int64_t>(coords, {n, x.dim()});
}

const Shape kShapes[] = {{}, {7}, {0}, {3, 5}, {4, 0, 3}, {2, 3, 5}, {5, 1, 33}, {2, 3, 1, 4}};

TEST_CASE("nonzero and argwhere: match a reference over shapes, layouts and dtypes") {
  std::mt19937_64 rng(11);
  for (const Shape& shape : kShapes) {
    for (Layout layout : kLayouts) {
      for (DType dtype : kAllDTypes) {
        CAPTURE(shape);
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        const Tensor x = sparse_input(shape, dtype, layout, rng, 0.4);
        const Tensor expected = reference_nonzero(x);
        const Tensor got = x.nonzero();
        CHECK(got.dtype() == DType::Int64);
        CHECK_TENSOR_CLOSE(got, expected, 0, 0);
        CHECK_TENSOR_CLOSE(argwhere(x), expected, 0, 0);
        const std::vector<Tensor> columns = nonzero_tuple(x);
        REQUIRE(static_cast<int64_t>(columns.size()) == std::max<int64_t>(x.dim(), 1));
        for (int64_t d = 0; d < x.dim(); ++d) {
          std::vector<int64_t> column;
          for (int64_t k = 0; k < expected.size(0); ++k) column.push_back(static_cast<int64_t>(element_at(expected, k * x.dim() + d)));
          CHECK_TENSOR_CLOSE(columns[static_cast<size_t>(d)], from_vector<int64_t>(column, {expected.size(0)}), 0, 0);
        }
      }
    }
  }
}

TEST_CASE("nonzero: large inputs split into chunks keep row-major order") {
  std::mt19937_64 rng(12);
  // Densities on both sides of the switch between the branch-free and the branching fill.
  for (const Shape& shape : {Shape{130, 41, 50}, Shape{200001}}) {
    for (Layout layout : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      for (double density : {0.03, 0.5}) {
        CAPTURE(shape);
        CAPTURE(density);
        CAPTURE(testing::layout_name(layout));
        const Tensor x = sparse_input(shape, DType::Bool, layout, rng, density);
        CHECK_TENSOR_CLOSE(nonzero(x), reference_nonzero(x), 0, 0);
      }
    }
  }
  const Tensor dense = ones({40, 50, 60}, DType::Bool);
  const Tensor all = dense.nonzero();
  REQUIRE(all.shape() == Shape{40 * 50 * 60, 3});
  CHECK_TENSOR_CLOSE(all, reference_nonzero(dense), 0, 0);
}

TEST_CASE("nonzero: 0-d inputs give (n, 0), or one column with as_tuple") {
  CHECK(scalar_tensor(3.0, DType::Float32).nonzero().shape() == Shape{1, 0});
  CHECK(scalar_tensor(0.0, DType::Float32).nonzero().shape() == Shape{0, 0});
  const std::vector<Tensor> columns = nonzero_tuple(scalar_tensor(3.0, DType::Float32));
  REQUIRE(columns.size() == 1);
  CHECK_TENSOR_CLOSE(columns[0], from_vector<int64_t>({0}, {1}), 0, 0);
  CHECK(zeros({2, 0}).nonzero().shape() == Shape{0, 2});
}

// The reference index_select: output element (.., k, ..) is x(.., index[k], ..).
Tensor reference_index_select(const Tensor& x, int64_t dim, const std::vector<int64_t>& index) {
  Shape shape = x.shape();
  shape[dim] = static_cast<int64_t>(index.size());
  std::vector<double> out(static_cast<size_t>(numel_of(shape)));
  for (int64_t flat = 0; flat < numel_of(shape); ++flat) {
    std::vector<int64_t> at = unravel(flat, shape);
    at[static_cast<size_t>(dim)] = index[static_cast<size_t>(at[static_cast<size_t>(dim)])];
    out[static_cast<size_t>(flat)] = element_at(x, ravel(at, x.shape()));
  }
  return from_vector<double>(out, shape);
}

// `values` as an int64 or int32 index: contiguous, 0-d (one value) or every other element of a wider tensor.
Tensor make_index(const std::vector<int64_t>& values, DType dtype, bool strided, bool zero_dim) {
  const int64_t n = static_cast<int64_t>(values.size());
  if (zero_dim) return from_vector<int64_t>(values, {}).to(dtype);
  if (!strided) return from_vector<int64_t>(values, {n}).to(dtype);
  std::vector<int64_t> wide(static_cast<size_t>(2 * n + 1), -1);
  for (int64_t k = 0; k < n; ++k) wide[static_cast<size_t>(2 * k + 1)] = values[static_cast<size_t>(k)];
  return from_vector<int64_t>(wide, {2 * n + 1}).to(dtype).slice(0, 1, std::nullopt, 2);
}

TEST_CASE("index_select: matches a reference over dims, index kinds, layouts and dtypes") {
  std::mt19937_64 rng(13);
  const Shape shapes[] = {{7}, {3, 5}, {4, 0, 3}, {2, 3, 5}, {5, 1, 33}, {2, 3, 1, 4}};
  for (const Shape& shape : shapes) {
    for (Layout layout : kLayouts) {
      for (DType dtype : kAllDTypes) {
        const Tensor x = make_input(shape, dtype, layout, rng);
        for (int64_t dim = -shape.size(); dim < shape.size(); ++dim) {
          const int64_t d = dim < 0 ? dim + shape.size() : dim;
          std::uniform_int_distribution<int64_t> pick(0, std::max<int64_t>(shape[d] - 1, 0));
          for (int64_t n : {0, 1, 4, 9}) {
            if (shape[d] == 0 && n > 0) continue;
            std::vector<int64_t> values(static_cast<size_t>(n));
            for (int64_t& v : values) v = pick(rng);
            for (DType index_dtype : {DType::Int64, DType::Int32}) {
              for (int kind = 0; kind < 3; ++kind) {
                if (kind == 2 && n != 1) continue;
                CAPTURE(shape);
                CAPTURE(dtype);
                CAPTURE(dim);
                CAPTURE(n);
                CAPTURE(kind);
                CAPTURE(testing::layout_name(layout));
                const Tensor index = make_index(values, index_dtype, kind == 1, kind == 2);
                const Tensor got = x.index_select(dim, index);
                CHECK(got.dtype() == dtype);
                CHECK_TENSOR_CLOSE(got, reference_index_select(x, d, values), 0, 0);
              }
            }
          }
        }
      }
    }
  }
  const Tensor big = testing::random_tensor({300, 257}, DType::Float32, rng);
  std::vector<int64_t> rows(500);
  for (size_t k = 0; k < rows.size(); ++k) rows[k] = static_cast<int64_t>((k * 37) % 300);
  CHECK_TENSOR_CLOSE(index_select(big, 0, make_index(rows, DType::Int64, false, false)),
                     reference_index_select(big, 0, rows), 0, 0);
  CHECK_TENSOR_CLOSE(index_select(big.t(), 1, make_index(rows, DType::Int32, true, false)),
                     reference_index_select(big.t(), 1, rows), 0, 0);
}

TEST_CASE("index_select: a 0-d self stays 0-d") {
  const Tensor x = scalar_tensor(5.0, DType::Float32);
  CHECK_TENSOR_CLOSE(x.index_select(0, from_vector<int64_t>({0, 0}, {2})), x, 0, 0);
  CHECK(x.index_select(-1, from_vector<int64_t>({0}, {})).shape() == Shape{});
}

// The reference masked_select over the broadcast shape of x and mask.
Tensor reference_masked_select(const Tensor& x, const Tensor& mask) {
  const Shape shape = broadcast_shapes(x.shape(), mask.shape(), "reference");
  std::vector<double> out;
  for (int64_t flat = 0; flat < numel_of(shape); ++flat) {
    const std::vector<int64_t> at = unravel(flat, shape);
    if (broadcast_value(mask, at) != 0.0) out.push_back(broadcast_value(x, at));
  }
  return from_vector<double>(out, {static_cast<int64_t>(out.size())});
}

TEST_CASE("masked_select: matches a reference with broadcasting, layouts and dtypes") {
  std::mt19937_64 rng(14);
  struct Case {
    Shape self, mask;
  };
  const Case cases[] = {{{3, 5}, {3, 5}}, {{3, 5}, {5}},    {{2, 1, 5}, {3, 1}}, {{}, {4}},
                        {{4}, {}},        {{0, 3}, {3}},    {{2, 3, 5}, {2, 3, 5}}, {{}, {}},
                        {{5, 1, 33}, {1, 7, 1}}, {{400, 300}, {400, 300}}};
  for (const Case& c : cases) {
    for (Layout layout : kLayouts) {
      for (DType dtype : kAllDTypes) {
        if (numel_of(c.self) > 1000 && dtype != DType::Float32) continue;
        CAPTURE(c.self);
        CAPTURE(c.mask);
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        const Tensor x = make_input(c.self, dtype, layout, rng);
        const Tensor mask = make_input(c.mask, DType::Bool, layout, rng);
        const Tensor got = x.masked_select(mask);
        CHECK(got.dtype() == dtype);
        CHECK_TENSOR_CLOSE(got, reference_masked_select(x, mask), 0, 0);
      }
    }
  }
}

TEST_CASE("index ops: errors name the offending values") {
  const Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(x.index_select(1, from_vector<int64_t>({0, 3}, {2})),
                       "index_select: index 3 is out of bounds for dimension 1 with size 3", Error);
  CHECK_THROWS_WITH_AS(x.index_select(0, from_vector<int32_t>({-1}, {1})),
                       "index_select: index -1 is out of bounds for dimension 0 with size 2", Error);
  CHECK_THROWS_WITH_AS(x.index_select(1, zeros({1})), "index_select: expected an int64 or int32 index, got torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(x.index_select(1, zeros({1, 1}, DType::Int64)),
                       "index_select: index is supposed to be a vector, got size [1, 1]", Error);
  CHECK_THROWS_WITH_AS(x.index_select(2, zeros({1}, DType::Int64)),
                       doctest::Contains("index_select: dimension out of range"), Error);
  CHECK_THROWS_WITH_AS(zeros({2, 0}).index_select(1, zeros({1}, DType::Int64)),
                       "index_select: index 0 is out of bounds for dimension 1 with size 0", Error);
  CHECK_THROWS_WITH_AS(x.masked_select(zeros({3}, DType::Int64)), "masked_select: expected a bool mask, got torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(x.masked_select(zeros({2}, DType::Bool)),
                       doctest::Contains("masked_select: shapes [2, 3] and [2] cannot be broadcast"), Error);
}

}  // namespace
}  // namespace tl
