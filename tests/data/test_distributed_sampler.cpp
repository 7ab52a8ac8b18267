// tests/data/test_distributed_sampler.cpp — DistributedSampler gives each rank PyTorch 1.13's indices (padding,
// cutting, shuffled by seed + epoch; tests/data/gen_distributed_sampler.py), and refuses bad arguments.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "data/dataloader.h"
#include "data/dataset.h"
#include "data/distributed_sampler.h"
#include "ops/ops.h"

namespace tl::data {

TEST_CASE("DistributedSampler: every rank's indices are PyTorch's") {
  std::ifstream in("tests/data/distributed_sampler.json");
  REQUIRE_MESSAGE(in.good(), "missing tests/data/distributed_sampler.json (run tests/data/gen_distributed_sampler.py)");
  const nlohmann::json cases = nlohmann::json::parse(in);
  for (const nlohmann::json& c : cases) {
    const int64_t replicas = c.at("num_replicas");
    for (int64_t rank = 0; rank < replicas; ++rank) {
      CAPTURE(c.dump());
      CAPTURE(rank);
      samplers::DistributedSampler sampler(c.at("size"), replicas, rank, c.at("shuffle"), c.at("seed"),
                                           c.at("drop_last"));
      sampler.set_epoch(c.at("epoch"));
      const auto expected = c.at("ranks").at(static_cast<size_t>(rank)).get<std::vector<int64_t>>();
      CHECK(sampler.epoch() == expected);
      CHECK(sampler.epoch() == expected);  // the same until set_epoch
      CHECK(sampler.size() == static_cast<int64_t>(expected.size()));
    }
  }
}

TEST_CASE("DistributedSampler: set_epoch reshuffles; a DataLoader batches the rank's share") {
  samplers::DistributedSampler sampler(10, 2, 1, true, 0);
  const std::vector<int64_t> first = sampler.epoch();
  sampler.set_epoch(1);
  CHECK(sampler.epoch() != first);
  sampler.set_epoch(0);
  CHECK(sampler.epoch() == first);
  auto shared = std::make_shared<samplers::DistributedSampler>(10, 2, 1, true, 0);
  auto dataset = std::make_shared<TensorDataset>(arange(0, 10, 1, kLong), arange(0, 10, 1, kLong));
  DataLoader loader(dataset, {.batch_size = 5, .sampler = shared});
  std::vector<int64_t> seen;
  for (const Example& batch : loader)
    for (int64_t i = 0; i < batch.data.numel(); ++i) seen.push_back(batch.data[i].item<int64_t>());
  CHECK(seen == first);
}

TEST_CASE("DistributedSampler refuses a rank outside the replicas, no replicas, a negative size") {
  CHECK_THROWS_WITH_AS(samplers::DistributedSampler(10, 2, 2), "Invalid rank 2, rank should be in the interval [0, 1]",
                       Error);
  CHECK_THROWS_WITH_AS(samplers::DistributedSampler(10, 2, -1),
                       "Invalid rank -1, rank should be in the interval [0, 1]", Error);
  CHECK_THROWS_WITH_AS(samplers::DistributedSampler(10, 0, 0),
                       "DistributedSampler: num_replicas must be at least 1, got 0", Error);
  CHECK_THROWS_WITH_AS(samplers::DistributedSampler(-1, 2, 0),
                       "DistributedSampler: expected a non-negative size, got -1", Error);
}

}  // namespace tl::data
