// tests/ops/test_reduce.cpp — sum, mean, max, min and argmax against naive references (one element
// at a time, in double) over odd and empty shapes, every dim, both keepdims, every layout and dtype;
// plus the block-split paths, determinism across thread counts, accuracy and the error messages.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/parallel.h"
#include "ops/lane_loops.h"
#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::element_at;
using testing::kAllDTypes;
using testing::kLayouts;
using testing::Layout;
using testing::make_input;
using testing::ravel;
using testing::unravel;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Output position of input element `index` when the flagged dims are reduced.
int64_t output_flat(const std::vector<int64_t>& index, const Shape& shape, const std::vector<bool>& reduce) {
  int64_t o = 0;
  for (int64_t d = 0; d < shape.size(); ++d)
    if (!reduce[static_cast<size_t>(d)]) o = o * shape[d] + index[static_cast<size_t>(d)];
  return o;
}

Shape expected_shape(const Shape& shape, const std::vector<bool>& reduce, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (!reduce[static_cast<size_t>(d)]) out.push_back(shape[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

// Writes `value` (converted) to element `flat` of `t`, through its strides.
void set_element(const Tensor& t, int64_t flat, double value) {
  const std::vector<int64_t> index = unravel(flat, t.shape());
  int64_t offset = 0;
  for (int64_t d = 0; d < t.dim(); ++d) offset += index[static_cast<size_t>(d)] * t.strides()[d];
  char* p = static_cast<char*>(t.raw_data()) + offset * t.element_size();
  TL_DISPATCH_ALL_TYPES(t.dtype(), "set_element", [&] { *reinterpret_cast<scalar_t*>(p) = static_cast<scalar_t>(value); });
}

// Reference sum (or mean) in double over the flagged dims.
Tensor reference_sum(const Tensor& x, const std::vector<bool>& reduce, bool keepdim, bool mean) {
  const Shape out_shape = expected_shape(x.shape(), reduce, keepdim);
  std::vector<double> acc(static_cast<size_t>(numel_of(out_shape)), 0.0);
  for (int64_t flat = 0; flat < x.numel(); ++flat)
    acc[static_cast<size_t>(output_flat(unravel(flat, x.shape()), x.shape(), reduce))] += element_at(x, flat);
  if (mean) {
    const double count = acc.empty() ? 0.0 : static_cast<double>(x.numel()) / static_cast<double>(acc.size());
    for (double& v : acc) v /= count;
  }
  return from_vector<double>(acc, out_shape);
}

struct ArgResult {
  Tensor values, indices;
};

// Reference max/min with the index of the first occurrence; a NaN beats everything, the first one wins.
ArgResult reference_extreme(const Tensor& x, const std::vector<bool>& reduce, bool keepdim, bool is_max) {
  const Shape out_shape = expected_shape(x.shape(), reduce, keepdim);
  const size_t n = static_cast<size_t>(numel_of(out_shape));
  std::vector<double> best(n);
  std::vector<int64_t> where(n, -1), seen(n, 0);
  for (int64_t flat = 0; flat < x.numel(); ++flat) {
    const std::vector<int64_t> index = unravel(flat, x.shape());
    const size_t o = static_cast<size_t>(output_flat(index, x.shape(), reduce));
    const double v = element_at(x, flat);
    const bool better = std::isnan(v) || (is_max ? v > best[o] : v < best[o]);
    if (seen[o] == 0 || (!std::isnan(best[o]) && better)) best[o] = v, where[o] = seen[o];
    ++seen[o];
  }
  return {from_vector<double>(best, out_shape), from_vector<int64_t>(where, out_shape)};
}

// Every way to name dims of a rank-`rank` tensor: none, each one (both signs), each pair, all.
std::vector<Shape> dim_lists(int64_t rank) {
  std::vector<Shape> lists = {Shape{}};
  for (int64_t d = 0; d < rank; ++d) {
    lists.push_back({d});
    lists.push_back({d - rank});
  }
  for (int64_t a = 0; a < rank; ++a)
    for (int64_t b = a + 1; b < rank; ++b) lists.push_back({b - rank, a});
  if (rank > 2) {
    Shape all;
    for (int64_t d = 0; d < rank; ++d) all.push_back(d);
    lists.push_back(all);
  }
  return lists;
}

std::vector<bool> flags(const Shape& dims, int64_t rank) {
  std::vector<bool> reduce(static_cast<size_t>(rank), dims.empty());
  for (int64_t d : dims) reduce[static_cast<size_t>(d < 0 ? d + rank : d)] = true;
  return reduce;
}

// A tensor of `shape` in `layout` holding few distinct values (many ties), with NaNs if asked.
Tensor tie_heavy(const Shape& shape, DType dtype, Layout layout, std::mt19937_64& rng, bool nans) {
  Tensor t = make_input(shape, dtype, layout, rng, -3, 3);
  std::uniform_int_distribution<int> value(-2, 2), rare(0, 9);
  for (int64_t flat = 0; flat < t.numel(); ++flat) {
    if (dtype == DType::Bool) break;
    set_element(t, flat, nans && rare(rng) == 0 ? kNaN : value(rng));
  }
  return t;
}

double sum_rtol(DType dtype) {
  return dtype == DType::BFloat16 ? 1e-2 : dtype == DType::Float32 ? 1e-5 : dtype == DType::Float64 ? 1e-12 : 0;
}

const Shape kShapes[] = {{}, {7}, {0}, {3, 5}, {4, 0, 3}, {2, 3, 5}, {5, 1, 33}, {3, 4, 2, 5}};

TEST_CASE("sum and mean: match a naive reference over shapes, dims, keepdim, layouts and dtypes") {
  std::mt19937_64 rng(1);
  for (const Shape& shape : kShapes) {
    for (Layout layout : kLayouts) {
      for (DType dtype : kAllDTypes) {
        const Tensor x = make_input(shape, dtype, layout, rng);
        for (const Shape& dims : dim_lists(shape.size())) {
          for (bool keepdim : {false, true}) {
            CAPTURE(shape);
            CAPTURE(dims);
            CAPTURE(keepdim);
            CAPTURE(dtype);
            CAPTURE(testing::layout_name(layout));
            const std::vector<bool> reduce = flags(dims, shape.size());
            const Tensor s = sum(x, dims, keepdim);
            CHECK(s.dtype() == (is_floating_point(dtype) ? dtype : DType::Int64));
            CHECK_TENSOR_CLOSE(s, reference_sum(x, reduce, keepdim, false), sum_rtol(dtype), sum_rtol(dtype));
            if (!is_floating_point(dtype)) continue;
            const Tensor m = mean(x, dims, keepdim);
            CHECK(m.dtype() == dtype);
            CHECK_TENSOR_CLOSE(m, reference_sum(x, reduce, keepdim, true), sum_rtol(dtype), sum_rtol(dtype));
          }
        }
        CHECK_TENSOR_CLOSE(x.sum(), reference_sum(x, flags({}, shape.size()), false, false), sum_rtol(dtype),
                           sum_rtol(dtype));
      }
    }
  }
}

TEST_CASE("sum and mean: large reductions split into blocks (inner, vertical and full)") {
  std::mt19937_64 rng(2);
  struct Case {
    Shape shape;
    Shape dims;
  };
  const Case cases[] = {{{3, 40001}, {1}}, {{40001, 3}, {0}}, {{50001}, {}}, {{200, 70, 5}, {0, 2}},
                        {{2, 3000, 67}, {1}}, {{129, 1000}, {0}}};
  for (const Case& c : cases) {
    for (Layout layout : kLayouts) {
      for (DType dtype : {DType::Float32, DType::Int64, DType::Float64}) {
        if (dtype != DType::Float32 && layout != Layout::Contiguous) continue;
        CAPTURE(c.shape);
        CAPTURE(c.dims);
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        const Tensor x = make_input(c.shape, dtype, layout, rng);
        const std::vector<bool> reduce = flags(c.dims, c.shape.size());
        const Tensor expected = reference_sum(x, reduce, true, false);
        const Tensor total = sum(x, c.dims, true);
        CHECK_TENSOR_CLOSE(total, expected, 1e-5, 1e-3);
        if (dtype == DType::Int64) continue;
        const Tensor m = mean(x, c.dims, true);
        const double count = static_cast<double>(x.numel() / std::max<int64_t>(total.numel(), 1));
        for (int64_t i = 0; i < m.numel(); ++i)
          CHECK(std::fabs(element_at(m, i) - element_at(expected, i) / count) <= 1e-6 + 1e-5 * std::fabs(element_at(m, i)));
      }
    }
  }
}

// A vertical pass takes rows up to 1024 wide, but each output's order of additions is fixed by the shape's blocks of
// rows alone: the sum of a 64-column slice (a pass of 64) gives the same bits as the whole row's.
TEST_CASE("sum, amax and prod: a wide vertical pass gives the bits of 64-column slices") {
  std::mt19937_64 rng(4);
  for (const Shape& shape : {Shape{100, 1024}, Shape{600, 1088}, Shape{3, 300, 1088}}) {
    CAPTURE(shape);
    const Tensor x = testing::random_tensor(shape, DType::Float32, rng, 0.9, 1.1);  // products stay finite
    const int64_t along = x.dim() - 2, last = x.dim() - 1;
    const Tensor whole_sum = x.sum({along}), whole_max = x.amax({along}), whole_prod = x.prod(along);
    for (int64_t j = 0; j < x.size(last); j += 64) {
      const Tensor slice = x.narrow(last, j, 64);
      CHECK_TENSOR_CLOSE(slice.sum({along}), whole_sum.narrow(last - 1, j, 64), 0, 0);
      CHECK_TENSOR_CLOSE(slice.amax({along}), whole_max.narrow(last - 1, j, 64), 0, 0);
      CHECK_TENSOR_CLOSE(slice.prod(along), whole_prod.narrow(last - 1, j, 64), 0, 0);
    }
  }
}

// pairwise_sum's tree as a recursion: [0, n) split at n / 2 rounded down to kLanes until a half has kLeaf elements.
float recursive_pairwise(const float* p, int64_t n) {
  if (n <= detail::kLeaf) {
    float sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += p[i];
    return sum;
  }
  const int64_t half = n / 2 / detail::kLanes * detail::kLanes;
  return recursive_pairwise(p, half) + recursive_pairwise(p + half, n - half);
}

TEST_CASE("pairwise_sum: the tree of halves of the recursion it unrolls, leaves left to right") {
  std::mt19937_64 rng(6);
  std::uniform_real_distribution<float> unit(-1, 1);
  std::uniform_int_distribution<int> exponent(-20, 20);
  std::vector<float> v(300000);
  for (float& x : v) x = std::ldexp(unit(rng), exponent(rng));  // magnitudes apart: another tree gives other bits
  const auto leaf = [](const float* run, int64_t len) {
    float sum = 0;
    for (int64_t i = 0; i < len; ++i) sum += run[i];
    return sum;
  };
  for (int64_t n : {0, 1, 1024, 1025, 2048, 5000, 16384, 16385, 99999, 300000}) {
    CAPTURE(n);
    CHECK(detail::pairwise_sum<float>(v.data(), n, 1, leaf) == recursive_pairwise(v.data(), n));
  }
}

TEST_CASE("sum: float32 accumulation stays accurate and does not depend on the thread count") {
  const int64_t n = int64_t{1} << 22;
  const Tensor tenth = full({n}, 0.1);
  const double exact = static_cast<double>(n) * static_cast<double>(0.1f);
  CHECK(std::fabs(tenth.sum().item<double>() - exact) / exact < 1e-6);
  std::mt19937_64 rng(3);
  const Tensor x = testing::random_tensor({3, int64_t{1} << 20}, DType::Float32, rng);
  const int threads = get_num_threads();
  set_num_threads(1);
  const Tensor one_all = x.sum(), one_rows = x.sum({1}), one_cols = x.sum({0});
  set_num_threads(2);
  const Tensor two_all = x.sum(), two_rows = x.sum({1}), two_cols = x.sum({0});
  set_num_threads(threads);
  CHECK(one_all.item<double>() == two_all.item<double>());
  CHECK_TENSOR_CLOSE(one_rows, two_rows, 0, 0);
  CHECK_TENSOR_CLOSE(one_cols, two_cols, 0, 0);
}

TEST_CASE("max, min and argmax: match a reference with ties and NaNs over dims, layouts and dtypes") {
  std::mt19937_64 rng(4);
  for (const Shape& shape : kShapes) {
    for (Layout layout : kLayouts) {
      for (DType dtype : kAllDTypes) {
        const Tensor x = tie_heavy(shape, dtype, layout, rng, is_floating_point(dtype));
        CAPTURE(shape);
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        const int64_t rank = shape.size();
        for (int64_t dim = -std::max<int64_t>(rank, 1); dim < std::max<int64_t>(rank, 1); ++dim) {
          const int64_t d = dim < 0 ? dim + std::max<int64_t>(rank, 1) : dim;
          if (rank > 0 && shape[d] == 0) continue;
          std::vector<bool> reduce(static_cast<size_t>(rank), false);
          if (rank > 0) reduce[static_cast<size_t>(d)] = true;
          for (bool keepdim : {false, true}) {
            CAPTURE(dim);
            CAPTURE(keepdim);
            const auto [vmax, imax] = max(x, dim, keepdim);
            const ArgResult rmax = reference_extreme(x, reduce, keepdim, true);
            CHECK(vmax.dtype() == dtype);
            CHECK_TENSOR_CLOSE(vmax, rmax.values, 0, 0);
            CHECK_TENSOR_CLOSE(imax, rmax.indices, 0, 0);
            const auto [vmin, imin] = x.min(dim, keepdim);
            const ArgResult rmin = reference_extreme(x, reduce, keepdim, false);
            CHECK_TENSOR_CLOSE(vmin, rmin.values, 0, 0);
            CHECK_TENSOR_CLOSE(imin, rmin.indices, 0, 0);
            if (dtype != DType::Bool) CHECK_TENSOR_CLOSE(argmax(x, dim, keepdim), rmax.indices, 0, 0);
          }
        }
        if (x.numel() == 0) continue;
        const std::vector<bool> all(static_cast<size_t>(rank), true);
        CHECK_TENSOR_CLOSE(x.max(), reference_extreme(x, all, false, true).values, 0, 0);
        CHECK_TENSOR_CLOSE(min(x), reference_extreme(x, all, false, false).values, 0, 0);
        if (dtype != DType::Bool) CHECK_TENSOR_CLOSE(x.argmax(), reference_extreme(x, all, false, true).indices, 0, 0);
      }
    }
  }
}

TEST_CASE("max and argmax: large and vertical reductions keep the first index of ties") {
  std::mt19937_64 rng(5);
  const Shape shapes[] = {{3, 40001}, {40001, 3}, {100, 700}, {50001}};
  for (const Shape& shape : shapes) {
    for (Layout layout : {Layout::Contiguous, Layout::Transposed}) {
      const Tensor x = tie_heavy(shape, DType::Float32, layout, rng, false);
      CAPTURE(shape);
      CAPTURE(testing::layout_name(layout));
      for (int64_t dim = 0; dim < shape.size(); ++dim) {
        std::vector<bool> reduce(static_cast<size_t>(shape.size()), false);
        reduce[static_cast<size_t>(dim)] = true;
        const auto [values, indices] = x.max(dim);
        const ArgResult ref = reference_extreme(x, reduce, false, true);
        CHECK_TENSOR_CLOSE(values, ref.values, 0, 0);
        CHECK_TENSOR_CLOSE(indices, ref.indices, 0, 0);
      }
      const std::vector<bool> all(static_cast<size_t>(shape.size()), true);
      CHECK_TENSOR_CLOSE(x.argmax(), reference_extreme(x, all, false, true).indices, 0, 0);
    }
  }
}

TEST_CASE("max, min and argmax: NaN propagates and its first index is reported") {
  const Tensor x = from_vector<float>({1, NAN, 3, NAN}, {4});
  CHECK(std::isnan(x.max().item<double>()));
  CHECK(std::isnan(x.min().item<double>()));
  CHECK(x.argmax().item<int64_t>() == 1);
  const auto [values, indices] = x.min(0);
  CHECK(std::isnan(values.item<double>()));
  CHECK(indices.item<int64_t>() == 1);
  const Tensor y = from_vector<double>({3, 3, 1, 5, 5, 0}, {2, 3});
  CHECK_TENSOR_CLOSE(y.argmax(1), from_vector<int64_t>({0, 0}, {2}), 0, 0);
  CHECK_TENSOR_CLOSE(argmax(y, 1, true), from_vector<int64_t>({0, 0}, {2, 1}), 0, 0);
}

TEST_CASE("max and min along a dim: torch.return_types' named pairs, destructurable, printed as PyTorch") {
  const Tensor x = from_vector<float>({1, 5, 2, 4, 0, 3}, {2, 3});
  const return_types::max m = x.max(1);
  CHECK_TENSOR_CLOSE(m.values, from_vector<float>({5, 4}, {2}), 0, 0);
  CHECK_TENSOR_CLOSE(m.indices, from_vector<int64_t>({1, 0}, {2}), 0, 0);
  const auto [values, indices] = min(x, 0);
  CHECK_TENSOR_CLOSE(values, from_vector<float>({1, 0, 2}, {3}), 0, 0);
  CHECK_TENSOR_CLOSE(indices, from_vector<int64_t>({0, 1, 0}, {3}), 0, 0);
  // PyTorch 1.13: x = torch.tensor([[1., 5., 2.], [4., 0., 3.]]); print(x.max(1)); print(x.min(0))
  std::ostringstream printed;
  printed << m << "\n" << x.min(0);
  CHECK(printed.str() ==
        "torch.return_types.max(\nvalues=tensor([5., 4.]),\nindices=tensor([1, 0]))\n"
        "torch.return_types.min(\nvalues=tensor([1., 0., 2.]),\nindices=tensor([0, 1, 0]))");
}

TEST_CASE("reductions: full reductions honour keepdim, empty sums and means give 0 and NaN") {
  const Tensor x = zeros({2, 0});
  CHECK_TENSOR_CLOSE(x.sum(), scalar_tensor(0.0, DType::Float32), 0, 0);
  CHECK_TENSOR_CLOSE(mean(x, {1}), full({2}, NAN), 0, 0);
  CHECK(sum(ones({2, 3}), {}, true).shape() == Shape{1, 1});
  CHECK(sum(ones({2, 3}, DType::Bool)).item<int64_t>() == 6);
  CHECK(max(ones({4}), 0, true).values.shape() == Shape{1});
  CHECK(scalar_tensor(5.0, DType::Float32).max(0).indices.item<int64_t>() == 0);
  CHECK(scalar_tensor(5.0, DType::Float32).sum({0}, true).shape() == Shape{});
}

TEST_CASE("sum and mean: a dtype converts the input first and gives a result of that dtype") {
  manual_seed(31);
  const Tensor x = randn({3, 4, 5});
  const Tensor wide = x.to(DType::Float64);
  CHECK_TENSOR_CLOSE(sum(x, {1, 2}, false, DType::Float64), sum(wide, {1, 2}), 0, 0);
  CHECK_TENSOR_CLOSE(mean(x, {0}, true, DType::Float64), mean(wide, {0}, true), 0, 0);
  const Tensor ints = ones({2, 3}, DType::Int32);
  const Tensor narrow = sum(ints, {1}, false, DType::Int32);
  CHECK(narrow.dtype() == DType::Int32);
  CHECK_TENSOR_CLOSE(narrow, sum(ints, {1}).to(DType::Int32), 0, 0);
  CHECK_TENSOR_CLOSE(mean(ints, {1}, false, DType::Float32), mean(ints.to(DType::Float32), {1}), 0, 0);
  CHECK_THROWS_WITH_AS(mean(x, {0}, false, DType::Int64),
                       "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
                       "complex dtype. Got: Long",
                       Error);
}

TEST_CASE("reductions: errors name the op and the offending values") {
  CHECK_THROWS_WITH_AS(mean(zeros({2, 3}, DType::Int64)),
                       "mean(): could not infer output dtype. Input dtype must be either a floating point or "
                       "complex dtype. Got: Long",
                       Error);
  CHECK_THROWS_WITH_AS(zeros({2, 3}, DType::Bool).mean({0}), doctest::Contains("Got: Bool"), Error);
  CHECK_THROWS_WITH_AS(sum(zeros({2, 3}), {0, -2}),
                       "sum: dim 0 appears multiple times in the list of dims [0, -2]", Error);
  CHECK_THROWS_WITH_AS(sum(zeros({2, 3}), {2}),
                       "sum: dimension out of range (expected to be in range of [-2, 1], but got 2)", Error);
  CHECK_THROWS_WITH_AS(max(zeros({2, 3}), -3), doctest::Contains("max: dimension out of range"), Error);
  CHECK_THROWS_WITH_AS(zeros({0, 3}).max(), doctest::Contains("max: expected reduction dim to be specified"), Error);
  CHECK_THROWS_WITH_AS(zeros({0, 3}).min(), doctest::Contains("input of size [0, 3]"), Error);
  CHECK_THROWS_WITH_AS(argmax(zeros({0})), doctest::Contains("argmax: expected reduction dim"), Error);
  CHECK_THROWS_WITH_AS(zeros({0, 3}).max(0),
                       "max: expected reduction dim 0 to have non-zero size, got input of size [0, 3]", Error);
  CHECK_THROWS_WITH_AS(zeros({3, 0}).argmax(-1), doctest::Contains("argmax: expected reduction dim 1"), Error);
  CHECK_THROWS_WITH_AS(argmax(zeros({3}, DType::Bool)), "argmax: not implemented for torch.bool", Error);
  CHECK(zeros({0, 3}).max(1).values.shape() == Shape{0});
}

}  // namespace
}  // namespace tl
