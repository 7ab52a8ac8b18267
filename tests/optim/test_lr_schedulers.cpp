// tests/optim/test_lr_schedulers.cpp — the schedulers beyond StepLR and CosineAnnealingLR: each group's lr
// (and momentum / beta1) step for step against PyTorch 1.13's (tests/reference/make_scheduler_references.py),
// resumed from a state dict and from a checkpoint, and their errors with the state a refusal leaves.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nn/linear.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "optim/checkpoint.h"
#include "optim/lr_scheduler_chain.h"
#include "optim/lr_scheduler_cyclic.h"
#include "optim/lr_scheduler_plateau.h"
#include "optim/sgd.h"
#include "tests/support/file_testing.h"
#include "tests/support/reference_files.h"

namespace tl::optim::lr_scheduler {
namespace {

using Json = nlohmann::json;

// The script's LAMBDAS, by the same names.
LrLambda named(const std::string& name) {
  if (name == "pow095") return [](double e) { return std::pow(0.95, e); };
  if (name == "inv") return [](double e) { return 1.0 / (e + 1); };
  REQUIRE(name == "half");
  return [](double x) { return std::pow(0.5, x); };
}

std::vector<LrLambda> lambdas(const Json& value) {
  std::vector<LrLambda> out;
  for (const Json& name : value) out.push_back(named(name));
  return out;
}

PerGroup per_group(const Json& value) {
  if (value.is_array()) return value.get<std::vector<double>>();
  return value.get<double>();
}

std::optional<int64_t> optional_int(const Json& args, const char* key) {
  if (!args.contains(key)) return std::nullopt;
  return args.at(key).get<int64_t>();
}

// One parameter per group, with the script's optimizer (SGD with momentum 0.9, or Adam).
std::unique_ptr<Optimizer> make_optimizer(const std::string& kind, const std::vector<double>& lrs) {
  std::vector<Tensor> first{zeros({1}).requires_grad_()};
  std::unique_ptr<Optimizer> opt;
  if (kind == "SGD") opt = std::make_unique<SGD>(first, SGDOptions{.lr = lrs.at(0), .momentum = 0.9});
  else opt = std::make_unique<Adam>(first, AdamOptions{.lr = lrs.at(0)});
  for (size_t g = 1; g < lrs.size(); ++g) opt->add_param_group({zeros({1}).requires_grad_()}, {{"lr", lrs[g]}});
  return opt;
}

// A scheduler and the schedulers it steps (SequentialLR's, ChainedScheduler's), which must outlive it.
struct Made {
  std::vector<std::unique_ptr<LRScheduler>> children;
  std::unique_ptr<Scheduler> sched;
};

std::unique_ptr<Scheduler> make(const std::string& kind, const Json& a, Optimizer& opt, Made& made) {
  if (kind == "MultiStepLR") return std::make_unique<MultiStepLR>(opt, a.at("milestones"), a.value("gamma", 0.1));
  if (kind == "ExponentialLR") return std::make_unique<ExponentialLR>(opt, a.at("gamma"));
  if (kind == "StepLR") return std::make_unique<StepLR>(opt, a.at("step_size"), a.value("gamma", 0.1));
  if (kind == "CosineAnnealingLR")
    return std::make_unique<CosineAnnealingLR>(opt, a.at("T_max"), a.value("eta_min", 0.0));
  if (kind == "LinearLR")
    return std::make_unique<LinearLR>(opt, a.value("start_factor", 1.0 / 3), a.value("end_factor", 1.0),
                                      a.value("total_iters", 5));
  if (kind == "ConstantLR")
    return std::make_unique<ConstantLR>(opt, a.value("factor", 1.0 / 3), a.value("total_iters", 5));
  if (kind == "PolynomialLR")
    return std::make_unique<PolynomialLR>(opt, a.value("total_iters", 5), a.value("power", 1.0));
  // One lambda for every group, or a list.
  const Json& lr_lambda = a.value("lr_lambda", Json());
  if (kind == "LambdaLR" && lr_lambda.is_string()) return std::make_unique<LambdaLR>(opt, named(lr_lambda));
  if (kind == "LambdaLR") return std::make_unique<LambdaLR>(opt, lambdas(lr_lambda));
  if (kind == "MultiplicativeLR" && lr_lambda.is_string())
    return std::make_unique<MultiplicativeLR>(opt, named(lr_lambda));
  if (kind == "MultiplicativeLR") return std::make_unique<MultiplicativeLR>(opt, lambdas(lr_lambda));
  if (kind == "CyclicLR") {
    CyclicLROptions o{.base_lr = per_group(a.at("base_lr")), .max_lr = per_group(a.at("max_lr"))};
    o.step_size_up = a.value("step_size_up", o.step_size_up);
    o.step_size_down = optional_int(a, "step_size_down");
    o.mode = a.value("mode", o.mode);
    o.gamma = a.value("gamma", o.gamma);
    if (a.contains("scale_fn")) o.scale_fn = named(a.at("scale_fn"));
    o.scale_mode = a.value("scale_mode", o.scale_mode);
    o.cycle_momentum = a.value("cycle_momentum", o.cycle_momentum);
    if (a.contains("base_momentum")) o.base_momentum = per_group(a.at("base_momentum"));
    if (a.contains("max_momentum")) o.max_momentum = per_group(a.at("max_momentum"));
    return std::make_unique<CyclicLR>(opt, o);
  }
  if (kind == "OneCycleLR") {
    OneCycleLROptions o{.max_lr = per_group(a.at("max_lr"))};
    o.total_steps = optional_int(a, "total_steps");
    o.epochs = optional_int(a, "epochs");
    o.steps_per_epoch = optional_int(a, "steps_per_epoch");
    o.pct_start = a.value("pct_start", o.pct_start);
    o.anneal_strategy = a.value("anneal_strategy", o.anneal_strategy);
    o.cycle_momentum = a.value("cycle_momentum", o.cycle_momentum);
    if (a.contains("base_momentum")) o.base_momentum = per_group(a.at("base_momentum"));
    if (a.contains("max_momentum")) o.max_momentum = per_group(a.at("max_momentum"));
    o.div_factor = a.value("div_factor", o.div_factor);
    o.final_div_factor = a.value("final_div_factor", o.final_div_factor);
    o.three_phase = a.value("three_phase", o.three_phase);
    return std::make_unique<OneCycleLR>(opt, o);
  }
  if (kind == "CosineAnnealingWarmRestarts")
    return std::make_unique<CosineAnnealingWarmRestarts>(opt, a.at("T_0"), a.value("T_mult", 1),
                                                         a.value("eta_min", 0.0));
  if (kind == "ReduceLROnPlateau") {
    ReduceLROnPlateauOptions o;
    o.mode = a.value("mode", o.mode);
    o.factor = a.value("factor", o.factor);
    o.patience = a.value("patience", o.patience);
    o.threshold = a.value("threshold", o.threshold);
    o.threshold_mode = a.value("threshold_mode", o.threshold_mode);
    o.cooldown = a.value("cooldown", o.cooldown);
    if (a.contains("min_lr")) o.min_lr = per_group(a.at("min_lr"));
    o.eps = a.value("eps", o.eps);
    return std::make_unique<ReduceLROnPlateau>(opt, o);
  }
  std::vector<LRScheduler*> children;
  for (const Json& child : a.at("schedulers")) {
    std::unique_ptr<Scheduler> s = make(child.at(0), child.at(1), opt, made);
    made.children.emplace_back(dynamic_cast<LRScheduler*>(s.release()));
    children.push_back(made.children.back().get());
  }
  if (kind == "SequentialLR") return std::make_unique<SequentialLR>(opt, children, a.at("milestones"));
  REQUIRE(kind == "ChainedScheduler");
  return std::make_unique<ChainedScheduler>(children);
}

std::unique_ptr<Made> make(const Json& c, Optimizer& opt) {
  auto made = std::make_unique<Made>();
  made->sched = make(c.at("kind"), c.at("args"), opt, *made);
  return made;
}

// The script's calls: step() `steps` times, or step(epoch) / step(metric) for each value.
std::vector<std::optional<double>> calls(const Json& steps) {
  if (steps.is_number()) return std::vector<std::optional<double>>(steps.get<size_t>());
  std::vector<std::optional<double>> out;
  for (const Json& v : steps.contains("epochs") ? steps.at("epochs") : steps.at("metrics")) out.push_back(v.get<double>());
  return out;
}

void step(Scheduler& sched, const std::optional<double>& value) {
  if (auto* plateau = dynamic_cast<ReduceLROnPlateau*>(&sched)) return plateau->step(value.value());
  auto& s = dynamic_cast<LRScheduler&>(sched);
  if (value) s.step(*value);
  else s.step();
}

// Each group's lr and momentum (SGD's) or beta1 (Adam's) against PyTorch's, exactly.
void check_groups(const Optimizer& opt, const Scheduler& sched, const Json& expected) {
  const auto& groups = opt.param_groups();
  std::vector<double> lrs, momentums;
  for (const ParamGroup& g : groups) {
    lrs.push_back(g.options.at("lr"));
    momentums.push_back(g.options.count("beta1") ? g.options.at("beta1") : g.options.at("momentum"));
  }
  CHECK(lrs == expected.at("lr").get<std::vector<double>>());
  CHECK(momentums == expected.at("momentum").get<std::vector<double>>());
  CHECK(sched.get_last_lr() == lrs);
}

}  // namespace

TEST_CASE("every scheduler gives PyTorch 1.13's lrs and momentums step for step, also resumed from a state dict") {
  const Json data = Json::parse(testing::read_reference("scheduler_trajectories.json"));
  REQUIRE(data.size() >= 30);
  for (const Json& c : data) {
    const std::string name = c.at("name");
    CAPTURE(name);
    const std::vector<double> lrs = c.at("lrs");
    auto opt = make_optimizer(c.at("optimizer"), lrs);
    auto made = make(c, *opt);
    const Json& expected = c.at("expected");
    const auto values = calls(c.at("steps"));
    REQUIRE(expected.size() == values.size() + 1);
    check_groups(*opt, *made->sched, expected[0]);
    const size_t half = values.size() / 2;
    for (size_t i = 0; i < half; ++i) {
      CAPTURE(i);
      step(*made->sched, values[i]);
      check_groups(*opt, *made->sched, expected[i + 1]);
    }
    // PyTorch's order: a new optimizer and scheduler, then both state dicts.
    auto resumed_opt = make_optimizer(c.at("optimizer"), lrs);
    auto resumed = make(c, *resumed_opt);
    resumed_opt->load_state_dict(opt->state_dict());
    resumed->sched->load_state_dict(made->sched->state_dict());
    for (size_t i = half; i < values.size(); ++i) {
      CAPTURE(i);
      step(*made->sched, values[i]);
      check_groups(*opt, *made->sched, expected[i + 1]);
      step(*resumed->sched, values[i]);
      check_groups(*resumed_opt, *resumed->sched, expected[i + 1]);
    }
  }
}

TEST_CASE("a checkpoint resumes OneCycleLR, ReduceLROnPlateau and SequentialLR bit for bit") {
  const testing::ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  const Json data = Json::parse(testing::read_reference("scheduler_trajectories.json"));
  for (const Json& c : data) {
    const std::string name = c.at("name");
    if (name != "onecycle_linear_three_phase_adam" && name != "plateau_default_patience2" &&
        name != "plateau_max_abs_cooldown" && name != "sequential_three" && name != "warm_restarts_fractional")
      continue;
    CAPTURE(name);
    const std::vector<double> lrs = c.at("lrs");
    const auto values = calls(c.at("steps"));
    nn::Linear model(2, 1);
    auto opt = make_optimizer(c.at("optimizer"), lrs);
    auto made = make(c, *opt);
    for (size_t i = 0; i < 3; ++i) step(*made->sched, values[i]);
    save_checkpoint(path, model, *opt, made->sched.get());
    auto resumed_opt = make_optimizer(c.at("optimizer"), lrs);
    auto resumed = make(c, *resumed_opt);
    load_checkpoint(path, model, *resumed_opt, resumed->sched.get());
    CHECK(resumed->sched->state_dict().counters == made->sched->state_dict().counters);
    for (size_t i = 3; i < values.size(); ++i) {
      CAPTURE(i);
      step(*resumed->sched, values[i]);
      check_groups(*resumed_opt, *resumed->sched, c.at("expected")[i + 1]);
    }
  }
}

}  // namespace tl::optim::lr_scheduler
