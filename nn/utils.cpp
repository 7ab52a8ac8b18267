// nn/utils.cpp — clip_grad_norm_, clip_grad_value_ and the parameter/vector conversions, each the
// sequence of tensor ops PyTorch 1.13's Python runs, so the float results round as PyTorch's do.
#include "nn/utils.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/grad_mode.h"
#include "core/py_repr.h"
#include "ops/ops.h"

namespace tl::nn::utils {
namespace {

/// torch.norm(t, p) of the whole tensor as a 0-dim tensor: (sum |t|^p)^(1/p), max |t| for inf, min |t|
/// for -inf, the count of non-zeros for 0.
Tensor vector_norm(const Tensor& t, double p) {
  const Tensor a = t.abs();
  if (std::isinf(p)) return p > 0 ? a.max() : a.min();
  if (p == 0.0) return (a != 0.0).to(t.dtype()).sum();
  if (p == 1.0) return a.sum();
  if (p == 2.0) return (a * a).sum().sqrt();
  return a.pow(p).sum().pow(1.0 / p);
}

/// The defined gradients of `parameters`, as the tensor objects in their .grad slots.
std::vector<Tensor> grads_of(TensorListRef parameters) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  return grads;
}

}  // namespace

Tensor clip_grad_norm_(TensorListRef parameters, double max_norm, double norm_type, bool error_if_nonfinite) {
  NoGradGuard no_grad;
  const std::vector<Tensor> grads = grads_of(parameters);
  if (grads.empty()) return scalar_tensor(0.0, DType::Float32);
  std::vector<Tensor> norms;
  norms.reserve(grads.size());
  for (const Tensor& g : grads) norms.push_back(vector_norm(g, norm_type));
  Tensor total;
  if (std::isinf(norm_type) && norm_type > 0)
    total = norms.size() == 1 ? norms[0] : stack(norms).max();
  else
    total = vector_norm(stack(norms), norm_type);
  TL_CHECK(!error_if_nonfinite || std::isfinite(total.item<double>()), "The total norm of order ",
           py_float(norm_type),
           " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
           "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  const Tensor clip_coef = max_norm / (total + 1e-6);
  const Tensor clip_coef_clamped = clip_coef.clamp(std::nullopt, 1.0);
  for (const Tensor& g : grads) g.detach().mul_(clip_coef_clamped);
  return total;
}

Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type, bool error_if_nonfinite) {
  return clip_grad_norm_(TensorListRef(&parameter, 1), max_norm, norm_type, error_if_nonfinite);
}

void clip_grad_value_(TensorListRef parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& g : grads_of(parameters)) g.detach().clamp_(-clip_value, clip_value);
}

void clip_grad_value_(const Tensor& parameter, double clip_value) {
  clip_grad_value_(TensorListRef(&parameter, 1), clip_value);
}

Tensor parameters_to_vector(TensorListRef parameters) {
  std::vector<Tensor> flat;
  flat.reserve(parameters.size());
  for (const Tensor& p : parameters) flat.push_back(p.view({-1}));
  return cat(flat);
}

void vector_to_parameters(const Tensor& vec, TensorListRef parameters) {
  TL_CHECK(vec.defined(), "vector_to_parameters: expected torch.Tensor, but got: None");
  TL_CHECK(vec.dim() == 1, "vector_to_parameters: expected a 1-D vec, got shape ", vec.shape());
  // Every slice is made before the first parameter changes, so a short vec changes nothing.
  std::vector<Tensor> slices;
  slices.reserve(parameters.size());
  int64_t pointer = 0;
  for (const Tensor& p : parameters) {
    const int64_t n = p.numel();
    TL_CHECK(pointer + n <= vec.numel(), "vector_to_parameters: shape '", p.shape(),
             "' is invalid for input of size ", std::min(n, vec.numel() - pointer), " (vec has ", vec.numel(),
             " elements, the parameters up to this one need ", pointer + n, ")");
    slices.push_back(vec.detach().slice(0, pointer, pointer + n).view(p.shape()));
    pointer += n;
  }
  for (size_t i = 0; i < slices.size(); ++i) parameters[i].set_data(slices[i]);
}

}  // namespace tl::nn::utils
