// optim/radam.cpp — RAdam's update, op for op PyTorch 1.13's _single_tensor_radam. Its
// `sqrt(bias_correction2) / tensor` is Tensor.__rtruediv__, reciprocal() then mul, and rounds as such.
#include "optim/radam.h"

#include <cmath>

#include "core/error.h"
#include "ops/ops.h"
#include "optim/adam.h"

namespace tl::optim {

RAdam::RAdam(std::vector<Tensor> params, const RAdamOptions& o)
    : RAdam(std::vector{ParamGroup{std::move(params), {}}}, o) {}
RAdam::RAdam(std::vector<ParamGroup> groups, const RAdamOptions& o)
    : Optimizer("RAdam", detail::adam_like_defaults(o)) {
  add_first_groups(std::move(groups));
}

void RAdam::check_options(const Hyperparameters& o) const { detail::check_adam_like_options(kind(), o); }

std::vector<std::string> RAdam::state_keys(const Hyperparameters&) const { return {"step", "exp_avg", "exp_avg_sq"}; }

void RAdam::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  const double eps = option(o, "eps"), weight_decay = option(o, "weight_decay");
  if (state.empty()) {
    state["step"] = zeros({}, DType::Float32);
    state["exp_avg"] = zeros(param.shape(), param.dtype());
    state["exp_avg_sq"] = zeros(param.shape(), param.dtype());
  }
  Tensor& step_t = state.at("step");
  step_t.add_(1);
  const double step = step_t.item<float>();
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  Tensor grad = weight_decay != 0 ? grad_in.add(param, weight_decay) : grad_in;
  Tensor& exp_avg = state.at("exp_avg");
  Tensor& exp_avg_sq = state.at("exp_avg_sq");
  exp_avg.mul_(beta1).add_(grad, 1 - beta1);
  exp_avg_sq.mul_(beta2).add_(grad.mul(1 - beta2).mul(grad));
  const Tensor bias_corrected_exp_avg = exp_avg.div(bias_correction1);
  // The length of the approximated simple moving average, and its maximum.
  const double rho_inf = 2 / (1 - beta2) - 1;
  const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
  if (rho_t > 5.) {
    const double rect = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
    const Tensor adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal().mul(std::sqrt(bias_correction2));
    param.add_(bias_corrected_exp_avg.mul(lr).mul(adaptive_lr).mul(rect), -1.0);
  } else {
    param.add_(bias_corrected_exp_avg.mul(lr), -1.0);
  }
}

}  // namespace tl::optim
