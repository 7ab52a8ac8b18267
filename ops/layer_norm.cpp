// ops/layer_norm.cpp — layer_norm (composite, as ATen's) over native_layer_norm and its backward: each row
// of the last len(normalized_shape) dims is normalised by its own mean and biased variance, with weight and
// bias per element of a row (ops/norm_rows.h's kernels, whose moments are batch_norm's).
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/norm_rows.h"
#include "ops/onednn/memory.h"
#include "ops/ops.h"
#include "ops/reduction.h"

namespace tl::kernels {
namespace {

/// input seen as (M, N) rows: N = prod(normalized_shape), M the product of the leading dims.
struct Rows {
  int64_t M = 0, N = 1, axis = 0;
};

Rows check_layer_norm(const char* op, const Tensor& x, const Shape& normalized_shape, const Tensor& weight,
                      const Tensor& bias) {
  const int64_t nd = static_cast<int64_t>(normalized_shape.size());
  TL_CHECK(nd >= 1, op, ": expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
           "element, but got normalized_shape = ", normalized_shape);
  const Shape& sizes = x.shape();
  const int64_t axis = x.dim() - nd;
  TL_CHECK(axis >= 0 && std::equal(normalized_shape.begin(), normalized_shape.end(), sizes.begin() + axis), op,
           ": given normalized_shape=", normalized_shape, ", expected input with shape [*, normalized_shape], but "
           "got input of size ", sizes);
  TL_CHECK(is_floating_point(x.dtype()), op, ": expected a floating point input, got ", x.dtype());
  const std::pair<const char*, const Tensor*> params[] = {{"weight", &weight}, {"bias", &bias}};
  for (const auto& [name, t] : params) {
    if (!t->defined()) continue;
    TL_CHECK(t->shape() == normalized_shape, op, ": expected ", name, " to be of same shape as normalized_shape, but "
             "got ", name, " of shape ", t->shape(), " and normalized_shape = ", normalized_shape);
    TL_CHECK(t->dtype() == x.dtype(), op, ": ", name, " dtype ", t->dtype(), " differs from input dtype ", x.dtype());
  }
  Rows r;
  r.axis = axis;
  r.M = 1;
  for (int64_t d = 0; d < axis; ++d) r.M *= sizes[d];
  for (int64_t d = axis; d < x.dim(); ++d) r.N *= sizes[d];
  return r;
}

/// The shape of mean / rstd: input's leading dims, then a 1 for every normalised dim.
Shape stats_shape(const Tensor& x, int64_t axis) {
  Shape s(static_cast<size_t>(x.dim()), 1);
  for (int64_t d = 0; d < axis; ++d) s[d] = x.size(d);
  return s;
}

/// grad_weight's reducer: the sum over the rows of grad * xhat, in the order sum() would add up the (rows, len)
/// tensor of those products (the same blocks and lanes, so the same bits), without making that tensor. It walks
/// contiguous grad, reads contiguous x at the same offset, and takes the row from the reduction index: the reduced
/// dims are the leading ones, so reduction index r is row r.
template <typename T>
struct WeightGradReducer {
  using acc_t = detail::acc_t<T>;
  const T* dy;
  const T* x;
  const T* mean;
  const T* rstd;

  acc_t identity() const { return 0; }
  acc_t merge(acc_t a, acc_t b) const { return a + b; }
  // Rows of one element (a run goes down the rows): cascade_sum's leaves, over the products.
  acc_t run(const T* p, int64_t n, int64_t stride, int64_t r) const {
    return detail::pairwise_sum<acc_t>(p, n, stride, [&](const T* leaf, int64_t len) {
      acc_t products[detail::kLeaf];
      const int64_t row = r + (leaf - p) / stride;
      for (int64_t i = 0; i < len; ++i) {
        const T* g = leaf + i * stride;
        products[i] = static_cast<acc_t>(*g) * ((static_cast<acc_t>(x[g - dy]) - static_cast<acc_t>(mean[row + i])) *
                                                static_cast<acc_t>(rstd[row + i]));
      }
      return detail::lane_sum<acc_t, true>(products, len, 1, [](acc_t v) { return v; });
    });
  }
  void vertical(acc_t* acc, const T* p, int64_t n, int64_t r) const {
    const T* xs = x + (p - dy);
    const acc_t mu = static_cast<acc_t>(mean[r]), rs = static_cast<acc_t>(rstd[r]);
    for (int64_t t = 0; t < n; ++t) acc[t] += static_cast<acc_t>(p[t]) * ((static_cast<acc_t>(xs[t]) - mu) * rs);
  }
};

}  // namespace

// input (*, normalized_shape); weight, bias: normalized_shape or None -> (out like input, mean, rstd), mean and
// rstd shaped as input with 1 for each normalised dim, in input's dtype.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                                     const NativeLayerNormArgs& args) {
  const char* op = "native_layer_norm";
  const Rows r = check_layer_norm(op, input, args.normalized_shape, weight, bias);
  TL_CHECK(args.eps >= 0, op, ": eps must be non-negative, got ", args.eps);
  Tensor out = Tensor::allocate(input.sizes(), input.dtype());
  const Shape ss = stats_shape(input, r.axis);
  Tensor mean = Tensor::allocate(ss, input.dtype()), rstd = Tensor::allocate(ss, input.dtype());
  if (r.M == 0) return {out, mean, rstd};
  const Tensor x = onednn::to_contiguous(input, op);
  const Tensor w = weight.defined() ? onednn::to_contiguous(weight, op) : weight;
  const Tensor b = bias.defined() ? onednn::to_contiguous(bias, op) : bias;
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] {
    detail::normalize_rows<scalar_t>(r.N > 0 ? x.data<scalar_t>() : nullptr, w.defined() ? w.data<scalar_t>() : nullptr,
                                     b.defined() ? b.data<scalar_t>() : nullptr, r.N > 0 ? out.data<scalar_t>() : nullptr,
                                     mean.data<scalar_t>(), rstd.data<scalar_t>(), {.rows = r.M, .len = r.N}, args.eps);
  });
  return {out, mean, rstd};
}

// grad_out, input (*, normalized_shape); mean, rstd as native_layer_norm returns them; weight, bias:
// normalized_shape or None -> (grad_input, grad_weight, grad_bias), each undefined where output_mask is false
// (grad_weight / grad_bias also without a weight / bias, as ATen).
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const Tensor& weight, const Tensor& bias,
                                                              const NativeLayerNormBackwardArgs& args) {
  const char* op = "native_layer_norm_backward";
  const Rows r = check_layer_norm(op, input, args.normalized_shape, weight, bias);
  TL_CHECK(grad_out.shape() == input.shape() && grad_out.dtype() == input.dtype(), op, ": grad_out ",
           grad_out.shape(), " ", grad_out.dtype(), " differs from input ", input.shape(), " ", input.dtype());
  TL_CHECK(mean.numel() == r.M && rstd.numel() == r.M && mean.dtype() == input.dtype() &&
               rstd.dtype() == input.dtype(),
           op, ": expected mean and rstd of ", r.M, " elements of ", input.dtype(), " for input ", input.shape(),
           ", got ", mean.shape(), " ", mean.dtype(), " and ", rstd.shape(), " ", rstd.dtype());
  const std::array<bool, 3>& mask = args.output_mask;
  Tensor dx, dw, db;
  if (mask[0]) dx = Tensor::allocate(input.sizes(), input.dtype());
  const Shape& ns = args.normalized_shape;
  const bool want_w = mask[1] && weight.defined(), want_b = mask[2] && bias.defined();
  if (r.M * r.N == 0) {
    if (want_w) dw = tl::zeros(ns, weight.dtype());
    if (want_b) db = tl::zeros(ns, bias.dtype());
    return {dx, dw, db};
  }
  const Tensor x = onednn::to_contiguous(input, op), dy = onednn::to_contiguous(grad_out, op);
  const Tensor mu = onednn::to_contiguous(mean, op), rs = onednn::to_contiguous(rstd, op);
  const Tensor w = weight.defined() ? onednn::to_contiguous(weight, op) : weight;
  std::vector<bool> leading(static_cast<size_t>(x.dim()), false);
  std::fill(leading.begin(), leading.begin() + r.axis, true);
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] {
    const scalar_t *g = dy.data<scalar_t>(), *xs = x.data<scalar_t>(), *m = mu.data<scalar_t>(), *s = rs.data<scalar_t>();
    if (dx.defined())
      detail::normalize_rows_backward<scalar_t>(g, xs, m, s, w.defined() ? w.data<scalar_t>() : nullptr,
                                                dx.data<scalar_t>(), nullptr, {.rows = r.M, .len = r.N});
    if (!want_w) return;
    using A = detail::acc_t<scalar_t>;
    Tensor sums = Tensor::allocate(ns, x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32);
    A* out = sums.data<A>();
    detail::reduce_into<WeightGradReducer<scalar_t>, scalar_t>(dy, leading, true, WeightGradReducer<scalar_t>{g, xs, m, s},
                                                               [&](int64_t o, A v) { out[o] = v; });
    dw = detail::to_dtype(sums, weight.dtype());
  });
  // grad_bias: grad's column sums over the rows, shaped as normalized_shape.
  if (want_b) db = detail::to_dtype(detail::sum_over(dy, leading), bias.dtype());
  return {dx, dw, db};
}

// As ATen's layer_norm: native_layer_norm's output (the profiler shows aten::native_layer_norm under it).
Tensor layer_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const LayerNormArgs& args) {
  return std::get<0>(tl::native_layer_norm(input, args.normalized_shape, weight, bias, args.eps));
}

}  // namespace tl::kernels
