// optim/adamax.h — Adamax (torch.optim.Adamax): Adam with the infinity norm, a running maximum of the
// gradients' magnitudes, in place of the second moment.
#pragma once

#include <utility>
#include <initializer_list>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// Adamax's hyper-parameters, PyTorch's names and defaults. In a group's Hyperparameters the betas are
/// "beta1" and "beta2".
struct AdamaxOptions {
  double lr = 2e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool maximize = false;
};

/// torch.optim.Adamax. State per parameter after its first update: "step" (a 0-dim float32 count),
/// "exp_avg" and "exp_inf". Throws tl::Error for an empty parameter list, and as Adam's for lr, eps, betas
/// and weight_decay.
class Adamax : public Optimizer {
 public:
  Adamax(std::vector<Tensor> params, const AdamaxOptions& options = {});
  /// Per-group options: each group's overrides of `defaults` (see ParamGroup).
  Adamax(std::vector<ParamGroup> groups, const AdamaxOptions& defaults = {});
  Adamax(std::initializer_list<ParamGroup> groups, const AdamaxOptions& defaults = {})
      : Adamax(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
};

}  // namespace tl::optim
