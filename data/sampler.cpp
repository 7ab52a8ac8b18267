// data/sampler.cpp — the samplers' epochs, drawing from the generator in the order PyTorch 1.13's samplers
// do (a seed, then randperm / randint / multinomial), so a seed gives one order on both sides.
#include "data/sampler.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>
#include <utility>

#include "core/error.h"
#include "core/storage.h"
#include "data/random_split.h"

namespace tl::data::samplers {
namespace {

// An epoch is one list of num_samples indices: a count past the allocation limit is refused when the
// sampler is made, not met as std::length_error or as a list growing under the generator's mutex.
void check_num_samples(const char* sampler, int64_t num_samples) {
  TL_CHECK(fits_allocation_limit(num_samples, sizeof(int64_t)), sampler, ": num_samples=", num_samples,
           " indices would exceed the allocation limit of ", allocation_limit(), " bytes (see tl::set_allocation_limit)");
}

// `count` uniform indices in [0, high) (torch.randint(high=high, size=(count,), generator=g)).
std::vector<int64_t> randint(int64_t high, int64_t count, Generator& generator) {
  std::vector<int64_t> out(static_cast<size_t>(count));
  std::lock_guard lock(generator.mutex());
  const uint64_t range = static_cast<uint64_t>(high);  // ATen's random_from_to: 32 bits when they suffice
  for (int64_t& v : out)
    v = static_cast<int64_t>((range >= (uint64_t{1} << 32) ? generator.random64() : generator.random()) % range);
  return out;
}

// torch.multinomial(weights, count, replacement, generator=g) for checked weights: inverse-CDF draws
// with replacement (PyTorch's CPU kernel); otherwise the largest weight / Exp(1) keys, as its fast path.
std::vector<int64_t> multinomial(const std::vector<double>& weights, int64_t count, bool replacement,
                                 Generator& generator) {
  const size_t n = weights.size();
  std::vector<int64_t> out;
  if (replacement && count > 1) out.reserve(static_cast<size_t>(count));  // not grown under the mutex
  std::lock_guard lock(generator.mutex());
  if (replacement && count > 1) {
    std::vector<double> cumulative(n);
    std::partial_sum(weights.begin(), weights.end(), cumulative.begin());
    const double sum = cumulative.back();
    for (double& c : cumulative) c /= sum;
    cumulative.back() = 1.0;  // as PyTorch's kernel, so that every draw lands in a bucket
    for (int64_t i = 0; i < count; ++i) {
      const double u = uniform_real<double>(generator, 0.0, 1.0);
      out.push_back(std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    }
    return out;
  }
  std::vector<double> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = weights[i] / -std::log(1.0 - uniform_real<double>(generator, 0.0, 1.0));  // w / Exp(1)
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return keys[a] > keys[b]; });
  if (replacement) return std::vector<int64_t>(static_cast<size_t>(count), order.front());
  order.resize(static_cast<size_t>(count));
  return order;
}

}  // namespace

uint64_t draw_seed(Generator& generator) {
  std::lock_guard lock(generator.mutex());
  return generator.random64() & ~(uint64_t{1} << 63);  // int64 random_(): 64 bits modulo 2^63
}

SequentialSampler::SequentialSampler(int64_t size) : size_(size) {
  TL_CHECK(size >= 0, "SequentialSampler: expected a non-negative size, got ", size);
}

std::vector<int64_t> SequentialSampler::epoch() {
  std::vector<int64_t> order(static_cast<size_t>(size_));
  std::iota(order.begin(), order.end(), int64_t{0});
  return order;
}

RandomSampler::RandomSampler(int64_t size, bool replacement, std::optional<int64_t> num_samples,
                             std::shared_ptr<Generator> generator)
    : n_(size), replacement_(replacement), num_samples_(num_samples.value_or(size)), generator_(std::move(generator)) {
  TL_CHECK(size >= 0, "RandomSampler: expected a non-negative size, got ", size);
  TL_CHECK(num_samples_ > 0, "RandomSampler: num_samples should be a positive integer value, but got num_samples=",
           num_samples_);
  TL_CHECK(size > 0, "RandomSampler: cannot draw ", num_samples_, " samples from an empty dataset");
  check_num_samples("RandomSampler", num_samples_);
}

std::vector<int64_t> RandomSampler::epoch() {
  std::unique_ptr<Generator> own;  // PyTorch seeds a fresh generator from the default one each epoch
  if (!generator_) own = std::make_unique<Generator>(draw_seed(default_generator()));
  Generator& generator = generator_ ? *generator_ : *own;
  if (replacement_) return randint(n_, num_samples_, generator);
  std::vector<int64_t> order;
  for (int64_t i = 0; i < num_samples_ / n_; ++i) {
    const std::vector<int64_t> perm = random_permutation(n_, generator);
    order.insert(order.end(), perm.begin(), perm.end());
  }
  const std::vector<int64_t> last = random_permutation(n_, generator);  // drawn even when none is kept
  order.insert(order.end(), last.begin(), last.begin() + num_samples_ % n_);
  return order;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<int64_t> indices, std::shared_ptr<Generator> generator)
    : indices_(std::move(indices)), generator_(std::move(generator)) {}

std::vector<int64_t> SubsetRandomSampler::epoch() {
  Generator& generator = generator_ ? *generator_ : default_generator();
  std::vector<int64_t> order = random_permutation(size(), generator);
  for (int64_t& i : order) i = indices_[static_cast<size_t>(i)];
  return order;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement,
                                             std::shared_ptr<Generator> generator)
    : weights_(std::move(weights)), num_samples_(num_samples), replacement_(replacement),
      generator_(std::move(generator)) {
  TL_CHECK(num_samples > 0, "WeightedRandomSampler: num_samples should be a positive integer value, but got "
           "num_samples=", num_samples);
  check_num_samples("WeightedRandomSampler", num_samples);
  int64_t non_zero = 0;
  double sum = 0.0;
  for (size_t i = 0; i < weights_.size(); ++i) {
    TL_CHECK(std::isfinite(weights_[i]) && weights_[i] >= 0.0, "WeightedRandomSampler: weight ", weights_[i],
             " at index ", i, " is not a finite non-negative number");
    non_zero += weights_[i] > 0.0;
    sum += weights_[i];
  }
  TL_CHECK(sum > 0.0, "WeightedRandomSampler: invalid multinomial distribution (sum of probabilities <= 0)");
  TL_CHECK(replacement || num_samples <= non_zero, "WeightedRandomSampler: cannot draw ", num_samples,
           " samples without replacement from ", non_zero, " non-zero weights");
}

std::vector<int64_t> WeightedRandomSampler::epoch() {
  return multinomial(weights_, num_samples_, replacement_, generator_ ? *generator_ : default_generator());
}

BatchSampler::BatchSampler(std::shared_ptr<Sampler> sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  TL_CHECK(sampler_ != nullptr, "BatchSampler: expected a sampler, got null");
  TL_CHECK(batch_size > 0, "BatchSampler: batch_size should be a positive integer value, but got batch_size=",
           batch_size);
}

int64_t BatchSampler::size() const {
  const int64_t n = sampler_->size(), b = batch_size_;
  return n / b + (!drop_last_ && n % b != 0 ? 1 : 0);  // not (n + b - 1) / b: b may be near INT64_MAX
}

std::vector<std::vector<int64_t>> BatchSampler::epoch() {
  const std::vector<int64_t> order = sampler_->epoch();
  const size_t n = order.size(), b = static_cast<size_t>(batch_size_);
  std::vector<std::vector<int64_t>> batches;
  for (size_t first = 0; first < n;) {
    const size_t count = std::min(b, n - first);
    if (drop_last_ && count < b) break;
    const auto begin = order.begin() + static_cast<std::ptrdiff_t>(first);
    batches.emplace_back(begin, begin + static_cast<std::ptrdiff_t>(count));
    first += count;
  }
  return batches;
}

}  // namespace tl::data::samplers
