// ops/onednn/primitive_cache.h — a process-wide, thread-safe, bounded (LRU) cache of created oneDNN
// primitives, keyed by everything they were built for (op, shapes, strides, dtypes, attributes), so
// an eager op builds its primitive once per distinct call signature and never per call.
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace tl::onednn {

/// Identifies one primitive (or a set built together): an op tag, the calling thread's OpenMP thread
/// count (added by the constructor) and a list of integers. Everything a primitive depends on must be
/// added, or two different calls would share it.
class PrimitiveKey {
 public:
  /// `op` must be a string literal (it is kept by reference).
  explicit PrimitiveKey(std::string_view op);

  PrimitiveKey& add(int64_t value);
  /// Adds the bit pattern, so 0.1 and 0.1 + 1ulp are different keys.
  PrimitiveKey& add(double value);
  PrimitiveKey& add(const Shape& values);
  /// Sizes, strides and dtype (not the data); an undefined tensor adds a marker of its own.
  PrimitiveKey& add(const Tensor& t);

  size_t hash() const { return hash_; }
  std::string_view op() const { return op_; }
  friend bool operator==(const PrimitiveKey& a, const PrimitiveKey& b) {
    return a.hash_ == b.hash_ && a.op_ == b.op_ && a.words_ == b.words_;
  }

 private:
  std::string_view op_;
  std::vector<int64_t> words_;
  size_t hash_;
};

/// Base of what the cache holds: a primitive (or a few) plus the descriptors its users need.
struct CachedPlan {
  virtual ~CachedPlan() = default;
};

struct PrimitiveCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t evictions = 0;
  int64_t size = 0;
  int64_t capacity = 0;
};

class PrimitiveCache {
 public:
  static constexpr size_t kDefaultCapacity = 512;
  explicit PrimitiveCache(size_t capacity = kDefaultCapacity) : capacity_(std::max<size_t>(capacity, 1)) {}

  /// The plan stored under `key`, or `create()`'s result (a Plan by value), stored and returned.
  /// Creation runs outside the lock; if two threads race, both plans are valid and one is kept.
  /// Plan must derive from CachedPlan; a key's op tag must always map to the same Plan type.
  template <typename Plan, typename Create>
  std::shared_ptr<const Plan> get_or_create(const PrimitiveKey& key, Create&& create) {
    if (std::shared_ptr<const CachedPlan> hit = find(key)) {
      auto plan = std::dynamic_pointer_cast<const Plan>(hit);
      TL_INTERNAL_ASSERT(plan != nullptr, "primitive cache: key '", key.op(), "' holds another plan type");
      return plan;
    }
    auto plan = std::make_shared<const Plan>(create());
    insert(key, plan);
    return plan;
  }

  PrimitiveCacheStats stats() const;
  /// Evicts least recently used plans down to `capacity` (at least 1).
  void set_capacity(size_t capacity);
  void clear();

 private:
  struct KeyHash {
    size_t operator()(const PrimitiveKey& k) const { return k.hash(); }
  };
  using Entry = std::pair<PrimitiveKey, std::shared_ptr<const CachedPlan>>;

  std::shared_ptr<const CachedPlan> find(const PrimitiveKey& key);
  void insert(const PrimitiveKey& key, std::shared_ptr<const CachedPlan> plan);
  void evict_to_capacity();  // mutex_ held

  mutable std::mutex mutex_;
  size_t capacity_;
  std::list<Entry> lru_;  ///< most recently used first
  std::unordered_map<PrimitiveKey, std::list<Entry>::iterator, KeyHash> index_;
  PrimitiveCacheStats stats_;
};

/// The cache every oneDNN-backed kernel uses.
PrimitiveCache& primitive_cache();

}  // namespace tl::onednn
