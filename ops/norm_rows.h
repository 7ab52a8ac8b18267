// ops/norm_rows.h — the row kernels of layer_norm and group_norm (internal to ops/): a contiguous input seen as
// rows, each normalised by its own mean and biased variance (norm_moments.h's one pass), rows in parallel, each
// chunk of rows at the CPU's vector width (at_vector_width). The
// affine parameters are per element of a row (layer_norm) or per channel, a row being runs of channels (group_norm).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/parallel.h"
#include "ops/norm_moments.h"
#include "ops/vector_kernels.h"

namespace tl::detail {

/// `rows` rows of `len` contiguous elements. With inner == 0 weight and bias have `len` elements, one per
/// element of a row; otherwise a row is len / inner channels of `inner` elements, and row i starts at
/// channel (i % groups) * (len / inner) of per-channel weight and bias.
struct RowLayout {
  int64_t rows = 0, len = 1, inner = 0, groups = 1;
  int64_t first_channel(int64_t i) const { return (i % groups) * (len / inner); }
};

/// Mean and 1 / sqrt(var + eps) of one row about its first finite element. An inf or NaN makes both NaN
/// (PyTorch's Welford moments do) unless the row is that one element; an empty row has mean 0.
template <typename T>
std::pair<double, double> row_stats(const T* x, int64_t n, double eps) {
  if (n == 0) return {0.0, std::numeric_limits<double>::quiet_NaN()};
  const double shift = first_finite_or_zero(x);
  auto [mean, var] = mean_var(channel_moments<T>(x, nullptr, 1, 1, n, 0, shift), shift, static_cast<double>(n));
  if (std::isnan(var) && n > 1) mean = var;
  return {mean, 1.0 / std::sqrt(var + eps)};
}

/// y = (x - mean) * rstd * weight + bias row by row, with each row's mean and rstd stored; w, b may be null.
template <typename T>
void normalize_rows(const T* x, const T* w, const T* b, T* y, T* mean_out, T* rstd_out, RowLayout r, double eps) {
  using A = acc_t<T>;
  const int64_t n = r.len;
  parallel_for(0, r.rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, n)), [=](int64_t begin, int64_t end) {
    at_vector_width([&] {
      for (int64_t i = begin; i < end; ++i) {
        const T* __restrict xs = x + i * n;
        T* __restrict ys = y + i * n;
        const auto [mean, rstd] = row_stats(xs, n, eps);
        mean_out[i] = static_cast<T>(mean);
        rstd_out[i] = static_cast<T>(rstd);
        const A scale = static_cast<A>(rstd), shift = static_cast<A>(-mean * rstd);
        if (r.inner > 0) {  // per channel: one scale and shift per run
          for (int64_t s = 0, c = r.first_channel(i); s < n / r.inner; ++s, ++c) {
            const A wc = w ? static_cast<A>(w[c]) : A(1), bc = b ? static_cast<A>(b[c]) : A(0);
            const A a = scale * wc, d = shift * wc + bc;
#pragma omp simd
            for (int64_t k = s * r.inner; k < (s + 1) * r.inner; ++k) ys[k] = narrow<T>(static_cast<A>(xs[k]) * a + d);
          }
          continue;
        }
        if (w == nullptr && b == nullptr) {
#pragma omp simd
          for (int64_t j = 0; j < n; ++j) ys[j] = narrow<T>(static_cast<A>(xs[j]) * scale + shift);
          continue;
        }
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) {
          const A wj = w ? static_cast<A>(w[j]) : A(1), bj = b ? static_cast<A>(b[j]) : A(0);
          ys[j] = narrow<T>((static_cast<A>(xs[j]) * scale + shift) * wj + bj);
        }
      }
    });
  });
}

/// The backward of normalize_rows. With g = grad * weight and xhat = (x - mean) * rstd, row by row:
/// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)). `prod`, when given (per-channel weights only), gets what
/// grad_weight sums over the rows (the caller sums it with the one reduction loop): sum(grad * xhat) over each
/// channel run, (rows, len / inner). Per-element weights sum grad * xhat straight from grad and x (layer_norm.cpp).
template <typename T>
void normalize_rows_backward(const T* dy, const T* x, const T* mean, const T* rstd, const T* w, T* dx,
                             acc_t<T>* prod, RowLayout r) {
  TL_INTERNAL_ASSERT(prod == nullptr || r.inner > 0, "normalize_rows_backward: prod is for per-channel weights");
  using A = acc_t<T>;
  const int64_t n = r.len;
  parallel_for(0, r.rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, 2 * n)), [=](int64_t begin, int64_t end) {
    std::vector<A> g(static_cast<size_t>(n));
    A* const gp = g.data();
    at_vector_width([&] {
      for (int64_t i = begin; i < end; ++i) {
        const T* __restrict dys = dy + i * n;
        const T* __restrict xs = x + i * n;
        const double mu = static_cast<double>(static_cast<A>(mean[i]));
        const double rs = static_cast<double>(static_cast<A>(rstd[i]));
        const A rs_a = static_cast<A>(rs);
        if (r.inner > 0) {
          for (int64_t s = 0, c = r.first_channel(i); s < n / r.inner; ++s, ++c) {
            const A wc = w ? static_cast<A>(w[c]) : A(1);
#pragma omp simd
            for (int64_t k = s * r.inner; k < (s + 1) * r.inner; ++k) gp[k] = static_cast<A>(dys[k]) * wc;
          }
        } else {
#pragma omp simd
          for (int64_t j = 0; j < n; ++j) gp[j] = static_cast<A>(dys[j]) * (w ? static_cast<A>(w[j]) : A(1));
        }
        if (prod != nullptr) {  // per channel, ATen's algebra: (sum(grad * x) - sum(grad) * mean) * rstd
          const int64_t runs = n / r.inner;
          for (int64_t s = 0; s < runs; ++s) {
            const Moments m = channel_moments<T, T>(xs + s * r.inner, dys + s * r.inner, 1, 1, r.inner, 0, 0.0);
            prod[i * runs + s] = static_cast<A>((m.gd - m.g * mu) * rs);
          }
        }
        if (dx == nullptr) continue;
        // ATen's algebra, so that an inf in grad gives its NaNs: ds = sum(g * x), db = sum(g),
        // dx = rstd * g + b * x + c with b = (db * mean - ds) * rstd^3 / n, c = -b * mean - db * rstd / n.
        const Moments m = channel_moments<T, A>(xs, gp, 1, 1, n, 0, 0.0);
        const double count = static_cast<double>(n), b = (m.g * mu - m.gd) * rs * rs * rs / count;
        const A b_a = static_cast<A>(b), c_a = static_cast<A>(-b * mu - m.g * rs / count);
        T* __restrict dxs = dx + i * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) dxs[j] = narrow<T>(rs_a * gp[j] + b_a * static_cast<A>(xs[j]) + c_a);
      }
    });
  });
}

}  // namespace tl::detail
