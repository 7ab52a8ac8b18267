// data/distributed_sampler.cpp — DistributedSampler's order: PyTorch 1.13's __iter__ (randperm from a fresh
// generator, pad or cut, then every num_replicas-th index from rank).
#include "data/distributed_sampler.h"

#include <numeric>

#include "core/error.h"

namespace tl::data::samplers {

DistributedSampler::DistributedSampler(int64_t size, int64_t num_replicas, int64_t rank, bool shuffle, uint64_t seed,
                                       bool drop_last)
    : n_(size), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed), drop_last_(drop_last) {
  TL_CHECK(size >= 0, "DistributedSampler: expected a non-negative size, got ", size);
  TL_CHECK(num_replicas >= 1, "DistributedSampler: num_replicas must be at least 1, got ", num_replicas);
  TL_CHECK(rank >= 0 && rank < num_replicas, "Invalid rank ", rank, ", rank should be in the interval [0, ",
           num_replicas - 1, "]");
  // ceil((n - replicas) / replicas) when dropping a ragged tail, else ceil(n / replicas).
  const bool cut = drop_last && size % num_replicas != 0;
  num_samples_ = cut ? (size - num_replicas + num_replicas - 1) / num_replicas : (size + num_replicas - 1) / num_replicas;
}

std::vector<int64_t> DistributedSampler::epoch() {
  std::vector<int64_t> order;
  if (shuffle_) {
    Generator generator(seed_ + static_cast<uint64_t>(epoch_));
    order = permutation(generator, n_);
  } else {
    order.resize(static_cast<size_t>(n_));
    std::iota(order.begin(), order.end(), int64_t{0});
  }
  const auto total = static_cast<size_t>(num_samples_ * num_replicas_);
  if (drop_last_) {
    order.resize(std::min(order.size(), total));
  } else {
    for (size_t i = 0; order.size() < total; ++i) order.push_back(order[i]);  // PyTorch's padding, repeated
  }
  std::vector<int64_t> mine;
  for (size_t i = static_cast<size_t>(rank_); i < order.size(); i += static_cast<size_t>(num_replicas_))
    mine.push_back(order[i]);
  return mine;
}

}  // namespace tl::data::samplers
