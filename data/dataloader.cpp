// data/dataloader.cpp — epoch orders and batch assembly. The order of an epoch is fixed when it
// begins, so iterators of one epoch agree however the loader is used meanwhile.
#include "data/dataloader.h"

#include <algorithm>
#include <mutex>
#include <numeric>
#include <utility>

#include "core/error.h"
#include "data/random_split.h"
#include "ops/ops.h"

namespace tl::data {

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  TL_CHECK(dataset_ != nullptr, "DataLoader: expected a dataset, got null");
  TL_CHECK(options_.batch_size >= 1, "DataLoader: batch_size should be a positive integer, got ",
           options_.batch_size);
  if (options_.seed) generator_ = std::make_unique<Generator>(*options_.seed);
}

int64_t DataLoader::size() const {
  const int64_t n = dataset_->size(), b = options_.batch_size;
  return n / b + (!options_.drop_last && n % b != 0 ? 1 : 0);  // not (n + b - 1) / b: b may be near INT64_MAX
}

DataLoader::Iterator DataLoader::begin() {
  const int64_t n = dataset_->size();
  std::vector<int64_t> order;
  if (!options_.shuffle) {
    order.resize(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t{0});
  } else if (generator_) {
    order = random_permutation(n, *generator_);
  } else {
    Generator& global = default_generator();
    uint64_t seed = 0;
    {
      std::lock_guard lock(global.mutex());
      seed = global.random64();
    }
    Generator epoch(seed);
    order = random_permutation(n, epoch);
  }
  return Iterator(this, std::make_shared<const std::vector<int64_t>>(std::move(order)), 0);
}

Example DataLoader::Iterator::operator*() const {
  TL_CHECK(order_ != nullptr && batch_ < loader_->size(), "DataLoader: dereferenced the end of an epoch");
  const int64_t b = loader_->options_.batch_size;
  const int64_t first = batch_ * b;
  const int64_t last = std::min(first + b, static_cast<int64_t>(order_->size()));
  std::vector<Tensor> data, target;
  for (int64_t i = first; i < last; ++i) {
    Example example = loader_->dataset_->get((*order_)[static_cast<size_t>(i)]);
    data.push_back(std::move(example.data));
    target.push_back(std::move(example.target));
  }
  return {tl::stack(data, 0), tl::stack(target, 0)};
}

}  // namespace tl::data
