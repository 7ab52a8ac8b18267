// ops/mse_loss.cpp — mse_loss and mse_loss_backward: self and target of one shape and floating
// dtype (float32 or float64); the mean and sum are accumulated in double.
#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "core/error.h"
#include "ops/loss.h"

namespace tl::kernels {
namespace {

void check_pair(const Tensor& self, const Tensor& target, const char* op) {
  TL_CHECK(self.dtype() == DType::Float32 || self.dtype() == DType::Float64, op,
           ": expected input of dtype float32 or float64, got ", self.dtype());
  detail::check_loss_pair(self, target, op);
}

template <typename T>
Tensor forward(const Tensor& self, const Tensor& target, int64_t reduction) {
  const Tensor xc = self.contiguous(), tc = target.contiguous();
  const T *x = xc.data<T>(), *t = tc.data<T>();
  const int64_t n = self.numel();
  if (reduction == 0) {
    Tensor out = Tensor::allocate(self.sizes(), self.dtype());
    T* o = out.data<T>();
    parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = (x[i] - t[i]) * (x[i] - t[i]);
    });
    return out;
  }
  Tensor out = Tensor::allocate({}, self.dtype());
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - static_cast<double>(t[i]);
    sum += d * d;
  }
  out.data<T>()[0] = static_cast<T>(reduction == 1 ? sum / static_cast<double>(n) : sum);  // mean of none: NaN
  return out;
}

template <typename T>
Tensor backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  const Tensor xc = self.contiguous(), tc = target.contiguous(), gc = grad_output.contiguous();
  const T *x = xc.data<T>(), *t = tc.data<T>(), *g = gc.data<T>();
  const int64_t n = self.numel();
  const T norm = reduction == 1 ? T(2) / static_cast<T>(n) : T(2);
  Tensor out = Tensor::allocate(self.sizes(), self.dtype());
  T* o = out.data<T>();
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) o[i] = norm * (x[i] - t[i]) * (reduction == 0 ? g[i] : g[0]);
  });
  return out;
}

}  // namespace

Tensor mse_loss(const Tensor& self, const Tensor& target, const MseLossArgs& args) {
  check_pair(self, target, "mse_loss");
  const int64_t reduction = detail::checked_reduction(args.reduction, "mse_loss");
  return self.dtype() == DType::Float32 ? forward<float>(self, target, reduction)
                                       : forward<double>(self, target, reduction);
}

Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const MseLossBackwardArgs& args) {
  const char* op = "mse_loss_backward";
  check_pair(self, target, op);
  const int64_t reduction = detail::checked_reduction(args.reduction, op);
  const bool shape_ok = reduction == 0 ? grad_output.sizes() == self.sizes() : grad_output.numel() == 1;
  TL_CHECK(shape_ok && grad_output.dtype() == self.dtype(), op, ": expected grad_output ",
           reduction == 0 ? self.sizes() : Shape{}, " ", self.dtype(), " for reduction ", reduction, ", got ",
           grad_output.sizes(), " ", grad_output.dtype());
  return self.dtype() == DType::Float32 ? backward<float>(grad_output, self, target, reduction)
                                       : backward<double>(grad_output, self, target, reduction);
}

}  // namespace tl::kernels
