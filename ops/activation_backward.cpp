// ops/activation_backward.cpp — the backward kernels of the activations: threshold_backward (ReLU's:
// the gradient where self > threshold, else 0), gelu_backward (both of gelu's forms) and
// hardswish_backward, elementwise with broadcasting, floating point only.
#include <cmath>
#include <string>

#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {

Tensor threshold_backward(const Tensor& grad, const Tensor& self, const ThresholdBackwardArgs& args) {
  const double threshold = args.threshold.to<double>();
  return detail::activation_backward_map(grad, self, "threshold_backward", [threshold](auto g, auto x) {
    using A = detail::acc_type<decltype(g)>;
    return static_cast<A>(x) <= static_cast<A>(threshold) ? decltype(g)(0) : g;
  });
}

Tensor gelu_backward(const Tensor& grad, const Tensor& self, const GeluBackwardArgs& args) {
  const std::string& approximate = args.approximate;
  TL_CHECK(approximate == "none" || approximate == "tanh",
           "gelu_backward: approximate argument must be either none or tanh, got '", approximate, "'");
  if (approximate == "tanh") {
    return detail::activation_backward_map(grad, self, "gelu_backward", [](auto gv, auto xv) {
      using A = detail::acc_type<decltype(gv)>;
      const A beta = A(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = A(0.044715);
      const A g = gv, x = xv, x_sq = x * x, t = std::tanh(beta * (x + kappa * x_sq * x));
      const A left = A(0.5) * x, right = A(1) + t;
      const A d = A(0.5) * right + left * (A(1) - t * t) * beta * (A(1) + A(3) * kappa * x_sq);
      return static_cast<decltype(gv)>(g * d);
    });
  }
  return detail::activation_backward_map(grad, self, "gelu_backward", [](auto gv, auto xv) {
    using A = detail::acc_type<decltype(gv)>;
    const A inv_sqrt_2pi = A(M_2_SQRTPI * M_SQRT1_2 * 0.5);
    const A g = gv, x = xv;
    const A cdf = A(0.5) * (A(1) + std::erf(x * A(M_SQRT1_2)));
    const A pdf = inv_sqrt_2pi * std::exp(A(-0.5) * x * x);
    return static_cast<decltype(gv)>(g * (cdf + x * pdf));
  });
}

// grad * hardswish'(self): 0 below -3, 1 from 3 up, self / 3 + 1/2 between, and NaN for NaN self, as
// ATen's vectorised kernel (which blends the three cases, so a NaN self takes the middle one).
Tensor hardswish_backward(const Tensor& grad, const Tensor& self) {
  return detail::activation_backward_map(grad, self, "hardswish_backward", [](auto gv, auto xv) {
    using T = decltype(gv);
    using A = detail::acc_type<T>;
    const A g = gv, x = xv;
    if (x < A(-3)) return T(0);
    if (x >= A(3)) return gv;
    return static_cast<T>(g * (x / A(3) + A(0.5)));
  });
}

}  // namespace tl::kernels
