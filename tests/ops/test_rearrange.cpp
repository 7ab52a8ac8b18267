// tests/ops/test_rearrange.cpp — flip, roll, repeat, tile, triu, tril and constant_pad_nd against plain index
// arithmetic over every dtype and input layout, and their errors in PyTorch's words (the values at special inputs
// are PyTorch's own in test_special_values).
#include <doctest/doctest.h>

#include <functional>
#include <optional>
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
using Index = std::vector<int64_t>;

// A float64 tensor of `shape` whose element at each index is x's at source(index), or `fill` where that is none.
Tensor moved(const Shape& shape, const Tensor& x, const std::function<std::optional<Index>(const Index&)>& source,
             double fill = 0.0) {
  std::vector<double> out(static_cast<size_t>(numel_of(shape)));
  for (int64_t flat = 0; flat < numel_of(shape); ++flat) {
    const std::optional<Index> from = source(testing::unravel(flat, shape));
    out[static_cast<size_t>(flat)] = from ? testing::broadcast_value(x, *from) : fill;
  }
  return from_vector<double>(out, shape);
}

// Runs `check(x)` on a (3, 4, 5) input of every dtype and layout.
void for_each_input(const std::function<void(const Tensor&)>& check) {
  std::mt19937_64 rng(5);
  for (DType dtype : kAllDTypes)
    for (Layout layout : kLayouts) {
      CAPTURE(dtype);
      CAPTURE(testing::layout_name(layout));
      check(testing::make_input({3, 4, 5}, dtype, layout, rng));
    }
}

void check_same(const Tensor& got, const Tensor& x, const Tensor& expected) {
  CHECK(got.dtype() == x.dtype());
  REQUIRE(got.shape() == expected.shape());
  const std::string why = testing::compare_tensors(got.to(DType::Float64), expected, 0, 0);
  CHECK_MESSAGE(why.empty(), why);
}

TEST_CASE("flip reverses the named dims") {
  for_each_input([](const Tensor& x) {
    for (const Shape& dims : {Shape{}, Shape{0}, Shape{-1}, Shape{0, 2}, Shape{2, 1, 0}}) {
      CAPTURE(dims);
      check_same(flip(x, dims), x, moved(x.shape(), x, [&](Index i) -> std::optional<Index> {
        for (int64_t d : dims) {
          const int64_t w = d < 0 ? d + 3 : d;
          i[w] = x.size(w) - 1 - i[w];
        }
        return i;
      }));
    }
  });
  const Tensor x = ones({2, 3});
  CHECK_THROWS_WITH_AS(x.flip({0, -2}), "flip: dim 0 appears multiple times in the list of dims", Error);
  CHECK_THROWS_WITH_AS(x.flip({2}), "flip: dimension out of range (expected to be in range of [-2, 1], but got 2)", Error);
}

TEST_CASE("roll moves element i of a dim to (i + shift) mod size; without dims the flattened tensor rolls") {
  for_each_input([](const Tensor& x) {
    const std::vector<std::pair<Shape, Shape>> cases{{{1}, {0}}, {{-7}, {2}}, {{2, 13}, {1, -1}}, {{1, 2}, {0, 0}}};
    for (const auto& c : cases) {
      const Shape &shifts = c.first, &dims = c.second;
      CAPTURE(shifts);
      CAPTURE(dims);
      check_same(roll(x, shifts, dims), x, moved(x.shape(), x, [&](Index i) -> std::optional<Index> {
        for (int64_t k = 0; k < dims.size(); ++k) {
          const int64_t d = dims[k] < 0 ? dims[k] + 3 : dims[k], n = x.size(d);
          i[d] = ((i[d] - shifts[k]) % n + n) % n;
        }
        return i;
      }));
    }
    const Tensor flat = x.reshape({60});
    check_same(x.roll({7}), x, moved(x.shape(), flat, [&](const Index& i) -> std::optional<Index> {
      return Index{((testing::ravel(i, x.shape()) - 7) % 60 + 60) % 60};
    }));
  });
  const Tensor x = ones({2, 3});
  CHECK_THROWS_WITH_AS(x.roll({1, 2}, {0}), "roll: shifts and dimensions must align. shifts: 2, dims:1", Error);
  CHECK_THROWS_WITH_AS(x.roll({}, {}), "roll: `shifts` required", Error);
  CHECK_THROWS_WITH_AS(x.roll({1}, {5}), "roll: dimension out of range (expected to be in range of [-2, 1], but got 5)",
                       Error);
  CHECK(roll(zeros({0, 3}), {1}, {0}).shape() == Shape{0, 3});
}

TEST_CASE("repeat tiles each dim, new leading dims included; tile pads the repeats instead") {
  for_each_input([](const Tensor& x) {
    for (const Shape& repeats : {Shape{1, 1, 1}, Shape{2, 1, 3}, Shape{2, 3, 1, 2}, Shape{1, 0, 2}}) {
      CAPTURE(repeats);
      const int64_t lead = repeats.size() - 3;
      Shape shape;
      for (int64_t d = 0; d < repeats.size(); ++d) shape.push_back(repeats[d] * (d < lead ? 1 : x.size(d - lead)));
      const Tensor expected = moved(shape, x, [&](const Index& i) -> std::optional<Index> {
        Index from;
        for (int64_t d = 0; d < 3; ++d) from.push_back(i[lead + d] % x.size(d));
        return from;
      });
      check_same(x.repeat(repeats), x, expected);
    }
    check_same(tile(x, {2}), x, x.repeat({1, 1, 2}).to(DType::Float64));
  });
  const Tensor x = ones({2, 3});
  CHECK_THROWS_WITH_AS(x.repeat({2}),
                       "repeat: Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
                       Error);
  CHECK_THROWS_WITH_AS(x.repeat({-1, 1}), "repeat: Trying to create tensor with negative dimension -2: [-2, 3]", Error);
}

TEST_CASE("triu and tril keep one side of a diagonal of every matrix and zero the rest") {
  for_each_input([](const Tensor& x) {
    // Past either corner, and far enough past it that adding a row index would overflow without a clamp.
    for (int64_t diagonal : {int64_t{-1} << 62, int64_t{-5}, int64_t{-1}, int64_t{0}, int64_t{2}, int64_t{7},
                             int64_t{1} << 62}) {
      CAPTURE(diagonal);
      check_same(triu(x, diagonal), x, moved(x.shape(), x, [&](const Index& i) -> std::optional<Index> {
        if (i[2] - i[1] >= diagonal) return i;
        return std::nullopt;
      }));
      check_same(x.tril(diagonal), x, moved(x.shape(), x, [&](const Index& i) -> std::optional<Index> {
        if (i[2] - i[1] <= diagonal) return i;
        return std::nullopt;
      }));
    }
  });
  CHECK_THROWS_WITH_AS(ones({3}).triu(), "triu: dimension out of range (expected to be in range of [-1, 0], but got -2)",
                       Error);
}

// The value fills all of a small output first, only the border (a slab per padded dim) of one past a thread's grain
// (the (2, 130, 130) input); pads past the far edge and crops.
TEST_CASE("constant_pad_nd places the input at its pads' offsets and the value everywhere else") {
  std::mt19937_64 rng(7);
  const std::vector<Tensor> large = {testing::make_input({2, 130, 130}, DType::Float32, Layout::Contiguous, rng),
                                     testing::make_input({2, 130, 130}, DType::Int32, Layout::Transposed, rng)};
  const auto each = [&](const std::function<void(const Tensor&)>& check) {
    for_each_input(check);
    for (const Tensor& x : large) check(x);
  };
  each([](const Tensor& x) {
    const std::vector<Shape> pads = {{1, 1, 1, 1}, {2, 0, 0, 3, 1, 1}, {-1, 2, 0, -2}, {0, 0, -3, 5}, {5, -6},
                                     {-7, 8, 1, 0}, {-1, -1}, {0, 0, 0, 0, 0, 0}};
    for (const Shape& pad : pads) {
      CAPTURE(pad);
      Shape shape = x.shape();
      for (int64_t i = 0; i < pad.size() / 2; ++i) shape[2 - i] += pad[2 * i] + pad[2 * i + 1];
      check_same(constant_pad_nd(x, pad, 1), x, moved(shape, x, [&](Index at) -> std::optional<Index> {
        for (int64_t i = 0; i < pad.size() / 2; ++i) {
          at[2 - i] -= pad[2 * i];
          if (at[2 - i] < 0 || at[2 - i] >= x.size(2 - i)) return std::nullopt;
        }
        return at;
      }, 1.0));
    }
  });
}

TEST_CASE("flip, roll, repeat and triu differentiate into their input") {
  Tensor x = from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3}).requires_grad_();
  const Tensor weights = from_vector<double>({1, 10, 100, 1000, 10000, 100000}, {2, 3});
  (x.flip({1}) * weights).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), weights.flip({1}), 0, 0);
  x.mutable_grad() = Tensor();
  (x.roll({1}, {1}) * weights).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), weights.roll({-1}, {1}), 0, 0);
  x.mutable_grad() = Tensor();
  x.repeat({2, 2}).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), full({2, 3}, 4.0, DType::Float64), 0, 0);
  x.mutable_grad() = Tensor();
  (x.triu(1) * weights).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), weights.triu(1), 0, 0);
}

}  // namespace
}  // namespace tl
