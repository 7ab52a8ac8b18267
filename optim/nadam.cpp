// optim/nadam.cpp — NAdam's update, op for op PyTorch 1.13's _single_tensor_nadam: mu_product is a
// float32 tensor there, so its products round to float32 before the step sizes are formed in double.
#include "optim/nadam.h"

#include <cmath>

#include "core/error.h"
#include "ops/ops.h"
#include "optim/adam.h"

namespace tl::optim {
namespace {

Hyperparameters nadam_defaults(const NAdamOptions& o) {
  Hyperparameters defaults = detail::adam_like_defaults(o);
  defaults["momentum_decay"] = o.momentum_decay;
  return defaults;
}

}  // namespace

NAdam::NAdam(std::vector<Tensor> params, const NAdamOptions& o)
    : NAdam(std::vector{ParamGroup{std::move(params), {}}}, o) {}
NAdam::NAdam(std::vector<ParamGroup> groups, const NAdamOptions& o) : Optimizer("NAdam", nadam_defaults(o)) {
  add_first_groups(std::move(groups));
}

void NAdam::check_options(const Hyperparameters& o) const {
  detail::check_adam_like_options(kind(), o);
  TL_CHECK(option(o, "momentum_decay") >= 0, "NAdam: Invalid momentum_decay value: ", option(o, "momentum_decay"));
}

std::vector<std::string> NAdam::state_keys(const Hyperparameters&) const {
  return {"step", "mu_product", "exp_avg", "exp_avg_sq"};
}

void NAdam::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  const double eps = option(o, "eps"), weight_decay = option(o, "weight_decay");
  const double momentum_decay = option(o, "momentum_decay");
  if (state.empty()) {
    state["step"] = zeros({}, DType::Float32);
    state["mu_product"] = ones({}, DType::Float32);
    state["exp_avg"] = zeros(param.shape(), param.dtype());
    state["exp_avg_sq"] = zeros(param.shape(), param.dtype());
  }
  Tensor& step_t = state.at("step");
  step_t.add_(1);
  const double step = step_t.item<float>();
  const double bias_correction2 = 1 - std::pow(beta2, step);
  Tensor grad = weight_decay != 0 ? grad_in.add(param, weight_decay) : grad_in;
  const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * momentum_decay));
  const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * momentum_decay));
  Tensor& mu_product = state.at("mu_product");
  mu_product.mul_(mu);
  const double mu_product_next = mu_product.mul(mu).mul(mu_next).item<float>();
  Tensor& exp_avg = state.at("exp_avg");
  Tensor& exp_avg_sq = state.at("exp_avg_sq");
  exp_avg.mul_(beta1).add_(grad, 1 - beta1);
  exp_avg_sq.mul_(beta2).add_(grad.mul(1 - beta2).mul(grad));
  const Tensor denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps);
  param.add_(grad.mul(-lr * (1. - mu) / (1. - mu_product.item<float>())).div(denom));
  param.add_(exp_avg.mul(-lr * mu_next / (1. - mu_product_next)).div(denom));
}

}  // namespace tl::optim
