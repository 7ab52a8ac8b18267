// tests/data/test_sampler.cpp — the samplers' epochs (orders, counts, reproducibility by generator) and
// BatchSampler's grouping against PyTorch's documented examples; each misuse refused with its values.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/storage.h"
#include "data/sampler.h"

namespace tl::data::samplers {
namespace {

std::vector<int64_t> range(int64_t n) {
  std::vector<int64_t> r(static_cast<size_t>(n));
  std::iota(r.begin(), r.end(), int64_t{0});
  return r;
}

std::vector<int64_t> sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

TEST_CASE("SequentialSampler: 0..n-1 every epoch") {
  SequentialSampler sampler(5);
  CHECK(sampler.size() == 5);
  CHECK(sampler.epoch() == range(5));
  CHECK(sampler.epoch() == range(5));
  CHECK(SequentialSampler(0).epoch().empty());
  CHECK_THROWS_WITH_AS(SequentialSampler(-1), "SequentialSampler: expected a non-negative size, got -1", Error);
}

TEST_CASE("RandomSampler: a new permutation each epoch, the same for generators seeded alike") {
  RandomSampler a(17, false, std::nullopt, std::make_shared<Generator>(3));
  RandomSampler b(17, false, std::nullopt, std::make_shared<Generator>(3));
  CHECK(a.size() == 17);
  const std::vector<int64_t> first = a.epoch(), second = a.epoch();
  CHECK(sorted(first) == range(17));
  CHECK(sorted(second) == range(17));
  CHECK(first != second);
  CHECK(b.epoch() == first);
  CHECK(b.epoch() == second);
}

TEST_CASE("RandomSampler: num_samples beyond the size takes back-to-back permutations, the last cut short") {
  RandomSampler sampler(4, false, 10, std::make_shared<Generator>(1));
  CHECK(sampler.size() == 10);
  const std::vector<int64_t> order = sampler.epoch();
  REQUIRE(order.size() == 10);
  CHECK(sorted({order.begin(), order.begin() + 4}) == range(4));
  CHECK(sorted({order.begin() + 4, order.begin() + 8}) == range(4));
  CHECK(std::set<int64_t>(order.begin() + 8, order.end()).size() == 2);
  CHECK(RandomSampler(4, false, 3, std::make_shared<Generator>(1)).epoch().size() == 3);
}

TEST_CASE("RandomSampler: with replacement, num_samples draws in range that repeat") {
  RandomSampler sampler(3, true, 40, std::make_shared<Generator>(2));
  const std::vector<int64_t> order = sampler.epoch();
  REQUIRE(order.size() == 40);
  CHECK(std::all_of(order.begin(), order.end(), [](int64_t i) { return i >= 0 && i < 3; }));
  CHECK(std::set<int64_t>(order.begin(), order.end()).size() == 3);
  CHECK(RandomSampler(3, true).size() == 3);
}

TEST_CASE("RandomSampler: without a generator, each epoch is seeded from the default generator") {
  manual_seed(5);
  RandomSampler a(12);
  const std::vector<int64_t> first = a.epoch(), second = a.epoch();
  manual_seed(5);
  RandomSampler b(12);
  CHECK(b.epoch() == first);
  CHECK(b.epoch() == second);
  CHECK(first != second);
}

TEST_CASE("RandomSampler: bad sizes are refused") {
  CHECK_THROWS_WITH_AS(RandomSampler(0), "RandomSampler: num_samples should be a positive integer value, but got "
                                         "num_samples=0", Error);
  CHECK_THROWS_WITH_AS(RandomSampler(5, true, 0), "RandomSampler: num_samples should be a positive integer value, "
                                                  "but got num_samples=0", Error);
  CHECK_THROWS_WITH_AS(RandomSampler(0, false, 3), "RandomSampler: cannot draw 3 samples from an empty dataset", Error);
  CHECK_THROWS_WITH_AS(RandomSampler(-2, false, 3), "RandomSampler: expected a non-negative size, got -2", Error);
}

TEST_CASE("RandomSampler, WeightedRandomSampler: num_samples past the allocation limit is refused up front") {
  // An epoch is one list of num_samples indices: INT64_MAX of them would be std::length_error, or a list
  // growing under the generator's mutex, if the sampler were made.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::string limit = std::to_string(allocation_limit());
  const std::string tail = " indices would exceed the allocation limit of " + limit + " bytes (see tl::set_allocation_limit)";
  CHECK_THROWS_WITH_AS(RandomSampler(10, true, kMax), ("RandomSampler: num_samples=" + std::to_string(kMax) + tail).c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(RandomSampler(10, false, kMax),
                       ("RandomSampler: num_samples=" + std::to_string(kMax) + tail).c_str(), Error);
  CHECK_THROWS_WITH_AS(WeightedRandomSampler({1.0, 2.0}, kMax, true),
                       ("WeightedRandomSampler: num_samples=" + std::to_string(kMax) + tail).c_str(), Error);
  const int64_t previous = set_allocation_limit(allocator_stats().bytes_in_use + 1000);
  CHECK_THROWS_WITH_AS(RandomSampler(10, true, 200), doctest::Contains("RandomSampler: num_samples=200 indices"), Error);
  set_allocation_limit(previous);
  CHECK(RandomSampler(10, true, 200).epoch().size() == 200);
}

TEST_CASE("SubsetRandomSampler: the given indices in a new order each epoch") {
  const std::vector<int64_t> indices = {10, 20, 30, 40, 50, 60, 70};
  SubsetRandomSampler sampler(indices, std::make_shared<Generator>(4));
  CHECK(sampler.size() == 7);
  const std::vector<int64_t> first = sampler.epoch(), second = sampler.epoch();
  CHECK(sorted(first) == indices);
  CHECK(sorted(second) == indices);
  CHECK(first != second);
  CHECK(SubsetRandomSampler({}).epoch().empty());
}

TEST_CASE("WeightedRandomSampler: frequencies follow the weights, zero weights never drawn") {
  WeightedRandomSampler sampler({1.0, 0.0, 3.0}, 20000, true, std::make_shared<Generator>(6));
  CHECK(sampler.size() == 20000);
  const std::vector<int64_t> order = sampler.epoch();
  REQUIRE(order.size() == 20000);
  const auto count = [&](int64_t i) { return std::count(order.begin(), order.end(), i); };
  CHECK(count(1) == 0);
  CHECK(count(0) + count(2) == 20000);
  CHECK(static_cast<double>(count(2)) / 20000.0 == doctest::Approx(0.75).epsilon(0.02));  // 5 sigma
  CHECK(WeightedRandomSampler({0.0, 2.0}, 1, true).epoch() == std::vector<int64_t>{1});
}

TEST_CASE("WeightedRandomSampler: without replacement, distinct indices, heavier ones first more often") {
  int64_t heavy_first = 0;
  auto generator = std::make_shared<Generator>(7);
  WeightedRandomSampler sampler({1.0, 9.0, 0.0, 1.0}, 3, false, generator);
  for (int trial = 0; trial < 4000; ++trial) {
    const std::vector<int64_t> order = sampler.epoch();
    REQUIRE(order.size() == 3);
    CHECK(sorted(order) == std::vector<int64_t>{0, 1, 3});
    heavy_first += order[0] == 1;
  }
  CHECK(static_cast<double>(heavy_first) / 4000.0 == doctest::Approx(9.0 / 11.0).epsilon(0.03));
}

TEST_CASE("WeightedRandomSampler: bad weights and counts are refused") {
  CHECK_THROWS_WITH_AS(WeightedRandomSampler({1.0}, 0), "WeightedRandomSampler: num_samples should be a positive "
                                                       "integer value, but got num_samples=0", Error);
  CHECK_THROWS_WITH_AS(WeightedRandomSampler({1.0, -0.5}, 1),
                       "WeightedRandomSampler: weight -0.5 at index 1 is not a finite non-negative number", Error);
  CHECK_THROWS_WITH_AS(WeightedRandomSampler({1.0, 1.0 / 0.0}, 1),
                       "WeightedRandomSampler: weight inf at index 1 is not a finite non-negative number", Error);
  CHECK_THROWS_WITH_AS(WeightedRandomSampler({0.0, 0.0}, 1),
                       "WeightedRandomSampler: invalid multinomial distribution (sum of probabilities <= 0)", Error);
  CHECK_THROWS_WITH_AS(WeightedRandomSampler({}, 1),
                       "WeightedRandomSampler: invalid multinomial distribution (sum of probabilities <= 0)", Error);
  CHECK_THROWS_WITH_AS(WeightedRandomSampler({1.0, 0.0, 2.0}, 3, false),
                       "WeightedRandomSampler: cannot draw 3 samples without replacement from 2 non-zero weights",
                       Error);
}

TEST_CASE("BatchSampler: PyTorch's documented batches, with and without drop_last") {
  auto sequential = std::make_shared<SequentialSampler>(10);
  BatchSampler keep(sequential, 3, false);
  CHECK(keep.size() == 4);
  CHECK(keep.epoch() == std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}});
  BatchSampler drop(sequential, 3, true);
  CHECK(drop.size() == 3);
  CHECK(drop.epoch() == std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}});
  CHECK(BatchSampler(sequential, 5, true).epoch().size() == 2);
  CHECK(BatchSampler(sequential, 11, true).epoch().empty());
  CHECK(BatchSampler(sequential, 11, false).epoch() == std::vector<std::vector<int64_t>>{range(10)});
  CHECK(BatchSampler(std::make_shared<SequentialSampler>(0), 2, false).epoch().empty());
}

TEST_CASE("BatchSampler: groups the epochs of a random sampler in their order") {
  auto a = std::make_shared<RandomSampler>(9, false, std::nullopt, std::make_shared<Generator>(8));
  auto b = std::make_shared<RandomSampler>(9, false, std::nullopt, std::make_shared<Generator>(8));
  const std::vector<std::vector<int64_t>> batches = BatchSampler(a, 4, false).epoch();
  const std::vector<int64_t> order = b->epoch();
  REQUIRE(batches.size() == 3);
  CHECK(batches[0] == std::vector<int64_t>(order.begin(), order.begin() + 4));
  CHECK(batches[2] == std::vector<int64_t>{order[8]});
}

TEST_CASE("BatchSampler: a null sampler and a bad batch_size are refused") {
  CHECK_THROWS_WITH_AS(BatchSampler(nullptr, 2, false), "BatchSampler: expected a sampler, got null", Error);
  CHECK_THROWS_WITH_AS(BatchSampler(std::make_shared<SequentialSampler>(3), 0, false),
                       "BatchSampler: batch_size should be a positive integer value, but got batch_size=0", Error);
}

}  // namespace
}  // namespace tl::data::samplers
