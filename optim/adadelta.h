// optim/adadelta.h — Adadelta (torch.optim.Adadelta): steps scaled by the ratio of running RMS values of
// past updates and of gradients, so that lr needs little tuning.
#pragma once

#include <initializer_list>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// Adadelta's hyper-parameters, PyTorch's names and defaults.
struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
  bool maximize = false;
};

/// torch.optim.Adadelta. State per parameter after its first update: "step" (a 0-dim int64 count: PyTorch
/// 1.13 keeps a Python int), "square_avg" and "acc_delta". Throws tl::Error for an empty parameter list,
/// and with PyTorch's words for lr < 0, rho outside [0, 1], eps < 0 or weight_decay < 0 (NaN included).
class Adadelta : public Optimizer {
 public:
  Adadelta(std::vector<Tensor> params, const AdadeltaOptions& options = {});
  /// Per-group options: each group's overrides of `defaults` (see ParamGroup).
  Adadelta(std::vector<ParamGroup> groups, const AdadeltaOptions& defaults = {});
  Adadelta(std::initializer_list<ParamGroup> groups, const AdadeltaOptions& defaults = {})
      : Adadelta(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
};

}  // namespace tl::optim
