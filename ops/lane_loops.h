// ops/lane_loops.h — the contiguous reductions with independent accumulators (a pairwise sum, a product),
// which vectorise instead of waiting on one chain of additions; internal to ops/. Standard C++ only, so that
// ops/vector_kernels_body.h compiles them once per ISA: the lanes, and so the results, are the same in each build.
#pragma once

#include <cstdint>

namespace tl::detail {

inline constexpr int64_t kLanes = 16;   // independent accumulators of a contiguous sum
// Independent products: each waits on its own multiply's latency, so a product needs more of them than a sum, whose
// cascade splits the work anyway; 32 keep two AVX-512 vectors, four AVX2 or eight SSE2 ones in flight.
inline constexpr int64_t kProductLanes = 32;
inline constexpr int64_t kLeaf = 1024;  // elements below which a sum stops splitting in halves

/// The sum of leaf(p + i * stride, len) over runs of at most kLeaf elements, taken pairwise: [0, n) splits into
/// halves (the first a multiple of kLanes elements) until a half is short enough, and each range's sum is its left
/// half's plus its right half's. A loop over a stack of the open ranges rather than a recursion, so that a caller
/// built at the CPU's width (at_vector_width's flatten) inlines it, leaves and all: a recursive function stayed one
/// out-of-line copy, built for baseline x86-64.
template <typename Acc, typename T, typename Leaf>
Acc pairwise_sum(const T* p, int64_t n, int64_t stride, const Leaf& leaf) {
  struct Open {
    int64_t begin, n, half;
    Acc left;
    bool in_right;  // the left half is summed (into left), the right one under way
  };
  Open open[64];  // each range at least halves the last: fewer than 64 deep
  int64_t depth = 0, begin = 0, len = n;
  for (;;) {
    for (; len > kLeaf; ++depth) {
      const int64_t half = len / 2 / kLanes * kLanes;
      open[depth] = {begin, len, half, Acc(0), false};
      len = half;
    }
    Acc sum = leaf(p + begin * stride, len);
    for (;; --depth) {
      if (depth == 0) return sum;
      Open& top = open[depth - 1];
      if (!top.in_right) {
        top.left = sum;
        top.in_right = true;
        begin = top.begin + top.half;
        len = top.n - top.half;
        break;
      }
      sum = top.left + sum;
    }
  }
}

/// The sum of map(p[i * stride]) over i < n in kLanes independent accumulators (kUnit: stride is 1), which
/// vectorise, joined pairwise.
template <typename Acc, bool kUnit, typename T, typename Map>
Acc lane_sum(const T* p, int64_t n, int64_t stride, const Map& map) {
  const int64_t s = kUnit ? 1 : stride;
  if (n < kLanes) {
    Acc acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += map(p[i * s]);
    return acc;
  }
  Acc lanes[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int64_t j = 0; j < kLanes; ++j) lanes[j] += map(p[(i + j) * s]);
  for (int64_t j = 0; i < n; ++i, ++j) lanes[j] += map(p[i * s]);
  for (int64_t w = kLanes / 2; w > 0; w /= 2)
    for (int64_t j = 0; j < w; ++j) lanes[j] += lanes[j + w];
  return lanes[0];
}

/// Pairwise (cascade) sum of map(p[i * stride]) over i < n, in Acc (kUnit: stride is 1): error grows with
/// log(n), and kLanes independent accumulators vectorise. The sum of every reducer that adds (sum, mean, the
/// norms' powers, var's squared deviations, logsumexp's exponentials).
template <typename Acc, bool kUnit, typename T, typename Map>
Acc cascade_sum(const T* p, int64_t n, int64_t stride, const Map& map) {
  return pairwise_sum<Acc>(p, n, stride,
                           [&](const T* run, int64_t len) { return lane_sum<Acc, kUnit>(run, len, stride, map); });
}

/// cascade_sum over a run of any stride, taking the unit-stride loop when it can.
template <typename Acc, typename T, typename Map>
Acc cascade_sum(const T* p, int64_t n, int64_t stride, const Map& map) {
  return stride == 1 ? cascade_sum<Acc, true>(p, n, 1, map) : cascade_sum<Acc, false>(p, n, stride, map);
}

/// The product mul(..., value(p[i * stride])) over i < n in kProductLanes independent products (kUnit: stride is 1),
/// joined pairwise; 1 for n = 0.
template <typename Acc, bool kUnit, typename T, typename Value, typename Mul>
Acc lane_product(const T* p, int64_t n, int64_t stride, const Value& value, const Mul& mul) {
  const int64_t s = kUnit ? 1 : stride;
  Acc lanes[kProductLanes];
  for (Acc& lane : lanes) lane = Acc(1);  // not std::fill_n: an out-of-line copy would be shared between ISA builds
  int64_t i = 0;
  for (; i + kProductLanes <= n; i += kProductLanes)
    for (int64_t j = 0; j < kProductLanes; ++j) lanes[j] = mul(lanes[j], value(p[(i + j) * s]));
  for (int64_t j = 0; i < n; ++i, ++j) lanes[j] = mul(lanes[j], value(p[i * s]));
  for (int64_t w = kProductLanes / 2; w > 0; w /= 2)
    for (int64_t j = 0; j < w; ++j) lanes[j] = mul(lanes[j], lanes[j + w]);
  return lanes[0];
}

}  // namespace tl::detail
