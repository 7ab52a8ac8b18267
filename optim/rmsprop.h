// optim/rmsprop.h — RMSprop (torch.optim.RMSprop): a running average of squared gradients divides the
// step, optionally centered (minus the squared running mean) and with momentum.
#pragma once

#include <initializer_list>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// RMSprop's hyper-parameters, PyTorch's names and defaults.
struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;
};

/// torch.optim.RMSprop. State per parameter after its first update: "step" (a 0-dim int64 count: PyTorch
/// 1.13 keeps a Python int), "square_avg", "momentum_buffer" with momentum > 0, "grad_avg" when
/// centered. Throws tl::Error for an empty parameter list, and with PyTorch's words for lr < 0, eps < 0,
/// momentum < 0, weight_decay < 0 or alpha < 0 (NaN included).
class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Tensor> params, const RMSpropOptions& options = {});
  /// Per-group options: each group's overrides of `defaults` (see ParamGroup).
  RMSprop(std::vector<ParamGroup> groups, const RMSpropOptions& defaults = {});
  RMSprop(std::initializer_list<ParamGroup> groups, const RMSpropOptions& defaults = {})
      : RMSprop(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
};

}  // namespace tl::optim
