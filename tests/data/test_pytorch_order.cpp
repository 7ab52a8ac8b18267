// tests/data/test_pytorch_order.cpp — for seeds 0, 1 and 2^31 - 1, the samplers and shuffling loaders give
// PyTorch 1.13's indices (tests/data/expected.txt, from gen_expected.py): same generator, same draws.
#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/generator.h"
#include "data/dataloader.h"
#include "data/sampler.h"
#include "tests/data/data_test_util.h"

namespace tl::data {
namespace {

using testing::expected_entries;
using testing::index_dataset;
using testing::indices_of;
using testing::integers;

// The entry's numbers after its first `skip` fields.
std::vector<int64_t> values_after(const std::string& entry, size_t skip) {
  std::vector<int64_t> all = integers(entry);
  return std::vector<int64_t>(all.begin() + static_cast<std::ptrdiff_t>(skip), all.end());
}

// The entries of `key` for `seed`, without the seed.
std::vector<std::string> for_seed(const std::string& key, uint64_t seed) {
  std::vector<std::string> found;
  const std::string prefix = std::to_string(seed) + " ";
  for (const std::string& entry : expected_entries(key))
    if (entry.rfind(prefix, 0) == 0) found.push_back(entry.substr(prefix.size()));
  REQUIRE(!found.empty());
  return found;
}

// Two epochs of `loader`, each the concatenation of its batches' indices.
std::vector<std::vector<int64_t>> two_epochs(DataLoader& loader) {
  std::vector<std::vector<int64_t>> epochs(2);
  for (auto& order : epochs)
    for (const Example& batch : loader) {
      const std::vector<int64_t> indices = indices_of(batch.target);
      order.insert(order.end(), indices.begin(), indices.end());
    }
  return epochs;
}

// "a b c | d e f" as its two lists.
std::vector<std::vector<int64_t>> epochs_of(const std::string& text) {
  const size_t bar = text.find('|');
  return {integers(text.substr(0, bar)), integers(text.substr(bar + 1))};
}

TEST_CASE("samplers and shuffling loaders give PyTorch's indices for a seed") {
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{2147483647}}) {
    CAPTURE(seed);
    const auto generator = [seed] { return std::make_shared<Generator>(seed); };
    const std::vector<std::string> random = for_seed("random_sampler", seed);
    REQUIRE(random.size() == 2);
    CHECK(samplers::RandomSampler(10, false, std::nullopt, generator()).epoch() == values_after(random[0], 2));
    CHECK(samplers::RandomSampler(4, false, 10, generator()).epoch() == values_after(random[1], 2));
    CHECK(samplers::RandomSampler(7, true, 40, generator()).epoch() ==
          values_after(for_seed("random_sampler_replacement", seed)[0], 2));
    CHECK(samplers::SubsetRandomSampler({10, 20, 30, 40, 50, 60, 70}, generator()).epoch() ==
          integers(for_seed("subset_random_sampler", seed)[0]));
    const std::vector<std::string> weighted = for_seed("weighted_sampler", seed);
    REQUIRE(weighted.size() == 2);
    CHECK(samplers::WeightedRandomSampler({0.1, 0.9, 0.4, 0.7, 3.0, 0.6}, 12, true, generator()).epoch() ==
          integers(weighted[0].substr(weighted[0].find(' '))));
    CHECK(samplers::WeightedRandomSampler({0.9, 0.4, 0.05, 0.2, 0.3, 0.1}, 5, false, generator()).epoch() ==
          integers(weighted[1].substr(weighted[1].find(' '))));

    DataLoader with_generator(index_dataset(23), {.batch_size = 5, .shuffle = true, .generator = generator()});
    CHECK(two_epochs(with_generator) == epochs_of(for_seed("loader_generator", seed)[0]));
    manual_seed(seed);
    DataLoader with_default(index_dataset(23), {.batch_size = 5, .shuffle = true});
    CHECK(two_epochs(with_default) == epochs_of(for_seed("loader_default", seed)[0]));
  }
}

}  // namespace
}  // namespace tl::data
