// tests/ops/test_view.cpp — view ops against plain index arithmetic: view's stride rule against a brute-force
// search, reshape's copy fallback, slice against Python's rules, and proof that every view aliases its base.
#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::element_at;

// 0, 1, 2, ... in row-major order, so a value names the element it came from.
Tensor iota(const Shape& shape, DType dtype = DType::Float32) {
  std::vector<double> v(static_cast<size_t>(numel_of(shape)));
  std::iota(v.begin(), v.end(), 0.0);
  return from_vector<double>(v, shape).to(dtype);
}

// Offset in elements of each element of `t`, in row-major order.
std::vector<int64_t> offsets(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t flat = 0; flat < t.numel(); ++flat) {
    int64_t offset = t.storage_offset();
    for (int64_t d = t.dim() - 1, rest = flat; d >= 0; --d) {
      offset += (rest % t.shape()[d]) * t.strides()[d];
      rest /= t.shape()[d];
    }
    out.push_back(offset);
  }
  return out;
}

// Brute force: `shape` can view `t` iff the strides read off unit steps reproduce every offset.
bool viewable(const Tensor& t, const Shape& shape) {
  const std::vector<int64_t> old = offsets(t);
  if (old.empty()) return true;
  Strides strides(static_cast<size_t>(shape.size()), 0);
  int64_t step = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] > 1) strides[d] = old[static_cast<size_t>(step)] - old[0];
    step *= shape[d];
  }
  for (int64_t flat = 0; flat < static_cast<int64_t>(old.size()); ++flat) {
    int64_t offset = old[0];
    for (int64_t d = shape.size() - 1, rest = flat; d >= 0; --d) {
      offset += (rest % shape[d]) * strides[d];
      rest /= shape[d];
    }
    if (offset != old[static_cast<size_t>(flat)]) return false;
  }
  return true;
}

// Writes -1 through `view` and checks that exactly its elements of `base` changed.
void check_aliases(const Tensor& base, Tensor view) {
  CHECK(view.storage() == base.storage());
  const std::vector<int64_t> touched = offsets(view);
  view.copy_(full(view.shape(), -1.0, view.dtype()));
  for (int64_t i = 0; i < base.numel(); ++i) {
    const bool in_view = std::find(touched.begin(), touched.end(), i + base.storage_offset()) != touched.end();
    CAPTURE(i);
    CHECK((element_at(base, i) == -1) == in_view);
  }
}

TEST_CASE("view: succeeds exactly when the brute-force search finds strides") {
  const Shape bases[] = {{24}, {2, 3, 4}, {4, 6}};
  const Shape targets[] = {{24}, {4, 6}, {6, 4}, {2, 12}, {2, 3, 4}, {3, 8}, {1, 24, 1}, {2, 2, 6}, {4, 3, 2}, {12, 2}};
  std::vector<Tensor> inputs;
  for (const Shape& s : bases) {
    const Tensor x = iota(s);
    inputs.push_back(x);
    Shape reversed;
    for (int64_t d = x.dim() - 1; d >= 0; --d) reversed.push_back(d);
    inputs.push_back(x.permute(reversed));
  }
  // Non-contiguous but partly viewable: every other row, and a broadcast row.
  inputs.push_back(iota({8, 6}).slice(0, 0, std::nullopt, 2).view({2, 2, 6}));
  inputs.push_back(iota({1, 6}).expand({4, 6}));
  inputs.push_back(iota({4, 12}).slice(1, 0, 6));
  int views = 0, refusals = 0;
  for (const Tensor& x : inputs) {
    for (const Shape& target : targets) {
      CAPTURE(x.shape());
      CAPTURE(x.strides());
      CAPTURE(target);
      if (viewable(x, target)) {
        const Tensor v = x.view(target);
        CHECK(v.shape() == target);
        CHECK(v.storage() == x.storage());
        CHECK(offsets(v) == offsets(x));
        ++views;
      } else {
        CHECK_THROWS_WITH_AS(x.view(target),
                             "view: view size is not compatible with input tensor's size and stride (at least one "
                             "dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
                             Error);
        ++refusals;
      }
    }
  }
  CHECK(views > 20);
  CHECK(refusals > 20);
}

TEST_CASE("view: -1 inference and its errors") {
  const Tensor x = iota({2, 3, 4});
  CHECK(x.view({-1}).shape() == Shape{24});
  CHECK(x.view({4, -1}).shape() == Shape{4, 6});
  CHECK(x.view({-1, 2, 2}).shape() == Shape{6, 2, 2});
  CHECK(iota({}).view({-1}).shape() == Shape{1});
  CHECK(iota({1}).view({}).dim() == 0);
  CHECK(zeros({0, 3}).view({-1}).shape() == Shape{0});
  CHECK(zeros({0, 3}).view({3, 0, 5}).shape() == Shape{3, 0, 5});
  CHECK_THROWS_WITH_AS(x.view({-1, -1}), "view: only one dimension can be inferred", Error);
  CHECK_THROWS_WITH_AS(x.view({5, -1}), "view: shape '[5, -1]' is invalid for input of size 24", Error);
  CHECK_THROWS_WITH_AS(x.view({25}), "view: shape '[25]' is invalid for input of size 24", Error);
  CHECK_THROWS_WITH_AS(x.view({-2, 12}), "view: invalid shape dimension -2", Error);
  CHECK_THROWS_WITH_AS(x.view({int64_t{1} << 62, 8, -1}), doctest::Contains("is invalid for input of size 24"), Error);
  CHECK_THROWS_WITH_AS(zeros({0, 3}).view({0, -1}),
                       "view: cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension "
                       "size -1 can be any value and is ambiguous",
                       Error);
  CHECK_THROWS_WITH_AS(x.reshape({-1, -1}), "reshape: only one dimension can be inferred", Error);
}

TEST_CASE("reshape: a view when strides allow, a row-major copy otherwise") {
  std::mt19937_64 rng(31);
  for (DType dtype : testing::kAllDTypes) {
    for (testing::Layout layout : testing::kLayouts) {
      CAPTURE(dtype);
      CAPTURE(testing::layout_name(layout));
      const Tensor x = testing::make_input({4, 6}, dtype, layout, rng);
      for (const Shape& target : {Shape{24}, Shape{6, -1}, Shape{2, 2, 6}, Shape{3, 8}}) {
        CAPTURE(target);
        const Tensor r = x.reshape(target);
        CHECK(r.dtype() == dtype);
        CHECK(r.numel() == 24);
        CHECK((r.storage() == x.storage()) == viewable(x, r.shape()));
        for (int64_t i = 0; i < 24; ++i) CHECK(element_at(r, i) == element_at(x, i));
      }
    }
  }
  const Tensor x = iota({3, 4});
  CHECK(tl::reshape(x, {2, 6}).storage() == x.storage());
  CHECK(tl::reshape(x.t(), {12}).storage() != x.storage());
  CHECK(iota({0, 4}).reshape({-1, 2}).shape() == Shape{0, 2});
}

TEST_CASE("flatten: every dim range, 0-dim input and errors") {
  const Tensor x = iota({2, 3, 4, 5});
  for (int64_t start = -4; start < 4; ++start) {
    for (int64_t end = -4; end < 4; ++end) {
      const int64_t s = start < 0 ? start + 4 : start, e = end < 0 ? end + 4 : end;
      CAPTURE(start);
      CAPTURE(end);
      if (s > e) {
        CHECK_THROWS_WITH_AS(x.flatten(start, end), doctest::Contains("flatten: start_dim cannot come after end_dim"), Error);
        continue;
      }
      Shape expected;
      for (int64_t d = 0; d < s; ++d) expected.push_back(x.shape()[d]);
      int64_t flat = 1;
      for (int64_t d = s; d <= e; ++d) flat *= x.shape()[d];
      expected.push_back(flat);
      for (int64_t d = e + 1; d < 4; ++d) expected.push_back(x.shape()[d]);
      const Tensor f = tl::flatten(x, start, end);
      CHECK(f.shape() == expected);
      CHECK(f.storage() == x.storage());
      CHECK(offsets(f) == offsets(x));
    }
  }
  CHECK(iota({}).flatten().shape() == Shape{1});
  CHECK(zeros({2, 0, 3}).flatten().shape() == Shape{0});
  CHECK(zeros({0, 2, 0}).flatten(0, 1).shape() == Shape{0, 0});
  const Tensor t = iota({3, 4}).t();
  CHECK(t.flatten().storage() != t.storage());
  for (int64_t i = 0; i < 12; ++i) CHECK(element_at(t.flatten(), i) == element_at(t, i));
  CHECK_THROWS_WITH_AS(x.flatten(0, 4), "flatten: dimension out of range (expected to be in range of [-4, 3], but got 4)",
                       Error);
}

// out[i] == x[index with dims taken through `order`], read through strides.
void check_permuted(const Tensor& out, const Tensor& x, const std::vector<int64_t>& order) {
  CHECK(out.storage() == x.storage());
  for (int64_t flat = 0; flat < out.numel(); ++flat) {
    std::vector<int64_t> index(order.size());
    for (int64_t d = out.dim() - 1, rest = flat; d >= 0; --d) {
      index[static_cast<size_t>(d)] = rest % out.shape()[d];
      rest /= out.shape()[d];
    }
    int64_t source = 0;
    for (int64_t d = 0; d < x.dim(); ++d) {
      const auto it = std::find(order.begin(), order.end(), d);
      source = source * x.shape()[d] + index[static_cast<size_t>(it - order.begin())];
    }
    CHECK(element_at(out, flat) == element_at(x, source));
  }
}

TEST_CASE("permute and transpose: every order against index arithmetic") {
  for (DType dtype : {DType::Float32, DType::Int32, DType::BFloat16}) {
    const Tensor x = iota({2, 3, 4}, dtype);
    std::vector<int64_t> order = {0, 1, 2};
    do {
      CAPTURE(dtype);
      const Tensor p = x.permute(Shape(order));
      CHECK(p.dtype() == dtype);
      check_permuted(p, x, order);
      // The same order spelled with negative dims.
      check_permuted(tl::permute(x, {order[0] - 3, order[1] - 3, order[2] - 3}), x, order);
    } while (std::next_permutation(order.begin(), order.end()));
    for (int64_t a = -3; a < 3; ++a) {
      for (int64_t b = -3; b < 3; ++b) {
        std::vector<int64_t> swapped = {0, 1, 2};
        std::swap(swapped[static_cast<size_t>((a + 3) % 3)], swapped[static_cast<size_t>((b + 3) % 3)]);
        check_permuted(x.transpose(a, b), x, swapped);
      }
    }
  }
  CHECK_THROWS_WITH_AS(iota({3}).permute({0, 0}),
                       "permute: number of dimensions in the tensor input does not match the length of the desired "
                       "ordering of dimensions i.e. input.dim() = 1 is not equal to len(dims) = 2",
                       Error);
  CHECK_THROWS_WITH_AS(iota({3, 2}).permute({1, -1}), "permute: repeated dim -1 in dims [1, -1]", Error);
  CHECK_THROWS_WITH_AS(iota({3, 2}).permute({0, 2}), doctest::Contains("permute: dimension out of range"), Error);
  CHECK_THROWS_WITH_AS(iota({3}).transpose(0, 2), doctest::Contains("transpose: dimension out of range"), Error);
  CHECK(iota({}).transpose(0, -1).dim() == 0);
}

TEST_CASE("t: 2-D transposes, 0-D and 1-D are returned as views, 3-D is refused") {
  const Tensor m = iota({3, 5});
  check_permuted(m.t(), m, {1, 0});
  CHECK(iota({4}).t().shape() == Shape{4});
  CHECK(iota({}).t().dim() == 0);
  CHECK_THROWS_WITH_AS(iota({2, 3, 4}).t(), "t: t() expects a tensor with <= 2 dimensions, but self is 3D", Error);
}

// Python's range(*slice(start, end, step).indices(size)).
std::vector<int64_t> python_slice(int64_t size, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  auto resolve = [&](std::optional<int64_t> v, int64_t fallback) {
    if (!v) return fallback;
    int64_t r = *v < 0 ? *v + size : *v;
    return std::min(std::max<int64_t>(r, 0), size);
  };
  std::vector<int64_t> out;
  for (int64_t i = resolve(start, 0); i < resolve(end, size); i += step) out.push_back(i);
  return out;
}

TEST_CASE("slice: every start, end and step against Python's rules") {
  for (int64_t size : {0, 1, 5, 7}) {
    const Tensor x = iota({3, size, 2});
    std::vector<std::optional<int64_t>> bounds = {std::nullopt};
    for (int64_t b = -9; b <= 9; ++b) bounds.push_back(b);
    for (const auto& start : bounds) {
      for (const auto& end : bounds) {
        for (int64_t step = 1; step <= 3; ++step) {
          CAPTURE(size);
          CAPTURE(start.value_or(999));
          CAPTURE(end.value_or(999));
          CAPTURE(step);
          const std::vector<int64_t> picked = python_slice(size, start, end, step);
          const Tensor s = x.slice(1, start, end, step);
          REQUIRE(s.shape() == Shape{3, static_cast<int64_t>(picked.size()), 2});
          CHECK(s.storage() == x.storage());
          for (int64_t i = 0; i < 3; ++i)
            for (size_t j = 0; j < picked.size(); ++j)
              for (int64_t k = 0; k < 2; ++k)
                CHECK(element_at(s, (i * static_cast<int64_t>(picked.size()) + static_cast<int64_t>(j)) * 2 + k) ==
                      static_cast<double>((i * size + picked[j]) * 2 + k));
        }
      }
    }
  }
  const Tensor x = iota({4});
  CHECK_THROWS_WITH_AS(x.slice(0, 0, 4, 0), "slice: slice step must be positive, got 0", Error);
  CHECK_THROWS_WITH_AS(x.slice(0, 0, 4, -1), "slice: slice step must be positive, got -1", Error);
  CHECK_THROWS_WITH_AS(iota({}).slice(0, 0, 1), "slice: slice() cannot be applied to a 0-dim tensor", Error);
  CHECK_THROWS_WITH_AS(x.slice(1, 0, 1), doctest::Contains("slice: dimension out of range"), Error);
}

TEST_CASE("select: every index of every dim, and its errors") {
  const Tensor x = iota({3, 4, 5});
  for (int64_t dim = -3; dim < 3; ++dim) {
    const int64_t d = dim < 0 ? dim + 3 : dim, size = x.shape()[d];
    for (int64_t index = -size; index < size; ++index) {
      CAPTURE(dim);
      CAPTURE(index);
      const Tensor s = x.select(dim, index);
      CHECK(s.dim() == 2);
      CHECK(s.storage() == x.storage());
      const int64_t i = index < 0 ? index + size : index;
      for (int64_t flat = 0; flat < s.numel(); ++flat) {
        // Re-insert the selected index to find the source element.
        int64_t idx[3], rest = flat;
        for (int64_t k = 2; k >= 0; --k) {
          if (k == d) {
            idx[k] = i;
            continue;
          }
          idx[k] = rest % x.shape()[k];
          rest /= x.shape()[k];
        }
        CHECK(element_at(s, flat) == static_cast<double>((idx[0] * 4 + idx[1]) * 5 + idx[2]));
      }
    }
  }
  CHECK_THROWS_WITH_AS(x.select(0, 3), "select: index 3 out of range for tensor of size [3, 4, 5] at dimension 0", Error);
  CHECK_THROWS_WITH_AS(x.select(2, -6), "select: index -6 out of range for tensor of size [3, 4, 5] at dimension 2", Error);
  CHECK_THROWS_WITH_AS(iota({}).select(0, 0), "select: select() cannot be applied to a 0-dim tensor.", Error);
  CHECK_THROWS_WITH_AS(x.select(3, 0), doctest::Contains("select: dimension out of range"), Error);
}

TEST_CASE("expand: -1 keeps, size-1 and new leading dims broadcast with stride 0") {
  const Tensor x = iota({3, 1});
  const std::pair<Shape, Shape> cases[] = {{{3, 4}, {3, 4}},       {{-1, 4}, {3, 4}}, {{2, 3, 4}, {2, 3, 4}},
                                           {{2, -1, 5}, {2, 3, 5}}, {{3, 1}, {3, 1}},  {{3, 0}, {3, 0}},
                                           {{1, 3, 2}, {1, 3, 2}}};
  // Named members, not a structured binding: clang 14 cannot capture one in CAPTURE/INFO.
  for (const auto& entry : cases) {
    const auto& size = entry.first;
    const auto& expected = entry.second;
    CAPTURE(size);
    const Tensor e = x.expand(size);
    CHECK(e.shape() == expected);
    CHECK(e.storage() == x.storage());
    const int64_t lead = expected.size() - 2;
    for (int64_t d = 0; d < expected.size(); ++d) {
      const bool broadcast = d < lead ? expected[d] != 1 : x.shape()[d - lead] == 1 && expected[d] != 1;
      if (broadcast) CHECK(e.strides()[d] == 0);
    }
    CHECK_TENSOR_CLOSE(e, testing::reference(expected, {x}, [](const auto& v) { return v[0]; }), 0, 0);
  }
  CHECK(iota({}).expand({2, 3}).strides() == Strides{0, 0});
  CHECK_THROWS_WITH_AS(x.expand({4}),
                       "expand: the number of sizes provided (1) must be greater or equal to the number of dimensions "
                       "in the tensor (2)",
                       Error);
  CHECK_THROWS_WITH_AS(x.expand({-1, 3, 4}),
                       "expand: the expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0",
                       Error);
  CHECK_THROWS_WITH_AS(iota({2, 3}).expand({3, 2}),
                       "expand: the expanded size of the tensor (2) must match the existing size (3) at non-singleton "
                       "dimension 1.  Target sizes: [3, 2].  Tensor sizes: [2, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(x.expand({3, -2}), doctest::Contains("expand: the expanded size of the tensor (-2) is negative"),
                       Error);
}

TEST_CASE("squeeze and unsqueeze: every dim, strides kept") {
  const Tensor x = iota({1, 3, 1, 2, 1});
  CHECK(x.squeeze().shape() == Shape{3, 2});
  CHECK(tl::squeeze(x).strides() == Strides{2, 1});
  for (int64_t d = -5; d < 5; ++d) {
    CAPTURE(d);
    const int64_t w = d < 0 ? d + 5 : d;
    Shape expected = x.shape();
    if (expected[w] == 1) expected.erase(w);
    const Tensor s = x.squeeze(d);
    CHECK(s.shape() == expected);
    CHECK(offsets(s) == offsets(x));
  }
  CHECK(iota({}).squeeze().dim() == 0);
  CHECK(iota({}).squeeze(-1).dim() == 0);
  const Tensor y = iota({3, 4}).t();
  for (int64_t d = -3; d < 3; ++d) {
    CAPTURE(d);
    const int64_t w = d < 0 ? d + 3 : d;
    Shape expected = y.shape();
    expected.insert(w, 1);
    const Tensor u = tl::unsqueeze(y, d);
    CHECK(u.shape() == expected);
    CHECK(offsets(u) == offsets(y));
    CHECK(u.squeeze(d).strides() == y.strides());
  }
  CHECK(iota({}).unsqueeze(0).shape() == Shape{1});
  CHECK_THROWS_WITH_AS(iota({3}).squeeze(1), "squeeze: dimension out of range (expected to be in range of [-1, 0], but got 1)",
                       Error);
  CHECK_THROWS_WITH_AS(iota({3}).unsqueeze(2),
                       "unsqueeze: dimension out of range (expected to be in range of [-2, 1], but got 2)", Error);
}

TEST_CASE("views alias their base: writes through the view land in the base") {
  Tensor b = iota({4, 6});
  check_aliases(b, b.view({2, 12}));
  b = iota({4, 6});
  check_aliases(b, b.reshape({24}));
  b = iota({4, 6});
  check_aliases(b, b.flatten());
  b = iota({4, 6});
  check_aliases(b, b.permute({1, 0}));
  b = iota({4, 6});
  check_aliases(b, b.transpose(0, 1));
  b = iota({4, 6});
  check_aliases(b, b.t());
  b = iota({4, 6});
  check_aliases(b, b.slice(1, 1, 5, 2));
  b = iota({4, 6});
  check_aliases(b, b.select(0, 2));
  b = iota({4, 6});
  check_aliases(b, b.select(1, -1).unsqueeze(1));
  b = iota({1, 6});
  check_aliases(b, b.squeeze());
  b = iota({4, 6});
  check_aliases(b, b.diagonal(1));
  // An expanded view cannot be written; writing its base shows through every repeat.
  Tensor row = iota({1, 3});
  const Tensor e = row.expand({4, 3});
  row.copy_(full({1, 3}, 9.0));
  for (int64_t i = 0; i < e.numel(); ++i) CHECK(element_at(e, i) == 9);
}

TEST_CASE("diagonal: every offset and dim pair against index arithmetic, and its errors") {
  const Tensor x = iota({3, 4, 5});
  for (int64_t d1 = -3; d1 < 3; ++d1) {
    for (int64_t d2 = -3; d2 < 3; ++d2) {
      if ((d1 + 3) % 3 == (d2 + 3) % 3) continue;
      for (int64_t offset = -6; offset <= 6; ++offset) {
        CAPTURE(d1);
        CAPTURE(d2);
        CAPTURE(offset);
        const Tensor d = x.diagonal(offset, d1, d2);
        const int64_t a = (d1 + 3) % 3, b = (d2 + 3) % 3, other = 3 - a - b;
        const int64_t len = std::max<int64_t>(
            0, offset >= 0 ? std::min(x.size(a), x.size(b) - offset) : std::min(x.size(a) + offset, x.size(b)));
        REQUIRE(d.shape() == Shape{x.size(other), len});
        for (int64_t o = 0; o < x.size(other); ++o) {
          for (int64_t i = 0; i < len; ++i) {
            int64_t at[3];
            at[other] = o;
            at[a] = offset >= 0 ? i : i - offset;
            at[b] = offset >= 0 ? i + offset : i;
            CHECK(element_at(d, o * len + i) == element_at(x, (at[0] * 4 + at[1]) * 5 + at[2]));
          }
        }
      }
    }
  }
  const Tensor before = x.clone();
  CHECK_THROWS_WITH_AS(diagonal(ones({3})), "diagonal: dimension out of range (expected to be in range of [-1, 0], but got 1)",
                       Error);
  CHECK_THROWS_WITH_AS(x.diagonal(0, 1, -2), "diagonal: diagonal dimensions cannot be identical 1, -2", Error);
  CHECK_THROWS_WITH_AS(x.diagonal(0, 0, 3), "diagonal: dimension out of range (expected to be in range of [-3, 2], but got 3)",
                       Error);
  CHECK_THROWS_WITH_AS(diagonal_backward(ones({2}), {3, 4}, 0, 0, 1),
                       "diagonal_backward: expected grad_output of size [3] (the diagonal of [3, 4]), got [2]", Error);
  CHECK(equal(x, before));
}

}  // namespace
}  // namespace tl
