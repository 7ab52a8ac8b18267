// data/dataloader.cpp — PyTorch's DataLoader argument rules, and epochs whose batches are loaded on the
// calling thread or by worker threads into a window of prefetched batches, delivered in sampler order.
#include "data/dataloader.h"

#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "core/error.h"
#include "ops/ops.h"

namespace tl::data {

Example default_collate(std::vector<Example> examples) {
  std::vector<Tensor> data, target;
  for (Example& example : examples) {
    data.push_back(std::move(example.data));
    target.push_back(std::move(example.target));
  }
  return {tl::stack(data, 0), tl::stack(target, 0)};
}

// The batches of one epoch. Worker w loads batches w, w + W, ... (W workers); a batch is loaded only
// while it lies in the window [next_, next_ + W * prefetch_factor), next_ being the batch the loop
// asked for last, so each worker is at most prefetch_factor batches ahead.
class DataLoader::Epoch {
 public:
  Epoch(std::shared_ptr<const Dataset> dataset, CollateFn collate, std::vector<std::vector<int64_t>> batches,
        int64_t num_workers, int64_t prefetch_factor)
      : dataset_(std::move(dataset)), collate_(std::move(collate)), batches_(std::move(batches)),
        window_(num_workers > 0 && prefetch_factor > std::numeric_limits<int64_t>::max() / num_workers
                    ? std::numeric_limits<int64_t>::max()
                    : num_workers * prefetch_factor) {
    try {
      for (int64_t w = 0; w < num_workers; ++w) workers_.emplace_back([this, w, num_workers] { work(w, num_workers); });
    } catch (const std::system_error& e) {
      stop();
      TL_CHECK(false, "DataLoader: could not start worker ", workers_.size(), " of ", num_workers, " (", e.what(), ")");
    }
  }

  ~Epoch() { stop(); }

  int64_t size() const { return static_cast<int64_t>(batches_.size()); }

  Example get(int64_t b) {
    if (workers_.empty()) return load(b);
    std::unique_lock lock(mutex_);
    TL_CHECK(b >= next_, "DataLoader: batch ", b, " was already passed (a loader with workers delivers batches ",
             "in order; the loop is at batch ", next_, ")");
    if (b > next_) {
      next_ = b;
      ready_.erase(ready_.begin(), ready_.lower_bound(b));
      changed_.notify_all();
    }
    changed_.wait(lock, [&] { return ready_.count(b) != 0; });
    const Loaded& loaded = ready_.at(b);
    TL_CHECK(loaded.error.empty(), loaded.error);
    return loaded.batch;
  }

 private:
  struct Loaded {
    Example batch;
    std::string error;  // what the worker caught, when it failed
  };

  // Stops the workers after the batch each is loading, and joins them.
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (std::thread& worker : workers_) worker.join();
  }

  Example load(int64_t b) const {
    std::vector<Example> examples;
    for (int64_t index : batches_[static_cast<size_t>(b)]) examples.push_back(dataset_->get(index));
    return collate_ ? collate_(std::move(examples)) : default_collate(std::move(examples));
  }

  void work(int64_t w, int64_t num_workers) {
    for (int64_t b = w; b < size(); b += num_workers) {
      {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] { return stop_ || b < next_ || b - next_ < window_; });
        if (stop_) return;
        if (b < next_) continue;  // the loop skipped past it
      }
      Loaded loaded;
      try {
        loaded.batch = load(b);
      } catch (const std::exception& e) {
        loaded.error = detail::str_cat("DataLoader: worker ", w, " failed on batch ", b, ": ", e.what());
      } catch (...) {
        loaded.error = detail::str_cat("DataLoader: worker ", w, " failed on batch ", b, ": an unknown exception");
      }
      {
        std::lock_guard lock(mutex_);
        if (b >= next_) ready_.emplace(b, std::move(loaded));
      }
      changed_.notify_all();
    }
  }

  std::shared_ptr<const Dataset> dataset_;
  CollateFn collate_;
  std::vector<std::vector<int64_t>> batches_;
  int64_t window_;
  std::mutex mutex_;
  std::condition_variable changed_;  // a batch loaded, the loop moved on, or stop_
  bool stop_ = false;
  int64_t next_ = 0;
  std::map<int64_t, Loaded> ready_;  // loaded batches at or after next_
  std::vector<std::thread> workers_;
};

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  const DataLoaderOptions& o = options_;
  TL_CHECK(dataset_ != nullptr, "DataLoader: expected a dataset, got null");
  TL_CHECK(o.batch_size >= 1, "DataLoader: batch_size should be a positive integer, got ", o.batch_size);
  TL_CHECK(o.num_workers >= 0, "DataLoader: num_workers option should be non-negative; use num_workers=0 to ",
           "disable multiprocessing, got ", o.num_workers);
  TL_CHECK(o.prefetch_factor >= 1, "DataLoader: prefetch_factor should be a positive integer, got ",
           o.prefetch_factor);
  TL_CHECK(o.num_workers > 0 || o.prefetch_factor == 2, "DataLoader: prefetch_factor option could only be ",
           "specified with num_workers > 0, got prefetch_factor=", o.prefetch_factor);
  TL_CHECK(!(o.sampler && o.shuffle), "DataLoader: sampler option is mutually exclusive with shuffle");
  TL_CHECK(!(o.batch_sampler && (o.batch_size != 1 || o.shuffle || o.sampler || o.drop_last)),
           "DataLoader: batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last");
  TL_CHECK(!(o.seed && o.generator), "DataLoader: seed and generator are mutually exclusive");
  generator_ = o.seed ? std::make_shared<Generator>(*o.seed) : o.generator;
  if (o.batch_sampler) {
    batch_sampler_ = o.batch_sampler;
    return;
  }
  std::shared_ptr<samplers::Sampler> sampler = o.sampler;
  if (!sampler && o.shuffle) sampler = std::make_shared<samplers::RandomSampler>(dataset_->size(), false,
                                                                                std::nullopt, generator_);
  if (!sampler) sampler = std::make_shared<samplers::SequentialSampler>(dataset_->size());
  batch_sampler_ = std::make_shared<samplers::BatchSampler>(sampler, o.batch_size, o.drop_last);
}

DataLoader::Iterator DataLoader::begin() {
  samplers::draw_seed(generator_ ? *generator_ : default_generator());  // PyTorch's _base_seed, drawn first
  std::vector<std::vector<int64_t>> batches = batch_sampler_->epoch();
  TL_CHECK(static_cast<int64_t>(batches.size()) == size(), "DataLoader: the sampler's epoch holds ", batches.size(),
           " batches but its size() promises ", size());
  auto epoch = std::make_shared<Epoch>(dataset_, options_.collate_fn, std::move(batches), options_.num_workers,
                                       options_.prefetch_factor);
  return Iterator(std::move(epoch), 0);
}

Example DataLoader::Iterator::operator*() const {
  TL_CHECK(epoch_ != nullptr && batch_ < epoch_->size(), "DataLoader: dereferenced the end of an epoch");
  return epoch_->get(batch_);
}

}  // namespace tl::data
