// ops/activation_backward.cpp — the backward kernels of the activations: threshold_backward (ReLU's:
// the gradient where self > threshold, else 0), gelu_backward (both of gelu's forms) and
// hardswish_backward, elementwise with broadcasting, floating point only.
#include <cmath>
#include <string>

#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {
namespace {

Shape checked_shape(const Tensor& grad, const Tensor& self, const char* op) {
  TL_CHECK(is_floating_point(grad.dtype()) && grad.dtype() == self.dtype(), op,
           ": expected grad_output and self of one floating point dtype, got ", grad.dtype(), " and ", self.dtype());
  return broadcast_shapes(grad.shape(), self.shape(), op);
}

}  // namespace

Tensor threshold_backward(const Tensor& grad, const Tensor& self, const ThresholdBackwardArgs& args) {
  Tensor out = Tensor::allocate(checked_shape(grad, self, "threshold_backward"), grad.dtype());
  const double threshold = args.threshold.to<double>();
  const detail::ElementwiseLoop loop(out, {grad, self});
  TL_DISPATCH_FLOATING_TYPES(grad.dtype(), "threshold_backward", [&] {
    using A = detail::acc_type<scalar_t>;
    const A t = static_cast<A>(threshold);
    detail::map_elements<scalar_t, scalar_t, scalar_t>(loop, [=](scalar_t g, scalar_t x) {
      return static_cast<A>(x) <= t ? scalar_t(0) : g;
    });
  });
  return out;
}

Tensor gelu_backward(const Tensor& grad, const Tensor& self, const GeluBackwardArgs& args) {
  const std::string& approximate = args.approximate;
  TL_CHECK(approximate == "none" || approximate == "tanh",
           "gelu_backward: approximate argument must be either none or tanh, got '", approximate, "'");
  Tensor out = Tensor::allocate(checked_shape(grad, self, "gelu_backward"), grad.dtype());
  const detail::ElementwiseLoop loop(out, {grad, self});
  TL_DISPATCH_FLOATING_TYPES(grad.dtype(), "gelu_backward", [&] {
    using T = scalar_t;
    using A = detail::acc_type<T>;
    if (approximate == "tanh") {
      const A beta = A(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = A(0.044715);
      detail::map_elements<T, T, T>(loop, [=](T gv, T xv) {
        const A g = gv, x = xv, x_sq = x * x, t = std::tanh(beta * (x + kappa * x_sq * x));
        const A left = A(0.5) * x, right = A(1) + t;
        const A d = A(0.5) * right + left * (A(1) - t * t) * beta * (A(1) + A(3) * kappa * x_sq);
        return static_cast<T>(g * d);
      });
    } else {
      const A inv_sqrt_2pi = A(M_2_SQRTPI * M_SQRT1_2 * 0.5);
      detail::map_elements<T, T, T>(loop, [=](T gv, T xv) {
        const A g = gv, x = xv;
        const A cdf = A(0.5) * (A(1) + std::erf(x * A(M_SQRT1_2)));
        const A pdf = inv_sqrt_2pi * std::exp(A(-0.5) * x * x);
        return static_cast<T>(g * (cdf + x * pdf));
      });
    }
  });
  return out;
}

// grad * hardswish'(self): 0 below -3, 1 from 3 up, self / 3 + 1/2 between, and NaN for NaN self, as
// ATen's vectorised kernel (which blends the three cases, so a NaN self takes the middle one).
Tensor hardswish_backward(const Tensor& grad, const Tensor& self) {
  Tensor out = Tensor::allocate(checked_shape(grad, self, "hardswish_backward"), grad.dtype());
  const detail::ElementwiseLoop loop(out, {grad, self});
  TL_DISPATCH_FLOATING_TYPES(grad.dtype(), "hardswish_backward", [&] {
    using T = scalar_t;
    using A = detail::acc_type<T>;
    detail::map_elements<T, T, T>(loop, [](T gv, T xv) {
      const A g = gv, x = xv;
      if (x < A(-3)) return T(0);
      if (x >= A(3)) return gv;
      return static_cast<T>(g * (x / A(3) + A(0.5)));
    });
  });
  return out;
}

}  // namespace tl::kernels
