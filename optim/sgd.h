// optim/sgd.h — stochastic gradient descent with optional momentum, dampening, Nesterov momentum,
// weight decay and maximize: torch.optim.SGD, with PyTorch 1.13's order of operations.
#pragma once

#include <optional>
#include <initializer_list>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// SGD's hyper-parameters (PyTorch's names and defaults). lr is required, as in PyTorch: left out, the
/// constructor throws.
struct SGDOptions {
  std::optional<double> lr;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
};

/// torch.optim.SGD. State per parameter after its first update with momentum != 0: "momentum_buffer".
/// Throws tl::Error for an empty parameter list ("optimizer got an empty parameter list"), no lr, and
/// with PyTorch's words for lr < 0, momentum < 0, weight_decay < 0 (each NaN too, as Adam's checks refuse
/// it: "Invalid learning rate: nan"), a NaN dampening, or nesterov without momentum or with dampening.
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, const SGDOptions& options);
  /// Per-group options: each group's overrides of `defaults` (a group without lr needs defaults.lr).
  SGD(std::vector<ParamGroup> groups, const SGDOptions& defaults);
  SGD(std::initializer_list<ParamGroup> groups, const SGDOptions& defaults)
      : SGD(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
};

}  // namespace tl::optim
