// optim/adadelta.cpp — Adadelta's update, op for op PyTorch 1.13's _single_tensor_adadelta (addcmul_
// written as its CPU kernel rounds, see rmsprop.cpp).
#include "optim/adadelta.h"

#include "core/error.h"
#include "ops/ops.h"

namespace tl::optim {
namespace {

Hyperparameters adadelta_defaults(const AdadeltaOptions& o) {
  return {{"lr", o.lr},
          {"rho", o.rho},
          {"eps", o.eps},
          {"weight_decay", o.weight_decay},
          {"maximize", o.maximize ? 1.0 : 0.0}};
}

}  // namespace

Adadelta::Adadelta(std::vector<Tensor> params, const AdadeltaOptions& o)
    : Adadelta(std::vector{ParamGroup{std::move(params), {}}}, o) {}
Adadelta::Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& o)
    : Optimizer("Adadelta", adadelta_defaults(o)) {
  add_first_groups(std::move(groups));
}

void Adadelta::check_options(const Hyperparameters& o) const {
  const double rho = option(o, "rho");
  TL_CHECK(option(o, "lr") >= 0, "Adadelta: Invalid learning rate: ", option(o, "lr"));
  TL_CHECK(rho >= 0 && rho <= 1, "Adadelta: Invalid rho value: ", rho);
  TL_CHECK(option(o, "eps") >= 0, "Adadelta: Invalid epsilon value: ", option(o, "eps"));
  TL_CHECK(option(o, "weight_decay") >= 0, "Adadelta: Invalid weight_decay value: ", option(o, "weight_decay"));
}

std::vector<std::string> Adadelta::state_keys(const Hyperparameters&) const {
  return {"step", "square_avg", "acc_delta"};
}

void Adadelta::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), rho = option(o, "rho"), eps = option(o, "eps");
  const double weight_decay = option(o, "weight_decay");
  if (state.empty()) {
    state["step"] = zeros({}, DType::Int64);
    state["square_avg"] = zeros(param.shape(), param.dtype());
    state["acc_delta"] = zeros(param.shape(), param.dtype());
  }
  state.at("step").add_(1);
  Tensor grad = option(o, "maximize") ? grad_in.neg() : grad_in;
  if (weight_decay != 0) grad = grad.add(param, weight_decay);
  Tensor& square_avg = state.at("square_avg");
  Tensor& acc_delta = state.at("acc_delta");
  square_avg.mul_(rho).add_(grad.mul(1 - rho).mul(grad));
  const Tensor denom = square_avg.add(eps).sqrt_();
  const Tensor delta = acc_delta.add(eps).sqrt_().div_(denom).mul_(grad);
  acc_delta.mul_(rho).add_(delta.mul(1 - rho).mul(delta));
  param.add_(delta, -lr);
}

}  // namespace tl::optim
