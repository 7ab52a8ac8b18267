// fx/passes/packed_weight_cache.h — a weight prepacked into a primitive's layout, once per input signature: the
// cache MkldnnConv2d and MkldnnLinear keep beside the weight they share with the source module.
#pragma once

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tl::fx {

/// The packed forms of one weight, one per key (an input signature), the kMaxEntries most recently used kept. Every form is
/// dropped when the weight changes: another tensor is passed, or this one was written in place since (an
/// optimizer step, load_state_dict). Thread-safe; a copy of a module starts with an empty cache of its own.
class PackedWeightCache {
 public:
  static constexpr size_t kMaxEntries = 8;

  /// The form packed for `key`, made by `pack()` on first use (nothing is kept when it throws). A template, not a
  /// std::function: the forward calls it per layer and per call, and a capturing closure would allocate there.
  template <typename Pack>
  Tensor get(const Tensor& weight, std::vector<int64_t> key, const Pack& pack) {
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

 private:
  std::mutex mutex_;
  Tensor weight_;         ///< the weight the forms were packed from
  int64_t version_ = -1;  ///< its version (Storage's counter of in-place writes) then
  std::vector<std::pair<std::vector<int64_t>, Tensor>> by_key_;  ///< least recently used first
};

}  // namespace tl::fx
