// tests/data/test_dataloader_workers.cpp — DataLoader with num_workers > 0: the same batches in the same
// order as without workers, prefetch_factor batches ahead per worker, a worker's error rethrown where
// its batch is dereferenced, and early breaks that stop and join the workers.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/error.h"
#include "data/dataloader.h"
#include "ops/ops.h"
#include "tests/data/data_test_util.h"

namespace tl::data {
namespace {

using testing::indices_of;

// index_dataset's examples, each fetch sleeping (size - index) ms (later batches are quicker, so a
// worker finishing first does not deliver first), counting fetches begun and fetches in progress, and
// throwing at `throw_at`.
class SlowDataset : public Dataset {
 public:
  explicit SlowDataset(int64_t n, int64_t throw_at = -1) : n_(n), throw_at_(throw_at) {}
  int64_t size() const override { return n_; }
  mutable std::atomic<int64_t> fetched{0}, running{0};

 protected:
  Example fetch(int64_t index) const override {
    ++fetched;
    ++running;
    std::this_thread::sleep_for(std::chrono::milliseconds(n_ - index));
    --running;
    if (index == throw_at_) throw std::runtime_error("bad example " + std::to_string(index));
    return {full({2}, static_cast<double>(index)), scalar_tensor(index, DType::Int64)};
  }

 private:
  int64_t n_, throw_at_;
};

std::vector<std::vector<int64_t>> epoch(DataLoader& loader) {
  std::vector<std::vector<int64_t>> batches;
  for (const Example& batch : loader) batches.push_back(indices_of(batch.target));
  return batches;
}

// Waits up to 5 s for `count` to reach `value`.
bool reaches(const std::atomic<int64_t>& count, int64_t value) {
  for (int i = 0; i < 500 && count.load() < value; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return count.load() == value;
}

TEST_CASE("DataLoader workers: the same batches in the same order as without workers") {
  auto dataset = std::make_shared<SlowDataset>(23);
  for (bool shuffle : {false, true}) {
    CAPTURE(shuffle);
    DataLoader plain(dataset, {.batch_size = 3, .shuffle = shuffle, .seed = 4});
    const std::vector<std::vector<int64_t>> first = epoch(plain), second = epoch(plain);
    for (int64_t workers : {1, 2, 3}) {
      CAPTURE(workers);
      DataLoader threaded(dataset, {.batch_size = 3, .shuffle = shuffle, .seed = 4, .num_workers = workers});
      CHECK(epoch(threaded) == first);
      CHECK(epoch(threaded) == second);
    }
    DataLoader unbounded(dataset, {.batch_size = 3, .shuffle = shuffle, .seed = 4, .num_workers = 2,
                                   .prefetch_factor = std::numeric_limits<int64_t>::max()});
    CHECK(epoch(unbounded) == first);
  }
}

TEST_CASE("DataLoader workers: at most prefetch_factor batches ahead per worker") {
  auto dataset = std::make_shared<SlowDataset>(40);
  DataLoader loader(dataset, {.batch_size = 1, .num_workers = 2, .prefetch_factor = 3});
  DataLoader::Iterator it = loader.begin();
  CHECK(indices_of((*it).target) == std::vector<int64_t>{0});
  CHECK(reaches(dataset->fetched, 6));  // batches 0..5: 2 workers x 3
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(dataset->fetched.load() == 6);
  ++it;
  CHECK(indices_of((*it).target) == std::vector<int64_t>{1});
  CHECK(reaches(dataset->fetched, 7));
}

TEST_CASE("DataLoader workers: an error in a worker is rethrown at its batch, naming the worker and batch") {
  auto dataset = std::make_shared<SlowDataset>(12, /*throw_at=*/5);
  DataLoader loader(dataset, {.batch_size = 2, .num_workers = 2});
  std::vector<int64_t> delivered;
  DataLoader::Iterator it = loader.begin();
  for (int64_t b = 0; b < loader.size(); ++b, ++it) {
    if (b == 2) {
      CHECK_THROWS_WITH_AS(*it, "DataLoader: worker 0 failed on batch 2: bad example 5", Error);
      CHECK_THROWS_WITH_AS(*it, "DataLoader: worker 0 failed on batch 2: bad example 5", Error);
      continue;
    }
    delivered.push_back(b);
    CHECK(indices_of((*it).target) == std::vector<int64_t>{2 * b, 2 * b + 1});
  }
  CHECK(delivered == std::vector<int64_t>{0, 1, 3, 4, 5});
}

TEST_CASE("DataLoader workers: a collate_fn error and a non-standard exception are rethrown as tl::Error") {
  auto dataset = std::make_shared<SlowDataset>(6);
  DataLoader failing(dataset, {.batch_size = 3, .collate_fn = [](std::vector<Example>) -> Example {
                                 throw Error("collate: no");
                               },
                               .num_workers = 2});
  DataLoader::Iterator it = failing.begin();
  CHECK_THROWS_WITH_AS(*it, "DataLoader: worker 0 failed on batch 0: collate: no", Error);
  DataLoader odd(dataset, {.batch_size = 3, .collate_fn = [](std::vector<Example>) -> Example { throw 42; },
                           .num_workers = 2});
  CHECK_THROWS_WITH_AS(*++odd.begin(), "DataLoader: worker 1 failed on batch 1: an unknown exception", Error);
}

TEST_CASE("DataLoader workers: a batch already passed is refused") {
  auto dataset = std::make_shared<SlowDataset>(6);
  DataLoader loader(dataset, {.batch_size = 1, .num_workers = 2});
  DataLoader::Iterator it = loader.begin();
  DataLoader::Iterator first = it;
  ++it;
  ++it;
  CHECK(indices_of((*it).target) == std::vector<int64_t>{2});
  CHECK_THROWS_WITH_AS(*first, "DataLoader: batch 0 was already passed (a loader with workers delivers batches in "
                               "order; the loop is at batch 2)", Error);
  CHECK(indices_of((*it).target) == std::vector<int64_t>{2});
}

TEST_CASE("DataLoader workers: breaking out early, again and again, stops and joins the workers") {
  auto dataset = std::make_shared<SlowDataset>(30);
  for (int round = 0; round < 12; ++round) {
    CAPTURE(round);
    auto loader = std::make_unique<DataLoader>(dataset, DataLoaderOptions{.batch_size = 2, .shuffle = true,
                                                                          .num_workers = 2, .prefetch_factor = 2});
    int64_t taken = 0;
    for (const Example& batch : *loader) {
      CHECK(batch.target.size(0) == 2);
      if (++taken == round % 3 + 1) break;
    }
    if (round % 2 == 0) {  // the loader goes before the loop's iterator would have
      DataLoader::Iterator it = loader->begin();
      loader.reset();
      CHECK((*it).target.size(0) == 2);
    }
    CHECK(dataset->running.load() == 0);
  }
  const int64_t fetched = dataset->fetched.load();
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK(dataset->fetched.load() == fetched);
}

}  // namespace
}  // namespace tl::data
