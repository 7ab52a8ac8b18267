// data/random_split.h — random permutations of example indices and random_split
// (torch.utils.data.random_split). Results depend only on the generator's state.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/generator.h"
#include "data/dataset.h"

namespace tl::data {

/// 0..n-1 in torch.randperm(n, generator=generator)'s order (tl::permutation, holding its mutex). Plain
/// indices rather than a tensor op: ops draw from the default generator only, and a loader or a split
/// shuffles with its own. Throws tl::Error for a negative n.
std::vector<int64_t> random_permutation(int64_t n, Generator& generator);

/// Splits `dataset` into non-overlapping Subsets of the given lengths, over one random permutation.
/// `lengths` are whole counts summing to dataset->size(), or fractions in [0, 1] summing to 1; as in
/// PyTorch 1.13, they are fractions when their sum is close to 1 (relative tolerance 1e-9) and at most
/// 1: each split gets floor(size * fraction) and the remainder is handed out one by one, round-robin
/// from the first split (a split left empty gets a tl::warn). Throws tl::Error naming the values for a
/// null dataset, no lengths, a negative or fractional count, a fraction outside [0, 1], or counts whose
/// sum is not the dataset's size. The generator is not drawn from when it throws.
std::vector<Subset> random_split(std::shared_ptr<const Dataset> dataset, const std::vector<double>& lengths,
                                 Generator& generator);

}  // namespace tl::data
