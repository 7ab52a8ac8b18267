// data/distributed_sampler.h — DistributedSampler (torch.utils.data.distributed.DistributedSampler): each rank's
// share of a data set, the shares padded (or cut) to one length, shuffled alike on every rank for an epoch.
#pragma once

#include <cstdint>
#include <vector>

#include "data/sampler.h"

namespace tl::data::samplers {

/// Rank `rank` of `num_replicas` gets indices rank, rank + num_replicas, ... of one order of 0..size-1: with
/// shuffle, torch.randperm(size) from a generator seeded seed + epoch (the same on every rank), else 0..size-1.
/// Without drop_last the order is padded with its own first indices to a multiple of num_replicas; with it, cut
/// to one. PyTorch takes num_replicas and rank from the process group when not given; here they are arguments
/// (tl::distributed::get_world_size(), get_rank(): data/ sits below distributed/).
class DistributedSampler : public Sampler {
 public:
  /// Throws tl::Error for a negative size, num_replicas below 1, or a rank outside [0, num_replicas - 1]
  /// (PyTorch's "Invalid rank" text).
  DistributedSampler(int64_t size, int64_t num_replicas, int64_t rank, bool shuffle = true, uint64_t seed = 0,
                     bool drop_last = false);
  /// This rank's indices for the current epoch (the same list until set_epoch changes it, as PyTorch's).
  std::vector<int64_t> epoch() override;
  /// num_samples: how many indices each rank gets.
  int64_t size() const override { return num_samples_; }
  /// The epoch whose order epoch() gives (its shuffle's seed is seed + epoch); call it before each epoch.
  void set_epoch(int64_t epoch) { epoch_ = epoch; }

 private:
  int64_t n_;
  int64_t num_replicas_;
  int64_t rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  int64_t num_samples_;
  int64_t epoch_ = 0;
};

}  // namespace tl::data::samplers
