// data/sampler.h — the orders in which a DataLoader visits a dataset (torch.utils.data's samplers, in
// LibTorch's namespace torch::data::samplers). Each epoch() call draws one epoch's indices, all at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/generator.h"

namespace tl::data::samplers {

/// A seed for a new generator, drawn from `generator` as PyTorch draws one (torch.empty((),
/// dtype=torch.int64).random_(generator=g)): the loader's per-epoch seed and RandomSampler's.
uint64_t draw_seed(Generator& generator);

/// A source of example indices, one list per epoch (torch.utils.data.Sampler; list(iter(sampler))).
class Sampler {
 public:
  virtual ~Sampler() = default;
  /// The indices of the next epoch; a random sampler draws from its generator now.
  virtual std::vector<int64_t> epoch() = 0;
  /// How many indices an epoch holds, as len(sampler).
  virtual int64_t size() const = 0;
};

/// 0, 1, ..., size - 1 every epoch. Throws tl::Error for a negative size.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t size);
  std::vector<int64_t> epoch() override;
  int64_t size() const override { return size_; }

 private:
  int64_t size_;
};

/// A random order of 0..size-1 (torch.utils.data.RandomSampler). Without replacement: num_samples
/// indices from back-to-back permutations (the last one cut short); with replacement: num_samples
/// independent uniform indices. Draws from `generator` when given, else (as PyTorch) from a generator
/// seeded every epoch by a draw from the default one (tl::manual_seed).
class RandomSampler : public Sampler {
 public:
  /// num_samples defaults to size. Throws tl::Error for a negative size, num_samples below 1, or more
  /// num_samples than the allocation limit holds as one epoch's indices (core/storage.h).
  explicit RandomSampler(int64_t size, bool replacement = false, std::optional<int64_t> num_samples = std::nullopt,
                         std::shared_ptr<Generator> generator = nullptr);
  std::vector<int64_t> epoch() override;
  int64_t size() const override { return num_samples_; }

 private:
  int64_t n_;
  bool replacement_;
  int64_t num_samples_;
  std::shared_ptr<Generator> generator_;
};

/// The given indices in a random order each epoch (torch.utils.data.SubsetRandomSampler); draws from
/// `generator`, or the default generator when null.
class SubsetRandomSampler : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<int64_t> indices, std::shared_ptr<Generator> generator = nullptr);
  std::vector<int64_t> epoch() override;
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }

 private:
  std::vector<int64_t> indices_;
  std::shared_ptr<Generator> generator_;
};

/// num_samples indices of 0..weights.size()-1 drawn with probability proportional to the weights
/// (torch.utils.data.WeightedRandomSampler, torch.multinomial's draws); without replacement an index
/// is drawn at most once per epoch. Draws from `generator`, or the default generator when null.
class WeightedRandomSampler : public Sampler {
 public:
  /// Throws tl::Error for num_samples below 1 or past the allocation limit (as RandomSampler), a
  /// negative or non-finite weight, weights summing to 0,
  /// or (without replacement) more samples than non-zero weights.
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        std::shared_ptr<Generator> generator = nullptr);
  std::vector<int64_t> epoch() override;
  int64_t size() const override { return num_samples_; }

 private:
  std::vector<double> weights_;
  int64_t num_samples_;
  bool replacement_;
  std::shared_ptr<Generator> generator_;
};

/// Groups another sampler's epoch into batches of batch_size indices, the last one smaller unless
/// drop_last (torch.utils.data.BatchSampler).
class BatchSampler {
 public:
  /// Throws tl::Error for a null sampler or a batch_size below 1.
  BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last);
  /// The batches of the next epoch (draws the sampler's epoch).
  std::vector<std::vector<int64_t>> epoch();
  /// The number of batches in an epoch, as len(batch_sampler).
  int64_t size() const;
  int64_t batch_size() const { return batch_size_; }
  bool drop_last() const { return drop_last_; }

 private:
  std::shared_ptr<Sampler> sampler_;
  int64_t batch_size_;
  bool drop_last_;
};

}  // namespace tl::data::samplers
