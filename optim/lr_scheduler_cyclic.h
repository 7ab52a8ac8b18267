// optim/lr_scheduler_cyclic.h — the schedulers that cycle the lr (and SGD's momentum or Adam's beta1):
// CyclicLR, OneCycleLR and CosineAnnealingWarmRestarts, with PyTorch 1.13's formulas and options.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "optim/lr_scheduler.h"

namespace tl::optim::lr_scheduler {

/// torch.optim.lr_scheduler.CyclicLR's arguments after the optimizer, with its defaults.
struct CyclicLROptions {
  PerGroup base_lr;
  PerGroup max_lr;
  int64_t step_size_up = 2000;
  std::optional<int64_t> step_size_down;  // step_size_up when not given
  std::string mode = "triangular";        // "triangular", "triangular2" or "exp_range"
  double gamma = 1.0;
  std::function<double(double)> scale_fn;  // when given, mode is ignored
  std::string scale_mode = "cycle";       // with scale_fn: "cycle" or "iterations"
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.8;
  PerGroup max_momentum = 0.9;
};

/// Cycles each group's lr between base_lr and max_lr (and, with cycle_momentum, its momentum inversely
/// between max_momentum and base_momentum). Construction sets every group's lr to its base_lr (and
/// momentum to base_momentum). Throws tl::Error, changing nothing, for a cycle PyTorch divides by zero for
/// (step_size_up 0, or step_size_up + step_size_down 0), a list of the wrong length, an
/// unknown mode without scale_fn, or cycle_momentum with an optimizer without momentum (Adam, in 1.13).
class CyclicLR : public LRScheduler {
 public:
  CyclicLR(Optimizer& optimizer, CyclicLROptions options);
  const char* kind() const override { return "CyclicLR"; }

 protected:
  std::vector<double> get_lr() override;

 private:
  double scale(double x) const;
  std::function<double(double)> scale_fn_;
};

/// torch.optim.lr_scheduler.OneCycleLR's arguments after the optimizer, with its defaults. total_steps,
/// or else epochs * steps_per_epoch, is the length of the cycle.
struct OneCycleLROptions {
  PerGroup max_lr;
  std::optional<int64_t> total_steps;
  std::optional<int64_t> epochs;
  std::optional<int64_t> steps_per_epoch;
  double pct_start = 0.3;
  std::string anneal_strategy = "cos";  // or "linear"
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.85;
  PerGroup max_momentum = 0.95;
  double div_factor = 25.;
  double final_div_factor = 1e4;
  bool three_phase = false;
};

/// The 1cycle policy: each group's lr rises from max_lr / div_factor (its "initial_lr") to max_lr over
/// pct_start of total_steps, then falls to initial_lr / final_div_factor (three_phase: back to
/// initial_lr first); the momentum (SGD's momentum, Adam's beta1) moves inversely between max_momentum
/// and base_momentum. Throws tl::Error, changing nothing, for the invalid arguments PyTorch refuses or an
/// epochs * steps_per_epoch past int64, and from step() past total_steps ("Tried to step 12 times. The specified number of total steps is 10").
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, OneCycleLROptions options);
  const char* kind() const override { return "OneCycleLR"; }
  void step() override;
  void step(double epoch) override;

 protected:
  std::vector<double> get_lr() override;

 private:
  void check_step(double step_num) const;
};

/// Cosine annealing from each base lr to eta_min over T_i steps, restarting at the base lr with T_i
/// multiplied by T_mult (SGDR). Throws tl::Error unless T_0 > 0 and T_mult >= 1.
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0);
  const char* kind() const override { return "CosineAnnealingWarmRestarts"; }
  void step() override;
  /// Sets the schedule to `epoch`, which may be fractional (epoch + batch / batches_per_epoch), as
  /// PyTorch's step(epoch) (which does not warn here). Throws tl::Error, changing nothing, for epoch < 0.
  void step(double epoch) override;

 protected:
  std::vector<double> get_lr() override;
};

}  // namespace tl::optim::lr_scheduler
