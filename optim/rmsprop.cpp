// optim/rmsprop.cpp — RMSprop's update, op for op PyTorch 1.13's _single_tensor_rmsprop. addcmul_ and
// addcdiv_ are written as their CPU kernels compute them, self + (value * t1) * t2 and
// self + (value * t1) / t2, each product and quotient rounded to float32 once.
#include "optim/rmsprop.h"

#include "core/error.h"
#include "ops/ops.h"

namespace tl::optim {
namespace {

Hyperparameters rmsprop_defaults(const RMSpropOptions& o) {
  return {{"lr", o.lr},
          {"alpha", o.alpha},
          {"eps", o.eps},
          {"weight_decay", o.weight_decay},
          {"momentum", o.momentum},
          {"centered", o.centered ? 1.0 : 0.0},
          {"maximize", o.maximize ? 1.0 : 0.0}};
}

}  // namespace

RMSprop::RMSprop(std::vector<Tensor> params, const RMSpropOptions& o)
    : RMSprop(std::vector{ParamGroup{std::move(params), {}}}, o) {}
RMSprop::RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& o) : Optimizer("RMSprop", rmsprop_defaults(o)) {
  add_first_groups(std::move(groups));
}

void RMSprop::check_options(const Hyperparameters& o) const {
  TL_CHECK(option(o, "lr") >= 0, "RMSprop: Invalid learning rate: ", option(o, "lr"));
  TL_CHECK(option(o, "eps") >= 0, "RMSprop: Invalid epsilon value: ", option(o, "eps"));
  TL_CHECK(option(o, "momentum") >= 0, "RMSprop: Invalid momentum value: ", option(o, "momentum"));
  TL_CHECK(option(o, "weight_decay") >= 0, "RMSprop: Invalid weight_decay value: ", option(o, "weight_decay"));
  TL_CHECK(option(o, "alpha") >= 0, "RMSprop: Invalid alpha value: ", option(o, "alpha"));
}

std::vector<std::string> RMSprop::state_keys(const Hyperparameters& o) const {
  std::vector<std::string> keys{"step", "square_avg"};
  if (option(o, "momentum") > 0) keys.push_back("momentum_buffer");
  if (option(o, "centered")) keys.push_back("grad_avg");
  return keys;
}

void RMSprop::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), alpha = option(o, "alpha"), eps = option(o, "eps");
  const double weight_decay = option(o, "weight_decay"), momentum = option(o, "momentum");
  const bool centered = option(o, "centered");
  if (state.empty()) {
    state["step"] = zeros({}, DType::Int64);
    state["square_avg"] = zeros(param.shape(), param.dtype());
    if (momentum > 0) state["momentum_buffer"] = zeros(param.shape(), param.dtype());
    if (centered) state["grad_avg"] = zeros(param.shape(), param.dtype());
  }
  state.at("step").add_(1);
  Tensor grad = option(o, "maximize") ? grad_in.neg() : grad_in;
  if (weight_decay != 0) grad = grad.add(param, weight_decay);

  Tensor& square_avg = state.at("square_avg");
  square_avg.mul_(alpha).add_(grad.mul(1 - alpha).mul(grad));
  Tensor avg;
  if (centered) {
    Tensor& grad_avg = state.at("grad_avg");
    grad_avg.mul_(alpha).add_(grad, 1 - alpha);
    avg = square_avg.add(grad_avg.mul(-1).mul(grad_avg)).sqrt_();
  } else {
    avg = square_avg.sqrt();
  }
  avg.add_(eps);
  if (momentum > 0) {
    Tensor& buf = state.at("momentum_buffer");
    buf.mul_(momentum).add_(grad.div(avg));
    param.add_(buf, -lr);
  } else {
    param.add_(grad.mul(-lr).div(avg));
  }
}

}  // namespace tl::optim
