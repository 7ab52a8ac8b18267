// ops/norm_moments.h — the per-channel (batch_norm) or per-row (layer_norm) moments of the normalisation
// kernels (internal to ops/): one pass, fixed double lanes, about a shift; and the bfloat16 store they share.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "core/dtype.h"

namespace tl::detail {

/// The arithmetic type of a T element: float for float32 and bfloat16 (as PyTorch's opmath), else double.
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// static_cast<T>(v), for bfloat16 with BFloat16's rounding written as a select rather than its early
/// return for NaN, so that the element loops storing bfloat16 vectorise (the branch kept them scalar).
template <typename T>
T narrow(acc_t<T> v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, quiet_nan = (u >> 16) | 0x40u;
    BFloat16 b;
    b.bits = static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
    return b;
  } else {
    return static_cast<T>(v);
  }
}

/// Sums over channel c of contiguous (N, C, S) `x` and, when `g` is given, of `g`, with d = x - shift:
/// Σd, Σd², Σg, Σg·d (`g` may be x's type or its arithmetic type). A shift near the mean keeps the one-pass variance
/// Σd²/n - (Σd/n)² from cancelling. Double sums, as accurate as the old double loops, in kMomentLanes running sums
/// each (element s goes to lane s % kMomentLanes of its run), added up in one fixed order: the order is the code's,
/// not the vectoriser's, so every ISA build (ops/norm_rows.h runs these at the CPU's width) gives the same bits.
struct Moments {
  double d = 0, dd = 0, g = 0, gd = 0;
};

inline constexpr int64_t kMomentLanes = 8;

/// The lanes' total, pairwise in a fixed order.
inline double sum_lanes(const double (&v)[kMomentLanes]) {
  return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

template <typename T, typename G = T>
Moments channel_moments(const T* __restrict x, std::type_identity_t<const G*> __restrict g, int64_t N, int64_t C,
                        int64_t S, int64_t c, double shift) {
  double sd[kMomentLanes] = {}, sdd[kMomentLanes] = {}, sg[kMomentLanes] = {}, sgd[kMomentLanes] = {};
  const auto x_at = [shift](const T* p, int64_t s) {
    return static_cast<double>(static_cast<acc_t<T>>(p[s])) - shift;
  };
  for (int64_t n = 0; n < N; ++n) {
    const T* __restrict xs = x + (n * C + c) * S;
    const G* __restrict gs = g == nullptr ? nullptr : g + (n * C + c) * S;
    int64_t s = 0;
    if (gs == nullptr) {  // tested once per run, not per step: the steps' loop then vectorises whole
      for (; s + kMomentLanes <= S; s += kMomentLanes) {
#pragma omp simd
        for (int64_t l = 0; l < kMomentLanes; ++l) {
          const double d = x_at(xs, s + l);
          sd[l] += d;
          sdd[l] += d * d;
        }
      }
    } else {
      for (; s + kMomentLanes <= S; s += kMomentLanes) {
#pragma omp simd
        for (int64_t l = 0; l < kMomentLanes; ++l) {
          const double d = x_at(xs, s + l), gv = static_cast<double>(static_cast<acc_t<G>>(gs[s + l]));
          sd[l] += d;
          sdd[l] += d * d;
          sg[l] += gv;
          sgd[l] += gv * d;
        }
      }
    }
    for (int64_t l = 0; s < S; ++s, ++l) {  // the run's tail, into the first lanes
      const double d = x_at(xs, s);
      sd[l] += d;
      sdd[l] += d * d;
      if (gs == nullptr) continue;
      const double gv = static_cast<double>(static_cast<acc_t<G>>(gs[s]));
      sg[l] += gv;
      sgd[l] += gv * d;
    }
  }
  return {sum_lanes(sd), sum_lanes(sdd), sum_lanes(sg), sum_lanes(sgd)};
}

/// The shift for channel_moments: the channel's first element, or 0 when that is inf or NaN (shifting
/// by it would turn every element into NaN, where PyTorch's mean is the inf).
template <typename T>
double first_finite_or_zero(const T* x) {
  const double v = static_cast<double>(static_cast<acc_t<T>>(*x));
  return std::isfinite(v) ? v : 0.0;
}

/// Mean and biased variance of channel c from its moments about `shift` over `count` elements; a NaN
/// or inf in the channel gives NaN as the two-pass formula does.
inline std::pair<double, double> mean_var(const Moments& m, double shift, double count) {
  const double mean_d = m.d / count, var = m.dd / count - mean_d * mean_d;
  return {shift + mean_d, var < 0 ? 0.0 : var};  // rounding can leave a constant channel slightly negative
}

}  // namespace tl::detail
