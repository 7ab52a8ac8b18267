// optim/nadam.h — NAdam (torch.optim.NAdam): Adam with Nesterov momentum, whose momentum coefficient
// warms up with the step count (momentum_decay).
#pragma once

#include <utility>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// NAdam's hyper-parameters, PyTorch 1.13's names and defaults (it has no maximize yet). In a group's
/// Hyperparameters the betas are "beta1" and "beta2".
struct NAdamOptions {
  double lr = 2e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum_decay = 4e-3;
};

/// torch.optim.NAdam. State per parameter after its first update: "step" (a 0-dim float32 count),
/// "mu_product" (0-dim float32, the product of the momentum coefficients so far), "exp_avg" and
/// "exp_avg_sq". Throws tl::Error for an empty parameter list, as Adam's for lr, eps, betas and
/// weight_decay, and with PyTorch's words for momentum_decay < 0.
class NAdam : public Optimizer {
 public:
  NAdam(std::vector<Tensor> params, const NAdamOptions& options = {});
  /// Per-group options: each group's overrides of `defaults` (see ParamGroup).
  NAdam(std::vector<ParamGroup> groups, const NAdamOptions& defaults = {});
  NAdam(std::initializer_list<ParamGroup> groups, const NAdamOptions& defaults = {})
      : NAdam(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  std::optional<Shape> state_shape(const std::string& key, const Tensor& param) const override {
    return key == "step" || key == "mu_product" ? Shape{} : param.shape();
  }
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
};

}  // namespace tl::optim
