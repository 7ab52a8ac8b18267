// optim/adam.cpp — the Adam / AdamW update, step for step PyTorch 1.13's _single_tensor_adam(w) so that
// float32 results round as PyTorch's do: scalars are computed in double, each tensor op rounds once.
#include "optim/adam.h"

#include <cmath>

#include "core/error.h"
#include "ops/ops.h"

namespace tl::optim {
namespace detail {

void check_adam_like_options(const char* kind, const Hyperparameters& o) {
  const double beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  TL_CHECK(option(o, "lr") >= 0, kind, ": Invalid learning rate: ", option(o, "lr"));
  TL_CHECK(option(o, "eps") >= 0, kind, ": Invalid epsilon value: ", option(o, "eps"));
  TL_CHECK(beta1 >= 0 && beta1 < 1, kind, ": Invalid beta parameter at index 0: ", beta1);
  TL_CHECK(beta2 >= 0 && beta2 < 1, kind, ": Invalid beta parameter at index 1: ", beta2);
  TL_CHECK(option(o, "weight_decay") >= 0, kind, ": Invalid weight_decay value: ", option(o, "weight_decay"));
}

// Neither a < b nor a >= b holds when either is NaN; a + b is NaN then.
void maximum_(Tensor& a, const Tensor& b) { a.copy_(where(a.lt(b), b, where(a.ge(b), a, a.add(b)))); }

}  // namespace detail

namespace {

template <typename Options>
Hyperparameters adam_defaults(const Options& o) {
  Hyperparameters defaults = detail::adam_like_defaults(o);
  defaults["amsgrad"] = o.amsgrad ? 1.0 : 0.0;
  defaults["maximize"] = o.maximize ? 1.0 : 0.0;
  return defaults;
}

}  // namespace

Adam::Adam(std::vector<Tensor> params, const AdamOptions& o)
    : Adam(std::vector{ParamGroup{std::move(params), {}}}, o) {}
Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& o) : Adam("Adam", std::move(groups), adam_defaults(o)) {}
Adam::Adam(const char* kind, std::vector<ParamGroup> groups, Hyperparameters defaults)
    : Optimizer(kind, std::move(defaults)) {
  add_first_groups(std::move(groups));
}
AdamW::AdamW(std::vector<Tensor> params, const AdamWOptions& o)
    : AdamW(std::vector{ParamGroup{std::move(params), {}}}, o) {}
AdamW::AdamW(std::vector<ParamGroup> groups, const AdamWOptions& o)
    : Adam("AdamW", std::move(groups), adam_defaults(o)) {}

void Adam::check_options(const Hyperparameters& o) const { detail::check_adam_like_options(kind(), o); }

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
    detail::maximum_(max_exp_avg_sq, exp_avg_sq);
    denom = max_exp_avg_sq.sqrt().div(bias_correction2_sqrt).add_(eps);
  } else {
    denom = exp_avg_sq.sqrt().div(bias_correction2_sqrt).add_(eps);
  }
  param.add_(exp_avg.mul(-step_size).div(denom));
}

}  // namespace tl::optim
