// tests/data/test_random_split.cpp — random_permutation is a uniform permutation fixed by the seed;
// random_split's sizes match PyTorch 1.13 (expected.txt), its parts are disjoint and cover the dataset,
// and with a seeded generator they hold PyTorch's indices (rng_streams.txt).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/warning.h"
#include "data/random_split.h"
#include "tests/data/data_test_util.h"
#include "tests/support/rng_streams.h"

namespace tl::data {
namespace {

using testing::expected_entries;
using testing::index_dataset;
using testing::indices_of;
using testing::integers;

// The dataset indices a split's examples carry, in the split's order.
std::vector<int64_t> contents(const Subset& split) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < split.size(); ++i) out.push_back(indices_of(split.get(i).target)[0]);
  return out;
}

bool is_permutation_of_range(std::vector<int64_t> values, int64_t n) {
  std::sort(values.begin(), values.end());
  std::vector<int64_t> range(static_cast<size_t>(n));
  std::iota(range.begin(), range.end(), int64_t{0});
  return values == range;
}

TEST_CASE("random_permutation: a permutation fixed by the generator's state") {
  for (int64_t n : {0, 1, 2, 7, 100}) {
    CAPTURE(n);
    Generator a(3), b(3);
    const std::vector<int64_t> first = random_permutation(n, a);
    CHECK(is_permutation_of_range(first, n));
    CHECK(random_permutation(n, b) == first);
    if (n >= 7) CHECK(random_permutation(n, a) != first);  // the next draw is another order
  }
  Generator a(3), c(4);
  CHECK(random_permutation(100, a) != random_permutation(100, c));
  CHECK_THROWS_WITH_AS(random_permutation(-1, a), "random_permutation: expected a non-negative size, got -1", Error);
}

TEST_CASE("random_permutation: each order of 3 is about equally likely") {
  Generator generator(11);
  std::map<std::vector<int64_t>, int> counts;
  const int draws = 6000;
  for (int i = 0; i < draws; ++i) ++counts[random_permutation(3, generator)];
  CHECK(counts.size() == 6);
  for (const auto& entry : counts) {
    CAPTURE(entry.second);
    CHECK(std::abs(entry.second - draws / 6) < 150);  // about 5 standard deviations
  }
}

TEST_CASE("random_split: counts give disjoint subsets covering the dataset, fixed by the seed") {
  auto dataset = index_dataset(10);
  Generator g1(42), g2(42), g3(43);
  const std::vector<Subset> splits = random_split(dataset, {3, 7}, g1);
  REQUIRE(splits.size() == 2);
  CHECK(splits[0].size() == 3);
  CHECK(splits[1].size() == 7);
  std::vector<int64_t> all = contents(splits[0]);
  const std::vector<int64_t> second = contents(splits[1]);
  all.insert(all.end(), second.begin(), second.end());
  CHECK(is_permutation_of_range(all, 10));
  const std::vector<Subset> again = random_split(dataset, {3, 7}, g2);
  CHECK(contents(again[0]) == contents(splits[0]));
  CHECK(contents(again[1]) == second);
  const std::vector<Subset> other = random_split(dataset, {3, 7}, g3);
  CHECK((contents(other[0]) != contents(splits[0]) || contents(other[1]) != second));
  CHECK(random_split(dataset, {10}, g1)[0].size() == 10);
  CHECK(random_split(dataset, {0, 10, 0}, g1)[0].size() == 0);
}

TEST_CASE("random_split: fractions are sized as PyTorch 1.13 sizes them") {
  const std::vector<std::string> cases = expected_entries("split");
  CHECK(cases.size() >= 5);
  std::vector<std::string> warnings;
  WarningHandler previous = set_warning_handler([&](const std::string& m) { warnings.push_back(m); });
  for (const std::string& line : cases) {
    CAPTURE(line);
    std::istringstream in(line);
    int64_t n = 0;
    std::string fractions_text, arrow, sizes_text;
    in >> n >> fractions_text >> arrow;
    std::getline(in, sizes_text);
    std::vector<double> fractions;
    std::istringstream fields(fractions_text);
    for (std::string f; std::getline(fields, f, ',');) fractions.push_back(std::stod(f));
    Generator generator(0);
    std::vector<int64_t> sizes;
    std::vector<int64_t> all;
    for (const Subset& split : random_split(index_dataset(n), fractions, generator)) {
      sizes.push_back(split.size());
      const std::vector<int64_t> part = contents(split);
      all.insert(all.end(), part.begin(), part.end());
    }
    CHECK(sizes == integers(sizes_text));
    CHECK(is_permutation_of_range(all, n));
  }
  set_warning_handler(previous);
  // expected.txt's last case, 3 examples in fifths, leaves the last two splits empty.
  CHECK(warnings == std::vector<std::string>{"random_split: length of split at index 3 is 0, an empty dataset",
                                             "random_split: length of split at index 4 is 0, an empty dataset"});
}

TEST_CASE("random_split: bad lengths are refused and the generator is not drawn from") {
  auto dataset = index_dataset(10);
  Generator generator(5);
  const auto refused = [&](const std::vector<double>& lengths, const std::string& message) {
    CAPTURE(message);
    CHECK_THROWS_WITH_AS(random_split(dataset, lengths, generator), message.c_str(), Error);
  };
  refused({3, 6}, "random_split: the lengths sum to 9 but the dataset has 10 examples");
  refused({3, 8}, "random_split: the lengths sum to 11 but the dataset has 10 examples");
  refused({-2, 12}, "random_split: length -2 at index 0 is not a whole count in 0..10 (nor do the lengths form "
                    "fractions summing to 1)");
  refused({2.5, 7.5}, "random_split: length 2.5 at index 0 is not a whole count in 0..10 (nor do the lengths form "
                      "fractions summing to 1)");
  refused({1.5, -0.5}, "random_split: fraction 1.5 at index 0 is not between 0 and 1");
  refused({}, "random_split: expected at least one length");
  CHECK_THROWS_WITH_AS(random_split(nullptr, {1}, generator), "random_split: expected a dataset, got null", Error);
  Generator fresh(5);
  CHECK(generator.random64() == fresh.random64());
}

TEST_CASE("random_split: a generator seeded as torch.Generator().manual_seed(s) gives PyTorch's parts") {
  for (uint64_t seed : tl::testing::kStreamSeeds)
    for (int64_t n : {10, 33}) {
      Generator generator(seed);
      std::vector<int64_t> indices;
      for (const Subset& part : random_split(index_dataset(n), {0.7, 0.3}, generator))
        for (int64_t i : contents(part)) indices.push_back(i);
      CHECK(tl::testing::stream_mismatch(tl::testing::stream_name(seed, "random_split." + std::to_string(n)),
                                         tl::testing::decimal(indices)) == "");
    }
}

}  // namespace
}  // namespace tl::data
