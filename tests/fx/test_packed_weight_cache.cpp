// tests/fx/test_packed_weight_cache.cpp — PackedWeightCache: one pack per key, the kMaxEntries most recently used kept, every
// form dropped when the weight is another tensor or was written in place, nothing kept when packing throws.
#include <doctest/doctest.h>

#include "core/error.h"
#include "fx/passes/packed_weight_cache.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

TEST_CASE("PackedWeightCache: packs once per key and keeps the kMaxEntries most recently used") {
  PackedWeightCache cache;
  const Tensor weight = ones({2, 3});
  int packs = 0;
  const auto pack_for = [&](int64_t k) {
    return [&, k] {
      ++packs;
      return full({1}, static_cast<double>(k));
    };
  };
  CHECK(cache.get(weight, {1}, pack_for(1)).item<float>() == 1.0f);
  CHECK(cache.get(weight, {1}, pack_for(1)).item<float>() == 1.0f);
  CHECK(packs == 1);
  for (int64_t k = 2; k <= static_cast<int64_t>(PackedWeightCache::kMaxEntries) + 1; ++k) cache.get(weight, {k}, pack_for(k));
  CHECK(packs == static_cast<int>(PackedWeightCache::kMaxEntries) + 1);
  cache.get(weight, {static_cast<int64_t>(PackedWeightCache::kMaxEntries) + 1}, pack_for(0));  // the newest: kept
  cache.get(weight, {2}, pack_for(2));                                                         // kept
  CHECK(packs == static_cast<int>(PackedWeightCache::kMaxEntries) + 1);
  CHECK(cache.get(weight, {1}, pack_for(1)).item<float>() == 1.0f);  // the oldest was dropped: packed again
  CHECK(packs == static_cast<int>(PackedWeightCache::kMaxEntries) + 2);
  cache.get(weight, {2}, pack_for(2));  // used just before: kept, where key 3 (unused since) was dropped
  CHECK(packs == static_cast<int>(PackedWeightCache::kMaxEntries) + 2);
  cache.get(weight, {3}, pack_for(3));
  CHECK(packs == static_cast<int>(PackedWeightCache::kMaxEntries) + 3);
}

TEST_CASE("PackedWeightCache: a weight written in place, or another weight, is packed again") {
  PackedWeightCache cache;
  Tensor weight = ones({2, 3});
  int packs = 0;
  const auto pack = [&] {
    ++packs;
    return weight.sum().reshape({1});
  };
  CHECK(cache.get(weight, {7}, pack).item<float>() == 6.0f);
  weight.mul_(2.0);
  CHECK(cache.get(weight, {7}, pack).item<float>() == 12.0f);
  CHECK(packs == 2);
  const Tensor other = weight.clone();
  cache.get(other, {7}, pack);
  CHECK(packs == 3);
}

TEST_CASE("PackedWeightCache: a pack that throws keeps nothing") {
  PackedWeightCache cache;
  const Tensor weight = ones({2});
  CHECK_THROWS_WITH_AS(cache.get(weight, {1}, [] () -> Tensor { TL_CHECK(false, "refused"); return {}; }), "refused",
                       Error);
  int packs = 0;
  cache.get(weight, {1}, [&] {
    ++packs;
    return ones({1});
  });
  CHECK(packs == 1);
}

}  // namespace
}  // namespace tl::fx
