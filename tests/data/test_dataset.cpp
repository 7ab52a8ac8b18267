// tests/data/test_dataset.cpp — TensorDataset rows and Subset remapping against the tensors they were
// built from; each misuse is refused with the values named.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "core/error.h"
#include "data/dataset.h"
#include "ops/ops.h"
#include "tests/data/data_test_util.h"
#include "tests/support/tensor_check.h"

namespace tl::data {
namespace {

using testing::index_dataset;
using testing::indices_of;

TEST_CASE("TensorDataset: example i is row i of data and target") {
  Tensor data = arange(0, 24, 1, DType::Float32).reshape({4, 2, 3});
  Tensor target = from_vector<int64_t>({7, 5, 3, 1}, {4});
  TensorDataset dataset(data, target);
  CHECK(dataset.size() == 4);
  for (int64_t i = 0; i < 4; ++i) {
    CAPTURE(i);
    Example example = dataset.get(i);
    CHECK(example.data.shape() == Shape{2, 3});
    CHECK(example.target.dim() == 0);
    CHECK(example.target.item<int64_t>() == 7 - 2 * i);
    CHECK_TENSOR_CLOSE(example.data, arange(6 * i, 6 * i + 6, 1, DType::Float32).reshape({2, 3}), 0.0, 0.0);
  }
  CHECK(dataset.data().is_same(data));
  CHECK(dataset.target().is_same(target));
}

TEST_CASE("TensorDataset: tensors without a shared dim 0 are refused") {
  CHECK_THROWS_WITH_AS(TensorDataset(zeros({4, 3}), zeros({5})),
                       "TensorDataset: data and target must share dim 0 (the example index), got data [4, 3] and "
                       "target [5]",
                       Error);
  CHECK_THROWS_WITH_AS(TensorDataset(zeros({4, 3}), scalar_tensor(1, DType::Int64)),
                       "TensorDataset: expected data and target with a dim 0 (the example index), got data [4, 3] "
                       "and target []",
                       Error);
  CHECK_THROWS_WITH_AS(TensorDataset(Tensor(), zeros({4})), "TensorDataset: expected defined data and target tensors",
                       Error);
}

TEST_CASE("Dataset: an index outside [0, size) is refused") {
  auto dataset = index_dataset(4);
  CHECK_THROWS_WITH_AS(dataset->get(4), "Dataset: index 4 is out of range for a dataset of size 4", Error);
  CHECK_THROWS_WITH_AS(dataset->get(-1), "Dataset: index -1 is out of range for a dataset of size 4", Error);
  CHECK(indices_of(dataset->get(3).target) == std::vector<int64_t>{3});
}

TEST_CASE("Subset: the examples of its dataset at its indices, in order") {
  auto dataset = index_dataset(6);
  Subset subset(dataset, {5, 0, 3, 3});
  REQUIRE(subset.size() == 4);
  const std::vector<int64_t> expected = {5, 0, 3, 3};
  for (int64_t i = 0; i < subset.size(); ++i) {
    CAPTURE(i);
    Example example = subset.get(i);
    CHECK(indices_of(example.target) == std::vector<int64_t>{expected[static_cast<size_t>(i)]});
    CHECK_TENSOR_CLOSE(example.data, full({2, 3}, static_cast<double>(expected[static_cast<size_t>(i)])), 0.0, 0.0);
  }
  CHECK(&subset.dataset() == dataset.get());
  CHECK(Subset(dataset, {}).size() == 0);
  CHECK_THROWS_WITH_AS(subset.get(4), "Dataset: index 4 is out of range for a dataset of size 4", Error);
}

TEST_CASE("Subset: indices outside the dataset and a null dataset are refused") {
  auto dataset = index_dataset(4);
  CHECK_THROWS_WITH_AS(Subset(dataset, {0, 4}), "Subset: index 4 at position 1 is out of range for a dataset of size 4",
                       Error);
  CHECK_THROWS_WITH_AS(Subset(dataset, {-1}), "Subset: index -1 at position 0 is out of range for a dataset of size 4",
                       Error);
  CHECK_THROWS_WITH_AS(Subset(nullptr, {0}), "Subset: expected a dataset, got null", Error);
}

TEST_CASE("ConcatDataset: the datasets' examples one after the other") {
  auto first = index_dataset(3), second = index_dataset(0), third = index_dataset(2);
  ConcatDataset dataset({first, second, third});
  CHECK(dataset.size() == 5);
  CHECK(dataset.cumulative_sizes() == std::vector<int64_t>{3, 3, 5});
  std::vector<int64_t> seen;
  for (int64_t i = 0; i < 5; ++i) seen.push_back(dataset.get(i).target.item<int64_t>());
  CHECK(seen == std::vector<int64_t>{0, 1, 2, 0, 1});
  CHECK(dataset.datasets().size() == 3);
  CHECK_THROWS_WITH_AS(dataset.get(5), "Dataset: index 5 is out of range for a dataset of size 5", Error);
}

TEST_CASE("ConcatDataset: no datasets or a null one is refused") {
  CHECK_THROWS_WITH_AS(ConcatDataset({}), "ConcatDataset: datasets should not be an empty iterable", Error);
  CHECK_THROWS_WITH_AS(ConcatDataset({index_dataset(2), nullptr}),
                       "ConcatDataset: expected a dataset at position 1, got null", Error);
}

}  // namespace
}  // namespace tl::data
