// ops/dropout.cpp — dropout as ATen's CPU kernel computes it: in training, noise = bernoulli_(1 - p)
// (53-bit uniforms from the default generator, in element order), noise /= 1 - p, out = x * noise; outside
// training, or with p == 0, the input itself. native_dropout (ATen's fused form) draws the same mask and
// computes (x * mask) * (1 / (1 - p)); native_dropout_backward applies a mask and scale to a gradient.
// feature_dropout (Dropout2d) is ATen's composite: one draw per (sample, channel), broadcast over the rest.
#include <algorithm>
#include <mutex>
#include <tuple>
#include <type_traits>

#include "core/generator.h"
#include "core/op_args.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

// kept[i] = 1 with probability 1 - p, else 0 (bool or the input's type): ATen's bernoulli_(1 - p).
template <typename Flag>
void draw_kept(Flag* kept, int64_t n, double p) {
  Generator& gen = default_generator();
  std::lock_guard lock(gen.mutex());
  UniformDraws<double> u(gen, n);
  for (int64_t i = 0; i < n; ++i) kept[i] = static_cast<Flag>(u.next() < 1.0 - p ? 1.0 : 0.0);
}

template <typename T>
using Acc = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;

double checked_p(double p, const char* op) {
  TL_CHECK(p >= 0.0 && p <= 1.0, op, ": probability has to be between 0 and 1, got ", p);
  return p;
}

}  // namespace

Tensor dropout(const Tensor& x, const DropoutArgs& args) {
  const double p = checked_p(args.p, "dropout");
  if (!args.train || p == 0.0 || x.numel() == 0) return x;
  TL_CHECK(is_floating_point(x.dtype()), "dropout: expected a floating point input, got ", x.dtype());
  Tensor out = Tensor::allocate(x.sizes(), x.dtype());
  const Tensor src = x.contiguous();
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "dropout", [&] {
    const scalar_t* in = src.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    const int64_t n = x.numel();
    if (p == 1.0) {  // ATen: x * 0 (so NaN stays NaN)
      for (int64_t i = 0; i < n; ++i) o[i] = static_cast<scalar_t>(static_cast<Acc<scalar_t>>(in[i]) * Acc<scalar_t>(0));
      return;
    }
    draw_kept(o, n, p);  // the noise, drawn into out
    const Acc<scalar_t> keep = static_cast<Acc<scalar_t>>(1.0 - p);
    for (int64_t i = 0; i < n; ++i) {
      const scalar_t noise = static_cast<scalar_t>(static_cast<Acc<scalar_t>>(o[i]) / keep);
      o[i] = static_cast<scalar_t>(static_cast<Acc<scalar_t>>(in[i]) * static_cast<Acc<scalar_t>>(noise));
    }
  });
  return out;
}

// As ATen's _dropout_impl<feature_dropout>: noise (N, C, 1, ...) = bernoulli_(1 - p) / (1 - p), then x * noise.
Tensor feature_dropout(const Tensor& x, const FeatureDropoutArgs& args) {
  const double p = args.p;
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ", p);
  if (!args.train || p == 0.0 || x.numel() == 0) return x;
  TL_CHECK(x.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  if (p == 1.0) return x * tl::zeros({}, x.dtype());
  Shape noise_shape(static_cast<size_t>(x.dim()), 1);
  noise_shape[0] = x.size(0);
  noise_shape[1] = x.size(1);
  Tensor noise = tl::empty(noise_shape, x.dtype());
  noise.bernoulli_(1.0 - p);
  noise.div_(1.0 - p);
  return x * noise;
}

std::tuple<Tensor, Tensor> native_dropout(const Tensor& x, const NativeDropoutArgs& args) {
  const double p = checked_p(args.p, "native_dropout");
  TL_CHECK(is_floating_point(x.dtype()), "native_dropout: expected a floating point input, got ", x.dtype());
  Tensor out = Tensor::allocate(x.sizes(), x.dtype()), mask = Tensor::allocate(x.sizes(), DType::Bool);
  if (!args.train.value_or(true)) {
    out.copy_(x);
    std::fill_n(mask.data<bool>(), mask.numel(), true);
    return {out, mask};
  }
  const double scale = p == 1.0 ? 0.0 : 1.0 / (1.0 - p);
  const Tensor src = x.contiguous();
  draw_kept(mask.data<bool>(), x.numel(), p);
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "native_dropout", [&] {
    using A = Acc<scalar_t>;
    const scalar_t* in = src.data<scalar_t>();
    const bool* m = mask.data<bool>();
    scalar_t* o = out.data<scalar_t>();
    for (int64_t i = 0, n = x.numel(); i < n; ++i) {
      const scalar_t masked = static_cast<scalar_t>(static_cast<A>(in[i]) * static_cast<A>(m[i]));
      o[i] = static_cast<scalar_t>(static_cast<A>(masked) * static_cast<A>(scale));
    }
  });
  return {out, mask};
}

Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, const NativeDropoutBackwardArgs& args) {
  TL_CHECK(mask.dtype() == DType::Bool, "native_dropout_backward: mask should be a bool tensor, got ", mask.dtype());
  TL_CHECK(grad.shape() == mask.shape(), "native_dropout_backward: grad_output of size ", grad.shape(),
           " and mask of size ", mask.shape(), " differ");
  return grad * mask.to(grad.dtype()) * args.scale;
}

}  // namespace tl::kernels
