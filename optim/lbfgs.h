// optim/lbfgs.h — L-BFGS (torch.optim.LBFGS): quasi-Newton steps from a limited history of gradient
// differences, each step() re-evaluating the model through a closure; one group over flattened params.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim {

/// LBFGS's hyper-parameters, PyTorch's names and defaults. In the group's Hyperparameters
/// line_search_fn is 0 (None) or 1 ("strong_wolfe"), and max_eval is always set.
struct LBFGSOptions {
  double lr = 1;
  int64_t max_iter = 20;
  std::optional<int64_t> max_eval;  // max_iter * 5 / 4 when not given
  double tolerance_grad = 1e-7;
  double tolerance_change = 1e-9;
  int64_t history_size = 100;
  std::optional<std::string> line_search_fn;  // none, or "strong_wolfe"
};

/// torch.optim.LBFGS. Its state lives on the first parameter, as PyTorch's: "func_evals" and "n_iter"
/// (0-dim int64 counts), and after the first iteration "d", "prev_flat_grad" (flat over all params),
/// "t", "H_diag", "prev_loss" (0-dim float64) and the history "old_dirs", "old_stps" (k x numel, PyTorch's
/// lists of k tensors stacked) and "ro" (k). Throws tl::Error for an empty parameter list, more than
/// one group ("LBFGS doesn't support per-parameter options (parameter groups)"), a line_search_fn other
/// than "strong_wolfe" and history_size < 1 (PyTorch fails in its step then).
class LBFGS : public Optimizer {
 public:
  /// Re-evaluates the model (zero_grad, forward, backward) and returns the loss, a one-element tensor.
  using Closure = std::function<Tensor()>;

  LBFGS(std::vector<Tensor> params, const LBFGSOptions& options = {});
  /// The constructor of every optimizer; LBFGS takes one group only.
  LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& defaults = {});
  LBFGS(std::initializer_list<ParamGroup> groups, const LBFGSOptions& defaults = {})
      : LBFGS(std::vector<ParamGroup>(groups), defaults) {}

  /// Up to max_iter iterations, each evaluating `closure` (grad mode on) once, or several times in the
  /// line search; returns the closure's first loss. Throws tl::Error, before changing anything, as
  /// Optimizer::step does, for a second group and an empty closure. A closure that throws, or returns a
  /// loss that is not a one-element tensor, at any evaluation leaves the parameters' values and the
  /// state as they were before the step (the step keeps a copy of the parameters to restore).
  Tensor step(const Closure& closure);

 protected:
  void check_options(const Hyperparameters& options) const override;
  std::vector<std::string> state_keys(const Hyperparameters& options) const override;
  std::vector<std::string> optional_state_keys() const override;
  std::optional<Shape> state_shape(const std::string& key, const Tensor& param) const override;
  /// Optimizer::step() without a closure: throws tl::Error (LBFGS needs one).
  void update(Tensor& param, const Tensor& grad, const Hyperparameters& options, ParamState& state) override;

 private:
  /// step()'s iterations: moves the params and installs the new state only at its end.
  Tensor iterate(const Closure& closure);
  /// The gradients of all params as one flat tensor, zeros for a param without one.
  Tensor gather_flat_grad() const;
  /// params += step_size * direction, `direction` flat over all params.
  void add_grad(double step_size, const Tensor& direction);
  /// The loss and flat gradient at params + t * d, leaving the params at `x`.
  std::pair<double, Tensor> directional_evaluate(const Closure& closure, const std::vector<Tensor>& x, double t,
                                                 const Tensor& d);
};

}  // namespace tl::optim
