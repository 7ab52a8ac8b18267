// ops/dropout.cpp — dropout: in training, zeroes each element with probability p (draws from the
// default generator in row-major order, so tl::manual_seed reproduces the mask) and scales the
// survivors by 1 / (1 - p). Outside training, or with p == 0, it returns the input itself.
// native_dropout also returns the mask (autograd's dropout runs it, drawing the same numbers), and
// native_dropout_backward applies a mask and scale to a gradient.
#include <algorithm>
#include <mutex>
#include <tuple>

#include "core/generator.h"
#include "core/op_args.h"
#include "ops/aten_scope.h"

namespace tl::kernels {
namespace {

// kept[i] = 1 with probability 1 - p, else 0 (bool or the input's type).
template <typename Flag>
void draw_kept(Flag* kept, int64_t n, double p) {
  Generator& gen = default_generator();
  std::lock_guard lock(gen.mutex());
  for (int64_t i = 0; i < n; ++i) kept[i] = static_cast<Flag>(gen.uniform() < 1.0 - p);
}

// out[i] = in[i] / (1 - p) where kept[i], else 0; kept may be out itself.
template <typename T, typename Flag>
void scale_kept(const T* in, const Flag* kept, T* out, int64_t n, double p) {
  const double scale = 1.0 / (1.0 - p);
  for (int64_t i = 0; i < n; ++i)
    out[i] = kept[i] ? static_cast<T>(static_cast<double>(in[i]) * scale) : static_cast<T>(0.0);
}

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
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "dropout", [&] {
    if (p == 1.0) {
      std::fill_n(out.data<scalar_t>(), out.numel(), static_cast<scalar_t>(0.0));
      return;
    }
    // ATen's dropout is noise = empty_like(x).bernoulli_(1 - p); noise.div_(1 - p); x * noise: the kept
    // flags are drawn into out (bernoulli_), and scaled as they are applied (mul).
    const Tensor src = x.contiguous();
    {
      RecordFunction bernoulli("aten::bernoulli_", [&] { return ScopeArgs{out, AttrValue(1.0 - p), AttrValue{}}; });
      draw_kept(out.data<scalar_t>(), x.numel(), p);
    }
    detail::scalar_div_scopes(TensorType{out.shape(), out.dtype()}, AttrValue(1.0 - p));
    RecordFunction mul("aten::mul", [&] { return ScopeArgs{x, out}; });
    scale_kept(src.data<scalar_t>(), out.data<scalar_t>(), out.data<scalar_t>(), x.numel(), p);
  });
  return out;
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
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "native_dropout", [&] {
    if (p == 1.0) {
      std::fill_n(out.data<scalar_t>(), out.numel(), static_cast<scalar_t>(0.0));
      std::fill_n(mask.data<bool>(), mask.numel(), false);
      return;
    }
    draw_kept(mask.data<bool>(), x.numel(), p);
    scale_kept(x.contiguous().data<scalar_t>(), mask.data<bool>(), out.data<scalar_t>(), x.numel(), p);
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
