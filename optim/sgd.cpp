// optim/sgd.cpp — SGD's update, op for op torch.optim.sgd._single_tensor_sgd (each hyper-parameter passed
// as add's alpha, as PyTorch passes it), so that float32 results round and profiles read as PyTorch's.
#include "optim/sgd.h"

#include <cmath>

#include "core/error.h"

namespace tl::optim {

namespace {

Hyperparameters sgd_defaults(const SGDOptions& o) {
  Hyperparameters defaults{{"momentum", o.momentum},
                           {"dampening", o.dampening},
                           {"weight_decay", o.weight_decay},
                           {"nesterov", o.nesterov ? 1.0 : 0.0},
                           {"maximize", o.maximize ? 1.0 : 0.0}};
  if (o.lr) defaults["lr"] = *o.lr;
  return defaults;
}

}  // namespace

SGD::SGD(std::vector<Tensor> params, const SGDOptions& o) : SGD(std::vector{ParamGroup{std::move(params), {}}}, o) {}
SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& o) : Optimizer("SGD", sgd_defaults(o), {"lr"}) {
  add_first_groups(std::move(groups));
}

// `x >= 0` rather than PyTorch's SGD's `not x < 0`: a NaN is refused, as Adam's `not 0.0 <= x` refuses it.
void SGD::check_options(const Hyperparameters& o) const {
  TL_CHECK(option(o, "lr") >= 0, "SGD: Invalid learning rate: ", option(o, "lr"));
  TL_CHECK(option(o, "momentum") >= 0, "SGD: Invalid momentum value: ", option(o, "momentum"));
  TL_CHECK(option(o, "weight_decay") >= 0, "SGD: Invalid weight_decay value: ", option(o, "weight_decay"));
  TL_CHECK(!std::isnan(option(o, "dampening")), "SGD: Invalid dampening value: ", option(o, "dampening"));
  TL_CHECK(!option(o, "nesterov") || (option(o, "momentum") > 0 && option(o, "dampening") == 0),
           "SGD: Nesterov momentum requires a momentum and zero dampening (momentum=", option(o, "momentum"),
           ", dampening=", option(o, "dampening"), ")");
}

std::vector<std::string> SGD::state_keys(const Hyperparameters& o) const {
  if (option(o, "momentum") == 0) return {};
  return {"momentum_buffer"};
}

void SGD::update(Tensor& param, const Tensor& grad, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), momentum = option(o, "momentum"), dampening = option(o, "dampening");
  const double weight_decay = option(o, "weight_decay");
  Tensor d_p = option(o, "maximize") ? grad.neg() : grad;
  if (weight_decay != 0) d_p = d_p.add(param, weight_decay);
  if (momentum != 0) {
    auto it = state.find("momentum_buffer");
    if (it == state.end()) {
      it = state.emplace("momentum_buffer", d_p.clone()).first;
    } else {
      it->second.mul_(momentum).add_(d_p, 1 - dampening);
    }
    const Tensor& buf = it->second;
    d_p = option(o, "nesterov") ? d_p.add(buf, momentum) : buf;
  }
  param.add_(d_p, -lr);
}

}  // namespace tl::optim
