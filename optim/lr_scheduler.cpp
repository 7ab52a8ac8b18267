// optim/lr_scheduler.cpp — the schedulers' step, state dict and PyTorch 1.13's get_lr formulas (recursive,
// reading each group's current lr) and closed forms (step(epoch)), term for term as PyTorch writes them.
#include "optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/error.h"

namespace tl::optim::lr_scheduler {

std::vector<double> PerGroup::for_groups(const Optimizer& optimizer, const char* kind, const char* name) const {
  const size_t groups = optimizer.param_groups().size();
  if (one_for_all) return std::vector<double>(groups, values.at(0));
  TL_CHECK(values.size() == groups, kind, ": expected ", groups, " values for ", name, ", got ", values.size());
  return values;
}

SchedulerStateDict Scheduler::state_dict() const {
  SchedulerStateDict dict{kind(), last_epoch_, step_count_, base_lrs_, last_lr_, options_, lists_, modes_, counters_, {}};
  for (const Scheduler* child : children_) dict.schedulers.push_back(child->state_dict());
  return dict;
}

namespace {
// "[T_cur, T_i]": the names of `map`, for a message and for comparing two maps' names.
std::string keys(const Hyperparameters& map) {
  std::string out;
  for (const auto& [key, value] : map) out += (out.empty() ? "" : ", ") + key;
  return "[" + out + "]";
}
}  // namespace

void Scheduler::check_state_dict(const SchedulerStateDict& dict) const { check_state_dict(dict, 0); }

void Scheduler::check_state_dict(const SchedulerStateDict& dict, double min_last_epoch) const {
  TL_CHECK(dict.kind == kind(), kind(), ".load_state_dict: the state dict is of a ", dict.kind, " scheduler");
  const size_t groups = optimizer_.param_groups().size();
  TL_CHECK(dict.base_lrs.size() == base_lrs_.size() && dict.last_lr.size() == groups, kind(),
           ".load_state_dict: the state dict has ", dict.base_lrs.size(), " base lrs and ", dict.last_lr.size(),
           " last lrs for an optimizer with ", groups, " parameter groups",
           base_lrs_.size() == groups ? "" : detail::str_cat(" (", base_lrs_.size(), " when the scheduler was made)"));
  TL_CHECK(dict.options == options_ && dict.lists == lists_ && dict.modes == modes_, kind(),
           ".load_state_dict: the state dict's hyper-parameters differ from this scheduler's");
  TL_CHECK(keys(dict.counters) == keys(counters_), kind(), ".load_state_dict: the state dict's counters ",
           keys(dict.counters), " are not this scheduler's ", keys(counters_));
  TL_CHECK(std::isfinite(dict.last_epoch) && dict.last_epoch >= min_last_epoch && dict.step_count >= first_step_count_,
           kind(),
           ".load_state_dict: last_epoch ", dict.last_epoch, " and step count ", dict.step_count,
           " are not those of a constructed scheduler");
  TL_CHECK(dict.schedulers.size() == children_.size(), kind(), ".load_state_dict: the state dict has ",
           dict.schedulers.size(), " schedulers, this scheduler ", children_.size());
  // SequentialLR takes back the first step of the schedulers it holds: theirs may be at -1.
  for (size_t i = 0; i < children_.size(); ++i) children_[i]->check_state_dict(dict.schedulers[i], -1);
}

void Scheduler::load_state_dict(SchedulerStateDict dict) {
  check_state_dict(dict);
  install(std::move(dict));
}

void Scheduler::install(SchedulerStateDict dict) noexcept {
  last_epoch_ = dict.last_epoch;
  step_count_ = dict.step_count;
  base_lrs_ = std::move(dict.base_lrs);
  last_lr_ = std::move(dict.last_lr);
  counters_ = std::move(dict.counters);
  for (size_t i = 0; i < children_.size(); ++i) children_[i]->install(std::move(dict.schedulers[i]));
}

void LRScheduler::initial_step() {
  for (ParamGroup& group : optimizer_.param_groups()) {
    group.options.emplace("initial_lr", option(group.options, "lr"));
    base_lrs_.push_back(group.options.at("initial_lr"));
  }
  step();
}

void LRScheduler::set_lrs(const std::vector<double>& lrs) {
  auto& groups = optimizer_.param_groups();
  std::vector<double> last_lr;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g < lrs.size()) groups[g].options["lr"] = lrs[g];
    last_lr.push_back(option(groups[g].options, "lr"));
  }
  last_lr_ = std::move(last_lr);
}

void LRScheduler::check_lrs() const {
  const auto& groups = optimizer_.param_groups();
  for (size_t g = 0; g < groups.size(); ++g) check_group_option(groups[g], g, "lr", kind());
}

void LRScheduler::step() {
  check_lrs();
  ++step_count_;
  last_epoch_ += 1;
  set_lrs(get_lr());
}

void LRScheduler::step(double epoch) {
  check_lrs();
  ++step_count_;
  last_epoch_ = epoch;
  set_lrs(get_closed_form_lr());
}

std::vector<double> LRScheduler::scaled_lrs(double factor) const {
  std::vector<double> lrs;
  for (const ParamGroup& group : optimizer_.param_groups()) lrs.push_back(option(group.options, "lr") * factor);
  return lrs;
}

// Python's float ** int is C's pow of the int converted to a double: std::pow below.
namespace {
// The closed forms' [base_lr * factor for base_lr in self.base_lrs].
std::vector<double> times(const std::vector<double>& base_lrs, double factor) {
  std::vector<double> lrs;
  for (double base_lr : base_lrs) lrs.push_back(base_lr * factor);
  return lrs;
}
}  // namespace

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer, {{"step_size", static_cast<double>(step_size)}, {"gamma", gamma}}) {
  TL_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
  initial_step();
}

// Divisibility does not depend on the sign, so fmod decides as Python's % does (for a float last_epoch too).
std::vector<double> StepLR::get_lr() {
  const double step_size = options_.at("step_size"), gamma = options_.at("gamma");
  return scaled_lrs(last_epoch_ == 0 || std::fmod(last_epoch_, step_size) != 0 ? 1 : gamma);
}

std::vector<double> StepLR::get_closed_form_lr() {
  const double step_size = options_.at("step_size"), gamma = options_.at("gamma");
  return times(base_lrs_, std::pow(gamma, std::floor(last_epoch_ / step_size)));
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer, {{"gamma", gamma}}) {
  std::vector<double>& saved = lists_["milestones"];
  for (int64_t m : milestones) saved.push_back(static_cast<double>(m));
  std::sort(saved.begin(), saved.end());  // PyTorch's Counter forgets the order
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  const std::vector<double>& milestones = lists_.at("milestones");
  const auto count = std::count(milestones.begin(), milestones.end(), last_epoch_);
  // The two branches of PyTorch's: an lr unchanged, not multiplied by gamma ** 0.
  return count == 0 ? scaled_lrs(1) : scaled_lrs(std::pow(options_.at("gamma"), static_cast<double>(count)));
}

std::vector<double> MultiStepLR::get_closed_form_lr() {
  const std::vector<double>& milestones = lists_.at("milestones");
  const auto passed = std::upper_bound(milestones.begin(), milestones.end(), last_epoch_) - milestones.begin();
  return times(base_lrs_, std::pow(options_.at("gamma"), static_cast<double>(passed)));
}

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters)
    : LRScheduler(optimizer, {{"factor", factor}, {"total_iters", static_cast<double>(total_iters)}}) {
  TL_CHECK(!(factor > 1.0 || factor < 0),
           "ConstantLR: Constant multiplicative factor expected to be between 0 and 1, got ", factor);
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  const double factor = options_.at("factor"), total_iters = options_.at("total_iters");
  if (last_epoch_ == 0) return scaled_lrs(factor);
  if (last_epoch_ != total_iters) return scaled_lrs(1);
  return scaled_lrs(1.0 / factor);
}

std::vector<double> ConstantLR::get_closed_form_lr() {
  const double factor = options_.at("factor"), total_iters = options_.at("total_iters");
  return times(base_lrs_, factor + (last_epoch_ >= total_iters ? 1 : 0) * (1 - factor));
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters)
    : LRScheduler(optimizer, {{"start_factor", start_factor},
                              {"end_factor", end_factor},
                              {"total_iters", static_cast<double>(total_iters)}}) {
  TL_CHECK(!(start_factor > 1.0 || start_factor < 0),
           "LinearLR: Starting multiplicative factor expected to be between 0 and 1, got ", start_factor);
  TL_CHECK(!(end_factor > 1.0 || end_factor < 0),
           "LinearLR: Ending multiplicative factor expected to be between 0 and 1, got ", end_factor);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  const double start = options_.at("start_factor"), end = options_.at("end_factor");
  const double total_iters = options_.at("total_iters");
  if (last_epoch_ == 0) return scaled_lrs(start);
  if (last_epoch_ > total_iters) return scaled_lrs(1);
  return scaled_lrs(1. + (end - start) / (total_iters * start + (last_epoch_ - 1) * (end - start)));
}

std::vector<double> LinearLR::get_closed_form_lr() {
  const double start = options_.at("start_factor"), end = options_.at("end_factor");
  const double total_iters = options_.at("total_iters");
  std::vector<double> lrs;
  for (double base_lr : base_lrs_)
    lrs.push_back(base_lr * (start + (end - start) * std::min(total_iters, last_epoch_) / total_iters));
  return lrs;
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer, {{"gamma", gamma}}) {
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() { return scaled_lrs(last_epoch_ == 0 ? 1 : options_.at("gamma")); }

std::vector<double> ExponentialLR::get_closed_form_lr() {
  return times(base_lrs_, std::pow(options_.at("gamma"), last_epoch_));
}

PolynomialLR::PolynomialLR(Optimizer& optimizer, int64_t total_iters, double power)
    : LRScheduler(optimizer, {{"total_iters", static_cast<double>(total_iters)}, {"power", power}}) {
  initial_step();
}

std::vector<double> PolynomialLR::get_lr() {
  const double total_iters = options_.at("total_iters");
  if (last_epoch_ == 0 || last_epoch_ > total_iters) return scaled_lrs(1);
  return scaled_lrs(
      std::pow((1.0 - last_epoch_ / total_iters) / (1.0 - (last_epoch_ - 1) / total_iters), options_.at("power")));
}

std::vector<double> PolynomialLR::get_closed_form_lr() {
  const double total_iters = options_.at("total_iters");
  return times(base_lrs_, std::pow(1.0 - std::min(total_iters, last_epoch_) / total_iters, options_.at("power")));
}

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer, {{"T_max", static_cast<double>(T_max)}, {"eta_min", eta_min}}) {
  TL_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  const double T_max = options_.at("T_max"), eta_min = options_.at("eta_min");
  const double pi = std::numbers::pi;
  const auto& groups = optimizer_.param_groups();
  // The branch that adds a base lr zips base_lrs with the groups: a group added later keeps its lr.
  // (PyTorch's branch for step_count 1 past epoch 0 needs a constructor's last_epoch, which is always -1 here.)
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

std::vector<double> CosineAnnealingLR::get_closed_form_lr() {
  const double T_max = options_.at("T_max"), eta_min = options_.at("eta_min");
  std::vector<double> lrs;
  for (double base_lr : base_lrs_)
    lrs.push_back(eta_min + (base_lr - eta_min) * (1 + std::cos(std::numbers::pi * last_epoch_ / T_max)) / 2);
  return lrs;
}

}  // namespace tl::optim::lr_scheduler
