// optim/lr_scheduler_chain.h — schedulers made of schedulers: SequentialLR (one after another, switching at
// milestones) and ChainedScheduler (all of them every step), as PyTorch 1.13's.
#pragma once

#include <vector>

#include "optim/lr_scheduler.h"

namespace tl::optim::lr_scheduler {

/// What SequentialLR and ChainedScheduler share: schedulers they step (which must outlive them and whose
/// state dicts are saved inside theirs), and no step(epoch).
class ComposedScheduler : public LRScheduler {
 public:
  /// Throws tl::Error: PyTorch's SequentialLR.step() and ChainedScheduler.step() take no epoch.
  void step(double epoch) override;
  using LRScheduler::step;

 protected:
  /// Throws tl::Error for no scheduler or a null one.
  ComposedScheduler(std::vector<LRScheduler*> schedulers, const char* kind);
  /// The groups' lrs as the schedulers left them: a composite has no formula of its own.
  std::vector<double> get_lr() override { return scaled_lrs(1); }

  std::vector<LRScheduler*> schedulers_;
};

/// Steps schedulers[i] between milestones[i - 1] and milestones[i], restarting each at its milestone with
/// step(0) (its closed form at epoch 0, where it has one). Construction resets every group's lr to its
/// initial_lr, takes back the first step each scheduler took, and restarts the first. Throws tl::Error,
/// changing nothing, for no or a null scheduler or one of another optimizer, milestones not one fewer
/// than the schedulers, or a group without initial_lr (added after the schedulers were made).
class SequentialLR : public ComposedScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers, std::vector<int64_t> milestones);
  const char* kind() const override { return "SequentialLR"; }
  void step() override;
  using ComposedScheduler::step;
};

/// Steps every scheduler in order on each step(); get_last_lr() is the groups' lrs after the last. It
/// takes no step at construction and has no epoch of its own (last_epoch stays 0). Throws tl::Error for
/// no scheduler, a null one, or schedulers of different optimizers.
class ChainedScheduler : public ComposedScheduler {
 public:
  explicit ChainedScheduler(std::vector<LRScheduler*> schedulers);
  const char* kind() const override { return "ChainedScheduler"; }
  void step() override;
  using ComposedScheduler::step;
};

}  // namespace tl::optim::lr_scheduler
