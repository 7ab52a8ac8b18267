// optim/lr_scheduler.cpp — the schedulers' step, state dict and PyTorch 1.13's get_lr formulas.
#include "optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"

namespace tl::optim::lr_scheduler {

LRScheduler::LRScheduler(Optimizer& optimizer, Hyperparameters options)
    : optimizer_(optimizer), options_(std::move(options)) {}

void LRScheduler::initial_step() {
  for (ParamGroup& group : optimizer_.param_groups()) {
    group.options.emplace("initial_lr", option(group.options, "lr"));
    base_lrs_.push_back(group.options.at("initial_lr"));
  }
  step();
}

void LRScheduler::step() {
  ++step_count_;
  last_epoch_ += 1;
  const std::vector<double> lrs = get_lr();
  auto& groups = optimizer_.param_groups();
  std::vector<double> last_lr;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g < lrs.size()) groups[g].options["lr"] = lrs[g];
    last_lr.push_back(option(groups[g].options, "lr"));
  }
  last_lr_ = std::move(last_lr);
}

SchedulerStateDict LRScheduler::state_dict() const {
  return {kind(), last_epoch_, step_count_, base_lrs_, last_lr_, options_};
}

void LRScheduler::check_state_dict(const SchedulerStateDict& dict) const {
  TL_CHECK(dict.kind == kind(), kind(), ".load_state_dict: the state dict is of a ", dict.kind, " scheduler");
  const size_t groups = optimizer_.param_groups().size();
  TL_CHECK(dict.base_lrs.size() == base_lrs_.size() && dict.last_lr.size() == groups, kind(),
           ".load_state_dict: the state dict has ", dict.base_lrs.size(), " base lrs and ", dict.last_lr.size(),
           " last lrs for an optimizer with ", groups, " parameter groups",
           base_lrs_.size() == groups ? "" : detail::str_cat(" (", base_lrs_.size(), " when the scheduler was made)"));
  TL_CHECK(dict.options == options_, kind(),
           ".load_state_dict: the state dict's hyper-parameters differ from this scheduler's");
  TL_CHECK(std::isfinite(dict.last_epoch) && dict.last_epoch >= 0 && dict.step_count >= 1, kind(),
           ".load_state_dict: last_epoch ", dict.last_epoch, " and step count ", dict.step_count,
           " are not those of a constructed scheduler");
}

void LRScheduler::load_state_dict(SchedulerStateDict dict) {
  check_state_dict(dict);
  last_epoch_ = dict.last_epoch;
  step_count_ = dict.step_count;
  base_lrs_ = std::move(dict.base_lrs);
  last_lr_ = std::move(dict.last_lr);
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer, {{"step_size", static_cast<double>(step_size)}, {"gamma", gamma}}) {
  TL_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}

// Divisibility does not depend on the sign, so fmod decides as Python's % does (for a float last_epoch too).
std::vector<double> StepLR::get_lr() const {
  const double step_size = options_.at("step_size"), gamma = options_.at("gamma");
  std::vector<double> lrs;
  for (const ParamGroup& group : optimizer_.param_groups()) {
    const double lr = option(group.options, "lr");
    lrs.push_back(last_epoch_ == 0 || std::fmod(last_epoch_, step_size) != 0 ? lr : lr * gamma);
  }
  return lrs;
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer, {{"T_max", static_cast<double>(T_max)}, {"eta_min", eta_min}}) {
  TL_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() const {
  const double T_max = options_.at("T_max"), eta_min = options_.at("eta_min");
  const double pi = std::numbers::pi;
  const auto& groups = optimizer_.param_groups();
  // The branch that adds a base lr zips base_lrs with the groups: a group added later keeps its lr.
  const bool from_base = last_epoch_ != 0 && std::fmod(last_epoch_ - 1 - T_max, 2 * T_max) == 0;
  const size_t count = from_base ? std::min(groups.size(), base_lrs_.size()) : groups.size();
  std::vector<double> lrs;
  for (size_t g = 0; g < count; ++g) {
    const double lr = option(groups[g].options, "lr");
    if (last_epoch_ == 0)
      lrs.push_back(lr);
    else if (from_base)
      lrs.push_back(lr + (base_lrs_[g] - eta_min) * (1 - std::cos(pi / T_max)) / 2);
    else
      lrs.push_back((1 + std::cos(pi * last_epoch_ / T_max)) / (1 + std::cos(pi * (last_epoch_ - 1) / T_max)) *
                        (lr - eta_min) +
                    eta_min);
  }
  return lrs;
}

}  // namespace tl::optim::lr_scheduler
