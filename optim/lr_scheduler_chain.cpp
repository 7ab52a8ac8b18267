// optim/lr_scheduler_chain.cpp — SequentialLR and ChainedScheduler: PyTorch 1.13's bookkeeping of their
// schedulers' epochs, every argument checked before a group or scheduler is changed.
#include "optim/lr_scheduler_chain.h"

#include <algorithm>

#include "core/error.h"

namespace tl::optim::lr_scheduler {
namespace {

// The optimizer of schedulers[0], once none is null.
Optimizer& first_optimizer(const std::vector<LRScheduler*>& schedulers, const char* kind) {
  TL_CHECK(!schedulers.empty(), kind, ": expected at least one scheduler, got none");
  for (size_t i = 0; i < schedulers.size(); ++i)
    TL_CHECK(schedulers[i] != nullptr, kind, ": scheduler ", i, " is null");
  return schedulers[0]->optimizer();
}

}  // namespace

ComposedScheduler::ComposedScheduler(std::vector<LRScheduler*> schedulers, const char* kind)
    : LRScheduler(first_optimizer(schedulers, kind), {}), schedulers_(std::move(schedulers)) {
  children_.assign(schedulers_.begin(), schedulers_.end());
  last_epoch_ = 0;
  first_step_count_ = 0;
}

void ComposedScheduler::step(double epoch) { TL_CHECK(false, kind(), ".step: takes no epoch, got ", epoch); }

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<LRScheduler*> schedulers,
                           std::vector<int64_t> milestones)
    : ComposedScheduler(std::move(schedulers), "SequentialLR") {
  for (size_t i = 0; i < schedulers_.size(); ++i)
    TL_CHECK(&schedulers_[i]->optimizer() == &optimizer,
             "SequentialLR: Sequential Schedulers expects all schedulers to belong to the same optimizer, but got "
             "schedulers at index ",
             i, " to be different than the optimizer passed in.");
  TL_CHECK(milestones.size() + 1 == schedulers_.size(),
           "SequentialLR: Sequential Schedulers expects number of schedulers provided to be one more than the number "
           "of milestone points, but got number of schedulers ",
           schedulers_.size(), " and the number of milestones to be equal to ", milestones.size());
  auto& groups = optimizer.param_groups();
  for (size_t g = 0; g < groups.size(); ++g)
    TL_CHECK(groups[g].options.count("initial_lr"), "SequentialLR: param_groups[", g,
             "] has no 'initial_lr' (it was added after the schedulers were made)");
  for (int64_t m : milestones) lists_["milestones"].push_back(static_cast<double>(m));
  for (ParamGroup& group : groups) group.options["lr"] = group.options.at("initial_lr");
  for (LRScheduler* s : schedulers_) s->last_epoch_ -= 1;
  // PyTorch's _initial_step of the first scheduler: its step count starts again.
  schedulers_[0]->step_count_ = 0;
  schedulers_[0]->step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step() {
  last_epoch_ += 1;
  ++step_count_;
  const std::vector<double>& milestones = lists_.at("milestones");
  const size_t idx = std::upper_bound(milestones.begin(), milestones.end(), last_epoch_) - milestones.begin();
  LRScheduler* scheduler = schedulers_[idx];
  if (idx > 0 && milestones[idx - 1] == last_epoch_)
    scheduler->step(0.0);
  else
    scheduler->step();
  last_lr_ = scheduler->get_last_lr();
}

ChainedScheduler::ChainedScheduler(std::vector<LRScheduler*> schedulers)
    : ComposedScheduler(std::move(schedulers), "ChainedScheduler") {
  for (size_t i = 1; i < schedulers_.size(); ++i)
    TL_CHECK(&schedulers_[i]->optimizer() == &optimizer_,
             "ChainedScheduler: ChainedScheduler expects all schedulers to belong to the same optimizer, but got "
             "schedulers at index 0 and ",
             i, " to be different");
  set_lrs(get_lr());
}

void ChainedScheduler::step() {
  for (LRScheduler* s : schedulers_) s->step();
  ++step_count_;
  set_lrs(get_lr());
}

}  // namespace tl::optim::lr_scheduler
