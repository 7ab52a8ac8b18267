// tests/optim/test_checkpoint.cpp — checkpoints: a run resumed from one continues bit for bit (an MLP
// on fixed batches, and a CNN on digits through a DataLoader as examples/train_digits.cpp trains), the
// optimizer's state dict round-trips (alone and in a general archive beside a model and an epoch), and
// every mismatch is an error that changes nothing.
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/generator.h"
#include "data/dataloader.h"
#include "data/digits.h"
#include "data/random_split.h"
#include "nn/activation.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/flatten.h"
#include "nn/linear.h"
#include "nn/archive.h"
#include "nn/loss.h"
#include "nn/pooling.h"
#include "nn/safetensors.h"
#include "ops/ops.h"
#include "optim/adadelta.h"
#include "optim/adagrad.h"
#include "optim/adam.h"
#include "optim/adamax.h"
#include "optim/checkpoint.h"
#include "optim/lr_scheduler_cyclic.h"
#include "optim/nadam.h"
#include "optim/radam.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
#include "tests/support/allocation_limit.h"
#include "tests/support/file_testing.h"
#include "tests/support/tensor_check.h"

namespace tl::optim {
namespace {

using lr_scheduler::CosineAnnealingLR;
using lr_scheduler::LRScheduler;
using lr_scheduler::StepLR;
using MakeOptimizer = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;
using MakeScheduler = std::function<std::unique_ptr<LRScheduler>(Optimizer&)>;

// Linear(4, hidden) -> ReLU -> Linear(hidden, 2).
std::shared_ptr<nn::Module> mlp(int64_t hidden) {
  return std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, hidden), std::make_shared<nn::ReLU>(), std::make_shared<nn::Linear>(hidden, 2)});
}

// A model, its optimizer and scheduler, and the fixed batches a run trains on.
struct Run {
  std::shared_ptr<nn::Module> model;
  std::unique_ptr<Optimizer> opt;
  std::unique_ptr<LRScheduler> sched;

  Run(uint64_t init_seed, const MakeOptimizer& make_opt, const MakeScheduler& make_sched) {
    manual_seed(init_seed);
    model = mlp(5);
    opt = make_opt(model->parameters());
    sched = make_sched(*opt);
  }

  // Steps [first, last) of a quadratic regression through autograd; batch i is the same in every run.
  void train(int first, int last) {
    for (int i = first; i < last; ++i) {
      manual_seed(1000 + i);
      const Tensor x = randn({8, 4}), y = randn({8, 2});
      opt->zero_grad();
      const Tensor diff = (*model)(x).sub(y);
      diff.mul(diff).mean().backward();
      opt->step();
      sched->step();
    }
  }
};

// Empty when every parameter and buffer of the two models holds the same values.
std::string model_difference(const nn::Module& a, const nn::Module& b) {
  const nn::StateDict da = a.state_dict(), db = b.state_dict();
  REQUIRE(da.size() == db.size());
  for (size_t i = 0; i < da.size(); ++i) {
    const std::string diff = testing::compare_tensors(da[i].second, db[i].second, 0, 0);
    if (!diff.empty()) return da[i].first + ": " + diff;
  }
  return "";
}

// Empty when the two state dicts are equal: kind, groups, and every state tensor value for value.
std::string state_difference(const OptimizerStateDict& a, const OptimizerStateDict& b) {
  if (a.kind != b.kind) return "kind " + a.kind + " vs " + b.kind;
  if (a.param_groups.size() != b.param_groups.size()) return "group count";
  for (size_t g = 0; g < a.param_groups.size(); ++g)
    if (a.param_groups[g].params != b.param_groups[g].params || a.param_groups[g].options != b.param_groups[g].options)
      return "group " + std::to_string(g);
  if (a.state.size() != b.state.size()) return "state count";
  for (const auto& [index, state] : a.state) {
    if (!b.state.count(index) || b.state.at(index).size() != state.size()) return "state keys";
    for (const auto& [key, tensor] : state) {
      const std::string diff = testing::compare_tensors(b.state.at(index).at(key), tensor, 0, 0);
      if (!diff.empty()) return std::to_string(index) + "." + key + ": " + diff;
    }
  }
  return "";
}

const MakeOptimizer kSgd = [](std::vector<Tensor> p) {
  return std::make_unique<SGD>(std::move(p),
                               SGDOptions{.lr = 0.05, .momentum = 0.9, .weight_decay = 1e-3, .nesterov = true});
};
const MakeOptimizer kAdam = [](std::vector<Tensor> p) {
  return std::make_unique<Adam>(std::move(p), AdamOptions{.lr = 0.01, .weight_decay = 1e-2, .amsgrad = true});
};
const MakeOptimizer kAdamW = [](std::vector<Tensor> p) {
  return std::make_unique<AdamW>(std::move(p), AdamWOptions{.lr = 0.02, .betas = {0.85, 0.99}});
};
// The kinds after SGD and Adam, each with the options that add state: RMSprop's int64 step among them.
const MakeOptimizer kRMSprop = [](std::vector<Tensor> p) {
  return std::make_unique<RMSprop>(std::move(p), RMSpropOptions{.lr = 0.01, .momentum = 0.5, .centered = true});
};
const MakeOptimizer kAdagrad = [](std::vector<Tensor> p) {
  return std::make_unique<Adagrad>(std::move(p), AdagradOptions{.lr = 0.05, .lr_decay = 0.01});
};
const MakeOptimizer kAdadelta = [](std::vector<Tensor> p) { return std::make_unique<Adadelta>(std::move(p)); };
const MakeOptimizer kAdamax = [](std::vector<Tensor> p) {
  return std::make_unique<Adamax>(std::move(p), AdamaxOptions{.lr = 0.01});
};
const MakeOptimizer kNAdam = [](std::vector<Tensor> p) {
  return std::make_unique<NAdam>(std::move(p), NAdamOptions{.lr = 0.01});
};
const MakeOptimizer kRAdam = [](std::vector<Tensor> p) {
  return std::make_unique<RAdam>(std::move(p), RAdamOptions{.lr = 0.01, .betas = {0.9, 0.9}});
};
const MakeScheduler kStep = [](Optimizer& o) { return std::make_unique<StepLR>(o, 2, 0.7); };
const MakeScheduler kCosine = [](Optimizer& o) { return std::make_unique<CosineAnnealingLR>(o, 4, 1e-3); };
// OneCycleLR over 6 steps: it cycles AdamW's beta1 too, which the optimizer's state dict carries.
const MakeScheduler kOneCycle = [](Optimizer& o) {
  return std::make_unique<lr_scheduler::OneCycleLR>(o, lr_scheduler::OneCycleLROptions{.max_lr = 0.05, .total_steps = 6});
};

// A checkpoint of `source` and a `target` to load it into, with what the target held before: a failed
// load_checkpoint leaves all of it as it was.
struct LoadFixture {
  testing::ScratchDir dir;
  std::string path = dir.file("ckpt.safetensors");
  Run source{3, kAdam, kCosine};
  Run target{8, kAdam, kCosine};
  nn::StateDict model_handles, model_values;
  OptimizerStateDict opt_before;
  lr_scheduler::SchedulerStateDict sched_before;

  LoadFixture() {
    source.train(0, 2);
    save_checkpoint(path, *source.model, *source.opt, source.sched.get());
    target.train(0, 1);
    model_handles = target.model->state_dict();
    for (const auto& [name, t] : model_handles) model_values.emplace_back(name, t.clone());
    opt_before = target.opt->state_dict();
    for (auto& [index, state] : opt_before.state)
      for (auto& [key, t] : state) t = t.clone();
    sched_before = target.sched->state_dict();
  }

  // The target holds the same tensors with the same values, the same optimizer state and scheduler.
  void check_unchanged() const {
    const nn::StateDict now = target.model->state_dict();
    REQUIRE(now.size() == model_values.size());
    for (size_t i = 0; i < now.size(); ++i) {
      CHECK(now[i].second.is_same(model_handles[i].second));
      CHECK(testing::compare_tensors(now[i].second, model_values[i].second, 0, 0) == "");
    }
    CHECK(state_difference(target.opt->state_dict(), opt_before) == "");
    CHECK(target.sched->last_epoch() == sched_before.last_epoch);
    CHECK(target.sched->get_last_lr() == sched_before.last_lr);
  }
};

// Writes `run`'s model and optimizer state dicts (and its scheduler's) beside `epoch` to an archive at `path`.
void save_archive(const Run& run, int64_t epoch, bool with_scheduler, const std::string& path) {
  serialize::OutputArchive out;
  out.write("epoch", epoch);
  out.write("model", run.model->state_dict());
  write(out, "optimizer", run.opt->state_dict());
  if (with_scheduler) write(out, "scheduler", run.sched->state_dict());
  out.save_to(path);
}

// Loads what save_archive wrote into `run`; returns the epoch.
int64_t load_archive(Run& run, bool with_scheduler, const std::string& path) {
  serialize::InputArchive in;
  in.load_from(path);
  int64_t epoch = 0;
  in.read("epoch", epoch);
  nn::StateDict model;
  in.read("model", model);
  run.model->load_state_dict(model);
  OptimizerStateDict state;
  read(in, "optimizer", state);
  run.opt->load_state_dict(state);
  if (with_scheduler) {
    lr_scheduler::SchedulerStateDict sched_state;
    read(in, "scheduler", sched_state);
    run.sched->load_state_dict(sched_state);
  }
  return epoch;
}

}  // namespace

TEST_CASE("a run resumed from a checkpoint continues bit for bit") {
  const testing::ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  const struct {
    std::string name;
    MakeOptimizer opt;
    MakeScheduler sched;
  } cases[] = {{"sgd+step", kSgd, kStep},          {"adam+cosine", kAdam, kCosine},
               {"adamw+step", kAdamW, kStep},      {"rmsprop+step", kRMSprop, kStep},
               {"adagrad+cosine", kAdagrad, kCosine}, {"adadelta+step", kAdadelta, kStep},
               {"adamax+step", kAdamax, kStep},    {"nadam+cosine", kNAdam, kCosine},
               {"radam+step", kRAdam, kStep}};
  for (const auto& c : cases) {
    CAPTURE(c.name);
    for (const int k : {1, 3}) {
      CAPTURE(k);
      Run straight(7, c.opt, c.sched);
      straight.train(0, 9);

      Run first(7, c.opt, c.sched);
      first.train(0, k);
      save_checkpoint(path, *first.model, *first.opt, first.sched.get());
      Run resumed(99, c.opt, c.sched);  // other initial weights: the checkpoint must replace them
      CHECK_FALSE(model_difference(*resumed.model, *first.model).empty());
      load_checkpoint(path, *resumed.model, *resumed.opt, resumed.sched.get());
      CHECK(model_difference(*resumed.model, *first.model) == "");
      CHECK(state_difference(resumed.opt->state_dict(), first.opt->state_dict()) == "");
      CHECK(resumed.sched->get_last_lr() == first.sched->get_last_lr());
      resumed.train(k, 9);

      CHECK(model_difference(*resumed.model, *straight.model) == "");
      CHECK(state_difference(resumed.opt->state_dict(), straight.opt->state_dict()) == "");
      CHECK(resumed.sched->get_last_lr() == straight.sched->get_last_lr());
      CHECK(resumed.sched->last_epoch() == 9);
    }
  }
}

// The train_digits example in small: a CNN on 256 digits, batches of 32 from a loader made per epoch
// and seeded from the epoch (a loader's own generator is not part of a checkpoint).
struct DigitsRun {
  std::shared_ptr<nn::Module> model;
  std::unique_ptr<Optimizer> opt;
  std::unique_ptr<LRScheduler> sched;
  nn::CrossEntropyLoss criterion;

  DigitsRun(uint64_t init_seed, const MakeOptimizer& make_opt, const MakeScheduler& make_sched) {
    manual_seed(init_seed);
    model = std::make_shared<nn::Sequential>(
        std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 1, .out_channels = 4, .kernel_size = 3, .padding = 1}),
        std::make_shared<nn::ReLU>(), std::make_shared<nn::MaxPool2d>(2), std::make_shared<nn::Flatten>(),
        std::make_shared<nn::Linear>(4 * 4 * 4, 10));
    opt = make_opt(model->parameters());
    sched = make_sched(*opt);
  }

  void train(const std::shared_ptr<const data::Dataset>& digits, int first_epoch, int last_epoch) {
    for (int epoch = first_epoch; epoch < last_epoch; ++epoch) {
      data::DataLoader loader(digits, {.batch_size = 32, .shuffle = true, .seed = 1000 + static_cast<uint64_t>(epoch)});
      for (const data::Example& batch : loader) {
        opt->zero_grad();
        criterion((*model)(batch.data), batch.target).backward();
        opt->step();
      }
      sched->step();
    }
  }
};

TEST_CASE("a CNN trained on digits through a DataLoader resumes from a checkpoint bit for bit") {
  REQUIRE_MESSAGE(std::filesystem::exists(data::kDigitsPath), data::kDigitsPath,
                  " missing: install python3-sklearn (scripts/deps.sh)");
  const data::TensorDataset raw = data::load_digits();
  auto all = std::make_shared<data::TensorDataset>(raw.data().div(16.0), raw.target());
  Generator split_generator(5);
  auto digits = std::make_shared<data::Subset>(
      data::random_split(all, {256.0, static_cast<double>(all->size() - 256)}, split_generator)[0]);
  const testing::ScratchDir dir;
  const std::string path = dir.file("digits.safetensors");
  const struct {
    std::string name;
    MakeOptimizer opt;
    MakeScheduler sched;
  } cases[] = {{"sgd+step", kSgd, kStep}, {"adam+cosine", kAdam, kCosine}};
  for (const auto& c : cases) {
    CAPTURE(c.name);
    DigitsRun straight(11, c.opt, c.sched);
    straight.train(digits, 0, 3);

    DigitsRun first(11, c.opt, c.sched);
    first.train(digits, 0, 1);
    save_checkpoint(path, *first.model, *first.opt, first.sched.get());
    DigitsRun resumed(12, c.opt, c.sched);
    load_checkpoint(path, *resumed.model, *resumed.opt, resumed.sched.get());
    resumed.train(digits, 1, 3);

    CHECK_FALSE(model_difference(*first.model, *straight.model).empty());  // training went on after the save
    CHECK(model_difference(*resumed.model, *straight.model) == "");
    CHECK(state_difference(resumed.opt->state_dict(), straight.opt->state_dict()) == "");
    CHECK(resumed.sched->get_last_lr() == straight.sched->get_last_lr());
  }
}

TEST_CASE("a checkpoint keeps a float last_epoch and a group added after the scheduler, as PyTorch's state keeps them") {
  const testing::ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors");
  auto setup = [](Run& run, const Tensor& extra) {
    run.opt->add_param_group({extra}, {{"lr", 0.05}});
    lr_scheduler::SchedulerStateDict dict = run.sched->state_dict();
    dict.last_epoch = 2.5;  // as PyTorch's step(epoch=2.5) leaves it
    dict.last_lr.push_back(0.05);
    run.sched->load_state_dict(dict);
  };
  Run source(3, kAdam, kCosine);
  const Tensor extra = ones({3}).requires_grad_();
  setup(source, extra);
  source.train(0, 2);
  CHECK(source.sched->last_epoch() == 4.5);
  save_checkpoint(path, *source.model, *source.opt, source.sched.get());

  Run resumed(4, kAdam, kCosine);
  const Tensor resumed_extra = ones({3}).requires_grad_();
  setup(resumed, resumed_extra);
  load_checkpoint(path, *resumed.model, *resumed.opt, resumed.sched.get());
  CHECK(resumed.sched->last_epoch() == 4.5);
  CHECK(resumed.sched->get_last_lr() == source.sched->get_last_lr());
  CHECK(resumed.sched->get_last_lr().size() == 2);
  source.train(2, 5);
  resumed.train(2, 5);
  CHECK(resumed.sched->get_last_lr() == source.sched->get_last_lr());
  CHECK(model_difference(*resumed.model, *source.model) == "");
}

TEST_CASE("a checkpoint saved to a .gz path is gzip'd and resumes from it") {
  const testing::ScratchDir dir;
  const std::string path = dir.file("ckpt.safetensors.gz");
  Run first(7, kSgd, kStep);
  first.train(0, 2);
  save_checkpoint(path, *first.model, *first.opt, first.sched.get());
  CHECK(testing::read_file(path).substr(0, 2) == "\x1f\x8b");
  Run resumed(99, kSgd, kStep);
  load_checkpoint(path, *resumed.model, *resumed.opt, resumed.sched.get());
  CHECK(model_difference(*resumed.model, *first.model) == "");
  CHECK(state_difference(resumed.opt->state_dict(), first.opt->state_dict()) == "");
  CHECK(resumed.sched->get_last_lr() == first.sched->get_last_lr());
}

TEST_CASE("the optimizer state dict round-trips and is loaded as a copy") {
  Run run(3, kAdam, kStep);
  run.train(0, 2);
  const OptimizerStateDict saved = run.opt->state_dict();
  CHECK(saved.kind == "Adam");
  REQUIRE(saved.param_groups.size() == 1);
  CHECK(saved.param_groups[0].params == std::vector<int64_t>{0, 1, 2, 3});
  CHECK(saved.param_groups[0].options.at("initial_lr") == 0.01);
  CHECK(saved.state.size() == 4);
  CHECK(saved.state.at(2).at("step").item<float>() == 2);

  Run other(4, kAdam, kStep);
  other.opt->load_state_dict(saved);
  CHECK(state_difference(other.opt->state_dict(), saved) == "");
  other.opt->state_dict().state.at(0).at("exp_avg").add_(1);  // writes the loaded copy only
  CHECK(state_difference(run.opt->state_dict(), saved) == "");
  CHECK_FALSE(state_difference(other.opt->state_dict(), saved).empty());
}

TEST_CASE("a mismatched state dict is an error naming the values; the optimizer is unchanged") {
  Run run(3, kAdam, kStep);
  run.train(0, 2);
  const OptimizerStateDict good = run.opt->state_dict();
  Run target(5, kAdam, kStep);
  target.train(0, 1);
  const OptimizerStateDict before = target.opt->state_dict();
  auto rejects = [&](const OptimizerStateDict& bad, const std::string& message) {
    CHECK_THROWS_WITH_AS(target.opt->load_state_dict(bad), message.c_str(), Error);
    CHECK(state_difference(target.opt->state_dict(), before) == "");
  };

  Run sgd(5, kSgd, kStep);
  sgd.train(0, 1);
  rejects(sgd.opt->state_dict(), "Adam.load_state_dict: the state dict is of a SGD optimizer");
  OptimizerStateDict groups = good;
  groups.param_groups.push_back(groups.param_groups[0]);
  rejects(groups, "Adam.load_state_dict: loaded state dict has a different number of parameter groups (2, the "
                  "optimizer has 1)");
  OptimizerStateDict fewer = good;
  fewer.param_groups[0].params.pop_back();
  rejects(fewer, "Adam.load_state_dict: loaded state dict contains a parameter group that doesn't match the size of "
                 "optimizer's group (group 0 has 3 parameters, the optimizer's 4)");
  OptimizerStateDict shape = good;
  shape.state.at(1).at("exp_avg") = zeros({2, 5});
  rejects(shape, "Adam.load_state_dict: state 'exp_avg' of parameter 1 has shape [2, 5] but [5] was expected");
  OptimizerStateDict index = good;
  index.state[4] = good.state.at(0);
  rejects(index, "Adam.load_state_dict: state of parameter 4 but the optimizer has 4 parameters");
  OptimizerStateDict no_amsgrad = good;
  no_amsgrad.param_groups[0].options["amsgrad"] = 0;
  rejects(no_amsgrad, "Adam.load_state_dict: parameter 0 has state 'max_exp_avg_sq', which this optimizer with "
                      "these options does not keep");
  OptimizerStateDict missing = good;
  missing.state.at(3).erase("exp_avg_sq");
  rejects(missing, "Adam.load_state_dict: parameter 3 lacks state 'exp_avg_sq'");
  OptimizerStateDict bad_beta = good;
  bad_beta.param_groups[0].options["beta1"] = 1.5;
  rejects(bad_beta, "Adam: Invalid beta parameter at index 0: 1.5");
  OptimizerStateDict unknown = good;
  unknown.param_groups[0].options["momentum"] = 0.9;
  rejects(unknown, "Adam: unknown option 'momentum' in a parameter group");
}

TEST_CASE("load_checkpoint rejects another model, optimizer or file and changes none of the three") {
  LoadFixture fixture;
  const testing::ScratchDir& dir = fixture.dir;
  const std::string& path = fixture.path;
  Run& source = fixture.source;
  Run& target = fixture.target;

  SUBCASE("a checkpoint of another model") {
    manual_seed(1);
    auto wide = mlp(6);
    Adam opt(wide->parameters(), {.lr = 0.01, .weight_decay = 1e-2, .amsgrad = true});
    CosineAnnealingLR sched(opt, 4, 1e-3);
    const std::string other = dir.file("wide.safetensors");
    save_checkpoint(other, *wide, opt, &sched);
    CHECK_THROWS_WITH_AS(load_checkpoint(other, *target.model, *target.opt, target.sched.get()),
                         doctest::Contains("size mismatch for 0.weight: copying a param with shape [6, 4]"), Error);
  }
  SUBCASE("another optimizer kind") {
    Run sgd(3, kSgd, kCosine);
    save_checkpoint(path, *sgd.model, *sgd.opt, sgd.sched.get());
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt, target.sched.get()),
                         "Adam.load_state_dict: the state dict is of a SGD optimizer", Error);
  }
  SUBCASE("another scheduler") {
    Run step(3, kAdam, kStep);
    save_checkpoint(path, *step.model, *step.opt, step.sched.get());
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt, target.sched.get()),
                         "CosineAnnealingLR.load_state_dict: the state dict is of a StepLR scheduler", Error);
  }
  SUBCASE("no scheduler saved") {
    save_checkpoint(path, *source.model, *source.opt);
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt, target.sched.get()),
                         ("load_checkpoint: " + path + ": no \"lr_scheduler\" entry in __metadata__").c_str(), Error);
  }
  SUBCASE("a model file, not a checkpoint") {
    nn::save_safetensors(path, source.model->state_dict());
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt, target.sched.get()),
                         ("load_checkpoint: " + path + ": tensor '0.bias' is neither model.* nor optimizer.state.*")
                             .c_str(),
                         Error);
  }
  SUBCASE("malformed optimizer metadata") {
    nn::StateDict tensors;
    for (const auto& [name, t] : source.model->state_dict()) tensors.emplace_back("model." + name, t);
    nn::save_safetensors(path, tensors, {{"optimizer", "[1, 2]"}});
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt),
                         ("load_checkpoint: " + path + ": the \"optimizer\" entry is not a JSON object").c_str(), Error);
    nn::save_safetensors(path, tensors, {{"optimizer", R"({"kind": "Adam", "param_groups": [{"params": [0], "lr": "x"}]})"}});
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt),
                         ("load_checkpoint: " + path + ": hyper-parameter 'lr' is string, not a number").c_str(), Error);
    nn::save_safetensors(path, tensors, {{"optimizer", R"({"kind": "Adam", "param_groups": [{"params": [[0]]}]})"}});
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt),
                         ("load_checkpoint: " + path + ": the optimizer entry has a parameter index of type array").c_str(),
                         Error);
    nn::save_safetensors(path, tensors, {{"optimizer", R"({"kind": "Adam"})"}});
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt),
                         ("load_checkpoint: " + path + ": the optimizer entry has no \"param_groups\" array").c_str(),
                         Error);
    const OptimizerStateDict saved = source.opt->state_dict();
    const std::string optimizer_json = R"({"kind": "Adam", "param_groups": [{"params": [0, 1, 2, 3]}]})";
    tensors.emplace_back("optimizer.state.x.exp_avg", saved.state.at(0).at("exp_avg"));
    nn::save_safetensors(path, tensors, {{"optimizer", optimizer_json}});
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt),
                         ("load_checkpoint: " + path +
                          ": tensor 'optimizer.state.x.exp_avg' is not named optimizer.state.<index>.<key>")
                             .c_str(),
                         Error);
    tensors.pop_back();
    nn::save_safetensors(path, tensors, {{"optimizer", optimizer_json}, {"lr_scheduler", R"({"kind": 3})"}});
    CHECK_THROWS_WITH_AS(load_checkpoint(path, *target.model, *target.opt, target.sched.get()),
                         doctest::Contains(": malformed lr_scheduler entry ([json.exception.type_error.302]"), Error);
  }
  fixture.check_unchanged();
}

TEST_CASE("load_checkpoint failing an allocation at any stage changes none of the three") {
  LoadFixture fixture;
  // Room for more and more bytes: the load fails in reading the file, converting the optimizer's
  // state or loading the model, until it has room for all of it.
  const int64_t in_use = allocator_stats().bytes_in_use;
  int failures = 0;
  for (int64_t room = 0;; room += 8) {
    CAPTURE(room);
    try {
      const testing::ScopedAllocationLimit limit(in_use + room);
      load_checkpoint(fixture.path, *fixture.target.model, *fixture.target.opt, fixture.target.sched.get());
      break;
    } catch (const Error& e) {
      CHECK_MESSAGE(std::string(e.what()).find("would exceed the allocation limit") != std::string::npos, e.what());
    }
    ++failures;
    fixture.check_unchanged();
  }
  CHECK(failures > 10);
  CHECK(model_difference(*fixture.target.model, *fixture.source.model) == "");
  CHECK(state_difference(fixture.target.opt->state_dict(), fixture.source.opt->state_dict()) == "");
  CHECK(fixture.target.sched->get_last_lr() == fixture.source.sched->get_last_lr());
}

TEST_CASE("an archive holds an epoch beside a model's and an optimizer's state dicts, and restores both") {
  testing::ScratchDir dir;
  Run run(3, kAdam, kStep);
  run.train(0, 3);
  save_archive(run, 3, /*with_scheduler=*/false, dir.file("ckpt.safetensors"));

  Run resumed(4, kAdam, kStep);
  CHECK(load_archive(resumed, /*with_scheduler=*/false, dir.file("ckpt.safetensors")) == 3);
  CHECK(model_difference(*resumed.model, *run.model) == "");
  CHECK(state_difference(resumed.opt->state_dict(), run.opt->state_dict()) == "");

  SGD fresh(mlp(2)->parameters(), {.lr = 0.1});  // no state yet: only the param groups are written
  serialize::OutputArchive empty;
  write(empty, "sgd", fresh.state_dict());
  CHECK(empty.entries().size() == 1);
  CHECK(empty.entries()[0].first == "sgd.param_groups");
}

// Adam(lr=0.1) over two fixed parameters after two steps of loss = sum(p0^2) + sum(3 * p1): the archive
// tests/tools/test_load_archive.py loads into torch.optim.Adam and checks against PyTorch's own steps.
serialize::OutputArchive adam_fixture() {
  Tensor p0 = from_vector<double>({1, 2, 3, 4}, {2, 2}).to(DType::Float32).requires_grad_(true);
  Tensor p1 = from_vector<double>({0.5, -0.5}, {2}).to(DType::Float32).requires_grad_(true);
  Adam adam({p0, p1}, {.lr = 0.1});
  for (int i = 0; i < 2; ++i) {
    adam.zero_grad();
    p0.mul(p0).sum().add(p1.mul(3.0).sum()).backward();
    adam.step();
  }
  serialize::OutputArchive archive;
  archive.write("step", 2);
  archive.write("params", nn::StateDict{{"0", p0.detach()}, {"1", p1.detach()}});
  write(archive, "optimizer", adam.state_dict());
  return archive;
}

TEST_CASE("an optimizer in an archive: the file tests/optim/data/adam_archive.safetensors, byte for byte") {
  testing::ScratchDir dir;
  adam_fixture().save_to(dir.file("adam.safetensors"));
  const std::string committed = testing::read_file("tests/optim/data/adam_archive.safetensors");
  REQUIRE_MESSAGE(!committed.empty(), "tests/optim/data/adam_archive.safetensors not found (run from the project root)");
  CHECK(testing::read_file(dir.file("adam.safetensors")) == committed);
}

TEST_CASE("an optimizer state dict missing or malformed in an archive is refused, the target unchanged") {
  testing::ScratchDir dir;
  const std::string path = dir.file("a.safetensors");
  const auto archive_with = [&](const std::string& groups, const std::string& tensor) {
    serialize::OutputArchive out;
    if (!groups.empty()) out.write("optimizer.param_groups", groups);
    if (!tensor.empty()) out.write(tensor, zeros({2}));
    out.save_to(path);
    serialize::InputArchive in;
    in.load_from(path);
    return in;
  };
  OptimizerStateDict kept{"kept", {}, {}};
  CHECK_THROWS_WITH_AS(read(archive_with("", "x"), "optimizer", kept),
                       ("InputArchive: no key 'optimizer.param_groups' in " + path).c_str(), Error);
  const std::string where = "InputArchive: optimizer state dict 'optimizer'";
  CHECK_THROWS_WITH_AS(read(archive_with("[1]", ""), "optimizer", kept),
                       (where + ": 'optimizer.param_groups' is not a JSON object").c_str(), Error);
  CHECK_THROWS_WITH_AS(read(archive_with("{}", ""), "optimizer", kept),
                       (where + ": the optimizer entry has no string \"kind\"").c_str(), Error);
  CHECK_THROWS_WITH_AS(read(archive_with("{\"kind\": \"SGD\", \"param_groups\": []}", "optimizer.state.x.m"),
                            "optimizer", kept),
                       (where + ": tensor 'optimizer.state.x.m' is not named optimizer.state.<index>.<key>").c_str(),
                       Error);
  CHECK(kept.kind == "kept");

  serialize::OutputArchive taken;
  taken.write("optimizer.state", nn::StateDict{{"0.step", zeros({})}});
  Run run(3, kAdam, kStep);
  run.train(0, 1);
  CHECK_THROWS_WITH_AS(write(taken, "optimizer", run.opt->state_dict()),
                       "OutputArchive: key 'optimizer.state.0.step' was already written", Error);
  CHECK(taken.entries().size() == 1);
}

TEST_CASE("OneCycleLR in an archive beside the model and AdamW resumes bit for bit (lr and beta1)") {
  testing::ScratchDir dir;
  Run straight(3, kAdamW, kOneCycle);
  straight.train(0, 5);

  Run first(3, kAdamW, kOneCycle);
  first.train(0, 2);
  save_archive(first, 2, /*with_scheduler=*/true, dir.file("ckpt.safetensors"));

  Run resumed(4, kAdamW, kOneCycle);
  CHECK(load_archive(resumed, /*with_scheduler=*/true, dir.file("ckpt.safetensors")) == 2);
  CHECK(resumed.sched->last_epoch() == 2);
  resumed.train(2, 5);
  CHECK(model_difference(*resumed.model, *straight.model) == "");
  CHECK(state_difference(resumed.opt->state_dict(), straight.opt->state_dict()) == "");
  CHECK(resumed.sched->get_last_lr() == straight.sched->get_last_lr());
}

TEST_CASE("a scheduler state dict missing or malformed in an archive is refused, the target unchanged") {
  testing::ScratchDir dir;
  const std::string path = dir.file("a.safetensors");
  const auto archive_with = [&](const std::string& text) {
    serialize::OutputArchive out;
    out.write("epoch", 1);
    if (!text.empty()) out.write("scheduler", text);
    out.save_to(path);
    serialize::InputArchive in;
    in.load_from(path);
    return in;
  };
  lr_scheduler::SchedulerStateDict kept;
  kept.kind = "kept";
  CHECK_THROWS_WITH_AS(read(archive_with(""), "scheduler", kept),
                       ("InputArchive: no key 'scheduler' in " + path).c_str(), Error);
  CHECK_THROWS_WITH_AS(read(archive_with(""), "epoch", kept), "InputArchive: key 'epoch' holds a int, not a str",
                       Error);
  const std::string where = "InputArchive: scheduler state dict 'scheduler'";
  CHECK_THROWS_WITH_AS(read(archive_with("[1]"), "scheduler", kept),
                       (where + ": 'scheduler' is not a JSON object").c_str(), Error);
  CHECK_THROWS_WITH_AS(read(archive_with("{\"kind\": \"StepLR\"}"), "scheduler", kept),
                       doctest::Contains((where + ": malformed lr_scheduler entry (").c_str()), Error);
  CHECK_THROWS_WITH_AS(
      read(archive_with("{\"kind\": \"StepLR\", \"last_epoch\": 1, \"step_count\": 1.5, \"base_lrs\": [], "
                        "\"last_lr\": []}"),
           "scheduler", kept),
      (where + ": step_count is number, not an integer").c_str(), Error);
  CHECK(kept.kind == "kept");
}

}  // namespace tl::optim
