// tests/ops/test_join.cpp — cat and stack against a naive reference (each output element looked up
// in the input it came from) over dims, sizes (including 0), layouts and mixed dtypes; PyTorch's
// legacy skipping of [0]-sized inputs and the error messages.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

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

// The reference cat of same-rank tensors along a non-negative dim, in double.
Tensor reference_cat(const std::vector<Tensor>& tensors, int64_t dim) {
  Shape shape = tensors[0].shape();
  shape[dim] = 0;
  for (const Tensor& t : tensors) shape[dim] += t.size(dim);
  std::vector<double> out(static_cast<size_t>(numel_of(shape)));
  for (int64_t flat = 0; flat < numel_of(shape); ++flat) {
    std::vector<int64_t> at = unravel(flat, shape);
    size_t i = 0;
    while (at[static_cast<size_t>(dim)] >= tensors[i].size(dim)) at[static_cast<size_t>(dim)] -= tensors[i++].size(dim);
    out[static_cast<size_t>(flat)] = element_at(tensors[i], ravel(at, tensors[i].shape()));
  }
  return from_vector<double>(out, shape);
}

// The reference stack: output element (.., k, ..) is tensors[k](.., ..).
Tensor reference_stack(const std::vector<Tensor>& tensors, int64_t dim) {
  Shape shape = tensors[0].shape();
  shape.insert(dim, static_cast<int64_t>(tensors.size()));
  std::vector<double> out(static_cast<size_t>(numel_of(shape)));
  for (int64_t flat = 0; flat < numel_of(shape); ++flat) {
    std::vector<int64_t> at = unravel(flat, shape);
    const int64_t k = at[static_cast<size_t>(dim)];
    at.erase(at.begin() + dim);
    out[static_cast<size_t>(flat)] = element_at(tensors[static_cast<size_t>(k)], ravel(at, tensors[0].shape()));
  }
  return from_vector<double>(out, shape);
}

// Pairs of input dtypes: every dtype with itself, and mixed pairs that promote.
const std::pair<DType, DType> kDTypePairs[] = {
    {DType::Float32, DType::Float32}, {DType::Float64, DType::Float64}, {DType::Int64, DType::Int64},
    {DType::Int32, DType::Int32},     {DType::Bool, DType::Bool},       {DType::BFloat16, DType::BFloat16},
    {DType::Float32, DType::Int64},   {DType::Bool, DType::Int32},      {DType::BFloat16, DType::Float64},
    {DType::Int32, DType::BFloat16}};

TEST_CASE("cat: matches a reference over dims, sizes, layouts and promoted dtypes") {
  std::mt19937_64 rng(21);
  const Shape shapes[] = {{7}, {3, 5}, {2, 3, 5}, {4, 0, 3}, {5, 1, 33}};
  for (const Shape& shape : shapes) {
    const int64_t rank = shape.size();
    for (int64_t dim = -rank; dim < rank; ++dim) {
      const int64_t d = dim < 0 ? dim + rank : dim;
      for (Layout layout : kLayouts) {
        // Named members, not a structured binding: clang 14 cannot capture one in CAPTURE/INFO.
        for (const auto& entry : kDTypePairs) {
          const auto& da = entry.first;
          const auto& db = entry.second;
          CAPTURE(shape);
          CAPTURE(dim);
          CAPTURE(da);
          CAPTURE(db);
          CAPTURE(testing::layout_name(layout));
          Shape sa = shape, sb = shape, sc = shape;
          sb[d] = shape[d] + 2;
          sc[d] = 0;
          const std::vector<Tensor> inputs = {make_input(sa, da, layout, rng), make_input(sb, db, Layout::Contiguous, rng),
                                              make_input(sc, da, layout, rng), make_input(sa, db, layout, rng)};
          const Tensor got = cat(inputs, dim);
          CHECK(got.dtype() == promote_types(da, db));
          CHECK_TENSOR_CLOSE(got, reference_cat(inputs, d), 0, 0);
          CHECK_TENSOR_CLOSE(cat(std::vector<Tensor>{inputs[0]}, dim), reference_cat({inputs[0]}, d), 0, 0);
        }
      }
    }
  }
  const Tensor big = testing::random_tensor({200, 300}, DType::Float32, rng);
  const std::vector<Tensor> parts = {big, big.t().slice(0, 0, 200), big};
  CHECK_TENSOR_CLOSE(cat(parts, 1), reference_cat(parts, 1), 0, 0);
}

TEST_CASE("cat: 1-D inputs of size [0] are skipped, as in PyTorch") {
  std::mt19937_64 rng(22);
  const Tensor x = testing::random_tensor({2, 3}, DType::Float32, rng);
  const Tensor empty = zeros({0}, DType::Int64);
  CHECK_TENSOR_CLOSE(cat(std::vector<Tensor>{empty, x, empty}, 1), x, 0, 0);
  CHECK_TENSOR_CLOSE(cat(std::vector<Tensor>{x, empty}, -2), x, 0, 0);
  const Tensor only_empty = cat(std::vector<Tensor>{zeros({0}), empty}, 3);
  CHECK(only_empty.shape() == Shape{0});
  CHECK(only_empty.dtype() == DType::Float32);
  CHECK(cat(std::vector<Tensor>{zeros({0, 3}), x}, 0).shape() == Shape{2, 3});
}

TEST_CASE("stack: matches a reference over dims (up to the rank), layouts and dtypes") {
  std::mt19937_64 rng(23);
  const Shape shapes[] = {{}, {7}, {3, 5}, {2, 0, 3}, {2, 1, 4}};
  for (const Shape& shape : shapes) {
    const int64_t rank = shape.size();
    for (int64_t dim = -rank - 1; dim <= rank; ++dim) {
      for (Layout layout : kLayouts) {
        for (const auto& entry : kDTypePairs) {
          const auto& da = entry.first;
          const auto& db = entry.second;
          CAPTURE(shape);
          CAPTURE(dim);
          CAPTURE(da);
          CAPTURE(db);
          CAPTURE(testing::layout_name(layout));
          const std::vector<Tensor> inputs = {make_input(shape, da, layout, rng), make_input(shape, db, Layout::Contiguous, rng),
                                              make_input(shape, db, layout, rng)};
          const Tensor got = stack(inputs, dim);
          CHECK(got.dtype() == promote_types(da, db));
          CHECK_TENSOR_CLOSE(got, reference_stack(inputs, dim < 0 ? dim + rank + 1 : dim), 0, 0);
        }
      }
    }
  }
  CHECK(stack(std::vector<Tensor>{zeros({0}), zeros({0})}).shape() == Shape{2, 0});
}

TEST_CASE("cat and stack: errors name the shapes and the tensor index") {
  const Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(cat(std::vector<Tensor>{}), "cat: expected a non-empty list of tensors", Error);
  CHECK_THROWS_WITH_AS(cat(std::vector<Tensor>{x, scalar_tensor(1.0, DType::Float32)}),
                       "cat: zero-dimensional tensor (at position 1) cannot be concatenated", Error);
  CHECK_THROWS_WITH_AS(cat(std::vector<Tensor>{x, zeros({2, 3, 4})}),
                       "cat: tensors must have the same number of dimensions: got 2 (tensor 0, size [2, 3]) and 3 "
                       "(tensor 1, size [2, 3, 4])",
                       Error);
  CHECK_THROWS_WITH_AS(cat(std::vector<Tensor>{x, zeros({2, 2})}, 0),
                       "cat: sizes of tensors must match except in dimension 0: expected size 3 but got size 2 in "
                       "dimension 1 for tensor 1 in the list (tensor 0 has size [2, 3], tensor 1 has size [2, 2])",
                       Error);
  CHECK_THROWS_WITH_AS(cat(std::vector<Tensor>{zeros({0}), zeros({0, 2}), x}, 0),
                       doctest::Contains("for tensor 2 in the list (tensor 1 has size [0, 2]"), Error);
  CHECK_THROWS_WITH_AS(cat(std::vector<Tensor>{x, x}, 2), doctest::Contains("cat: dimension out of range"), Error);
  CHECK_THROWS_WITH_AS(stack(std::vector<Tensor>{}), "stack: expected a non-empty list of tensors", Error);
  CHECK_THROWS_WITH_AS(stack(std::vector<Tensor>{x, x.t()}),
                       "stack: expects each tensor to be equal size, but got [2, 3] at entry 0 and [3, 2] at entry 1",
                       Error);
  CHECK_THROWS_WITH_AS(stack(std::vector<Tensor>{x, x}, 3),
                       "stack: dimension out of range (expected to be in range of [-3, 2], but got 3)", Error);
}

}  // namespace
}  // namespace tl
