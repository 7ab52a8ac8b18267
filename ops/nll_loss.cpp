// ops/nll_loss.cpp — nll_loss_forward and nll_loss_backward over (N, C) or (C) log-probabilities with
// int64 class targets, an optional per-class weight and an ignored index. Every input is validated
// (targets included) before anything is allocated or computed.
#include <cmath>
#include <tuple>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/loss.h"

namespace tl::kernels {
namespace {

// self (N, C) or (C), target (N) or (), weight (C), viewed as n rows of c classes.
struct NllArgs {
  Tensor self, target, weight;  // contiguous; weight undefined when None
  int64_t n = 1, c = 1, reduction = 1, ignore_index = -100;
};

NllArgs check_nll(const Tensor& self, const Tensor& target, const Tensor& weight, int64_t reduction,
                  int64_t ignore_index, const char* op) {
  NllArgs a;
  TL_CHECK(self.dtype() == DType::Float32 || self.dtype() == DType::Float64, op,
           ": expected input of dtype float32 or float64, got ", self.dtype());
  TL_CHECK(self.dim() == 1 || self.dim() == 2, op, ": expected input of 1 or 2 dimensions, (C) or (N, C), got ",
           self.sizes());
  TL_CHECK(target.dtype() == DType::Int64, op, ": expected target of dtype int64, got ", target.dtype());
  TL_CHECK(target.dim() == self.dim() - 1, op, ": expected target of ", self.dim() - 1, " dimensions for input ",
           self.sizes(), ", got ", target.sizes());
  a.n = self.dim() == 2 ? self.size(0) : 1;
  a.c = self.size(-1);
  TL_CHECK(self.dim() == 1 || target.size(0) == a.n, op, ": expected input batch_size (", a.n,
           ") to match target batch_size (", target.size(0), ")");
  if (weight.defined()) {
    TL_CHECK(weight.dtype() == self.dtype(), op, ": expected weight of the input's dtype ", self.dtype(), ", got ",
             weight.dtype());
    TL_CHECK(weight.dim() == 1 && weight.numel() == a.c, op, ": expected weight with one element per class (", a.c,
             "), got shape ", weight.sizes());
    a.weight = weight.contiguous();
  }
  a.reduction = detail::checked_reduction(reduction, op);
  a.ignore_index = ignore_index;
  a.self = self.contiguous();
  a.target = target.contiguous();
  const int64_t* t = a.target.data<int64_t>();
  for (int64_t i = 0; i < a.n; ++i)
    TL_CHECK(t[i] == a.ignore_index || (t[i] >= 0 && t[i] < a.c), op, ": Target ", t[i],
             " is out of bounds: expected a class in [0, ", a.c, ") or ignore_index ", a.ignore_index);
  return a;
}

template <typename T>
T weight_of(const NllArgs& a, int64_t cls) {
  return a.weight.defined() ? a.weight.data<T>()[cls] : T(1);
}

template <typename T>
std::tuple<Tensor, Tensor> forward(const NllArgs& a) {
  const T* x = a.self.data<T>();
  const int64_t* t = a.target.data<int64_t>();
  Tensor total = Tensor::allocate({}, a.self.dtype());
  if (a.reduction == 0 && a.self.dim() == 2) {
    Tensor out = Tensor::allocate(a.target.sizes(), a.self.dtype());
    T* o = out.data<T>();
    parallel_for(0, a.n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = t[i] == a.ignore_index ? T(0) : -weight_of<T>(a, t[i]) * x[i * a.c + t[i]];
    });
    total.data<T>()[0] = T(0);  // PyTorch leaves total_weight 0 without a reduction
    return {out, total};
  }
  // A (C) input's one loss is its own sum; PyTorch reports its weight as total_weight for every reduction.
  // Summed in double: within rounding of PyTorch's cascaded float sums, whatever the batch size.
  double loss = 0, weight_sum = 0;
  for (int64_t i = 0; i < a.n; ++i) {
    if (t[i] == a.ignore_index) continue;
    const T w = weight_of<T>(a, t[i]);
    loss -= static_cast<double>(w * x[i * a.c + t[i]]);
    weight_sum += static_cast<double>(w);
  }
  Tensor out = Tensor::allocate({}, a.self.dtype());
  out.data<T>()[0] = static_cast<T>(a.reduction == 1 ? loss / weight_sum : loss);  // mean of no target: 0 / 0, NaN
  total.data<T>()[0] = static_cast<T>(weight_sum);
  return {out, total};
}

template <typename T>
Tensor backward(const NllArgs& a, const Tensor& grad_output, const Tensor& total_weight) {
  Tensor grad = Tensor::allocate(a.self.sizes(), a.self.dtype());
  T* gi = grad.data<T>();
  std::fill_n(gi, grad.numel(), T(0));
  const int64_t* t = a.target.data<int64_t>();
  const Tensor g = grad_output.contiguous();
  const T* go = g.data<T>();
  const T scale = a.reduction == 1 ? T(1) / total_weight.contiguous().data<T>()[0] : T(1);
  parallel_for(0, a.n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      if (t[i] == a.ignore_index) continue;
      const T gi_scale = a.reduction == 0 ? go[i] : go[0] * scale;
      gi[i * a.c + t[i]] = -weight_of<T>(a, t[i]) * gi_scale;
    }
  });
  return grad;
}

}  // namespace

std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target, const Tensor& weight,
                                            const NllLossForwardArgs& args) {
  const NllArgs a = check_nll(self, target, weight, args.reduction, args.ignore_index, "nll_loss_forward");
  return a.self.dtype() == DType::Float32 ? forward<float>(a) : forward<double>(a);
}

Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, const Tensor& weight,
                         const Tensor& total_weight, const NllLossBackwardArgs& args) {
  const char* op = "nll_loss_backward";
  const NllArgs a = check_nll(self, target, weight, args.reduction, args.ignore_index, op);
  const bool shape_ok = a.reduction == 0 ? grad_output.sizes() == a.target.sizes() : grad_output.numel() == 1;
  TL_CHECK(shape_ok && grad_output.dtype() == a.self.dtype(), op, ": expected grad_output ",
           a.reduction == 0 ? a.target.sizes() : Shape{}, " ", a.self.dtype(), " for reduction ", a.reduction,
           ", got ", grad_output.sizes(), " ", grad_output.dtype());
  TL_CHECK(total_weight.numel() == 1 && total_weight.dtype() == a.self.dtype(), op,
           ": expected a single-element total_weight of dtype ", a.self.dtype(), ", got ", total_weight.sizes(), " ",
           total_weight.dtype());
  return a.self.dtype() == DType::Float32 ? backward<float>(a, grad_output, total_weight)
                                          : backward<double>(a, grad_output, total_weight);
}

}  // namespace tl::kernels
