// ops/onednn/primitive_cache.cpp — key hashing and the LRU bookkeeping behind PrimitiveCache.
#include "ops/onednn/primitive_cache.h"

#include <algorithm>
#include <bit>
#include <functional>

#include "core/parallel.h"

namespace tl::onednn {
namespace {

constexpr int64_t kUndefinedTensor = -0x7e57ed;  // a marker no size or stride list starts with

size_t mix(size_t seed, uint64_t value) {
  // boost::hash_combine's recipe over 64 bits.
  return seed ^ (value + 0x9e3779b97f4a7c15ull + (seed << 12) + (seed >> 4));
}

}  // namespace

// oneDNN fixes a primitive's thread count when it is created (OpenMP runtime), so the creator's count
// is part of every key: a thread that called set_num_threads(1) never runs a primitive on more.
PrimitiveKey::PrimitiveKey(std::string_view op) : op_(op), hash_(std::hash<std::string_view>{}(op)) {
  words_.reserve(32);
  add(static_cast<int64_t>(get_num_threads()));
}

PrimitiveKey& PrimitiveKey::add(int64_t value) {
  words_.push_back(value);
  hash_ = mix(hash_, static_cast<uint64_t>(value));
  return *this;
}

PrimitiveKey& PrimitiveKey::add(double value) { return add(std::bit_cast<int64_t>(value)); }

PrimitiveKey& PrimitiveKey::add(const Shape& values) {
  add(values.size());
  for (int64_t v : values) add(v);
  return *this;
}

PrimitiveKey& PrimitiveKey::add(const Tensor& t) {
  if (!t.defined()) return add(kUndefinedTensor);
  add(static_cast<int64_t>(t.dtype()));
  add(t.sizes());
  return add(t.strides());
}

std::shared_ptr<const CachedPlan> PrimitiveCache::find(const PrimitiveKey& key) {
  std::lock_guard lock(mutex_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void PrimitiveCache::insert(const PrimitiveKey& key, std::shared_ptr<const CachedPlan> plan) {
  std::lock_guard lock(mutex_);
  if (index_.count(key) != 0) return;  // another thread created the same plan meanwhile
  lru_.emplace_front(key, std::move(plan));
  index_.emplace(key, lru_.begin());
  evict_to_capacity();
}

void PrimitiveCache::evict_to_capacity() {
  while (lru_.size() > capacity_) {
    index_.erase(lru_.back().first);
    lru_.pop_back();
    ++stats_.evictions;
  }
}

PrimitiveCacheStats PrimitiveCache::stats() const {
  std::lock_guard lock(mutex_);
  PrimitiveCacheStats s = stats_;
  s.size = static_cast<int64_t>(lru_.size());
  s.capacity = static_cast<int64_t>(capacity_);
  return s;
}

void PrimitiveCache::set_capacity(size_t capacity) {
  std::lock_guard lock(mutex_);
  capacity_ = std::max<size_t>(capacity, 1);
  evict_to_capacity();
}

void PrimitiveCache::clear() {
  std::lock_guard lock(mutex_);
  index_.clear();
  lru_.clear();
}

PrimitiveCache& primitive_cache() {
  static PrimitiveCache cache;
  return cache;
}

}  // namespace tl::onednn
