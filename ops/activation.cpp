// ops/activation.cpp — mish(_), leaky_relu(_), elu(_), softplus, hardsigmoid(_) and prelu (torch.nn.functional's),
// elementwise, floating point only, each in ATen's order of operations on the activations' loops
// (ops/elementwise.h). hardtanh is clamp's (ops/binary.cpp); the backwards are in activation_backward.cpp,
// except prelu's, which shares prelu's view of its weight.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/quantized/activation.h"
#include "ops/vector_math.h"

namespace tl::kernels {

namespace {

// x * tanh(softplus(x)) = x * tanh(log1p(exp(x))), as tanh(log(1 + e)) = n / (n + 2) with n = e (e + 2), e = exp(x),
// so that it takes one vectorisable exp; above 20 tanh(softplus(x)) is 1 in float (and n would overflow).
constexpr auto kMish = [](auto v) {
  using A = detail::acc_type<decltype(v)>;
  const A x = v, e = detail::vector_exp(x), n = e * (e + A(2));
  return static_cast<decltype(v)>(x > A(20) ? x : x * (n / (n + A(2))));
};

// min(max(x + 3, 0), 6) / 6; NaN stays NaN, as ATen's vectorised maximum keeps it.
constexpr auto kHardsigmoid = [](auto v) {
  using A = detail::acc_type<decltype(v)>;
  const A shifted = static_cast<A>(v) + A(3);
  return static_cast<decltype(v)>(std::isnan(shifted) ? shifted : std::min(std::max(shifted, A(0)), A(6)) / A(6));
};

}  // namespace

Tensor mish(const Tensor& self) { return detail::floating_map(self, "mish", kMish); }  // self: any shape
Tensor mish_(const Tensor& self) { return detail::floating_map(self, "mish_", kMish, true); }
// A quint8 self gives hardsigmoid's fixed qparams (scale 1/256, zero point 0), as ATen's quantized kernel.
Tensor hardsigmoid(const Tensor& self) {
  return self.is_quantized() ? int8::hardsigmoid(self) : detail::floating_map(self, "hardsigmoid", kHardsigmoid);
}
Tensor hardsigmoid_(const Tensor& self) { return detail::floating_map(self, "hardsigmoid_", kHardsigmoid, true); }

namespace {

// x for x > 0, x * negative_slope otherwise (NaN stays NaN).
Tensor leaky_relu_impl(const Tensor& self, const Scalar& negative_slope, const char* name, bool in_place) {
  const double slope = negative_slope.to<double>();
  return detail::floating_map(
      self, name,
      [slope](auto v) {
        using A = detail::acc_type<decltype(v)>;
        const A x = v;
        return static_cast<decltype(v)>(x > A(0) ? x : x * static_cast<A>(slope));
      },
      in_place);
}

// scale * x for x > 0, scale * alpha * (exp(x * input_scale) - 1) otherwise; a block of positive inputs skips the
// exponential (ops/elementwise.h's floating_map_split), as ATen's vectorised elu does for a vector of them.
Tensor elu_impl(const Tensor& self, const EluArgs& args, const char* name, bool in_place) {
  const double negcoef = args.alpha.to<double>() * args.scale.to<double>(), poscoef = args.scale.to<double>(),
               negiptcoef = args.input_scale.to<double>();
  const auto positive = [](auto v) { return static_cast<detail::acc_type<decltype(v)>>(v) > 0; };
  const auto scaled = [=](auto v) {
    using A = detail::acc_type<decltype(v)>;
    return static_cast<decltype(v)>(static_cast<A>(v) * A(poscoef));
  };
  const auto elu = [=](auto v) {
    using A = detail::acc_type<decltype(v)>;
    const A x = v;
    return static_cast<decltype(v)>(x <= A(0) ? (detail::vector_exp(x * A(negiptcoef)) - A(1)) * A(negcoef)
                                              : x * A(poscoef));
  };
  return detail::floating_map_split(self, name, positive, scaled, elu, in_place);
}

}  // namespace

Tensor leaky_relu(const Tensor& self, const LeakyReluArgs& args) {
  return leaky_relu_impl(self, args.negative_slope, "leaky_relu", false);
}
Tensor leaky_relu_(const Tensor& self, const LeakyReluArgs& args) {
  return leaky_relu_impl(self, args.negative_slope, "leaky_relu_", true);
}
Tensor elu(const Tensor& self, const EluArgs& args) { return elu_impl(self, args, "elu", false); }
Tensor elu_(const Tensor& self, const EluArgs& args) { return elu_impl(self, args, "elu_", true); }

// log1p(exp(x * beta)) / beta, or x itself where x * beta exceeds threshold.
Tensor softplus(const Tensor& self, const SoftplusArgs& args) {
  const double beta = args.beta.to<double>(), threshold = args.threshold.to<double>();
  return detail::floating_map(self, "softplus", [=](auto v) {
    using A = detail::acc_type<decltype(v)>;
    const A x = v, b = static_cast<A>(beta);
    return static_cast<decltype(v)>(x * b > static_cast<A>(threshold)
                                        ? x
                                        : detail::vector_log1p(detail::vector_exp(x * b)) / b);
  });
}

namespace {

// weight of prelu as it broadcasts against `self`: one value, or one per channel (dim 1) viewed as
// (1, C, 1, ...). Checks what ATen's prelu checks, with its messages.
Tensor prelu_weight(const Tensor& self, const Tensor& weight, const char* name) {
  TL_CHECK(is_floating_point(self.dtype()), name, ": expected a floating point dtype, got ", self.dtype());
  TL_CHECK(weight.dtype() == self.dtype(), name, ": expected weight of dtype ", self.dtype(), ", got ",
           weight.dtype());
  const int64_t weight_num = weight.numel();
  if (weight_num != 1) {
    TL_CHECK(self.dim() > 0, "Not allow zero-dim input tensor.");
    const int64_t channel_size = self.dim() > 1 ? self.size(1) : 1;
    TL_CHECK(channel_size == weight_num, "Mismatch of parameter numbers and input channel size. Found parameter "
             "numbers = ", weight_num, " and channel size = ", channel_size, ".");
  }
  TL_CHECK(weight.dim() <= 1, "prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = ", weight.dim());
  // A view over weight's storage, made here rather than by reshape, which would record an op of its own.
  const int64_t step = weight.dim() == 1 ? weight.stride(0) : 0;
  if (weight_num == 1) return Tensor::make(weight.storage(), {}, {}, weight.storage_offset(), weight.dtype());
  Shape sizes(static_cast<size_t>(self.dim()), 1);
  Strides strides(static_cast<size_t>(self.dim()), 0);
  sizes[1] = weight_num;
  strides[1] = step;
  return Tensor::make(weight.storage(), sizes, strides, weight.storage_offset(), weight.dtype());
}

}  // namespace

// x for x > 0, weight * x otherwise, weight per channel (dim 1) or one for all.
Tensor prelu(const Tensor& self, const Tensor& weight) {  // self (N, C, ...) or any shape for one weight
  const Tensor w = prelu_weight(self, weight, "prelu");
  const Tensor out = Tensor::allocate(self.shape(), self.dtype());
  const detail::ElementwiseLoop loop(out, {self, w});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), "prelu", [&] {
    detail::map_elements<scalar_t, scalar_t, scalar_t>(loop, [](scalar_t xv, scalar_t wv) {
      using A = detail::acc_type<scalar_t>;
      const A x = xv;
      return static_cast<scalar_t>(x > A(0) ? x : static_cast<A>(wv) * x);
    });
  });
  return out;
}

// (grad * (self > 0 ? 1 : weight), the sum of grad * (self > 0 ? 0 : self) over all but the channel dim).
std::tuple<Tensor, Tensor> prelu_backward(const Tensor& grad, const Tensor& self, const Tensor& weight) {
  const Shape shape = detail::activation_backward_shape(grad, self, "prelu_backward");
  const Tensor w = prelu_weight(self, weight, "prelu_backward");
  const Tensor grad_input = Tensor::allocate(shape, self.dtype()), weight_terms = Tensor::allocate(shape, self.dtype());
  const detail::ElementwiseLoop input_loop(grad_input, {grad, self, w}), weight_loop(weight_terms, {grad, self});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), "prelu_backward", [&] {
    using A = detail::acc_type<scalar_t>;
    detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(input_loop, [](scalar_t g, scalar_t x, scalar_t wv) {
      return static_cast<A>(x) > A(0) ? g : static_cast<scalar_t>(static_cast<A>(wv) * static_cast<A>(g));
    });
    detail::map_elements<scalar_t, scalar_t, scalar_t>(weight_loop, [](scalar_t g, scalar_t x) {
      return static_cast<A>(x) > A(0) ? scalar_t(0) : static_cast<scalar_t>(static_cast<A>(x) * static_cast<A>(g));
    });
  });
  if (weight.numel() == 1) return {grad_input, weight_terms.sum().reshape(weight.shape())};
  Shape dims;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    if (d != 1) dims.push_back(d);
  return {grad_input, weight_terms.sum(dims).reshape(weight.shape())};
}

}  // namespace tl::kernels
