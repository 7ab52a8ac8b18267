// optim/adagrad.h — Adagrad (torch.optim.Adagrad): each element's step divided by the root of its sum of
// squared gradients, with an lr that decays with the step count.
#pragma once

#include <initializer_list>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// Adagrad's hyper-parameters, PyTorch's names and defaults.
struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;
  double weight_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  bool maximize = false;
};

/// torch.optim.Adagrad. State per parameter, made by the constructor as PyTorch's: "step" (a 0-dim
/// float32 count) and "sum", filled with the constructor's initial_accumulator_value in every group (as
/// PyTorch 1.13 fills it; a group's own value is not read). A parameter added later gets its state at
/// its first update, filled with its group's value (PyTorch's step fails on it). Throws tl::Error for
/// an empty parameter list, and with PyTorch's words for lr < 0, lr_decay < 0, weight_decay < 0, initial_accumulator_value < 0 or eps < 0 (NaN included).
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<Tensor> params, const AdagradOptions& options = {});
  /// Per-group options: each group's overrides of `defaults` (see ParamGroup).
  Adagrad(std::vector<ParamGroup> groups, const AdagradOptions& defaults = {});
  Adagrad(std::initializer_list<ParamGroup> groups, const AdagradOptions& defaults = {})
      : Adagrad(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
};

}  // namespace tl::optim
