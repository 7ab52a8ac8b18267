// data/dataloader.h — batches of a Dataset in a range-for (torch.utils.data.DataLoader), loaded on the
// calling thread or on worker threads. Each begin() starts an epoch whose batches are fixed then.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/generator.h"
#include "data/dataset.h"
#include "data/sampler.h"

namespace tl::data {

/// Turns the examples of one batch into the batch (PyTorch's collate_fn).
using CollateFn = std::function<Example(std::vector<Example>)>;

/// Stacks the examples' data and their targets along a new dim 0 (torch.utils.data.default_collate for
/// (data, target) pairs); tl::stack's errors (examples of different shapes) propagate.
Example default_collate(std::vector<Example> examples);

/// PyTorch's DataLoader arguments. sampler excludes shuffle; batch_sampler excludes batch_size (other
/// than 1), shuffle, sampler and drop_last; seed excludes generator.
struct DataLoaderOptions {
  int64_t batch_size = 1;
  /// A new random order every epoch (a RandomSampler over the dataset with the loader's generator).
  bool shuffle = false;
  /// Drops the last batch when it is smaller than batch_size.
  bool drop_last = false;
  /// Seeds the loader's own generator: two loaders with the same seed give the same epochs, and each
  /// epoch continues the stream. Without one (and without a generator), every epoch's order comes from
  /// a seed drawn from the default generator (tl::manual_seed), as PyTorch's RandomSampler does.
  std::optional<uint64_t> seed;
  /// PyTorch's generator=: the shuffle's generator and the source of each epoch's base seed.
  std::shared_ptr<Generator> generator;
  /// The order of the examples, instead of shuffle's.
  std::shared_ptr<samplers::Sampler> sampler;
  /// The batches of indices, instead of batch_size / shuffle / sampler / drop_last.
  std::shared_ptr<samplers::BatchSampler> batch_sampler;
  /// Makes a batch of its examples; default_collate when empty.
  CollateFn collate_fn;
  /// Threads that load batches ahead of the loop (0: each batch is loaded when dereferenced).
  int64_t num_workers = 0;
  /// Batches in flight per worker (only with num_workers > 0, as PyTorch's).
  int64_t prefetch_factor = 2;
};

/// Iterates the batches of a dataset, in the order of its batch sampler: each batch is collate_fn of
/// the examples at one batch's indices (batch_size of them except perhaps the last).
///
///   DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .seed = 0, .num_workers = 2});
///   for (const Example& batch : loader) { ... batch.data ... batch.target ... }
///
/// With num_workers = 0 a batch is read when it is dereferenced, and errors (dataset get, collate)
/// propagate from there. With workers, begin() starts num_workers threads; worker w loads batches w,
/// w + num_workers, ..., at most prefetch_factor ahead each, and the loop receives the same batches in
/// the same order as without workers. A worker's error is rethrown where its batch is dereferenced, as
/// tl::Error "DataLoader: worker <w> failed on batch <i>: <what>"; later batches still arrive.
/// Leaving a loop early (or destroying its iterators) stops and joins the epoch's workers. Workers
/// share the default generator; a dataset that draws random numbers is then not reproducible.
class DataLoader {
 public:
  /// Throws tl::Error for a null dataset, a batch_size below 1, options that exclude each other, a
  /// negative num_workers, a prefetch_factor below 1 or one other than 2 without workers, or a shuffle
  /// over an empty dataset.
  explicit DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});

  /// One epoch's batches and the workers that load them; shared by the epoch's iterators.
  class Epoch;

  class Iterator {
   public:
    /// The batch at this position: loaded now without workers, awaited from its worker with them
    /// (then each batch can be dereferenced until the next one is).
    Example operator*() const;
    Iterator& operator++() {
      ++batch_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return batch_ == other.batch_; }

   private:
    friend class DataLoader;
    Iterator(std::shared_ptr<Epoch> epoch, int64_t batch) : epoch_(std::move(epoch)), batch_(batch) {}

    std::shared_ptr<Epoch> epoch_;  // null for end()
    int64_t batch_;
  };

  /// Starts an epoch: draws its base seed and its batches (as iter(DataLoader)), starts its workers.
  Iterator begin();
  Iterator end() const { return Iterator(nullptr, size()); }
  /// The number of batches in an epoch, as len(DataLoader).
  int64_t size() const { return batch_sampler_->size(); }

  const Dataset& dataset() const { return *dataset_; }
  const DataLoaderOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  std::shared_ptr<Generator> generator_;  // options_.generator, or one seeded with options_.seed
  std::shared_ptr<samplers::BatchSampler> batch_sampler_;
};

}  // namespace tl::data
