// ops/silu.cpp — silu (x * sigmoid(x), torch.nn.functional.silu), in place too, and its backward,
// elementwise, floating point only, on the activations' loops (ops/elementwise.h).
#include "ops/elementwise.h"
#include "ops/vector_math.h"

namespace tl::kernels {
namespace {

// x / (1 + exp(-x)), ATen's form: silu(-inf) is NaN (-inf / inf) and a large negative x gives -0.0.
constexpr auto kSilu = [](auto v) {
  using A = detail::acc_type<decltype(v)>;
  const A x = v;
  return static_cast<decltype(v)>(x / (A(1) + detail::vector_exp(-x)));
};

}  // namespace

Tensor silu(const Tensor& self) { return detail::floating_map(self, "silu", kSilu); }  // self: any shape
Tensor silu_(const Tensor& self) { return detail::floating_map(self, "silu_", kSilu, true); }

// grad * silu'(self) = grad * sigmoid(self) * (1 + self * (1 - sigmoid(self))), ATen's order.
Tensor silu_backward(const Tensor& grad, const Tensor& self) {  // grad, self: broadcastable
  return detail::activation_backward_map(grad, self, "silu_backward", [](auto gv, auto xv) {
    using A = detail::acc_type<decltype(gv)>;
    const A g = gv, x = xv, sigmoid = A(1) / (A(1) + detail::vector_exp(-x));
    return static_cast<decltype(gv)>(g * sigmoid * (A(1) + x * (A(1) - sigmoid)));
  });
}

}  // namespace tl::kernels
