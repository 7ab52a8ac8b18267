// optim/adamax.cpp — Adamax's update, op for op PyTorch 1.13's _single_tensor_adamax; its amax over
// the stacked pair is the elementwise maximum, NaN-propagating as amax is (detail::maximum_).
#include "optim/adamax.h"

#include <cmath>

#include "core/error.h"
#include "ops/ops.h"
#include "optim/adam.h"

namespace tl::optim {
namespace {

Hyperparameters adamax_defaults(const AdamaxOptions& o) {
  Hyperparameters defaults = detail::adam_like_defaults(o);
  defaults["maximize"] = o.maximize ? 1.0 : 0.0;
  return defaults;
}

}  // namespace

Adamax::Adamax(std::vector<Tensor> params, const AdamaxOptions& o)
    : Adamax(std::vector{ParamGroup{std::move(params), {}}}, o) {}
Adamax::Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& o) : Optimizer("Adamax", adamax_defaults(o)) {
  add_first_groups(std::move(groups));
}

void Adamax::check_options(const Hyperparameters& o) const { detail::check_adam_like_options(kind(), o); }

std::vector<std::string> Adamax::state_keys(const Hyperparameters&) const { return {"step", "exp_avg", "exp_inf"}; }

void Adamax::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  const double eps = option(o, "eps"), weight_decay = option(o, "weight_decay");
  if (state.empty()) {
    state["step"] = zeros({}, DType::Float32);
    state["exp_avg"] = zeros(param.shape(), param.dtype());
    state["exp_inf"] = zeros(param.shape(), param.dtype());
  }
  Tensor& step_t = state.at("step");
  step_t.add_(1);
  const double step = step_t.item<float>();
  Tensor grad = option(o, "maximize") ? grad_in.neg() : grad_in;
  if (weight_decay != 0) grad = grad.add(param, weight_decay);
  Tensor& exp_avg = state.at("exp_avg");
  Tensor& exp_inf = state.at("exp_inf");
  exp_avg.mul_(beta1).add_(grad, 1 - beta1);
  detail::maximum_(exp_inf.mul_(beta2), grad.abs().add_(eps));
  const double clr = lr / (1 - std::pow(beta1, step));
  param.add_(exp_avg.mul(-clr).div(exp_inf));
}

}  // namespace tl::optim
