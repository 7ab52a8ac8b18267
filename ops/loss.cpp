// ops/loss.cpp — the elementwise loss kernels with derivatives of their own, as ATen 1.13's Loss.cpp:
// smooth_l1_loss, huber_loss, binary_cross_entropy (+ their backward) and binary_cross_entropy_with_logits;
// self and target of one shape and floating dtype, the reduction through the mean/sum ops.
#include "ops/loss.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/lane_loops.h"
#include "ops/ops.h"
#include "ops/vector_math.h"

namespace tl {
namespace detail {

int64_t checked_reduction(int64_t reduction, const char* op) {
  TL_CHECK(reduction >= 0 && reduction <= 2, op, ": reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
           reduction);
  return reduction;
}

void check_loss_pair(const Tensor& self, const Tensor& target, const char* op) {
  TL_CHECK(is_floating_point(self.dtype()), op, ": expected input of a floating point dtype, got ", self.dtype());
  TL_CHECK(target.dtype() == self.dtype(), op, ": expected target of the input's dtype ", self.dtype(), ", got ",
           target.dtype());
  TL_CHECK(target.sizes() == self.sizes(), op, ": input ", self.sizes(), " and target ", target.sizes(),
           " must have the same shape");
}

Tensor apply_loss_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return tl::mean(loss);
  return reduction == Reduction::Sum ? tl::sum(loss) : loss;
}

}  // namespace detail

namespace kernels {
namespace {

using detail::ElementwiseLoop;
using detail::acc_type;

// An optional per-element weight (BCE's weight, pos_weight): of self's dtype, broadcast to self's shape.
void check_weight(const Tensor& w, const Tensor& self, const char* op, const char* name) {
  if (!w.defined()) return;
  TL_CHECK(w.dtype() == self.dtype(), op, ": expected ", name, " of the input's dtype ", self.dtype(), ", got ",
           w.dtype());
  TL_CHECK(broadcast_shapes(w.sizes(), self.sizes(), op) == self.sizes(), op, ": ", name, " of shape ", w.sizes(),
           " does not broadcast to the input's shape ", self.sizes());
}

// grad_output of a backward kernel: self's shape for reduction none, one element otherwise.
void check_grad_output(const Tensor& grad, const Tensor& self, int64_t reduction, const char* op) {
  const bool shape_ok = reduction == Reduction::None ? grad.sizes() == self.sizes() : grad.numel() == 1;
  TL_CHECK(shape_ok && grad.dtype() == self.dtype(), op, ": expected grad_output ",
           reduction == Reduction::None ? self.sizes() : Shape{}, " ", self.dtype(), " for reduction ", reduction,
           ", got ", grad.sizes(), " ", grad.dtype());
}

// How a kernel reduces its elementwise loss, as its ATen twin does: through the mean / sum ops (huber_loss's
// at::mean, which the profile shows as ops of their own), or inside the kernel (smooth_l1_loss's structured
// mean.out / sum.out, which ops/aten_tree.cpp draws), accumulated in double as mse_loss is.
enum class ReduceBy { Ops, Kernel };

Tensor reduce_in_kernel(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::None) return loss;
  Tensor out = Tensor::allocate({}, loss.dtype());
  const int64_t n = loss.numel();
  TL_DISPATCH_FLOATING_TYPES(loss.dtype(), "loss reduction", [&] {
    const scalar_t* v = loss.data<scalar_t>();  // a kernel's own contiguous result
    // In double, as a cascade sum (ops/lane_loops.h: independent lanes joined pairwise, the same in every build) at
    // the CPU's width: one running sum kept each addition waiting on the last (1 ms for 1e6 elements).
    double sum = 0;
    detail::at_vector_width([&] {
      sum = detail::cascade_sum<double, true>(
          v, n, 1, [](scalar_t e) { return static_cast<double>(static_cast<acc_type<scalar_t>>(e)); });
    });
    out.data<scalar_t>()[0] = static_cast<scalar_t>(reduction == Reduction::Mean ? sum / static_cast<double>(n) : sum);
  });
  return out;
}

// out = f(self, target) elementwise, then reduced.
template <typename F>
Tensor pointwise_loss(const Tensor& self, const Tensor& target, int64_t reduction, ReduceBy by, const char* op,
                      const F& f) {
  const Tensor out = Tensor::allocate(self.sizes(), self.dtype());
  const ElementwiseLoop loop(out, {self, target});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] { detail::map_elements<scalar_t, scalar_t, scalar_t>(loop, f); });
  return by == ReduceBy::Ops ? detail::apply_loss_reduction(out, reduction) : reduce_in_kernel(out, reduction);
}

// grad_input = f(x - y, g) * norm elementwise, g broadcast from one element unless reduction is none.
template <typename F>
Tensor pointwise_loss_backward(const Tensor& grad, const Tensor& self, const Tensor& target, int64_t reduction,
                               const char* op, const F& f) {
  const Tensor out = Tensor::allocate(self.sizes(), self.dtype());
  const Tensor g = reduction == Reduction::None ? grad : grad.reshape({}).expand(self.sizes());
  const double norm = reduction == Reduction::Mean ? 1.0 / static_cast<double>(self.numel()) : 1.0;
  const ElementwiseLoop loop(out, {self, target, g});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    using A = acc_type<scalar_t>;
    const A n = static_cast<A>(norm);
    detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(loop, [&](scalar_t x, scalar_t y, scalar_t gv) {
      return static_cast<scalar_t>(f(static_cast<A>(x) - static_cast<A>(y), n, static_cast<A>(gv)));
    });
  });
  return out;
}

// True when every element of `t` lies in [0, 1] (NaN does not).
bool all_probabilities(const Tensor& t, const char* op) {
  const Tensor inside = Tensor::allocate(t.sizes(), DType::Bool);
  TL_DISPATCH_FLOATING_TYPES(t.dtype(), op, [&] {
    detail::map_elements<bool, scalar_t>(ElementwiseLoop(inside, {t}), [](scalar_t v) {
      const acc_type<scalar_t> a = v;
      return a >= 0 && a <= 1;
    });
  });
  const auto n = static_cast<size_t>(inside.numel());
  return n == 0 || std::memchr(inside.raw_data(), 0, n) == nullptr;
}

}  // namespace

// |x - y| < beta: 0.5 (x - y)^2 / beta, else |x - y| - 0.5 beta (ATen's smooth_l1_kernel).
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, const SmoothL1LossArgs& args) {
  const char* op = "smooth_l1_loss";
  detail::check_loss_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  TL_CHECK(args.beta >= 0, op, ": smooth_l1_loss does not support negative values for beta, got ", args.beta);
  return pointwise_loss(self, target, reduction, ReduceBy::Kernel, op, [beta = args.beta](auto a, auto b) {
    using A = acc_type<decltype(a)>;
    const A z = std::abs(static_cast<A>(a) - static_cast<A>(b)), bt = static_cast<A>(beta);
    return static_cast<decltype(a)>(z < bt ? A(0.5) * z * z / bt : z - A(0.5) * bt);
  });
}

Tensor smooth_l1_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                               const SmoothL1LossBackwardArgs& args) {
  const char* op = "smooth_l1_loss_backward";
  detail::check_loss_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  check_grad_output(grad_output, self, reduction, op);
  return pointwise_loss_backward(grad_output, self, target, reduction, op, [beta = args.beta](auto x, auto n, auto g) {
    using A = decltype(x);
    const A bt = static_cast<A>(beta);
    return x <= -bt ? -n * g : x >= bt ? n * g : n * x * g / bt;
  });
}

// |x - y| < delta: 0.5 (x - y)^2, else delta (|x - y| - 0.5 delta) (ATen's huber_kernel).
Tensor huber_loss(const Tensor& self, const Tensor& target, const HuberLossArgs& args) {
  const char* op = "huber_loss";
  detail::check_loss_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  TL_CHECK(args.delta > 0, op, ": huber_loss does not support non-positive values for delta, got ", args.delta);
  return pointwise_loss(self, target, reduction, ReduceBy::Ops, op, [delta = args.delta](auto a, auto b) {
    using A = acc_type<decltype(a)>;
    const A z = std::abs(static_cast<A>(a) - static_cast<A>(b)), d = static_cast<A>(delta);
    return static_cast<decltype(a)>(z < d ? A(0.5) * z * z : d * (z - A(0.5) * d));
  });
}

Tensor huber_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const HuberLossBackwardArgs& args) {
  const char* op = "huber_loss_backward";
  detail::check_loss_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  check_grad_output(grad_output, self, reduction, op);
  return pointwise_loss_backward(grad_output, self, target, reduction, op, [delta = args.delta](auto x, auto n, auto g) {
    using A = decltype(x);
    const A d = static_cast<A>(delta);
    return x <= -d ? -n * g * d : x >= d ? n * g * d : n * x * g;
  });
}

// -(y log(x) + (1 - y) log(1 - x)), each log clamped at -100 (ATen's binary_cross_entropy_out_cpu); the
// input must lie in [0, 1] (the target is not checked, as in PyTorch 1.13).
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight,
                            const BinaryCrossEntropyArgs& args) {
  const char* op = "binary_cross_entropy";
  detail::check_loss_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  check_weight(weight, self, op, "weight");
  TL_CHECK(all_probabilities(self, op), op, ": all elements of input should be between 0 and 1");
  Tensor out = Tensor::allocate(self.sizes(), self.dtype());
  const ElementwiseLoop loop(out, {self, target});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    detail::map_elements<scalar_t, scalar_t, scalar_t>(loop, [](scalar_t xv, scalar_t yv) {
      using A = acc_type<scalar_t>;
      const A x = xv, y = yv;
      return static_cast<scalar_t>((y - A(1)) * std::max(A(detail::vector_log(A(1) - x)), A(-100)) -
                                   y * std::max(A(detail::vector_log(x)), A(-100)));
    });
  });
  if (weight.defined()) out.mul_(weight);
  return detail::apply_loss_reduction(out, reduction);
}

// grad (x - y) / max((1 - x) x, 1e-12) (* weight) (/ numel for mean), as ATen's.
Tensor binary_cross_entropy_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                                     const Tensor& weight, const BinaryCrossEntropyBackwardArgs& args) {
  const char* op = "binary_cross_entropy_backward";
  detail::check_loss_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  check_weight(weight, self, op, "weight");
  check_grad_output(grad_output, self, reduction, op);
  const Tensor out = Tensor::allocate(self.sizes(), self.dtype());
  const Tensor g = reduction == Reduction::None ? grad_output : grad_output.reshape({}).expand(self.sizes());
  const double norm = reduction == Reduction::Mean ? 1.0 / static_cast<double>(self.numel()) : 1.0;
  const ElementwiseLoop loop(out, {self, target, g});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    using A = acc_type<scalar_t>;
    const A n = static_cast<A>(norm);
    detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(loop, [n](scalar_t xv, scalar_t yv, scalar_t gv) {
      const A x = xv, y = yv;
      return static_cast<scalar_t>(A(gv) * (x - y) / std::max((A(1) - x) * x, A(1e-12)) * n);
    });
  });
  return weight.defined() ? mul(out, weight) : out;
}

// (1 - y) x + l (log(exp(-m) + exp(-x - m)) + m), m = max(-x, 0), l = (pos_weight - 1) y + 1 (without pos_weight
// ((1 - y) x + m) + log(...)): ATen's stable form of -(pos_weight y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))),
// in ATen's order of operations, in one loop where ATen runs a dozen ops (ops/aten_tree.cpp draws them), weighted
// and reduced in the kernel.
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, const BinaryCrossEntropyWithLogitsArgs& args) {
  const char* op = "binary_cross_entropy_with_logits";
  detail::check_loss_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  check_weight(weight, self, op, "weight");
  check_weight(pos_weight, self, op, "pos_weight");
  Tensor out = Tensor::allocate(self.sizes(), self.dtype());
  if (pos_weight.defined()) {
    const ElementwiseLoop loop(out, {self, target, pos_weight});
    TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
      detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(loop, [](scalar_t xv, scalar_t yv, scalar_t pv) {
        using A = acc_type<scalar_t>;
        const A x = xv, y = yv, m = std::max(-x, A(0)), l = (A(pv) - A(1)) * y + A(1);
        const A sum = detail::vector_exp(-m) + detail::vector_exp(-x - m);
        return static_cast<scalar_t>((A(1) - y) * x + l * (detail::vector_log(sum) + m));
      });
    });
  } else {  // two operands, ATen's order of additions without a weight: the loop runs dense (and vectorised)
    const ElementwiseLoop loop(out, {self, target});
    TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
      detail::map_elements<scalar_t, scalar_t, scalar_t>(loop, [](scalar_t xv, scalar_t yv) {
        using A = acc_type<scalar_t>;
        const A x = xv, y = yv, m = std::max(-x, A(0));
        const A sum = detail::vector_exp(-m) + detail::vector_exp(-x - m);
        return static_cast<scalar_t>(((A(1) - y) * x + m) + detail::vector_log(sum));
      });
    });
  }
  if (weight.defined()) {
    const ElementwiseLoop weighted(out, {out, weight});
    TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
      detail::map_elements<scalar_t, scalar_t, scalar_t>(weighted, [](scalar_t l, scalar_t w) {
        return static_cast<scalar_t>(static_cast<acc_type<scalar_t>>(l) * static_cast<acc_type<scalar_t>>(w));
      });
    });
  }
  return reduce_in_kernel(out, reduction);
}

}  // namespace kernels
}  // namespace tl
