// optim/lr_scheduler_plateau.cpp — ReduceLROnPlateau's step as PyTorch 1.13's, its counters computed before
// anything is written so that a refused step changes nothing.
#include "optim/lr_scheduler_plateau.h"

#include <cmath>

#include "core/error.h"

namespace tl::optim::lr_scheduler {

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions o)
    : Scheduler(optimizer, {{"factor", o.factor},
                            {"patience", static_cast<double>(o.patience)},
                            {"threshold", o.threshold},
                            {"cooldown", static_cast<double>(o.cooldown)},
                            {"eps", o.eps}}) {
  TL_CHECK(o.factor < 1.0, "ReduceLROnPlateau: Factor should be < 1.0, got ", o.factor);
  const size_t groups = optimizer.param_groups().size();
  TL_CHECK(o.min_lr.one_for_all || o.min_lr.values.size() == groups, "ReduceLROnPlateau: expected ", groups,
           " min_lrs, got ", o.min_lr.values.size());
  TL_CHECK(o.mode == "min" || o.mode == "max", "ReduceLROnPlateau: mode ", o.mode, " is unknown!");
  TL_CHECK(o.threshold_mode == "rel" || o.threshold_mode == "abs", "ReduceLROnPlateau: threshold mode ",
           o.threshold_mode, " is unknown!");
  lists_["min_lrs"] = o.min_lr.for_groups(optimizer, kind(), "min_lr");
  modes_ = {{"mode", o.mode}, {"threshold_mode", o.threshold_mode}};
  counters_ = {{"best", o.mode == "min" ? INFINITY : -INFINITY}, {"num_bad_epochs", 0}, {"cooldown_counter", 0}};
  last_epoch_ = 0;
  first_step_count_ = 0;
  for (const ParamGroup& group : optimizer.param_groups()) last_lr_.push_back(option(group.options, "lr"));
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  const double threshold = options_.at("threshold");
  const bool rel = modes_.at("threshold_mode") == "rel";
  if (modes_.at("mode") == "min") return rel ? a < best * (1. - threshold) : a < best - threshold;
  return rel ? a > best * (threshold + 1.) : a > best + threshold;
}

void ReduceLROnPlateau::step(double metrics) {
  const auto& all = optimizer_.param_groups();
  for (size_t g = 0; g < all.size(); ++g) check_group_option(all[g], g, "lr", kind());
  double best = counters_.at("best"), num_bad_epochs = counters_.at("num_bad_epochs");
  double cooldown_counter = counters_.at("cooldown_counter");
  if (is_better(metrics, best)) {
    best = metrics;
    num_bad_epochs = 0;
  } else {
    num_bad_epochs += 1;
  }
  if (cooldown_counter > 0) {
    cooldown_counter -= 1;
    num_bad_epochs = 0;  // bad epochs in cooldown are ignored
  }
  auto& groups = optimizer_.param_groups();
  const std::vector<double>& min_lrs = lists_.at("min_lrs");
  const bool reduce = num_bad_epochs > options_.at("patience");
  TL_CHECK(!reduce || groups.size() <= min_lrs.size(), "ReduceLROnPlateau: cannot reduce the lr of param group ",
           min_lrs.size(), ", added after the scheduler was made: it has no min_lr");
  if (reduce) {
    for (size_t g = 0; g < groups.size(); ++g) {
      const double old_lr = option(groups[g].options, "lr");
      const double scaled = old_lr * options_.at("factor");
      const double new_lr = min_lrs[g] > scaled ? min_lrs[g] : scaled;  // Python's max(scaled, min_lr)
      if (old_lr - new_lr > options_.at("eps")) groups[g].options["lr"] = new_lr;
    }
    cooldown_counter = options_.at("cooldown");
    num_bad_epochs = 0;
  }
  counters_ = {{"best", best}, {"num_bad_epochs", num_bad_epochs}, {"cooldown_counter", cooldown_counter}};
  last_epoch_ += 1;
  ++step_count_;
  last_lr_.clear();
  for (const ParamGroup& group : groups) last_lr_.push_back(option(group.options, "lr"));
}

}  // namespace tl::optim::lr_scheduler
