// ops/reduction.h — the one reduction loop (internal to ops/): a reducer (sum, extreme, arg-extreme,
// moments, norms, any/all) run over a ReducePlan in blocks fixed by the shape alone, never by the thread
// count, whose partials merge left to right, so results are deterministic.
#pragma once

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <type_traits>

#include "core/parallel.h"
#include "ops/lane_loops.h"
#include "ops/reduce_plan.h"
#include "ops/vector_kernels.h"

namespace tl::detail {

constexpr int64_t kRedBlock = 16384;  // reduction elements per partial result
constexpr int64_t kTile = 64;         // outputs a vertical block of rows is sized for: kRedBlock / kTile rows
constexpr int64_t kWideTile = 1024;   // outputs advanced together by a vertical pass: whole rows up to this width
constexpr int64_t kGroup = 64;        // runs (or rows) summed apart before joining the total

// The type values are compared in (bfloat16 compares as float).
template <typename T>
using value_t = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;

template <typename V>
bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) return v != v;
  else return false;
}

// `x` replaces `acc` when it is more extreme or NaN; a NaN acc stays (NaN propagates). Spelled
// as nested selects with a negated comparison ("x > acc or x is NaN"): GCC vectorises this form.
template <bool kMax, typename V>
V extreme_of(V acc, V x) {
  return is_nan(acc) ? acc : !(kMax ? x <= acc : x >= acc) ? x : acc;
}

// 64-byte vectors of float / double (GCC vector extensions): one AVX-512 register, two AVX2 or four SSE2 ones, the
// same lanes at every width.
template <typename V>
struct Simd {
  typedef V type __attribute__((vector_size(64)));
};

// max (kMax) or min of n > 0 contiguous values, NaN if any is NaN. Floating types take 64-byte vectors, since the
// auto-vectoriser gives up on NaN-aware selects; a separate mask remembers NaNs, and the lanes join in order, so
// every ISA build gives the same bits (which of -0.0 and 0.0 a tie keeps too).
template <bool kMax, typename T>
value_t<T> extreme_contiguous(const T* p, int64_t n) {
  using V = value_t<T>;
  V best = static_cast<V>(p[0]);
  int64_t i = 0;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    using Vec = typename Simd<V>::type;
    constexpr int64_t kWidth = 64 / sizeof(V);
    Vec lanes = Vec{} + best, x;
    decltype(x != x) nan = {};
    for (; i + kWidth <= n; i += kWidth) {
      std::memcpy(&x, p + i, sizeof x);
      lanes = (kMax ? x > lanes : x < lanes) ? x : lanes;
      nan |= x != x;
    }
    for (int64_t k = 0; k < kWidth; ++k) {
      if (nan[k]) return std::numeric_limits<V>::quiet_NaN();
      best = extreme_of<kMax>(best, lanes[k]);
    }
  }
  for (; i < n; ++i) best = extreme_of<kMax>(best, static_cast<V>(p[i]));
  return best;
}

// Runs a reducer over a plan. Inner mode reduces each output along strided runs; vertical mode
// (the innermost kept dim is contiguous, the reduction is not) folds whole rows into a tile of
// outputs. Work items are (outputs, reduction block) pairs, partials merge in block order.
template <typename R, typename T>
class Reduction {
 public:
  using acc_t = typename R::acc_t;

  Reduction(const ReducePlan& plan, const T* data, const R& red) : plan_(plan), data_(data), red_(red) {
    const ReduceDim last = plan.kept.back();
    vertical_ = last.stride == 1 && last.size > 1 && plan.reduced.back().stride != 1;
    width_ = vertical_ ? std::min(last.size, kWideTile) : 1;
    units_ = vertical_ ? plan.num_out / last.size * ((last.size + width_ - 1) / width_) : plan.num_out;
    // The rows of a block fix each output's order of merges, so they depend on the shape alone, not on width_.
    rows_per_block_ = vertical_ ? std::max(kGroup, kRedBlock / std::min(last.size, kTile)) : kRedBlock;
    blocks_ = (plan.red_n + rows_per_block_ - 1) / rows_per_block_;
  }

  /// Calls write(o, acc) once for every output o.
  template <typename Write>
  void run(const Write& write) const {
    if (plan_.num_out == 0) return;
    if (plan_.red_n == 0) {
      for (int64_t o = 0; o < plan_.num_out; ++o) write(o, red_.identity());
      return;
    }
    if (blocks_ == 1) {
      const int64_t grain = std::max<int64_t>(1, kGrainSize / (plan_.red_n * width_));
      parallel_for(0, units_, grain, [&](int64_t b, int64_t e) { wide([&] { direct(b, e, write); }); });
      return;
    }
    // Not a std::vector: acc_t may be bool.
    const auto partials = std::make_unique_for_overwrite<acc_t[]>(static_cast<size_t>(plan_.num_out * blocks_));
    parallel_for(0, units_ * blocks_, 1, [&](int64_t b, int64_t e) {
      wide([&] {
        for (int64_t item = b; item < e; ++item) block(item / blocks_, item % blocks_, partials.get());
      });
    });
    parallel_for(0, plan_.num_out, std::max<int64_t>(1, kGrainSize / blocks_), [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) write(o, merge_all(partials.get() + o * blocks_, blocks_));
    });
  }

 private:
  // A floating reducer runs each chunk at the CPU's width (at_vector_width): its runs and vertical passes are plain
  // loops in fixed lanes (ops/lane_loops.h) or elementwise over the outputs, so every width gives the same bits.
  // Other accumulators keep the one build: each build is one more copy of the whole loop.
  template <typename Body>
  static void wide(const Body& body) {
    if constexpr (std::is_floating_point_v<acc_t>) at_vector_width(body);
    else body();
  }

  // A reducer whose values depend on their output (logsumexp's shift by each output's maximum) has run_for and
  // vertical_for, which take the index of the output (of the tile's first) before run's and vertical's arguments.
  acc_t run_of(int64_t o, const T* p, int64_t n, int64_t stride, int64_t r) const {
    if constexpr (requires { red_.run_for(o, p, n, stride, r); }) return red_.run_for(o, p, n, stride, r);
    else return red_.run(p, n, stride, r);
  }
  void vertical_of(int64_t first, acc_t* acc, const T* p, int64_t n, int64_t r) const {
    if constexpr (requires { red_.vertical_for(first, acc, p, n, r); }) red_.vertical_for(first, acc, p, n, r);
    else red_.vertical(acc, p, n, r);
  }

  // Units [b, e) each reduced whole (a single block).
  template <typename Write>
  void direct(int64_t b, int64_t e, const Write& write) const {
    if (!vertical_) {
      OffsetCounter out(plan_.kept, b);
      for (int64_t o = b; o < e; ++o, out.advance()) write(o, reduce_run(o, out.offset(), 0, plan_.red_n));
      return;
    }
    acc_t acc[kWideTile];
    for (int64_t u = b; u < e; ++u) {
      const int64_t first = tile(u, 0, plan_.red_n, acc), n = tile_width(u);
      for (int64_t t = 0; t < n; ++t) write(first + t, acc[t]);
    }
  }

  // One (unit, block) item; partials of output o live at partials[o * blocks_ + block].
  void block(int64_t unit, int64_t blk, acc_t* partials) const {
    const int64_t r0 = blk * rows_per_block_, r1 = std::min(plan_.red_n, r0 + rows_per_block_);
    if (!vertical_) {
      partials[unit * blocks_ + blk] = reduce_run(unit, OffsetCounter(plan_.kept, unit).offset(), r0, r1);
      return;
    }
    acc_t acc[kWideTile];
    const int64_t first = tile(unit, r0, r1, acc), n = tile_width(unit);
    for (int64_t t = 0; t < n; ++t) partials[(first + t) * blocks_ + blk] = acc[t];
  }

  // Inner mode: reduction indices [r0, r1) of output o, whose input offset is `base`.
  acc_t reduce_run(int64_t o, int64_t base, int64_t r0, int64_t r1) const {
    const ReduceDim inner = plan_.reduced.back();
    const std::span<const ReduceDim> outer(plan_.reduced.data(), plan_.reduced.size() - 1);
    OffsetCounter runs(outer, r0 / inner.size);
    acc_t total = red_.identity(), group = red_.identity();
    int64_t j = r0 % inner.size, count = 0;
    for (int64_t r = r0; r < r1; j = 0, runs.advance()) {
      const int64_t len = std::min(inner.size - j, r1 - r);
      group = red_.merge(group, run_of(o, data_ + base + runs.offset() + j * inner.stride, len, inner.stride, r));
      r += len;
      if (++count == kGroup) {
        total = red_.merge(total, group);
        group = red_.identity();
        count = 0;
      }
    }
    return red_.merge(total, group);
  }

  // Vertical mode: rows [r0, r1) folded into the outputs of tile `unit`; returns its first output.
  int64_t tile(int64_t unit, int64_t r0, int64_t r1, acc_t* acc) const {
    const ReduceDim last = plan_.kept.back();
    const int64_t tiles = (last.size + width_ - 1) / width_, hi = unit / tiles, j0 = unit % tiles * width_;
    const int64_t n = tile_width(unit);
    const std::span<const ReduceDim> outer(plan_.kept.data(), plan_.kept.size() - 1);
    const T* base = data_ + OffsetCounter(outer, hi).offset() + j0;
    const int64_t first = hi * last.size + j0;
    OffsetCounter rows(plan_.reduced, r0);
    acc_t group[kWideTile];
    std::fill_n(acc, n, red_.identity());
    for (int64_t r = r0; r < r1;) {
      std::fill_n(group, n, red_.identity());
      for (const int64_t end = std::min(r1, r + kGroup); r < end; ++r, rows.advance())
        vertical_of(first, group, base + rows.offset(), n, r);
      for (int64_t t = 0; t < n; ++t) acc[t] = red_.merge(acc[t], group[t]);
    }
    return first;
  }

  int64_t tile_width(int64_t unit) const {
    const int64_t size = plan_.kept.back().size, tiles = (size + width_ - 1) / width_;
    return std::min(width_, size - unit % tiles * width_);
  }

  acc_t merge_all(const acc_t* p, int64_t n) const {
    if (n == 1) return p[0];
    return red_.merge(merge_all(p, n / 2), merge_all(p + n / 2, n - n / 2));
  }

  const ReducePlan& plan_;
  const T* data_;
  const R& red_;
  bool vertical_;
  int64_t width_, units_, rows_per_block_, blocks_;
};

template <typename R, typename T, typename Write>
void reduce_into(const Tensor& x, const std::vector<bool>& reduce, bool reorder, const R& red, const Write& write) {
  const ReducePlan plan = detail::make_reduce_plan(x, reduce, reorder);
  const T* data = x.numel() > 0 ? x.data<T>() : nullptr;
  Reduction<R, T>(plan, data, red).run(write);
}

/// The sum of floating-point `x` over the dims flagged in `reduce` (dropped), in x's dtype: sum()'s kernel,
/// for kernels that reduce a tensor of their own making (layer_norm's backward).
Tensor sum_over(const Tensor& x, const std::vector<bool>& reduce);

}  // namespace tl::detail
