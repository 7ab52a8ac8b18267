// optim/lr_scheduler_cyclic.cpp — CyclicLR, OneCycleLR and CosineAnnealingWarmRestarts: PyTorch 1.13's
// get_lr / step term for term; every argument is checked before a group is changed.
#include "optim/lr_scheduler_cyclic.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"

namespace tl::optim::lr_scheduler {

CyclicLR::CyclicLR(Optimizer& optimizer, CyclicLROptions options)
    : LRScheduler(optimizer, {{"gamma", options.gamma}, {"cycle_momentum", options.cycle_momentum ? 1.0 : 0.0}}),
      scale_fn_(std::move(options.scale_fn)) {
  const std::vector<double> base_lrs = options.base_lr.for_groups(optimizer, "CyclicLR", "base_lr");
  const std::vector<double> max_lrs = options.max_lr.for_groups(optimizer, "CyclicLR", "max_lr");
  const std::string& mode = options.mode;
  TL_CHECK(mode == "triangular" || mode == "triangular2" || mode == "exp_range" || scale_fn_, "CyclicLR: mode ",
           mode, " is invalid and scale_fn is None");
  std::vector<double> base_momentums, max_momentums;
  auto& groups = optimizer.param_groups();
  if (options.cycle_momentum) {
    TL_CHECK(groups.at(0).options.count("momentum"),
             "CyclicLR: optimizer must support momentum with `cycle_momentum` option enabled (", optimizer.kind(),
             " has none)");
    base_momentums = options.base_momentum.for_groups(optimizer, "CyclicLR", "base_momentum");
    max_momentums = options.max_momentum.for_groups(optimizer, "CyclicLR", "max_momentum");
  }
  const int64_t up_steps = options.step_size_up, down_steps = options.step_size_down.value_or(up_steps);
  // PyTorch divides by the cycle's length and, at the first step, by the increasing half's share of it.
  int64_t cycle = 0;
  TL_CHECK(__builtin_add_overflow(up_steps, down_steps, &cycle) || cycle != 0, "CyclicLR: step_size_up=", up_steps, " and step_size_down=", down_steps,
           " make a cycle of 0 iterations (float division by zero)");
  TL_CHECK(up_steps != 0, "CyclicLR: step_size_up=0 makes an empty increasing half-cycle (float division by zero)");
  const double up = static_cast<double>(up_steps), down = static_cast<double>(down_steps);
  options_["total_size"] = up + down;
  options_["step_ratio"] = up / options_["total_size"];
  modes_ = {{"mode", mode},
            {"scale_mode", scale_fn_                  ? options.scale_mode
                           : mode == "exp_range" ? "iterations"
                                                 : "cycle"}};
  lists_["max_lrs"] = max_lrs;
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].options["lr"] = base_lrs[g];
    if (options.cycle_momentum) groups[g].options["momentum"] = base_momentums[g];
  }
  if (options.cycle_momentum) {
    lists_["base_momentums"] = base_momentums;
    lists_["max_momentums"] = max_momentums;
  }
  // PyTorch's first step reads the groups' initial_lr (an earlier scheduler's, when there was one) as
  // base lrs; base_lr replaces them after it.
  initial_step();
  base_lrs_ = base_lrs;
}

double CyclicLR::scale(double x) const {
  if (scale_fn_) return scale_fn_(x);
  const std::string& mode = modes_.at("mode");
  if (mode == "triangular") return 1.;
  if (mode == "triangular2") return 1 / std::pow(2., x - 1);
  return std::pow(options_.at("gamma"), x);
}

std::vector<double> CyclicLR::get_lr() {
  const double total_size = options_.at("total_size"), step_ratio = options_.at("step_ratio");
  const double cycle = std::floor(1 + last_epoch_ / total_size);
  const double x = 1. + last_epoch_ / total_size - cycle;
  const double scale_factor = x <= step_ratio ? x / step_ratio : (x - 1) / (step_ratio - 1);
  const double scale_of = scale(modes_.at("scale_mode") == "cycle" ? cycle : last_epoch_);
  const std::vector<double>& max_lrs = lists_.at("max_lrs");
  std::vector<double> lrs;
  for (size_t g = 0; g < std::min(base_lrs_.size(), max_lrs.size()); ++g)
    lrs.push_back(base_lrs_[g] + (max_lrs[g] - base_lrs_[g]) * scale_factor * scale_of);
  if (options_.at("cycle_momentum") != 0) {
    const std::vector<double>&base = lists_.at("base_momentums"), &max = lists_.at("max_momentums");
    auto& groups = optimizer_.param_groups();
    for (size_t g = 0; g < std::min(groups.size(), base.size()); ++g)
      groups[g].options["momentum"] = max[g] - (max[g] - base[g]) * scale_factor * scale_of;
  }
  return lrs;
}

namespace {
std::string or_none(const std::optional<int64_t>& value) { return value ? std::to_string(*value) : "None"; }
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, OneCycleLROptions o)
    : LRScheduler(optimizer, {{"pct_start", o.pct_start},
                              {"three_phase", o.three_phase ? 1.0 : 0.0},
                              {"cycle_momentum", o.cycle_momentum ? 1.0 : 0.0}}) {
  TL_CHECK(o.total_steps || o.epochs || o.steps_per_epoch,
           "OneCycleLR: You must define either total_steps OR (epochs AND steps_per_epoch)");
  int64_t total_steps = 0;
  if (o.total_steps) {
    TL_CHECK(*o.total_steps > 0, "OneCycleLR: Expected positive integer total_steps, but got ", *o.total_steps);
    total_steps = *o.total_steps;
  } else {
    TL_CHECK(o.epochs && *o.epochs > 0, "OneCycleLR: Expected positive integer epochs, but got ", or_none(o.epochs));
    TL_CHECK(o.steps_per_epoch && *o.steps_per_epoch > 0,
             "OneCycleLR: Expected positive integer steps_per_epoch, but got ", or_none(o.steps_per_epoch));
    TL_CHECK(!__builtin_mul_overflow(*o.epochs, *o.steps_per_epoch, &total_steps), "OneCycleLR: epochs=", *o.epochs,
             " times steps_per_epoch=", *o.steps_per_epoch, " is more total steps than int64 holds");
  }
  TL_CHECK(!(o.pct_start < 0 || o.pct_start > 1), "OneCycleLR: Expected float between 0 and 1 pct_start, but got ",
           o.pct_start);
  TL_CHECK(o.anneal_strategy == "cos" || o.anneal_strategy == "linear",
           "OneCycleLR: anneal_strategy must by one of 'cos' or 'linear', instead got ", o.anneal_strategy);
  const std::vector<double> max_lrs = o.max_lr.for_groups(optimizer, "OneCycleLR", "max_lr");
  auto& groups = optimizer.param_groups();
  const bool use_beta1 = groups.at(0).options.count("beta1") != 0;
  std::vector<double> max_momentums, base_momentums;
  if (o.cycle_momentum) {
    TL_CHECK(use_beta1 || groups[0].options.count("momentum"),
             "OneCycleLR: optimizer must support momentum with `cycle_momentum` option enabled (", optimizer.kind(),
             " has none)");
    max_momentums = o.max_momentum.for_groups(optimizer, "OneCycleLR", "max_momentum");
    base_momentums = o.base_momentum.for_groups(optimizer, "OneCycleLR", "base_momentum");
    options_["use_beta1"] = use_beta1 ? 1.0 : 0.0;
  }
  options_["total_steps"] = static_cast<double>(total_steps);
  modes_["anneal_strategy"] = o.anneal_strategy;
  // PyTorch keeps max_lr, min_lr and the momentums in the groups; here they are the scheduler's.
  lists_["max_lr"] = max_lrs;
  std::vector<double>& min_lrs = lists_["min_lr"];
  for (size_t g = 0; g < groups.size(); ++g) {
    groups[g].options["initial_lr"] = max_lrs[g] / o.div_factor;
    min_lrs.push_back(groups[g].options["initial_lr"] / o.final_div_factor);
    if (o.cycle_momentum) groups[g].options[use_beta1 ? "beta1" : "momentum"] = max_momentums[g];
  }
  if (o.cycle_momentum) {
    lists_["max_momentum"] = max_momentums;
    lists_["base_momentum"] = base_momentums;
  }
  initial_step();
}

void OneCycleLR::check_step(double step_num) const {
  const double total_steps = options_.at("total_steps");
  TL_CHECK(step_num <= total_steps, "OneCycleLR: Tried to step ", step_num + 1,
           " times. The specified number of total steps is ", total_steps);
}

void OneCycleLR::step() {
  check_step(last_epoch_ + 1);
  LRScheduler::step();
}

void OneCycleLR::step(double epoch) {
  check_step(epoch);
  LRScheduler::step(epoch);
}

std::vector<double> OneCycleLR::get_lr() {
  const double total_steps = options_.at("total_steps"), pct_start = options_.at("pct_start");
  // Each phase's last step and where its lr and momentum start and end: lrs are indices into
  // {initial_lr, max_lr, min_lr}, momentums into {max_momentum, base_momentum}.
  struct Phase {
    double end_step;
    int start_lr, end_lr, start_momentum, end_momentum;
  };
  std::vector<Phase> phases{{static_cast<double>(pct_start * total_steps) - 1, 0, 1, 0, 1}};
  if (options_.at("three_phase") != 0) {
    phases.push_back({static_cast<double>(2 * pct_start * total_steps) - 2, 1, 0, 1, 0});
    phases.push_back({total_steps - 1, 0, 2, 0, 0});
  } else {
    phases.push_back({total_steps - 1, 1, 2, 1, 0});
  }
  const bool cos = modes_.at("anneal_strategy") == "cos";
  auto anneal = [cos](double start, double end, double pct) {
    if (cos) return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1);
    return (end - start) * pct + start;
  };
  const bool cycle_momentum = options_.at("cycle_momentum") != 0;
  const std::vector<double>&max_lrs = lists_.at("max_lr"), &min_lrs = lists_.at("min_lr");
  auto& groups = optimizer_.param_groups();
  std::vector<double> lrs;
  for (size_t g = 0; g < std::min(groups.size(), max_lrs.size()); ++g) {
    const double lr_points[] = {option(groups[g].options, "initial_lr"), max_lrs[g], min_lrs[g]};
    double start_step = 0;
    for (size_t i = 0; i < phases.size(); ++i) {
      const Phase& phase = phases[i];
      if (last_epoch_ <= phase.end_step || i == phases.size() - 1) {
        const double pct = (last_epoch_ - start_step) / (phase.end_step - start_step);
        lrs.push_back(anneal(lr_points[phase.start_lr], lr_points[phase.end_lr], pct));
        if (cycle_momentum) {
          const double momentum_points[] = {lists_.at("max_momentum")[g], lists_.at("base_momentum")[g]};
          const double momentum =
              anneal(momentum_points[phase.start_momentum], momentum_points[phase.end_momentum], pct);
          groups[g].options[options_.at("use_beta1") != 0 ? "beta1" : "momentum"] = momentum;
        }
        break;
      }
      start_step = phase.end_step;
    }
  }
  return lrs;
}

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(optimizer, {{"T_0", static_cast<double>(T_0)},
                              {"T_mult", static_cast<double>(T_mult)},
                              {"eta_min", eta_min}}) {
  TL_CHECK(T_0 > 0, "CosineAnnealingWarmRestarts: Expected positive integer T_0, but got ", T_0);
  TL_CHECK(T_mult >= 1, "CosineAnnealingWarmRestarts: Expected integer T_mult >= 1, but got ", T_mult);
  counters_ = {{"T_i", static_cast<double>(T_0)}, {"T_cur", -1}};
  first_step_count_ = 0;  // its step() does not count, as PyTorch's
  initial_step();
}

void CosineAnnealingWarmRestarts::step() {
  if (last_epoch_ < 0) return step(0.0);
  double &T_cur = counters_.at("T_cur"), &T_i = counters_.at("T_i");
  T_cur = T_cur + 1;
  if (T_cur >= T_i) {
    T_cur = T_cur - T_i;
    T_i = T_i * options_.at("T_mult");
  }
  last_epoch_ = std::floor(last_epoch_ + 1);
  set_lrs(get_lr());
}

void CosineAnnealingWarmRestarts::step(double epoch) {
  TL_CHECK(epoch >= 0 && std::isfinite(epoch), "CosineAnnealingWarmRestarts: Expected non-negative epoch, but got ",
           epoch);
  const double T_0 = options_.at("T_0"), T_mult = options_.at("T_mult");
  double &T_cur = counters_.at("T_cur"), &T_i = counters_.at("T_i");
  if (epoch >= T_0) {
    if (T_mult == 1) {
      T_cur = std::fmod(epoch, T_0);
    } else {
      // math.log(x, base) is log(x) / log(base); int() truncates; T_mult ** n is an exact integer.
      const double n = std::trunc(std::log(epoch / T_0 * (T_mult - 1) + 1) / std::log(T_mult));
      const double T_mult_n = std::pow(T_mult, n);
      T_cur = epoch - T_0 * (T_mult_n - 1) / (T_mult - 1);
      T_i = T_0 * T_mult_n;
    }
  } else {
    T_i = T_0;
    T_cur = epoch;
  }
  last_epoch_ = std::floor(epoch);
  set_lrs(get_lr());
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  const double eta_min = options_.at("eta_min"), T_cur = counters_.at("T_cur"), T_i = counters_.at("T_i");
  std::vector<double> lrs;
  for (double base_lr : base_lrs_)
    lrs.push_back(eta_min + (base_lr - eta_min) * (1 + std::cos(std::numbers::pi * T_cur / T_i)) / 2);
  return lrs;
}

}  // namespace tl::optim::lr_scheduler
