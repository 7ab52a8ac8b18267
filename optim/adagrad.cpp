// optim/adagrad.cpp — Adagrad's update, op for op PyTorch 1.13's _single_tensor_adagrad (dense
// gradients; addcmul_ and addcdiv_ written as their CPU kernels round, see rmsprop.cpp).
#include "optim/adagrad.h"

#include "core/error.h"
#include "ops/ops.h"

namespace tl::optim {
namespace {

Hyperparameters adagrad_defaults(const AdagradOptions& o) {
  return {{"lr", o.lr},
          {"lr_decay", o.lr_decay},
          {"weight_decay", o.weight_decay},
          {"initial_accumulator_value", o.initial_accumulator_value},
          {"eps", o.eps},
          {"maximize", o.maximize ? 1.0 : 0.0}};
}

void init_state(const Tensor& param, double initial_accumulator_value, ParamState& state) {
  state["step"] = zeros({}, DType::Float32);
  state["sum"] = full(param.shape(), initial_accumulator_value, param.dtype());
}

}  // namespace

Adagrad::Adagrad(std::vector<Tensor> params, const AdagradOptions& o)
    : Adagrad(std::vector{ParamGroup{std::move(params), {}}}, o) {}
Adagrad::Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& o) : Optimizer("Adagrad", adagrad_defaults(o)) {
  add_first_groups(std::move(groups));
  // PyTorch's constructor fills every group's sums with its own argument, not the group's option.
  for (const ParamGroup& group : param_groups())
    for (const Tensor& param : group.params) init_state(param, o.initial_accumulator_value, mutable_state(param));
}

void Adagrad::check_options(const Hyperparameters& o) const {
  TL_CHECK(option(o, "lr") >= 0, "Adagrad: Invalid learning rate: ", option(o, "lr"));
  TL_CHECK(option(o, "lr_decay") >= 0, "Adagrad: Invalid lr_decay value: ", option(o, "lr_decay"));
  TL_CHECK(option(o, "weight_decay") >= 0, "Adagrad: Invalid weight_decay value: ", option(o, "weight_decay"));
  TL_CHECK(option(o, "initial_accumulator_value") >= 0, "Adagrad: Invalid initial_accumulator_value value: ",
           option(o, "initial_accumulator_value"));
  TL_CHECK(option(o, "eps") >= 0, "Adagrad: Invalid epsilon value: ", option(o, "eps"));
}

std::vector<std::string> Adagrad::state_keys(const Hyperparameters&) const { return {"step", "sum"}; }

void Adagrad::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), lr_decay = option(o, "lr_decay"), eps = option(o, "eps");
  const double weight_decay = option(o, "weight_decay");
  if (state.empty()) init_state(param, option(o, "initial_accumulator_value"), state);
  Tensor& step_t = state.at("step");
  step_t.add_(1);
  const double step = step_t.item<float>();
  Tensor grad = option(o, "maximize") ? grad_in.neg() : grad_in;
  if (weight_decay != 0) grad = grad.add(param, weight_decay);
  const double clr = lr / (1 + (step - 1) * lr_decay);
  Tensor& sum = state.at("sum");
  sum.add_(grad.mul(grad));
  const Tensor denom = sum.sqrt().add_(eps);
  param.add_(grad.mul(-clr).div(denom));
}

}  // namespace tl::optim
