// tests/data/test_dataloader.cpp — batches as stacks of the dataset's examples: their shapes, the last
// partial batch, drop_last, and shuffled epochs that are permutations fixed by the seed.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "data/dataloader.h"
#include "data/random_split.h"
#include "ops/ops.h"
#include "tests/data/data_test_util.h"
#include "tests/support/tensor_check.h"

namespace tl::data {
namespace {

using testing::index_dataset;
using testing::indices_of;

// One epoch of `loader`: the indices each batch carries, checking each batch's data against them.
std::vector<std::vector<int64_t>> epoch(DataLoader& loader) {
  std::vector<std::vector<int64_t>> batches;
  for (const Example& batch : loader) {
    const std::vector<int64_t> indices = indices_of(batch.target);
    const int64_t b = static_cast<int64_t>(indices.size());
    CHECK(batch.target.shape() == Shape{b});
    CHECK(batch.data.shape() == Shape{b, 2, 3});
    std::vector<double> values(indices.begin(), indices.end());
    CHECK_TENSOR_CLOSE(batch.data, from_vector(values, {b, 1, 1}).to(DType::Float32).expand({b, 2, 3}), 0.0, 0.0);
    batches.push_back(indices);
  }
  return batches;
}

std::vector<int64_t> flat(const std::vector<std::vector<int64_t>>& batches) {
  std::vector<int64_t> all;
  for (const auto& batch : batches) all.insert(all.end(), batch.begin(), batch.end());
  return all;
}

std::vector<int64_t> range(int64_t n) {
  std::vector<int64_t> r(static_cast<size_t>(n));
  std::iota(r.begin(), r.end(), int64_t{0});
  return r;
}

TEST_CASE("DataLoader: batches in dataset order, the last one partial") {
  auto dataset = index_dataset(10);
  DataLoader loader(dataset, {.batch_size = 4});
  CHECK(loader.size() == 3);
  const std::vector<std::vector<int64_t>> expected = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}};
  CHECK(epoch(loader) == expected);
  CHECK(epoch(loader) == expected);  // a second epoch, the same order
  DataLoader single(dataset);
  CHECK(single.size() == 10);
  CHECK(flat(epoch(single)) == range(10));
}

TEST_CASE("DataLoader: drop_last drops only a partial last batch") {
  auto dataset = index_dataset(10);
  DataLoader dropping(dataset, {.batch_size = 4, .drop_last = true});
  CHECK(dropping.size() == 2);
  CHECK(epoch(dropping) == std::vector<std::vector<int64_t>>{{0, 1, 2, 3}, {4, 5, 6, 7}});
  for (bool drop_last : {false, true}) {
    CAPTURE(drop_last);
    DataLoader even(dataset, {.batch_size = 5, .drop_last = drop_last});
    CHECK(even.size() == 2);
    CHECK(epoch(even).size() == 2);
  }
  DataLoader too_big(dataset, {.batch_size = 11, .drop_last = true});
  CHECK(too_big.size() == 0);
  CHECK(epoch(too_big).empty());
  DataLoader whole(dataset, {.batch_size = 11});
  CHECK(whole.size() == 1);
  CHECK(epoch(whole) == std::vector<std::vector<int64_t>>{range(10)});
  DataLoader huge(dataset, {.batch_size = std::numeric_limits<int64_t>::max()});
  CHECK(huge.size() == 1);
  CHECK(epoch(huge) == std::vector<std::vector<int64_t>>{range(10)});
  DataLoader empty(index_dataset(0), {.batch_size = 3});
  CHECK(empty.size() == 0);
  CHECK(epoch(empty).empty());
}

TEST_CASE("DataLoader: a seeded shuffle gives a new permutation each epoch, the same for the same seed") {
  auto dataset = index_dataset(23);
  DataLoader a(dataset, {.batch_size = 5, .shuffle = true, .seed = 7});
  DataLoader b(dataset, {.batch_size = 5, .shuffle = true, .seed = 7});
  DataLoader c(dataset, {.batch_size = 5, .shuffle = true, .seed = 8});
  std::vector<std::vector<int64_t>> orders;
  for (int e = 0; e < 3; ++e) {
    CAPTURE(e);
    const std::vector<std::vector<int64_t>> batches = epoch(a);
    REQUIRE(batches.size() == 5);
    CHECK(batches.back().size() == 3);
    std::vector<int64_t> order = flat(batches);
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == range(23));
    CHECK(order != range(23));
    CHECK(flat(epoch(b)) == order);
    CHECK(flat(epoch(c)) != order);
    orders.push_back(order);
  }
  CHECK(orders[0] != orders[1]);
  CHECK(orders[1] != orders[2]);
}

TEST_CASE("DataLoader: without a seed, shuffling follows tl::manual_seed") {
  auto dataset = index_dataset(16);
  manual_seed(123);
  DataLoader a(dataset, {.batch_size = 4, .shuffle = true});
  const std::vector<int64_t> first = flat(epoch(a)), second = flat(epoch(a));
  manual_seed(123);
  DataLoader b(dataset, {.batch_size = 4, .shuffle = true});
  CHECK(flat(epoch(b)) == first);
  CHECK(flat(epoch(b)) == second);
  CHECK(first != second);
}

TEST_CASE("DataLoader: an iterator keeps its epoch's order while a new epoch begins") {
  auto dataset = index_dataset(8);
  DataLoader loader(dataset, {.batch_size = 8, .shuffle = true, .seed = 1});
  DataLoader::Iterator first = loader.begin();
  const std::vector<int64_t> order = indices_of((*first).target);
  DataLoader::Iterator second = loader.begin();
  CHECK(indices_of((*first).target) == order);
  CHECK(indices_of((*second).target) != order);
  CHECK_THROWS_WITH_AS(*loader.end(), "DataLoader: dereferenced the end of an epoch", Error);
}

TEST_CASE("DataLoader: over a random_split part, batches hold that part's examples") {
  auto dataset = index_dataset(20);
  Generator generator(9);
  std::vector<Subset> parts = random_split(dataset, {0.75, 0.25}, generator);
  auto train = std::make_shared<Subset>(parts[0]);
  DataLoader loader(train, {.batch_size = 4});
  CHECK(loader.size() == 4);
  CHECK(flat(epoch(loader)) == train->indices());
}

// Examples of two shapes: stacking them fails.
class RaggedDataset : public Dataset {
 public:
  int64_t size() const override { return 3; }

 protected:
  Example fetch(int64_t index) const override { return {zeros({index == 2 ? 3 : 2}), scalar_tensor(0, DType::Int64)}; }
};

TEST_CASE("DataLoader: bad options, a null dataset and examples of different shapes are refused") {
  auto dataset = index_dataset(4);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.batch_size = 0}),
                       "DataLoader: batch_size should be a positive integer, got 0", Error);
  CHECK_THROWS_WITH_AS(DataLoader(nullptr), "DataLoader: expected a dataset, got null", Error);
  DataLoader pairs(std::make_shared<RaggedDataset>(), {.batch_size = 2});
  DataLoader::Iterator it = pairs.begin();
  CHECK((*it).data.shape() == Shape{2, 2});
  DataLoader ragged(std::make_shared<RaggedDataset>(), {.batch_size = 3});
  CHECK_THROWS_WITH_AS(*ragged.begin(), doctest::Contains("stack: expects each tensor to be equal size"), Error);
}

}  // namespace
}  // namespace tl::data
