// optim/lr_scheduler.h — learning-rate schedulers (torch.optim.lr_scheduler): StepLR and
// CosineAnnealingLR with PyTorch 1.13's recursive (chainable) formulas, which read each group's current lr;
// base lrs are those of the groups the scheduler was made with, zipped with the groups as PyTorch zips them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim::lr_scheduler {

/// A scheduler's state_dict(): its kind ("StepLR", ...), its counters and learning rates, and its own
/// hyper-parameters by PyTorch's names (step_size, gamma; T_max, eta_min). last_epoch is a number, as
/// PyTorch's (a float one, which step(epoch) may leave there, is kept: the formulas take it as it is).
struct SchedulerStateDict {
  std::string kind;
  double last_epoch = 0;
  int64_t step_count = 0;
  std::vector<double> base_lrs;
  std::vector<double> last_lr;
  Hyperparameters options;
};

/// torch.optim.lr_scheduler._LRScheduler with last_epoch=-1: construction records each group's
/// "initial_lr" (when absent) as its base lr and takes the first step (last_epoch 0). A group added to the
/// optimizer later has no initial_lr and no base lr: formulas that read only the current lr schedule it,
/// one that needs a base lr leaves its lr as it is (PyTorch zips base_lrs with the groups). The
/// scheduler refers to the optimizer, which must outlive it.
class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  virtual const char* kind() const = 0;
  /// Advances last_epoch by one and writes the new lr into every group get_lr() computed one for.
  void step();
  /// The lr of each group after the last step().
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  double last_epoch() const { return last_epoch_; }

  SchedulerStateDict state_dict() const;
  /// Restores counters and lrs (the optimizer's groups are not touched: their lr comes with the
  /// optimizer's state dict). Throws tl::Error, changing nothing, for another kind, another number of
  /// base lrs (or of last lrs than the optimizer has groups), different hyper-parameters, or a
  /// last_epoch that is negative or not finite.
  /// Past check_state_dict(dict) nothing in it can fail: `dict` is moved in.
  void load_state_dict(SchedulerStateDict dict);
  /// The checks of load_state_dict alone (load_checkpoint makes every check before it changes anything).
  void check_state_dict(const SchedulerStateDict& dict) const;

 protected:
  LRScheduler(Optimizer& optimizer, Hyperparameters options);
  /// Called by the derived constructor once its members are set (PyTorch's _initial_step).
  void initial_step();
  /// The lr for last_epoch_ of each group, or of the first base_lrs_.size() groups for a formula that
  /// reads the base lr (PyTorch's get_lr()).
  virtual std::vector<double> get_lr() const = 0;

  Optimizer& optimizer_;
  Hyperparameters options_;
  double last_epoch_ = -1;
  int64_t step_count_ = 0;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
};

/// Multiplies each group's lr by gamma every step_size steps. Throws tl::Error unless step_size > 0.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
  const char* kind() const override { return "StepLR"; }

 protected:
  std::vector<double> get_lr() const override;
};

/// Cosine annealing from each base lr to eta_min over T_max steps (and back up, periodically), computed
/// recursively from the current lr as PyTorch's. Throws tl::Error unless T_max > 0.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);
  const char* kind() const override { return "CosineAnnealingLR"; }

 protected:
  std::vector<double> get_lr() const override;
};

}  // namespace tl::optim::lr_scheduler
