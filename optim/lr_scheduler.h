// optim/lr_scheduler.h — learning-rate schedulers (torch.optim.lr_scheduler) with PyTorch 1.13's recursive
// (chainable) get_lr formulas, which read each group's current lr; base lrs are those of the groups the
// scheduler was made with, zipped with the groups as PyTorch zips them. The others: lr_scheduler_lambda.h,
// _cyclic.h (CyclicLR, OneCycleLR, CosineAnnealingWarmRestarts), _plateau.h and _chain.h (SequentialLR, ...).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "optim/optimizer.h"

namespace tl::optim::lr_scheduler {

/// A scheduler's state_dict(): its kind ("StepLR", ...), its counters and learning rates, and its own
/// hyper-parameters by PyTorch's names (step_size, gamma; T_max, eta_min). last_epoch is a number, as
/// PyTorch's (a float one, which step(epoch) may leave there, is kept: the formulas take it as it is).
/// A function (LambdaLR's lr_lambda, CyclicLR's scale_fn) is not saved, as PyTorch does not save a function.
struct SchedulerStateDict {
  std::string kind;
  double last_epoch = 0;
  int64_t step_count = 0;
  std::vector<double> base_lrs;
  std::vector<double> last_lr;
  Hyperparameters options;
  /// Hyper-parameters that are lists (MultiStepLR's milestones, OneCycleLR's max_lr, ...) or names
  /// (ReduceLROnPlateau's mode, ...); checked against the scheduler's like `options`.
  std::map<std::string, std::vector<double>> lists;
  std::map<std::string, std::string> modes;
  /// What step() changes besides last_epoch and the lrs (CosineAnnealingWarmRestarts' T_cur and T_i,
  /// ReduceLROnPlateau's best, num_bad_epochs and cooldown_counter).
  Hyperparameters counters;
  /// SequentialLR's and ChainedScheduler's schedulers' state dicts, in their order.
  std::vector<SchedulerStateDict> schedulers;
};

/// A hyper-parameter given as one number for every group or as a list of one per group, as PyTorch's
/// max_lr=0.1 and max_lr=[0.1, 0.2].
struct PerGroup {
  PerGroup(double value) : values{value}, one_for_all(true) {}  // NOLINT: converts as PyTorch's float
  PerGroup(std::vector<double> list) : values(std::move(list)) {}  // NOLINT
  PerGroup(std::initializer_list<double> list) : values(list) {}
  /// One value for each group of `optimizer`. Throws tl::Error ("<kind>: expected 2 values for max_lr,
  /// got 3", PyTorch's words) for a list of another length.
  std::vector<double> for_groups(const Optimizer& optimizer, const char* kind, const char* name) const;

  std::vector<double> values;
  bool one_for_all = false;
};

/// What every scheduler has (ReduceLROnPlateau too): a kind, the lrs of its last step and a state dict,
/// which is what a checkpoint saves. The scheduler refers to the optimizer, which must outlive it.
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  virtual const char* kind() const = 0;
  /// The lr of each group after the last step().
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  double last_epoch() const { return last_epoch_; }
  /// The optimizer whose groups' lrs it sets (PyTorch's scheduler.optimizer).
  Optimizer& optimizer() const { return optimizer_; }

  SchedulerStateDict state_dict() const;
  /// Restores counters and lrs (the optimizer's groups are not touched: their lr comes with the
  /// optimizer's state dict). Throws tl::Error, changing nothing, for another kind, another number of
  /// base lrs (or of last lrs than the optimizer has groups), different hyper-parameters, other counters
  /// or schedulers, or a last_epoch that is negative or not finite.
  /// Past check_state_dict(dict) nothing in it can fail: `dict` is moved in.
  void load_state_dict(SchedulerStateDict dict);
  /// The checks of load_state_dict alone (load_checkpoint makes every check before it changes anything).
  void check_state_dict(const SchedulerStateDict& dict) const;

 protected:
  Scheduler(Optimizer& optimizer, Hyperparameters options) : optimizer_(optimizer), options_(std::move(options)) {}
  /// load_state_dict past its checks.
  void install(SchedulerStateDict dict) noexcept;
  /// check_state_dict with the least last_epoch the scheduler can have.
  void check_state_dict(const SchedulerStateDict& dict, double min_last_epoch) const;

  Optimizer& optimizer_;
  Hyperparameters options_;
  std::map<std::string, std::vector<double>> lists_;
  std::map<std::string, std::string> modes_;
  Hyperparameters counters_;
  /// The schedulers this one steps (SequentialLR's, ChainedScheduler's), saved inside its state dict.
  std::vector<Scheduler*> children_;
  double last_epoch_ = -1;
  int64_t step_count_ = 0;
  int64_t first_step_count_ = 1;  // step_count after construction (ReduceLROnPlateau's and the composites': 0)
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
};

/// torch.optim.lr_scheduler._LRScheduler with last_epoch=-1: construction records each group's
/// "initial_lr" (when absent) as its base lr and takes the first step (last_epoch 0). A group added to the
/// optimizer later has no initial_lr and no base lr: formulas that read only the current lr schedule it,
/// one that needs a base lr leaves its lr as it is (PyTorch zips base_lrs with the groups).
class LRScheduler : public Scheduler {
 public:
  /// Advances last_epoch by one and writes the new lr into every group get_lr() computed one for. Throws
  /// tl::Error, changing nothing, when a group's "lr" was erased from its options.
  virtual void step();
  /// PyTorch's deprecated step(epoch) (it warns): last_epoch = epoch and the closed-form lr where the
  /// class has one (StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR, PolynomialLR,
  /// CosineAnnealingLR), else get_lr(). SequentialLR restarts a scheduler with step(0).
  virtual void step(double epoch);

 protected:
  LRScheduler(Optimizer& optimizer, Hyperparameters options) : Scheduler(optimizer, std::move(options)) {}
  /// Called by the derived constructor once its members are set (PyTorch's _initial_step).
  void initial_step();
  /// Throws tl::Error naming the group when one has no "lr" (erased from its options): step()'s first check.
  void check_lrs() const;
  /// Writes `lrs` into the first lrs.size() groups and records every group's lr as the last lr.
  void set_lrs(const std::vector<double>& lrs);
  /// The lr for last_epoch_ of each group, or of the first base_lrs_.size() groups for a formula that
  /// reads the base lr (PyTorch's get_lr(); CyclicLR's and OneCycleLR's also set the momentum).
  virtual std::vector<double> get_lr() = 0;
  /// PyTorch's _get_closed_form_lr where the class has one; get_lr() otherwise.
  virtual std::vector<double> get_closed_form_lr() { return get_lr(); }
  /// A helper for the formulas that scale each group's current lr by one factor.
  std::vector<double> scaled_lrs(double factor) const;

  friend class SequentialLR;
};

/// Multiplies each group's lr by gamma every step_size steps. Throws tl::Error unless step_size > 0.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);
  const char* kind() const override { return "StepLR"; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> get_closed_form_lr() override;
};

/// Multiplies each group's lr by gamma at each milestone (by gamma^k for a milestone listed k times, as
/// PyTorch's Counter); milestones need not be sorted.
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);
  const char* kind() const override { return "MultiStepLR"; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> get_closed_form_lr() override;
};

/// Multiplies each group's lr by factor until total_iters steps, then restores it. Throws tl::Error
/// unless 0 <= factor <= 1.
class ConstantLR : public LRScheduler {
 public:
  explicit ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);
  const char* kind() const override { return "ConstantLR"; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> get_closed_form_lr() override;
};

/// Scales each group's lr linearly from start_factor to end_factor times its base lr over total_iters
/// steps. Throws tl::Error unless both factors are in [0, 1].
class LinearLR : public LRScheduler {
 public:
  explicit LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0,
                    int64_t total_iters = 5);
  const char* kind() const override { return "LinearLR"; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> get_closed_form_lr() override;
};

/// Multiplies each group's lr by gamma every step.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);
  const char* kind() const override { return "ExponentialLR"; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> get_closed_form_lr() override;
};

/// Decays each group's lr as base_lr * (1 - t / total_iters)^power over total_iters steps.
class PolynomialLR : public LRScheduler {
 public:
  explicit PolynomialLR(Optimizer& optimizer, int64_t total_iters = 5, double power = 1.0);
  const char* kind() const override { return "PolynomialLR"; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> get_closed_form_lr() override;
};

/// Cosine annealing from each base lr to eta_min over T_max steps (and back up, periodically), computed
/// recursively from the current lr as PyTorch's. Throws tl::Error unless T_max > 0.
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);
  const char* kind() const override { return "CosineAnnealingLR"; }

 protected:
  std::vector<double> get_lr() override;
  std::vector<double> get_closed_form_lr() override;
};

}  // namespace tl::optim::lr_scheduler
