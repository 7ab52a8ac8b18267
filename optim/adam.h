// optim/adam.h — Adam and AdamW (torch.optim.Adam / AdamW): one update, L2 weight decay added to the
// gradient (Adam) or decoupled, applied to the parameter before the moments (AdamW).
#pragma once

#include <initializer_list>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// Adam's hyper-parameters, PyTorch's names and defaults. In a group's Hyperparameters the betas are
/// "beta1" and "beta2".
struct AdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;
};

/// AdamW's: Adam's with PyTorch's AdamW default weight_decay.
struct AdamWOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;
};

namespace detail {
/// The options every Adam-like optimizer has, by PyTorch's names: lr, betas (as beta1, beta2), eps and
/// weight_decay; each kind adds its own.
template <typename Options>
Hyperparameters adam_like_defaults(const Options& o) {
  return {{"lr", o.lr}, {"beta1", o.betas.first}, {"beta2", o.betas.second}, {"eps", o.eps},
          {"weight_decay", o.weight_decay}};
}
/// Throws tl::Error, with PyTorch's words in its order (lr, eps, betas, weight_decay), for lr < 0,
/// eps < 0, a beta outside [0, 1) or weight_decay < 0 (NaN included).
void check_adam_like_options(const char* kind, const Hyperparameters& options);
/// torch.maximum(a, b) into `a`: the larger value, NaN when either is NaN (amsgrad's and Adamax's
/// running maxima; torch.amax propagates NaN the same way).
void maximum_(Tensor& a, const Tensor& b);
}  // namespace detail

/// torch.optim.Adam. State per parameter after its first update: "step" (a 0-dim float32 count, as
/// PyTorch 1.13's), "exp_avg", "exp_avg_sq", and "max_exp_avg_sq" with amsgrad. Throws tl::Error for an
/// empty parameter list, lr < 0, eps < 0, a beta outside [0, 1) or weight_decay < 0.
class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, const AdamOptions& options = {});
  /// Per-group options: each group's overrides of `defaults` (see ParamGroup).
  Adam(std::vector<ParamGroup> groups, const AdamOptions& defaults = {});
  Adam(std::initializer_list<ParamGroup> groups, const AdamOptions& defaults = {})
      : Adam(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  /// Both kinds' constructor: `defaults` holds every option.
  Adam(const char* kind, std::vector<ParamGroup> groups, Hyperparameters defaults);
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;
  /// True for AdamW: weight decay multiplies the parameter by (1 - lr * weight_decay) before the step.
  virtual bool decoupled_weight_decay() const { return false; }
};

/// torch.optim.AdamW: Adam with decoupled weight decay; same state and errors.
class AdamW : public Adam {
 public:
  AdamW(std::vector<Tensor> params, const AdamWOptions& options = {});
  AdamW(std::vector<ParamGroup> groups, const AdamWOptions& defaults = {});
  AdamW(std::initializer_list<ParamGroup> groups, const AdamWOptions& defaults = {})
      : AdamW(std::vector<ParamGroup>(groups), defaults) {}

 protected:
  bool decoupled_weight_decay() const override { return true; }
};

}  // namespace tl::optim
