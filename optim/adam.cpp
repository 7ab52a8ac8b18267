// optim/adam.cpp — the Adam / AdamW update, step for step PyTorch 1.13's _single_tensor_adam(w) so that
// float32 results round as PyTorch's do: scalars are computed in double, each tensor op rounds once.
#include "optim/adam.h"

#include <cmath>

#include "core/error.h"
#include "ops/ops.h"

namespace tl::optim {
namespace {

template <typename Options>
Hyperparameters adam_defaults(const Options& o) {
  return {{"lr", o.lr},
          {"beta1", o.betas.first},
          {"beta2", o.betas.second},
          {"eps", o.eps},
          {"weight_decay", o.weight_decay},
          {"amsgrad", o.amsgrad ? 1.0 : 0.0},
          {"maximize", o.maximize ? 1.0 : 0.0}};
}

}  // namespace

Adam::Adam(std::vector<Tensor> params, const AdamOptions& o) : Adam("Adam", std::move(params), adam_defaults(o)) {}
Adam::Adam(const char* kind, std::vector<Tensor> params, Hyperparameters defaults)
    : Optimizer(kind, std::move(defaults)) {
  add_first_group(std::move(params));
}
AdamW::AdamW(std::vector<Tensor> params, const AdamWOptions& o) : Adam("AdamW", std::move(params), adam_defaults(o)) {}

void Adam::check_options(const Hyperparameters& o) const {
  const double beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  TL_CHECK(option(o, "lr") >= 0, kind(), ": Invalid learning rate: ", option(o, "lr"));
  TL_CHECK(option(o, "eps") >= 0, kind(), ": Invalid epsilon value: ", option(o, "eps"));
  TL_CHECK(beta1 >= 0 && beta1 < 1, kind(), ": Invalid beta parameter at index 0: ", beta1);
  TL_CHECK(beta2 >= 0 && beta2 < 1, kind(), ": Invalid beta parameter at index 1: ", beta2);
  TL_CHECK(option(o, "weight_decay") >= 0, kind(), ": Invalid weight_decay value: ", option(o, "weight_decay"));
}

std::vector<std::string> Adam::state_keys(const Hyperparameters& o) const {
  if (option(o, "amsgrad")) return {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  return {"step", "exp_avg", "exp_avg_sq"};
}

void Adam::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  const double eps = option(o, "eps"), weight_decay = option(o, "weight_decay");
  const bool amsgrad = option(o, "amsgrad");
  if (state.empty()) {
    state["step"] = zeros({}, DType::Float32);
    state["exp_avg"] = zeros(param.shape(), param.dtype());
    state["exp_avg_sq"] = zeros(param.shape(), param.dtype());
    if (amsgrad) state["max_exp_avg_sq"] = zeros(param.shape(), param.dtype());
  }
  Tensor grad = option(o, "maximize") ? grad_in.neg() : grad_in;
  Tensor& step_t = state.at("step");
  Tensor& exp_avg = state.at("exp_avg");
  Tensor& exp_avg_sq = state.at("exp_avg_sq");
  step_t.add_(1);
  if (decoupled_weight_decay()) param.mul_(1 - lr * weight_decay);
  else if (weight_decay != 0) grad = grad.add(param.mul(weight_decay));

  exp_avg.mul_(beta1).add_(grad.mul(1 - beta1));
  exp_avg_sq.mul_(beta2).add_(grad.mul(1 - beta2).mul(grad));

  const double step = step_t.item<float>();
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  Tensor denom;
  if (amsgrad) {
    Tensor& max_exp_avg_sq = state.at("max_exp_avg_sq");
    // torch.maximum: the larger value, or NaN when either is NaN (neither < nor >= holds; a + b is NaN).
    const Tensor& a = max_exp_avg_sq;
    const Tensor& b = exp_avg_sq;
    max_exp_avg_sq.copy_(where(a.lt(b), b, where(a.ge(b), a, a.add(b))));
    denom = max_exp_avg_sq.sqrt().div(bias_correction2_sqrt).add_(eps);
  } else {
    denom = exp_avg_sq.sqrt().div(bias_correction2_sqrt).add_(eps);
  }
  param.add_(exp_avg.mul(-step_size).div(denom));
}

}  // namespace tl::optim
