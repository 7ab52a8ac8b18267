// ops/softmax.cpp — (log_)softmax along one dim, float32 and float64, their backward kernels and the
// composites over them. Each row of (outer, n, inner) around `dim` is max-subtracted before exp, so no
// finite input overflows; its sums are accumulated in double.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/reduction.h"
#include "ops/vector_kernels.h"
#include "ops/vector_math.h"

namespace tl::kernels {
namespace {

// `x` seen as (outer, n, inner) around `dim`: element (o, j, i) sits at (o * n + j) * inner + i.
struct Rows {
  int64_t outer = 1, n = 1, inner = 1;
};

Rows rows_around(const Shape& shape, int64_t dim) {
  Rows r;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d < dim) r.outer *= shape[d];
    else if (d == dim) r.n = shape[d];
    else r.inner *= shape[d];
  }
  return r;
}

void check_floating(const Tensor& t, const char* op, const char* what) {
  TL_CHECK(t.dtype() == DType::Float32 || t.dtype() == DType::Float64 || t.dtype() == DType::BFloat16, op,
           ": expected ", what, " of dtype float32, float64 or bfloat16, got ", t.dtype());
}

// `t` as a contiguous float32 tensor: bfloat16 rows are computed in float32 and their results
// rounded once, as PyTorch's bfloat16 kernels accumulate.
Tensor widened(const Tensor& t) {
  Tensor w = Tensor::allocate(t.sizes(), DType::Float32);
  detail::copy_elements(w, t);
  return w;
}

// The dim wrapped into [0, rank); a 0-dim tensor takes dim 0 or -1, as in PyTorch.
int64_t softmax_dim(const Tensor& t, int64_t dim, const char* op) {
  return wrap_dim(dim, std::max<int64_t>(t.dim(), 1), op);
}

// Calls f(o, i) for every row, parallel over rows once a chunk holds enough elements.
template <typename F>
void for_each_row(const Rows& r, const F& f) {
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(r.n, 1));
  parallel_for(0, r.outer * r.inner, grain, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) f(row / r.inner, row % r.inner);
  });
}

// One float row's softmax (kLog: log_softmax) in loops that vectorise: the max by extreme_contiguous (NaN if any
// element is NaN), vector_exp instead of libm's, each e^(x - max) computed once (kept in y, then scaled, or
// overwritten by x - max - ln(sum)), the sum in eight double lanes that take the elements in the same order at every
// width. As in softmax_rows, a NaN or an infinite max makes the whole row NaN.
template <bool kLog>
[[gnu::always_inline]] inline void softmax_row(const float* in, float* out, int64_t n) {
  constexpr int64_t kWide = 16, kLanes = 8;  // exponentials per step; double lanes of the sum
  using Doubles = detail::Simd<double>::type;
  typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
  const float shift = detail::extreme_contiguous<true>(in, n);
  const auto add_lanes = [&](Doubles& lanes, const float* p) {
    Floats x;
    std::memcpy(&x, p, sizeof x);
    lanes += __builtin_convertvector(x, Doubles);
  };
  Doubles lanes = {};
  int64_t j = 0;
  for (; j + kWide <= n; j += kWide) {
    for (int64_t l = 0; l < kWide; ++l) out[j + l] = detail::vector_exp(in[j + l] - shift);
    add_lanes(lanes, out + j);
    add_lanes(lanes, out + j + kLanes);
  }
  for (; j + kLanes <= n; j += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) out[j + l] = detail::vector_exp(in[j + l] - shift);
    add_lanes(lanes, out + j);
  }
  for (; j < n; ++j) {
    out[j] = detail::vector_exp(in[j] - shift);
    lanes[0] += static_cast<double>(out[j]);
  }
  double sum = 0;
  for (int64_t l = 0; l < kLanes; ++l) sum += lanes[l];
  if constexpr (kLog) {
    const auto log_sum = static_cast<float>(std::log(sum));
    for (int64_t k = 0; k < n; ++k) out[k] = in[k] - shift - log_sum;
  } else {
    const auto inv = static_cast<float>(1.0 / sum);
    for (int64_t k = 0; k < n; ++k) out[k] *= inv;
  }
}

// A float (log_)softmax over contiguous rows (inner == 1, e.g. attention's (N * heads, L, S) over S, or a
// classifier's (N, classes)): softmax_row at the CPU's width, once per chunk of rows.
template <bool kLog>
void softmax_contiguous_rows(const float* x, float* y, const Rows& r) {
  const int64_t n = r.n;
  if (n == 0) return;  // no element to write (and extreme_contiguous needs one)
  const int64_t grain = std::max<int64_t>(1, kGrainSize / n);
  parallel_for(0, r.outer, grain, [&](int64_t b, int64_t e) {
    detail::at_vector_width([&] {
      for (int64_t o = b; o < e; ++o) softmax_row<kLog>(x + o * n, y + o * n, n);
    });
  });
}

template <typename T, bool kLog>
void softmax_rows(const T* x, T* y, const Rows& r) {
  if constexpr (std::is_same_v<T, float>) {
    if (r.inner == 1) return softmax_contiguous_rows<kLog>(x, y, r);
  }
  for_each_row(r, [&](int64_t o, int64_t i) {
    const T* in = x + o * r.n * r.inner + i;
    T* out = y + o * r.n * r.inner + i;
    T max = -std::numeric_limits<T>::infinity();
    for (int64_t j = 0; j < r.n; ++j) max = std::isnan(in[j * r.inner]) ? in[j * r.inner] : std::max(max, in[j * r.inner]);
    // As in PyTorch, an infinite max is subtracted too: inf - inf makes the whole row NaN.
    const T shift = max;
    double sum = 0;  // float32 rows of many classes too keep their last bits
    for (int64_t j = 0; j < r.n; ++j) sum += static_cast<double>(std::exp(in[j * r.inner] - shift));
    if constexpr (kLog) {
      const T log_sum = static_cast<T>(std::log(sum));
      for (int64_t j = 0; j < r.n; ++j) out[j * r.inner] = in[j * r.inner] - shift - log_sum;
    } else {
      const T inv = static_cast<T>(1.0 / sum);
      for (int64_t j = 0; j < r.n; ++j) out[j * r.inner] = std::exp(in[j * r.inner] - shift) * inv;
    }
  });
}

// softmax: grad_in = y * (g - sum_j g_j y_j); log_softmax: grad_in = g - exp(y) * sum_j g_j.
template <typename T, bool kLog>
void softmax_backward_rows(const T* g, const T* y, T* gi, const Rows& r) {
  for_each_row(r, [&](int64_t o, int64_t i) {
    const int64_t base = o * r.n * r.inner + i;
    double acc = 0;
    for (int64_t j = 0; j < r.n; ++j)
      acc += kLog ? static_cast<double>(g[base + j * r.inner])
                  : static_cast<double>(g[base + j * r.inner]) * static_cast<double>(y[base + j * r.inner]);
    const T dot = static_cast<T>(acc);
    for (int64_t j = 0; j < r.n; ++j) {
      const int64_t k = base + j * r.inner;
      gi[k] = kLog ? g[k] - std::exp(y[k]) * dot : y[k] * (g[k] - dot);
    }
  });
}

template <bool kLog>
Tensor softmax_forward(const Tensor& x, int64_t dim_arg, bool half_to_float, const char* op) {
  check_floating(x, op, "input");
  TL_CHECK(!half_to_float, op, ": half to float conversion is not supported on CPU");
  const int64_t dim = softmax_dim(x, dim_arg, op);
  const Tensor src = x.contiguous();
  Tensor out = Tensor::allocate(x.sizes(), x.dtype());
  const Rows r = rows_around(x.sizes(), x.dim() == 0 ? 0 : dim);
  if (x.dtype() == DType::BFloat16) {
    const Tensor out32 = Tensor::allocate(x.sizes(), DType::Float32);
    softmax_rows<float, kLog>(widened(x).data<float>(), out32.data<float>(), r);
    detail::copy_elements(out, out32);
  } else if (x.dtype() == DType::Float32) {
    softmax_rows<float, kLog>(src.data<float>(), out.data<float>(), r);
  } else {
    softmax_rows<double, kLog>(src.data<double>(), out.data<double>(), r);
  }
  return out;
}

template <bool kLog>
Tensor softmax_backward(const Tensor& grad, const Tensor& y, int64_t dim_arg, DType input_dtype, const char* op) {
  check_floating(grad, op, "grad_output");
  TL_CHECK(grad.sizes() == y.sizes() && grad.dtype() == y.dtype(), op, ": grad_output ", grad.sizes(), " ",
           grad.dtype(), " and output ", y.sizes(), " ", y.dtype(), " must have the same shape and dtype");
  TL_CHECK(input_dtype == grad.dtype(), op, ": input_dtype ", input_dtype, " differs from grad_output's ",
           grad.dtype(), " (half to float conversion is not supported on CPU)");
  const int64_t dim = softmax_dim(grad, dim_arg, op);
  const Tensor g = grad.contiguous(), yc = y.contiguous();
  Tensor out = Tensor::allocate(grad.sizes(), grad.dtype());
  const Rows r = rows_around(grad.sizes(), grad.dim() == 0 ? 0 : dim);
  if (grad.dtype() == DType::BFloat16) {
    const Tensor out32 = Tensor::allocate(grad.sizes(), DType::Float32);
    softmax_backward_rows<float, kLog>(widened(grad).data<float>(), widened(y).data<float>(), out32.data<float>(), r);
    detail::copy_elements(out, out32);
  } else if (grad.dtype() == DType::Float32) {
    softmax_backward_rows<float, kLog>(g.data<float>(), yc.data<float>(), out.data<float>(), r);
  } else {
    softmax_backward_rows<double, kLog>(g.data<double>(), yc.data<double>(), out.data<double>(), r);
  }
  return out;
}

// softmax(x, dim, dtype): x converted to dtype first (when given and not x's own: ops/aten_tree.cpp records
// ATen's aten::to for that), then the primitive; the conversion is aten::to, which autograd records.
Tensor converted(const Tensor& x, std::optional<DType> dtype) { return dtype && *dtype != x.dtype() ? x.to(*dtype) : x; }

}  // namespace

Tensor _softmax(const Tensor& self, const SoftmaxForwardArgs& args) {
  return softmax_forward<false>(self, args.dim, args.half_to_float, "_softmax");
}
Tensor _log_softmax(const Tensor& self, const LogSoftmaxForwardArgs& args) {
  return softmax_forward<true>(self, args.dim, args.half_to_float, "_log_softmax");
}
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, const SoftmaxBackwardDataArgs& args) {
  return softmax_backward<false>(grad_output, output, args.dim, args.input_dtype, "_softmax_backward_data");
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output,
                                  const LogSoftmaxBackwardDataArgs& args) {
  return softmax_backward<true>(grad_output, output, args.dim, args.input_dtype, "_log_softmax_backward_data");
}

Tensor softmax(const Tensor& self, const SoftmaxArgs& args) {
  return tl::_softmax(converted(self, args.dtype), args.dim, false);
}
Tensor log_softmax(const Tensor& self, const LogSoftmaxArgs& args) {
  return tl::_log_softmax(converted(self, args.dtype), args.dim, false);
}

}  // namespace tl::kernels
