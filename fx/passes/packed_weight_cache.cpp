// fx/passes/packed_weight_cache.cpp — see packed_weight_cache.h.
#include "fx/passes/packed_weight_cache.h"

#include <algorithm>

namespace tl::fx {

Tensor PackedWeightCache::get(const Tensor& weight, std::vector<int64_t> key, const std::function<Tensor()>& pack) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!weight_.is_same(weight) || version_ != weight._version()) {
    by_key_.clear();
    weight_ = weight;
    version_ = weight._version();
  }
  const auto it = std::find_if(by_key_.begin(), by_key_.end(), [&](const auto& entry) { return entry.first == key; });
  if (it != by_key_.end()) {
    std::rotate(it, it + 1, by_key_.end());  // now the most recently used
    return by_key_.back().second;
  }
  Tensor packed = pack();
  if (by_key_.size() >= kMaxEntries) by_key_.erase(by_key_.begin());
  by_key_.emplace_back(std::move(key), packed);
  return packed;
}

}  // namespace tl::fx
