// data/dataloader.h — batches of a Dataset in a range-for (torch.utils.data.DataLoader, single process).
// Each begin() starts an epoch: the dataset's order, or a new seeded permutation when shuffling.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "core/generator.h"
#include "data/dataset.h"

namespace tl::data {

struct DataLoaderOptions {
  int64_t batch_size = 1;
  /// A new random order every epoch.
  bool shuffle = false;
  /// Drops the last batch when it is smaller than batch_size.
  bool drop_last = false;
  /// Seeds the loader's own generator: two loaders with the same seed give the same epochs, and each
  /// epoch continues the stream. Without one, every epoch's order comes from a seed drawn from the
  /// default generator (tl::manual_seed), as PyTorch's RandomSampler does without a generator.
  std::optional<uint64_t> seed;
};

/// Iterates batches: Examples whose data and target are the examples' tensors stacked along a new dim 0
/// (tl::stack), batch_size of them except perhaps the last. Examples are read from the dataset when a
/// batch is dereferenced; tl::stack's errors (examples of different shapes) propagate from there.
///
///   DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .seed = 0});
///   for (const Example& batch : loader) { ... batch.data ... batch.target ... }
class DataLoader {
 public:
  /// Throws tl::Error for a null dataset or a batch_size below 1.
  explicit DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});

  class Iterator {
   public:
    /// The batch at this position, read and stacked now.
    Example operator*() const;
    Iterator& operator++() {
      ++batch_;
      return *this;
    }
    bool operator==(const Iterator& other) const { return batch_ == other.batch_; }

   private:
    friend class DataLoader;
    Iterator(const DataLoader* loader, std::shared_ptr<const std::vector<int64_t>> order, int64_t batch)
        : loader_(loader), order_(std::move(order)), batch_(batch) {}

    const DataLoader* loader_;
    std::shared_ptr<const std::vector<int64_t>> order_;  // this epoch's example indices
    int64_t batch_;
  };

  /// Starts an epoch (draws its permutation when shuffling).
  Iterator begin();
  Iterator end() const { return Iterator(this, nullptr, size()); }
  /// The number of batches in an epoch, as len(DataLoader).
  int64_t size() const;

  const Dataset& dataset() const { return *dataset_; }
  const DataLoaderOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  std::unique_ptr<Generator> generator_;  // only with options_.seed (a Generator cannot move)
};

}  // namespace tl::data
