// data/random_split.cpp — torch.randperm's permutation (core/generator.h) and PyTorch 1.13's rule for
// turning fractions into split sizes. Lengths are all checked before the generator is touched.
#include "data/random_split.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/error.h"
#include "core/warning.h"

namespace tl::data {
namespace {

// Python's math.isclose(value, 1) with its default relative tolerance.
bool close_to_one(double value) { return std::abs(value - 1.0) <= 1e-9 * std::max(std::abs(value), 1.0); }

// The split sizes for `lengths` over `n` examples (fractions or counts, see random_split).
std::vector<int64_t> split_sizes(const std::vector<double>& lengths, int64_t n) {
  const double sum = std::accumulate(lengths.begin(), lengths.end(), 0.0);
  std::vector<int64_t> sizes;
  if (close_to_one(sum) && sum <= 1.0) {
    for (size_t i = 0; i < lengths.size(); ++i) {
      TL_CHECK(lengths[i] >= 0.0 && lengths[i] <= 1.0, "random_split: fraction ", lengths[i], " at index ", i,
               " is not between 0 and 1");
      sizes.push_back(static_cast<int64_t>(std::floor(static_cast<double>(n) * lengths[i])));
    }
    const int64_t remainder = n - std::accumulate(sizes.begin(), sizes.end(), int64_t{0});
    for (int64_t i = 0; i < remainder; ++i) ++sizes[static_cast<size_t>(i) % sizes.size()];
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] == 0) warn("random_split: length of split at index ", i, " is 0, an empty dataset");
    return sizes;
  }
  int64_t total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const double length = lengths[i];
    TL_CHECK(length >= 0.0 && length == std::floor(length) && length <= static_cast<double>(n),
             "random_split: length ", length, " at index ", i, " is not a whole count in 0..", n,
             " (nor do the lengths form fractions summing to 1)");
    sizes.push_back(static_cast<int64_t>(length));
    total += sizes.back();
  }
  TL_CHECK(total == n, "random_split: the lengths sum to ", total, " but the dataset has ", n, " examples");
  return sizes;
}

}  // namespace

std::vector<int64_t> random_permutation(int64_t n, Generator& generator) {
  TL_CHECK(n >= 0, "random_permutation: expected a non-negative size, got ", n);
  return permutation(generator, n);
}

std::vector<Subset> random_split(std::shared_ptr<const Dataset> dataset, const std::vector<double>& lengths,
                                 Generator& generator) {
  TL_CHECK(dataset != nullptr, "random_split: expected a dataset, got null");
  TL_CHECK(!lengths.empty(), "random_split: expected at least one length");
  const std::vector<int64_t> sizes = split_sizes(lengths, dataset->size());
  const std::vector<int64_t> order = random_permutation(dataset->size(), generator);
  std::vector<Subset> splits;
  auto begin = order.begin();
  for (int64_t size : sizes) {
    splits.emplace_back(dataset, std::vector<int64_t>(begin, begin + size));
    begin += size;
  }
  return splits;
}

}  // namespace tl::data
