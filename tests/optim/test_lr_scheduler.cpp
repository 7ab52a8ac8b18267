// tests/optim/test_lr_scheduler.cpp — StepLR and CosineAnnealingLR's lr sequences against PyTorch 1.13's
// (tests/reference/make_optim_references.py), their state dicts and errors.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "optim/lr_scheduler.h"
#include "optim/sgd.h"
#include "tests/support/reference_files.h"

namespace tl::optim::lr_scheduler {
namespace {

using Json = nlohmann::json;

// An SGD optimizer with one one-element parameter per lr, each in its own group.
std::unique_ptr<SGD> sgd_with_groups(const std::vector<double>& lrs) {
  auto opt = std::make_unique<SGD>(std::vector<Tensor>{zeros({1}).requires_grad_()}, SGDOptions{.lr = lrs.at(0)});
  for (size_t g = 1; g < lrs.size(); ++g) opt->add_param_group({zeros({1}).requires_grad_()}, {{"lr", lrs[g]}});
  return opt;
}

std::unique_ptr<LRScheduler> make_scheduler(const std::string& kind, Optimizer& opt, const Json& args) {
  if (kind == "StepLR") return std::make_unique<StepLR>(opt, args.at("step_size"), args.value("gamma", 0.1));
  REQUIRE(kind == "CosineAnnealingLR");
  return std::make_unique<CosineAnnealingLR>(opt, args.at("T_max"), args.value("eta_min", 0.0));
}

}  // namespace

TEST_CASE("StepLR and CosineAnnealingLR give PyTorch 1.13's lr sequences exactly") {
  const Json data = Json::parse(testing::read_reference("optim_trajectories.json"));
  for (const Json& c : data.at("schedulers")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    auto opt = sgd_with_groups(c.at("lrs"));
    auto sched = make_scheduler(c.at("kind"), *opt, c.at("args"));
    // A group added after the scheduler was made, and a (float) last_epoch loaded into it.
    if (!c.at("added_lr").is_null())
      opt->add_param_group({zeros({1}).requires_grad_()}, {{"lr", c.at("added_lr").get<double>()}});
    double first_epoch = 0;
    if (!c.at("last_epoch").is_null()) {
      SchedulerStateDict dict = sched->state_dict();
      dict.last_epoch = first_epoch = c.at("last_epoch").get<double>();
      sched->load_state_dict(dict);
    }
    const Json& expected = c.at("expected");
    for (size_t step = 0; step < expected.size(); ++step) {
      CAPTURE(step);
      if (step > 0) sched->step();
      CHECK(sched->last_epoch() == first_epoch + static_cast<double>(step));
      CHECK(sched->get_last_lr() == expected[step].get<std::vector<double>>());
      for (size_t g = 0; g < sched->get_last_lr().size(); ++g)
        CHECK(opt->param_groups()[g].options.at("lr") == sched->get_last_lr()[g]);
    }
    for (size_t g = 0; g < c.at("lrs").size(); ++g)
      CHECK(opt->param_groups()[g].options.at("initial_lr") == c.at("lrs")[g].get<double>());
    if (!c.at("added_lr").is_null()) CHECK_FALSE(opt->param_groups().back().options.count("initial_lr"));
  }
}

TEST_CASE("a NaN lr a scheduler computes is refused by the optimizer's step, naming the value") {
  auto opt = sgd_with_groups({0.1});
  opt->param_groups()[0].params[0].mutable_grad() = ones({1});
  StepLR sched(*opt, 1, NAN);
  sched.step();
  CHECK(std::isnan(sched.get_last_lr()[0]));
  CHECK_THROWS_WITH_AS(opt->step(), "SGD: Invalid learning rate: nan", Error);
  CHECK(opt->param_groups()[0].params[0].item<float>() == 0);
}

TEST_CASE("a scheduler's state dict restores its counters into a fresh scheduler") {
  auto opt = sgd_with_groups({0.1, 0.2});
  CosineAnnealingLR sched(*opt, 6, 0.01);
  for (int i = 0; i < 4; ++i) sched.step();
  const SchedulerStateDict saved = sched.state_dict();
  CHECK(saved.kind == "CosineAnnealingLR");
  CHECK(saved.last_epoch == 4);
  CHECK(saved.step_count == 5);
  CHECK(saved.options == Hyperparameters{{"T_max", 6}, {"eta_min", 0.01}});

  // The optimizer's groups carry the current lr (they are restored with the optimizer's state dict).
  auto resumed_opt = sgd_with_groups({0.1, 0.2});
  resumed_opt->load_state_dict(opt->state_dict());
  CosineAnnealingLR resumed(*resumed_opt, 6, 0.01);
  resumed.load_state_dict(saved);
  for (int i = 0; i < 9; ++i) {
    sched.step();
    resumed.step();
    CHECK(resumed.get_last_lr() == sched.get_last_lr());
  }
}

TEST_CASE("scheduler errors name the values and a failed load changes nothing") {
  auto opt = sgd_with_groups({0.1});
  CHECK_THROWS_WITH_AS(StepLR(*opt, 0), "StepLR: step_size must be positive, got 0", Error);
  CHECK_THROWS_WITH_AS(CosineAnnealingLR(*opt, -3), "CosineAnnealingLR: T_max must be positive, got -3", Error);
  StepLR sched(*opt, 2, 0.5);
  sched.step();
  const SchedulerStateDict before = sched.state_dict();

  SchedulerStateDict other_kind = before;
  other_kind.kind = "CosineAnnealingLR";
  CHECK_THROWS_WITH_AS(sched.load_state_dict(other_kind),
                       "StepLR.load_state_dict: the state dict is of a CosineAnnealingLR scheduler", Error);
  SchedulerStateDict two_groups = before;
  two_groups.base_lrs = {0.1, 0.2};
  two_groups.last_lr = {0.1, 0.2};
  two_groups.last_epoch = 7;
  CHECK_THROWS_WITH_AS(sched.load_state_dict(two_groups),
                       "StepLR.load_state_dict: the state dict has 2 base lrs and 2 last lrs for an optimizer with 1 "
                       "parameter groups",
                       Error);
  SchedulerStateDict other_gamma = before;
  other_gamma.options["gamma"] = 0.25;
  other_gamma.last_epoch = 7;
  CHECK_THROWS_WITH_AS(sched.load_state_dict(other_gamma),
                       "StepLR.load_state_dict: the state dict's hyper-parameters differ from this scheduler's", Error);
  SchedulerStateDict unstarted = before;
  unstarted.last_epoch = -1;
  CHECK_THROWS_WITH_AS(
      sched.load_state_dict(unstarted),
      "StepLR.load_state_dict: last_epoch -1 and step count 2 are not those of a constructed scheduler", Error);
  SchedulerStateDict infinite = before;
  infinite.last_epoch = INFINITY;
  CHECK_THROWS_WITH_AS(
      sched.load_state_dict(infinite),
      "StepLR.load_state_dict: last_epoch inf and step count 2 are not those of a constructed scheduler", Error);
  // A group added after the scheduler was made has a last lr but no base lr.
  opt->add_param_group({zeros({1}).requires_grad_()}, {{"lr", 0.5}});
  CHECK_THROWS_WITH_AS(sched.load_state_dict(before),
                       "StepLR.load_state_dict: the state dict has 1 base lrs and 1 last lrs for an optimizer with 2 "
                       "parameter groups (1 when the scheduler was made)",
                       Error);
  const SchedulerStateDict after = sched.state_dict();
  CHECK(after.last_epoch == before.last_epoch);
  CHECK(after.step_count == before.step_count);
  CHECK(after.base_lrs == before.base_lrs);
  CHECK(after.last_lr == before.last_lr);
}

}  // namespace tl::optim::lr_scheduler
