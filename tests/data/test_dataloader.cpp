// tests/data/test_dataloader.cpp — batches as stacks of the dataset's examples: their shapes, the last
// partial batch, drop_last, shuffled epochs that are permutations fixed by the seed, and PyTorch's
// sampler / batch_sampler / collate_fn / generator arguments.
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

TEST_CASE("DataLoader: a sampler gives the order, batched by batch_size and drop_last") {
  auto dataset = index_dataset(10);
  auto sampler = std::make_shared<samplers::SubsetRandomSampler>(std::vector<int64_t>{9, 7, 5, 3, 1},
                                                                 std::make_shared<Generator>(2));
  DataLoader loader(dataset, {.batch_size = 2, .drop_last = true, .sampler = sampler});
  CHECK(loader.size() == 2);
  const std::vector<std::vector<int64_t>> batches = epoch(loader);
  REQUIRE(batches.size() == 2);
  std::vector<int64_t> seen = flat(batches);
  std::sort(seen.begin(), seen.end());
  const std::vector<int64_t> odd = {1, 3, 5, 7, 9};
  CHECK(seen.size() == 4);
  CHECK(std::includes(odd.begin(), odd.end(), seen.begin(), seen.end()));
}

TEST_CASE("DataLoader: a batch_sampler gives the batches") {
  auto dataset = index_dataset(7);
  auto batches = std::make_shared<samplers::BatchSampler>(std::make_shared<samplers::SequentialSampler>(7), 3, false);
  DataLoader loader(dataset, {.batch_sampler = batches});
  CHECK(loader.size() == 3);
  CHECK(epoch(loader) == std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6}});
}

TEST_CASE("DataLoader: collate_fn makes the batch of its examples") {
  auto dataset = index_dataset(5);
  DataLoader loader(dataset, {.batch_size = 2, .collate_fn = [](std::vector<Example> examples) {
                                std::vector<Tensor> targets;
                                for (const Example& e : examples) targets.push_back(e.target);
                                return Example{scalar_tensor(static_cast<double>(examples.size()), DType::Float32),
                                               tl::stack(targets, 0).mul(10)};
                              }});
  std::vector<std::vector<int64_t>> targets;
  std::vector<double> counts;
  for (const Example& batch : loader) {
    targets.push_back(indices_of(batch.target));
    counts.push_back(batch.data.item<float>());
  }
  CHECK(targets == std::vector<std::vector<int64_t>>{{0, 10}, {20, 30}, {40}});
  CHECK(counts == std::vector<double>{2, 2, 1});
}

TEST_CASE("DataLoader: a shared generator orders the shuffle as a RandomSampler over it after one seed draw") {
  auto dataset = index_dataset(13);
  auto generator = std::make_shared<Generator>(11);
  DataLoader loader(dataset, {.batch_size = 5, .shuffle = true, .generator = generator});
  const std::vector<int64_t> first = flat(epoch(loader)), second = flat(epoch(loader));
  auto twin = std::make_shared<Generator>(11);
  samplers::RandomSampler sampler(13, false, std::nullopt, twin);
  for (const std::vector<int64_t>& order : {first, second}) {
    samplers::draw_seed(*twin);  // the loader's per-epoch base seed, drawn before the sampler's epoch
    CHECK(sampler.epoch() == order);
  }
  CHECK(first != second);
  DataLoader seeded(dataset, {.batch_size = 5, .shuffle = true, .seed = 11});
  CHECK(flat(epoch(seeded)) == first);
}

TEST_CASE("DataLoader: options that exclude each other are refused, as PyTorch refuses them") {
  auto dataset = index_dataset(4);
  auto sampler = std::make_shared<samplers::SequentialSampler>(4);
  auto batches = std::make_shared<samplers::BatchSampler>(sampler, 2, false);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.shuffle = true, .sampler = sampler}),
                       "DataLoader: sampler option is mutually exclusive with shuffle", Error);
  const char* exclusive =
      "DataLoader: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last";
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.batch_size = 2, .batch_sampler = batches}), exclusive, Error);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.shuffle = true, .batch_sampler = batches}), exclusive, Error);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.drop_last = true, .batch_sampler = batches}), exclusive, Error);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.sampler = sampler, .batch_sampler = batches}), exclusive, Error);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.seed = 1, .generator = std::make_shared<Generator>(1)}),
                       "DataLoader: seed and generator are mutually exclusive", Error);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.num_workers = -1}),
                       "DataLoader: num_workers option should be non-negative; use num_workers=0 to disable "
                       "multiprocessing, got -1", Error);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.prefetch_factor = 3}),
                       "DataLoader: prefetch_factor option could only be specified with num_workers > 0, got "
                       "prefetch_factor=3", Error);
  CHECK_THROWS_WITH_AS(DataLoader(dataset, {.num_workers = 1, .prefetch_factor = 0}),
                       "DataLoader: prefetch_factor should be a positive integer, got 0", Error);
  CHECK_THROWS_WITH_AS(DataLoader(index_dataset(0), {.shuffle = true}),
                       "RandomSampler: num_samples should be a positive integer value, but got num_samples=0", Error);
}

// A sampler whose epochs are shorter than its size() says.
class LyingSampler : public samplers::Sampler {
 public:
  std::vector<int64_t> epoch() override { return {0}; }
  int64_t size() const override { return 3; }
};

TEST_CASE("DataLoader: a sampler whose epoch disagrees with its size() is refused at begin()") {
  DataLoader loader(index_dataset(4), {.sampler = std::make_shared<LyingSampler>()});
  CHECK(loader.size() == 3);
  CHECK_THROWS_WITH_AS(loader.begin(), "DataLoader: the sampler's epoch holds 1 batches but its size() promises 3",
                       Error);
}

}  // namespace
}  // namespace tl::data
