// tests/ops/test_split.cpp — narrow, chunk, split, split_with_sizes and unbind: the pieces' sizes as
// PyTorch's rules give them, each piece a view of its input (writes show through), gradients through the
// pieces, and the errors in PyTorch's words.
#include <doctest/doctest.h>

#include <vector>

#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

Tensor iota(const Shape& shape) { return arange(int64_t{0}, numel_of(shape)).to(DType::Float32).reshape(shape); }

// The sizes of the pieces along `dim`, and a check that each is a view of x starting where the last ended.
std::vector<int64_t> lengths(const std::vector<Tensor>& pieces, const Tensor& x, int64_t dim) {
  std::vector<int64_t> out;
  int64_t start = 0;
  for (const Tensor& p : pieces) {
    CHECK(p.storage() == x.storage());
    CHECK_TENSOR_CLOSE(p, x.slice(dim, start, start + p.size(dim)), 0, 0);
    start += p.size(dim);
    out.push_back(p.size(dim));
  }
  return out;
}

TEST_CASE("split and chunk cut a dim into PyTorch's piece sizes, as views") {
  const Tensor x = iota({5, 7});
  CHECK(lengths(x.split(2), x, 0) == std::vector<int64_t>{2, 2, 1});
  CHECK(lengths(x.split(3, 1), x, 1) == std::vector<int64_t>{3, 3, 1});
  CHECK(lengths(x.split(9, -1), x, 1) == std::vector<int64_t>{7});
  CHECK(lengths(x.chunk(3, 1), x, 1) == std::vector<int64_t>{3, 3, 1});
  CHECK(lengths(x.chunk(4), x, 0) == std::vector<int64_t>{2, 2, 1});  // ceil(5 / 4) = 2: three pieces, not four
  const Tensor six = zeros({6});
  CHECK(lengths(six.chunk(4), six, 0) == std::vector<int64_t>{2, 2, 2});  // ceil(6 / 4) = 2: three pieces
  CHECK(lengths(split_with_sizes(x, {0, 4, 3}, 1), x, 1) == std::vector<int64_t>{0, 4, 3});
  const Tensor empty = zeros({0, 2});
  CHECK(empty.chunk(3).size() == 3);  // a 0-size dim gives `chunks` empty pieces
  CHECK(empty.split(0).size() == 1);
  std::vector<Tensor> pieces = x.split(2);
  pieces[1].copy_(full(pieces[1].shape(), -1.0));
  CHECK_TENSOR_CLOSE(x.select(0, 2), full({7}, -1.0), 0, 0);
}

TEST_CASE("narrow and unbind are views: a slice and one select per index") {
  Tensor x = iota({3, 4});
  const Tensor n = x.narrow(1, -3, 2);
  CHECK_TENSOR_CLOSE(n, x.slice(1, 1, 3), 0, 0);
  CHECK(n.storage() == x.storage());
  CHECK(x.narrow(0, 3, 0).shape() == Shape{0, 4});  // start may equal the size
  const std::vector<Tensor> rows = x.unbind();
  REQUIRE(rows.size() == 3);
  for (int64_t i = 0; i < 3; ++i) CHECK_TENSOR_CLOSE(rows[i], x.select(0, i), 0, 0);
  CHECK(unbind(x, 1).size() == 4);
  Tensor row = rows[2];
  row.copy_(full({4}, 7.0));
  CHECK_TENSOR_CLOSE(x.select(0, 2), full({4}, 7.0), 0, 0);
}

TEST_CASE("gradients flow through every piece into the input") {
  Tensor x = iota({4, 3}).to(DType::Float64).requires_grad_();
  const std::vector<Tensor> pieces = x.split(3);
  (pieces[0].sum() * 2.0 + pieces[1].sum() * 5.0).backward();
  CHECK_TENSOR_CLOSE(x.grad(), from_vector<double>({2, 2, 2, 2, 2, 2, 2, 2, 2, 5, 5, 5}, {4, 3}), 0, 0);
  x.mutable_grad() = Tensor();
  const std::vector<Tensor> cols = x.unbind(1);
  (cols[1] * 3.0).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), from_vector<double>({0, 3, 0, 0, 3, 0, 0, 3, 0, 0, 3, 0}, {4, 3}), 0, 0);
  x.mutable_grad() = Tensor();
  x.chunk(2, 1)[1].sum().backward();
  x.narrow(0, 1, 2).sum().backward();
  CHECK_TENSOR_CLOSE(x.grad(), from_vector<double>({0, 0, 1, 1, 1, 2, 1, 1, 2, 0, 0, 1}, {4, 3}), 0, 0);
}

TEST_CASE("split, chunk, narrow and unbind refuse what PyTorch refuses, in its words") {
  const Tensor x = iota({2, 3});
  CHECK_THROWS_WITH_AS(x.split(0), "split: split_size can only be 0 if dimension size is 0, but got dimension size of 2",
                       Error);
  CHECK_THROWS_WITH_AS(x.split(-1), "split: split expects split_size be non-negative, but got split_size=-1", Error);
  CHECK_THROWS_WITH_AS(scalar_tensor(1.0, DType::Float32).split(1), "split: split expects at least a 1-dimensional tensor", Error);
  CHECK_THROWS_WITH_AS(x.split_with_sizes({-1, 4}, 1),
                       "split_with_sizes: split_with_sizes expects split_sizes have only non-negative entries, but got "
                       "split_sizes=[-1, 4]",
                       Error);
  CHECK_THROWS_WITH_AS(x.split_with_sizes({1, 1}, 1),
                       "split_with_sizes: split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at "
                       "dimension 1), but got split_sizes=[1, 1]",
                       Error);
  CHECK_THROWS_WITH_AS(x.chunk(0), "chunk: chunk expects `chunks` to be greater than 0, got: 0", Error);
  CHECK_THROWS_WITH_AS(x.chunk(-1), "chunk: chunk expects `chunks` to be greater than 0, got: -1", Error);
  CHECK_THROWS_WITH_AS(x.narrow(0, 1, 2), "narrow: start (1) + length (2) exceeds dimension size (2).", Error);
  CHECK_THROWS_WITH_AS(x.narrow(0, 0, -1), "narrow: start (0) + length (-1) exceeds dimension size (2).", Error);
  CHECK_THROWS_WITH_AS(x.narrow(0, 3, 1), "narrow: dimension out of range (expected to be in range of [-2, 1], but got 3)",
                       Error);
  CHECK_THROWS_WITH_AS(x.narrow(5, 0, 1), "narrow: dimension out of range (expected to be in range of [-2, 1], but got 5)",
                       Error);
  CHECK_THROWS_WITH_AS(x.unbind(2), "unbind: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       Error);
}

}  // namespace
}  // namespace tl
