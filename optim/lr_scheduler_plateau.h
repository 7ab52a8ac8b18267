// optim/lr_scheduler_plateau.h — ReduceLROnPlateau (torch.optim.lr_scheduler.ReduceLROnPlateau): lowers the
// lrs when a metric passed to step(metrics) stops improving. Not an LRScheduler in PyTorch 1.13 either.
#pragma once

#include <string>

#include "optim/lr_scheduler.h"

namespace tl::optim::lr_scheduler {

/// torch.optim.lr_scheduler.ReduceLROnPlateau's arguments after the optimizer, with its defaults.
struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // or "max"
  double factor = 0.1;
  int64_t patience = 10;
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // or "abs"
  int64_t cooldown = 0;
  PerGroup min_lr = 0.0;
  double eps = 1e-8;
};

/// After more than `patience` steps without an improvement of the metric (by `threshold`, relative or
/// absolute), multiplies each group's lr by factor, not below its min_lr (and not by less than eps), then
/// waits `cooldown` steps. It takes no step at construction (last_epoch 0, get_last_lr() the groups' lrs).
/// Throws tl::Error for factor >= 1, an unknown mode or threshold_mode, or a min_lr list of the wrong length.
class ReduceLROnPlateau : public Scheduler {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  const char* kind() const override { return "ReduceLROnPlateau"; }
  /// One epoch's metric. Throws tl::Error, changing nothing, when it would reduce the lr of a group added
  /// after construction (it has no min_lr).
  void step(double metrics);

 private:
  bool is_better(double a, double best) const;
};

}  // namespace tl::optim::lr_scheduler
