// ops/activation_backward.cpp — the backward kernels of the activations: threshold_backward (ReLU's:
// the gradient where self > threshold, else 0), gelu_backward (both of gelu's forms), hardswish_backward,
// mish, leaky_relu, elu, softplus, hardsigmoid and hardtanh's, elementwise with broadcasting, floating
// point only, each in ATen's order of operations.
#include <cmath>
#include <string>

#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/vector_math.h"

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
    const A cdf = A(0.5) * (A(1) + detail::vector_erf(x * A(M_SQRT1_2)));
    const A pdf = inv_sqrt_2pi * detail::vector_exp(A(-0.5) * x * x);
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

// grad * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x))^2)).
Tensor mish_backward(const Tensor& grad, const Tensor& self) {
  return detail::activation_backward_map(grad, self, "mish_backward", [](auto gv, auto xv) {
    using A = detail::acc_type<decltype(gv)>;
    const A g = gv, x = xv, sigmoid = A(1) / (A(1) + std::exp(-x)), t = std::tanh(std::log1p(std::exp(x)));
    return static_cast<decltype(gv)>(g * (t + x * sigmoid * (A(1) - t * t)));
  });
}

// grad where self > 0, grad * negative_slope elsewhere. With self_is_result (leaky_relu_'s) self is the
// result, whose sign is the input's only for a slope >= 0.
Tensor leaky_relu_backward(const Tensor& grad, const Tensor& self, const LeakyReluBackwardArgs& args) {
  const double slope = args.negative_slope.to<double>();
  TL_CHECK(!args.self_is_result || slope >= 0.0,
           "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. "
           "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
           "version instead. File an issue at https://github.com/pytorch/pytorch if you do require supporting "
           "in-place leakRelu backward calculation with negative slope");
  return detail::activation_backward_map(grad, self, "leaky_relu_backward", [slope](auto gv, auto xv) {
    using A = detail::acc_type<decltype(gv)>;
    return static_cast<A>(xv) > A(0) ? gv : static_cast<decltype(gv)>(static_cast<A>(gv) * static_cast<A>(slope));
  });
}

// grad * scale where x > 0; below, from the input: grad * input_scale * scale * alpha * exp(x * input_scale),
// or from elu_'s result r: grad * input_scale * (r + scale * alpha).
Tensor elu_backward(const Tensor& grad, const Tensor& self_or_result, const EluBackwardArgs& args) {
  const double alpha = args.alpha.to<double>(), negcoef = alpha * args.scale.to<double>(),
               poscoef = args.scale.to<double>(), negiptcoef = args.input_scale.to<double>();
  TL_CHECK(!args.is_result || alpha >= 0.0,
           "In-place elu backward calculation is triggered with a negative slope which is not supported. "
           "This is caused by calling in-place forward function with a negative slope, please call out-of-place "
           "version instead.");
  const bool is_result = args.is_result;
  return detail::activation_backward_map(grad, self_or_result, "elu_backward", [=](auto gv, auto bv) {
    using A = detail::acc_type<decltype(gv)>;
    const A g = gv, b = bv;
    const A negative = is_result ? g * A(negiptcoef) * (b + A(negcoef))
                                 : g * A(negiptcoef) * A(negcoef) * detail::vector_exp(b * A(negiptcoef));
    return static_cast<decltype(gv)>(b > A(0) ? g * A(poscoef) : negative);
  });
}

// grad where x * beta exceeds threshold, else grad * z / (z + 1) with z = exp(x * beta).
Tensor softplus_backward(const Tensor& grad, const Tensor& self, const SoftplusBackwardArgs& args) {
  const double beta = args.beta.to<double>(), threshold = args.threshold.to<double>();
  return detail::activation_backward_map(grad, self, "softplus_backward", [=](auto gv, auto xv) {
    using A = detail::acc_type<decltype(gv)>;
    const A g = gv, x = xv, z = detail::vector_exp(x * A(beta));
    return static_cast<decltype(gv)>(x * A(beta) > A(threshold) ? g : g * z / (z + A(1)));
  });
}

// grad * (1 / 6) strictly between -3 and 3, 0 elsewhere (NaN self too).
Tensor hardsigmoid_backward(const Tensor& grad, const Tensor& self) {
  return detail::activation_backward_map(grad, self, "hardsigmoid_backward", [](auto gv, auto xv) {
    using A = detail::acc_type<decltype(gv)>;
    const A x = xv;
    return x > A(-3) && x < A(3) ? static_cast<decltype(gv)>(static_cast<A>(gv) * (A(1) / A(6))) : decltype(gv)(0);
  });
}

// grad strictly between min_val and max_val, 0 at and beyond them and for a NaN self, as ATen's vectorised kernel.
Tensor hardtanh_backward(const Tensor& grad, const Tensor& self, const HardtanhBackwardArgs& args) {
  const double lo = args.min_val.to<double>(), hi = args.max_val.to<double>();
  return detail::activation_backward_map(grad, self, "hardtanh_backward", [=](auto gv, auto xv) {
    using A = detail::acc_type<decltype(gv)>;
    const A x = xv;
    return x > A(lo) && x < A(hi) ? gv : decltype(gv)(0);
  });
}

}  // namespace tl::kernels
