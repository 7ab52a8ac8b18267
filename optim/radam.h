// optim/radam.h — RAdam (torch.optim.RAdam): Adam whose adaptive step is rectified by the variance of
// the second moment's estimate, and plain momentum SGD while that estimate is too short.
#pragma once

#include <utility>
#include <initializer_list>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// RAdam's hyper-parameters, PyTorch 1.13's names and defaults (it has no maximize yet). In a group's
/// Hyperparameters the betas are "beta1" and "beta2".
struct RAdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
};

/// torch.optim.RAdam. State per parameter after its first update: "step" (a 0-dim float32 count),
/// "exp_avg" and "exp_avg_sq". Throws tl::Error for an empty parameter list, and as Adam's for lr, eps,
/// betas and weight_decay.
class RAdam : public Optimizer {
 public:
  RAdam(std::vector<Tensor> params, const RAdamOptions& options = {});
  /// Per-group options: each group's overrides of `defaults` (see ParamGroup).
  RAdam(std::vector<ParamGroup> groups, const RAdamOptions& defaults = {});
  RAdam(std::initializer_list<ParamGroup> groups, const RAdamOptions& defaults = {})
      : RAdam(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
};

}  // namespace tl::optim
