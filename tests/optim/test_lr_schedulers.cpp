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
#include "nn/safetensors.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "optim/checkpoint.h"
#include "optim/lr_scheduler_chain.h"
#include "optim/lr_scheduler_cyclic.h"
#include "optim/lr_scheduler_lambda.h"
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
    // After 0 steps ReduceLROnPlateau's best is inf, which JSON has no number for.
    for (const size_t k : {0, 3}) {
      CAPTURE(k);
      nn::Linear model(2, 1);
      auto opt = make_optimizer(c.at("optimizer"), lrs);
      auto made = make(c, *opt);
      for (size_t i = 0; i < k; ++i) step(*made->sched, values[i]);
      save_checkpoint(path, model, *opt, made->sched.get());
      auto resumed_opt = make_optimizer(c.at("optimizer"), lrs);
      auto resumed = make(c, *resumed_opt);
      load_checkpoint(path, model, *resumed_opt, resumed->sched.get());
      CHECK(resumed->sched->state_dict().counters == made->sched->state_dict().counters);
      for (size_t i = k; i < values.size(); ++i) {
        CAPTURE(i);
        step(*resumed->sched, values[i]);
        check_groups(*resumed_opt, *resumed->sched, c.at("expected")[i + 1]);
      }
    }
  }
}

}  // namespace tl::optim::lr_scheduler

namespace tl::optim::lr_scheduler {
namespace {

// The groups' options, to check that a refused call changed none.
std::vector<Hyperparameters> options_of(const Optimizer& opt) {
  std::vector<Hyperparameters> out;
  for (const ParamGroup& g : opt.param_groups()) out.push_back(g.options);
  return out;
}

}  // namespace

TEST_CASE("scheduler constructors refuse PyTorch's invalid arguments with its messages and change no group") {
  auto sgd = make_optimizer("SGD", {0.1, 0.2});
  auto adam = make_optimizer("Adam", {0.1});
  const auto sgd_before = options_of(*sgd), adam_before = options_of(*adam);
  CHECK_THROWS_WITH_AS(ConstantLR(*sgd, 1.5),
                       "ConstantLR: Constant multiplicative factor expected to be between 0 and 1, got 1.5", Error);
  CHECK_THROWS_WITH_AS(LinearLR(*sgd, -0.5),
                       "LinearLR: Starting multiplicative factor expected to be between 0 and 1, got -0.5", Error);
  CHECK_THROWS_WITH_AS(LinearLR(*sgd, 0.5, 2.0),
                       "LinearLR: Ending multiplicative factor expected to be between 0 and 1, got 2", Error);
  CHECK_THROWS_WITH_AS(LambdaLR(*sgd, std::vector<LrLambda>{named("inv")}),
                       "LambdaLR: Expected 2 lr_lambdas, but got 1", Error);
  CHECK_THROWS_WITH_AS(MultiplicativeLR(*sgd, LrLambda{}), "MultiplicativeLR: an lr_lambda is empty", Error);
  CHECK_THROWS_WITH_AS(CyclicLR(*sgd, {.base_lr = {0.1, 0.2, 0.3}, .max_lr = 1.0}),
                       "CyclicLR: expected 2 values for base_lr, got 3", Error);
  CHECK_THROWS_WITH_AS(CyclicLR(*sgd, {.base_lr = 0.1, .max_lr = 1.0, .mode = "triangle"}),
                       "CyclicLR: mode triangle is invalid and scale_fn is None", Error);
  CHECK_THROWS_WITH_AS(CyclicLR(*adam, {.base_lr = 0.1, .max_lr = 1.0}),
                       "CyclicLR: optimizer must support momentum with `cycle_momentum` option enabled (Adam has none)",
                       Error);
  CHECK_THROWS_WITH_AS(CyclicLR(*sgd, {.base_lr = 0.1, .max_lr = 1.0, .max_momentum = {0.9}}),
                       "CyclicLR: expected 2 values for max_momentum, got 1", Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = 0.1}),
                       "OneCycleLR: You must define either total_steps OR (epochs AND steps_per_epoch)", Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = 0.1, .total_steps = 0}),
                       "OneCycleLR: Expected positive integer total_steps, but got 0", Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = 0.1, .steps_per_epoch = 4}),
                       "OneCycleLR: Expected positive integer epochs, but got None", Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = 0.1, .epochs = 2, .steps_per_epoch = -4}),
                       "OneCycleLR: Expected positive integer steps_per_epoch, but got -4", Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = 0.1, .total_steps = 10, .pct_start = 1.5}),
                       "OneCycleLR: Expected float between 0 and 1 pct_start, but got 1.5", Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = 0.1, .total_steps = 10, .anneal_strategy = "cosine"}),
                       "OneCycleLR: anneal_strategy must by one of 'cos' or 'linear', instead got cosine", Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = {0.1}, .total_steps = 10}),
                       "OneCycleLR: expected 2 values for max_lr, got 1", Error);
  CHECK_THROWS_WITH_AS(CosineAnnealingWarmRestarts(*sgd, 0),
                       "CosineAnnealingWarmRestarts: Expected positive integer T_0, but got 0", Error);
  CHECK_THROWS_WITH_AS(CosineAnnealingWarmRestarts(*sgd, 2, 0),
                       "CosineAnnealingWarmRestarts: Expected integer T_mult >= 1, but got 0", Error);
  CHECK_THROWS_WITH_AS(ReduceLROnPlateau(*sgd, {.factor = 1.0}), "ReduceLROnPlateau: Factor should be < 1.0, got 1",
                       Error);
  CHECK_THROWS_WITH_AS(ReduceLROnPlateau(*sgd, {.min_lr = {0.1, 0.2, 0.3}}),
                       "ReduceLROnPlateau: expected 2 min_lrs, got 3", Error);
  CHECK_THROWS_WITH_AS(ReduceLROnPlateau(*sgd, {.mode = "avg"}), "ReduceLROnPlateau: mode avg is unknown!", Error);
  CHECK_THROWS_WITH_AS(ReduceLROnPlateau(*sgd, {.threshold_mode = "ratio"}),
                       "ReduceLROnPlateau: threshold mode ratio is unknown!", Error);
  CHECK(options_of(*sgd) == sgd_before);
  CHECK(options_of(*adam) == adam_before);

  ExponentialLR first(*sgd, 0.5), second(*sgd, 0.9);
  ExponentialLR other(*adam, 0.5);
  const auto with_initial_lr = options_of(*sgd);
  CHECK_THROWS_WITH_AS(SequentialLR(*sgd, {&first, &second}, {}),
                       "SequentialLR: Sequential Schedulers expects number of schedulers provided to be one more than "
                       "the number of milestone points, but got number of schedulers 2 and the number of milestones "
                       "to be equal to 0",
                       Error);
  CHECK_THROWS_WITH_AS(SequentialLR(*sgd, {&first, &other}, {2}),
                       "SequentialLR: Sequential Schedulers expects all schedulers to belong to the same optimizer, "
                       "but got schedulers at index 1 to be different than the optimizer passed in.",
                       Error);
  CHECK_THROWS_WITH_AS(SequentialLR(*sgd, {&first, nullptr}, {2}), "SequentialLR: scheduler 1 is null", Error);
  CHECK_THROWS_WITH_AS(SequentialLR(*sgd, {}, {}), "SequentialLR: expected at least one scheduler, got none", Error);
  CHECK_THROWS_WITH_AS(ChainedScheduler({&first, &other}),
                       "ChainedScheduler: ChainedScheduler expects all schedulers to belong to the same optimizer, "
                       "but got schedulers at index 0 and 1 to be different",
                       Error);
  CHECK_THROWS_WITH_AS(ChainedScheduler({}), "ChainedScheduler: expected at least one scheduler, got none", Error);
  CHECK(options_of(*sgd) == with_initial_lr);
  CHECK(first.last_epoch() == 0);
  CHECK(second.last_epoch() == 0);
  sgd->add_param_group({zeros({1}).requires_grad_()}, {{"lr", 0.3}});
  CHECK_THROWS_WITH_AS(SequentialLR(*sgd, {&first, &second}, {2}),
                       "SequentialLR: param_groups[2] has no 'initial_lr' (it was added after the schedulers were "
                       "made)",
                       Error);
  CHECK(first.last_epoch() == 0);
}

TEST_CASE("a refused step changes nothing: OneCycleLR past total_steps, a negative epoch, an extra plateau group") {
  auto opt = make_optimizer("SGD", {0.1, 0.2});
  OneCycleLR one_cycle(*opt, {.max_lr = 0.1, .total_steps = 3});
  for (int i = 0; i < 3; ++i) one_cycle.step();
  const SchedulerStateDict before = one_cycle.state_dict();
  const auto groups_before = options_of(*opt);
  CHECK_THROWS_WITH_AS(one_cycle.step(), "OneCycleLR: Tried to step 5 times. The specified number of total steps is 3",
                       Error);
  CHECK_THROWS_WITH_AS(one_cycle.step(7.0),
                       "OneCycleLR: Tried to step 8 times. The specified number of total steps is 3", Error);
  CHECK(one_cycle.last_epoch() == before.last_epoch);
  CHECK(one_cycle.state_dict().step_count == before.step_count);
  CHECK(options_of(*opt) == groups_before);

  auto opt2 = make_optimizer("SGD", {0.1});
  CosineAnnealingWarmRestarts warm(*opt2, 2, 2);
  warm.step(1.5);
  const SchedulerStateDict warm_before = warm.state_dict();
  CHECK_THROWS_WITH_AS(warm.step(-0.5), "CosineAnnealingWarmRestarts: Expected non-negative epoch, but got -0.5", Error);
  CHECK(warm.state_dict().counters == warm_before.counters);
  CHECK(warm.last_epoch() == 1);
  CHECK_THROWS_WITH_AS(SequentialLR(*opt2, {&warm}, {}).step(2.0), "SequentialLR.step: takes no epoch, got 2", Error);

  auto opt3 = make_optimizer("SGD", {0.1});
  ReduceLROnPlateau plateau(*opt3, {.patience = 0});
  plateau.step(1.0);
  opt3->add_param_group({zeros({1}).requires_grad_()}, {{"lr", 0.3}});
  const SchedulerStateDict plateau_before = plateau.state_dict();
  CHECK_THROWS_WITH_AS(plateau.step(2.0),
                       "ReduceLROnPlateau: cannot reduce the lr of param group 1, added after the scheduler was made: "
                       "it has no min_lr",
                       Error);
  CHECK(plateau.state_dict().counters == plateau_before.counters);
  CHECK(plateau.last_epoch() == 1);
  CHECK(opt3->param_groups()[0].options.at("lr") == 0.1);
  plateau.step(0.5);  // an improvement reduces nothing: no min_lr is needed
  CHECK(plateau.get_last_lr() == std::vector<double>{0.1, 0.3});
}

TEST_CASE("CyclicLR refuses a cycle PyTorch divides by zero for; OneCycleLR an epochs * steps_per_epoch past int64") {
  auto sgd = make_optimizer("SGD", {0.1, 0.2});
  const auto before = options_of(*sgd);
  // PyTorch 1.13: ZeroDivisionError (float division by zero) in __init__ for each of these.
  CHECK_THROWS_WITH_AS(CyclicLR(*sgd, {.base_lr = 0.01, .max_lr = 0.1, .step_size_up = 0}),
                       "CyclicLR: step_size_up=0 and step_size_down=0 make a cycle of 0 iterations (float division by "
                       "zero)",
                       Error);
  CHECK_THROWS_WITH_AS(CyclicLR(*sgd, {.base_lr = 0.01, .max_lr = 0.1, .step_size_up = 0, .step_size_down = 5}),
                       "CyclicLR: step_size_up=0 makes an empty increasing half-cycle (float division by zero)", Error);
  CHECK_THROWS_WITH_AS(CyclicLR(*sgd, {.base_lr = 0.01, .max_lr = 0.1, .step_size_up = -1, .step_size_down = 1}),
                       "CyclicLR: step_size_up=-1 and step_size_down=1 make a cycle of 0 iterations (float division by "
                       "zero)",
                       Error);
  CHECK_THROWS_WITH_AS(CyclicLR(*sgd, {.base_lr = 0.01, .max_lr = 0.1, .step_size_up = 1, .step_size_down = -1}),
                       "CyclicLR: step_size_up=1 and step_size_down=-1 make a cycle of 0 iterations (float division by "
                       "zero)",
                       Error);
  CHECK_THROWS_WITH_AS(OneCycleLR(*sgd, {.max_lr = 0.1, .epochs = int64_t{1} << 62, .steps_per_epoch = 4}),
                       "OneCycleLR: epochs=4611686018427387904 times steps_per_epoch=4 is more total steps than int64 "
                       "holds",
                       Error);
  CHECK(options_of(*sgd) == before);
  // PyTorch takes these: the lr reaches max_lr in one step and falls back at once
  CyclicLR no_way_down(*sgd, {.base_lr = 0.01, .max_lr = 0.1, .step_size_up = 5, .step_size_down = 0});
  no_way_down.step();
  CHECK(no_way_down.get_last_lr()[0] == doctest::Approx(0.027999999999999997).epsilon(1e-12));  // PyTorch 1.13
}

TEST_CASE("an lr erased from a param group is a tl::Error naming the group and key at the next step, not an assert") {
  auto sgd = make_optimizer("SGD", {0.1, 0.2});
  StepLR step_lr(*sgd, 2);
  sgd->param_groups()[1].options.erase("lr");
  const auto before = options_of(*sgd);
  const SchedulerStateDict scheduler_before = step_lr.state_dict();
  CHECK_THROWS_WITH_AS(step_lr.step(), "StepLR: param_groups[1] has no 'lr' (it was erased from the group's options)",
                       Error);
  CHECK_THROWS_WITH_AS(step_lr.step(3.0), "StepLR: param_groups[1] has no 'lr' (it was erased from the group's options)",
                       Error);
  CHECK(step_lr.last_epoch() == scheduler_before.last_epoch);
  CHECK(step_lr.state_dict().step_count == scheduler_before.step_count);
  CHECK(options_of(*sgd) == before);
  CHECK_THROWS_WITH_AS(sgd->step(), "SGD.step: param_groups[1] has no 'lr' (it was erased from the group's options)",
                       Error);

  auto plain = make_optimizer("SGD", {0.1});
  ReduceLROnPlateau plateau(*plain, {.patience = 0});
  plain->param_groups()[0].options.erase("lr");
  CHECK_THROWS_WITH_AS(plateau.step(1.0),
                       "ReduceLROnPlateau: param_groups[0] has no 'lr' (it was erased from the group's options)", Error);
  CHECK(plateau.last_epoch() == 0);
}

TEST_CASE("load_state_dict refuses other list hyper-parameters, modes, counters or schedulers and changes nothing") {
  auto opt = make_optimizer("SGD", {0.1});
  MultiStepLR multi(*opt, {2, 4});
  SchedulerStateDict other_milestones = multi.state_dict();
  other_milestones.lists["milestones"] = {2, 5};
  CHECK_THROWS_WITH_AS(multi.load_state_dict(other_milestones),
                       "MultiStepLR.load_state_dict: the state dict's hyper-parameters differ from this scheduler's",
                       Error);
  ReduceLROnPlateau plateau(*opt);
  SchedulerStateDict other_mode = plateau.state_dict();
  other_mode.modes["mode"] = "max";
  CHECK_THROWS_WITH_AS(plateau.load_state_dict(other_mode),
                       "ReduceLROnPlateau.load_state_dict: the state dict's hyper-parameters differ from this "
                       "scheduler's",
                       Error);
  SchedulerStateDict other_counters = plateau.state_dict();
  other_counters.counters.erase("best");
  CHECK_THROWS_WITH_AS(plateau.load_state_dict(other_counters),
                       "ReduceLROnPlateau.load_state_dict: the state dict's counters [cooldown_counter, "
                       "num_bad_epochs] are not this scheduler's [best, cooldown_counter, num_bad_epochs]",
                       Error);
  ExponentialLR a(*opt, 0.5), b(*opt, 0.9);
  ChainedScheduler chained({&a, &b});
  chained.step();
  SchedulerStateDict one_scheduler = chained.state_dict();
  one_scheduler.schedulers.pop_back();
  CHECK_THROWS_WITH_AS(chained.load_state_dict(one_scheduler),
                       "ChainedScheduler.load_state_dict: the state dict has 1 schedulers, this scheduler 2", Error);
  SchedulerStateDict bad_child = chained.state_dict();
  bad_child.schedulers[1].options["gamma"] = 0.8;
  bad_child.schedulers[0].last_epoch = 7;
  CHECK_THROWS_WITH_AS(chained.load_state_dict(bad_child),
                       "ExponentialLR.load_state_dict: the state dict's hyper-parameters differ from this scheduler's",
                       Error);
  CHECK(a.last_epoch() == 1);
  CHECK(b.last_epoch() == 1);
}

TEST_CASE("a checkpoint written before lists, modes, counters and schedulers were saved still loads") {
  const testing::ScratchDir dir;
  const std::string path = dir.file("old.safetensors");
  nn::Linear model(2, 1);
  auto opt = make_optimizer("SGD", {0.1});
  StepLR sched(*opt, 2, 0.5);
  sched.step();
  save_checkpoint(path, model, *opt, &sched);
  nn::SafetensorsMetadata metadata = nn::load_safetensors_metadata(path);
  Json entry = Json::parse(metadata.at("lr_scheduler"));
  for (const char* key : {"lists", "modes", "counters", "schedulers"}) REQUIRE(entry.erase(key) == 1);
  metadata["lr_scheduler"] = entry.dump();
  nn::save_safetensors(path, nn::load_safetensors(path), metadata);
  auto resumed_opt = make_optimizer("SGD", {0.1});
  StepLR resumed(*resumed_opt, 2, 0.5);
  load_checkpoint(path, model, *resumed_opt, &resumed);
  CHECK(resumed.last_epoch() == 1);
  resumed.step();
  sched.step();
  CHECK(resumed.get_last_lr() == sched.get_last_lr());
}

}  // namespace tl::optim::lr_scheduler
