// tests/optim/test_optimizer.cpp — every optimizer against PyTorch 1.13's trajectories (bit for bit,
// tests/reference/make_optim_references.py), and their errors and the state those leave.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/autocast.h"
#include "core/generator.h"
#include "nn/linear.h"
#include "ops/ops.h"
#include "optim/adadelta.h"
#include "optim/adagrad.h"
#include "optim/adam.h"
#include "optim/adamax.h"
#include "optim/nadam.h"
#include "optim/radam.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
#include "tests/support/reference_files.h"

namespace tl::optim {
namespace {

using Json = nlohmann::json;

template <typename AdamLike>
AdamLike adam_options(const Json& o) {
  AdamLike options;
  options.lr = o.value("lr", options.lr);
  options.betas = {o.value("beta1", options.betas.first), o.value("beta2", options.betas.second)};
  options.eps = o.value("eps", options.eps);
  options.weight_decay = o.value("weight_decay", options.weight_decay);
  options.amsgrad = o.value("amsgrad", 0) != 0;
  options.maximize = o.value("maximize", 0) != 0;
  return options;
}

// The kinds added after SGD and Adam are made with `defaults`, each group overriding them with `o` (and
// its own overrides), which is the same group options.
template <typename Kind, typename Options = std::monostate>
std::unique_ptr<Optimizer> make_with_overrides(std::vector<ParamGroup> groups, const Json& o,
                                               const Options& defaults = {}) {
  for (ParamGroup& group : groups)
    for (const auto& [key, value] : o.get<Hyperparameters>()) group.options.try_emplace(key, value);
  if constexpr (std::is_same_v<Options, std::monostate>) return std::make_unique<Kind>(std::move(groups));
  else return std::make_unique<Kind>(std::move(groups), defaults);
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& kind, std::vector<ParamGroup> params, const Json& o) {
  if (kind == "RMSprop") return make_with_overrides<RMSprop>(std::move(params), o);
  if (kind == "Adagrad")  // the constructor's initial_accumulator_value fills every group's sums
    return make_with_overrides<Adagrad>(
        std::move(params), o, AdagradOptions{.initial_accumulator_value = o.value("initial_accumulator_value", 0.0)});
  if (kind == "Adadelta") return make_with_overrides<Adadelta>(std::move(params), o);
  if (kind == "Adamax") return make_with_overrides<Adamax>(std::move(params), o);
  if (kind == "NAdam") return make_with_overrides<NAdam>(std::move(params), o);
  if (kind == "RAdam") return make_with_overrides<RAdam>(std::move(params), o);
  if (kind == "SGD")
    return std::make_unique<SGD>(std::move(params),
                                 SGDOptions{o.at("lr").get<double>(), o.value("momentum", 0.0), o.value("dampening", 0.0),
                                            o.value("weight_decay", 0.0), o.value("nesterov", 0) != 0,
                                            o.value("maximize", 0) != 0});
  if (kind == "Adam") return std::make_unique<Adam>(std::move(params), adam_options<AdamOptions>(o));
  REQUIRE(kind == "AdamW");
  return std::make_unique<AdamW>(std::move(params), adam_options<AdamWOptions>(o));
}

Tensor float_tensor(const Json& values, const Shape& shape) {
  return from_vector(values.get<std::vector<float>>(), shape);
}

// The index of the first element whose bits differ from `expected`'s, or -1.
int64_t first_difference(const Tensor& actual, const std::vector<float>& expected) {
  const Tensor flat = actual.contiguous();
  const float* data = flat.data<float>();
  for (size_t i = 0; i < expected.size(); ++i)
    if (std::memcmp(&data[i], &expected[i], sizeof(float)) != 0) return static_cast<int64_t>(i);
  return -1;
}

std::vector<ParamGroup> one_group(std::vector<Tensor> params) { return {ParamGroup{std::move(params), {}}}; }

}  // namespace

TEST_CASE("every optimizer follows PyTorch 1.13's trajectories bit for bit") {
  const Json data = Json::parse(testing::read_reference("optim_trajectories.json"));
  for (const Json& c : data.at("optimizers")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    std::vector<Tensor> params;
    for (size_t i = 0; i < c.at("shapes").size(); ++i)
      params.push_back(float_tensor(c.at("initial")[i], Shape(c.at("shapes")[i].get<std::vector<int64_t>>())).requires_grad_());
    std::unique_ptr<Optimizer> opt;
    const bool appends = !c.at("append_at").is_null();
    if (appends) {
      opt = make_optimizer(c.at("kind"), one_group({params[0]}), c.at("options"));
    } else if (c.at("group2").is_null()) {
      opt = make_optimizer(c.at("kind"), one_group(params), c.at("options"));
    } else if (c.at("group2_to_constructor")) {
      // PyTorch's [{"params": [p0]}, {"params": [p1], **group2}].
      opt = make_optimizer(c.at("kind"), {{{params[0]}}, {{params[1]}, c.at("group2").get<Hyperparameters>()}},
                           c.at("options"));
      REQUIRE(opt->param_groups().size() == 2);
    } else {
      opt = make_optimizer(c.at("kind"), one_group({params[0]}), c.at("options"));
      opt->add_param_group({params[1]}, c.at("group2").get<Hyperparameters>());
      REQUIRE(opt->param_groups().size() == 2);
    }
    for (size_t step = 0; step < c.at("grads").size(); ++step) {
      // PyTorch's param_groups[0]["params"].append(p): p is updated from this step on.
      if (appends && step == c.at("append_at").get<size_t>()) opt->param_groups()[0].params.push_back(params[1]);
      for (size_t i = 0; i < params.size(); ++i) {
        const Json& grad = c.at("grads")[step][i];
        params[i].mutable_grad() = grad.is_null() ? Tensor() : float_tensor(grad, params[i].shape());
      }
      opt->step();
      for (size_t i = 0; i < params.size(); ++i) {
        CAPTURE(step);
        CAPTURE(i);
        CHECK(first_difference(params[i], c.at("expected")[step][i]) == -1);
        CHECK(params[i].is_leaf());
      }
    }
    // The parameter skipped once (its .grad None at step 2) took one step fewer.
    const auto step_count = [&](size_t i) { return opt->state(params[i]).at("step").item<double>(); };
    if (c.at("kind") != "SGD" && !appends) {
      CHECK(step_count(0) == c.at("grads").size());
      CHECK(step_count(1) == c.at("grads").size() - 1);
    }
    // PyTorch's state names (a std::map keeps them sorted, as the generator sorts them).
    std::vector<std::string> keys;
    for (const auto& entry : opt->state(params[0])) keys.push_back(entry.first);
    CHECK(keys == c.at("state_keys").get<std::vector<std::string>>());
    for (size_t i = 0; i < params.size(); ++i) {
      const Json& steps = c.at("state_steps")[i];
      if (!steps.is_null()) CHECK(step_count(i) == steps.get<double>());
    }
  }
}

TEST_CASE("state follows each parameter when a group's params are edited, and the state dict packs it by position") {
  Tensor a = ones({2}).requires_grad_(), b = ones({3}).requires_grad_(), c = ones({1}).requires_grad_();
  Adam opt({a}, {.lr = 0.1});
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({3});
  c.mutable_grad() = ones({1});
  opt.step();
  opt.param_groups()[0].params.push_back(b);
  opt.add_param_group({c});
  opt.step();
  CHECK(opt.state(a).at("step").item<float>() == 2);
  CHECK(opt.state(b).at("step").item<float>() == 1);
  CHECK(opt.state(c).at("step").item<float>() == 1);
  CHECK(opt.state(c).at("exp_avg").shape() == Shape{1});
  CHECK(opt.state(1).at("exp_avg").is_same(opt.state(b).at("exp_avg")));

  // Removing a from the group: b, c move up a position; their state goes with them.
  opt.param_groups()[0].params.erase(opt.param_groups()[0].params.begin());
  const OptimizerStateDict dict = opt.state_dict();
  REQUIRE(dict.param_groups.size() == 2);
  CHECK(dict.param_groups[0].params == std::vector<int64_t>{0});
  CHECK(dict.param_groups[1].params == std::vector<int64_t>{1});
  REQUIRE(dict.state.size() == 2);
  CHECK(dict.state.at(0).at("exp_avg").shape() == Shape{3});
  CHECK(dict.state.at(1).at("exp_avg").shape() == Shape{1});
  CHECK(opt.state(a).at("step").item<float>() == 2);  // kept, as PyTorch's state[p], but no longer packed

  // Loaded into an optimizer over copies, positions name the parameters; the state of a tensor no
  // group holds is dropped.
  Tensor b2 = ones({3}).requires_grad_(), c2 = ones({1}).requires_grad_();
  Adam other({a, b2}, {.lr = 0.1});
  other.add_param_group({c2});
  a.mutable_grad() = ones({2});
  b2.mutable_grad() = ones({3});
  c2.mutable_grad() = ones({1});
  other.step();
  other.param_groups()[0].params.erase(other.param_groups()[0].params.begin());
  other.load_state_dict(dict);
  CHECK(other.state(a).empty());
  CHECK(other.state(b2).at("step").item<float>() == 1);
  CHECK_FALSE(other.state(b2).at("exp_avg").is_same(opt.state(b).at("exp_avg")));
  opt.step();
  other.step();
  CHECK(b.sum().item<float>() == b2.sum().item<float>());
  CHECK(c.sum().item<float>() == c2.sum().item<float>());
}

TEST_CASE("step refuses an edited group whose params add_param_group would refuse, and updates nothing") {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  SGD opt({a}, {.lr = 0.1, .momentum = 0.9});
  opt.add_param_group({b});
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({2});
  auto& params = opt.param_groups()[1].params;
  params.push_back(Tensor());
  CHECK_THROWS_WITH_AS(opt.step(), "SGD: parameter 1 of group 1 is undefined (None)", Error);
  params.back() = zeros({2}, DType::Int64);
  CHECK_THROWS_WITH_AS(opt.step(), "SGD: can only optimize floating-point tensors, parameter 1 of group 1 is torch.int64",
                       Error);
  params.back() = a.mul(2);
  CHECK_THROWS_WITH_AS(opt.step(), "can't optimize a non-leaf Tensor (parameter 1 of group 1)", Error);
  params.back() = ones({2}, DType::Float64);
  CHECK_THROWS_WITH_AS(opt.step(), doctest::Contains("SGD: parameter 1 of group 1 is torch.float64 but the optimizer's first "
                                                     "parameter is torch.float32"),
                       Error);
  params.back() = a;
  CHECK_THROWS_WITH_AS(opt.step(),
                       "some parameters appear in more than one parameter group (parameter 1 of group 1 is in group 0)",
                       Error);
  params.back() = b;
  CHECK_THROWS_WITH_AS(opt.step(),
                       "some parameters appear in more than one parameter group (parameter 1 of group 1 is parameter "
                       "0 of the same group)",
                       Error);
  CHECK(a.sum().item<float>() == 2);
  CHECK(b.sum().item<float>() == 2);
  CHECK(opt.state(a).empty());
  params.pop_back();
  opt.step();
  CHECK(opt.state(b).at("momentum_buffer").shape() == Shape{2});
}

TEST_CASE("state is created lazily, per parameter, with PyTorch's entries") {
  Tensor a = ones({2}).requires_grad_(), b = ones({3}).requires_grad_();
  SGD plain({a}, {.lr = 0.1});
  SGD momentum({b}, {.lr = 0.1, .momentum = 0.9});
  Adam adam({a, b}, {.amsgrad = true});
  CHECK(momentum.state(0).empty());
  CHECK(adam.state(1).empty());
  a.mutable_grad() = ones({2});
  b.mutable_grad() = ones({3});
  plain.step();
  momentum.step();
  adam.step();
  CHECK(plain.state(0).empty());
  CHECK(momentum.state(0).size() == 1);
  CHECK(momentum.state(0).at("momentum_buffer").shape() == Shape{3});
  CHECK(adam.state(1).size() == 4);
  CHECK(adam.state(1).at("step").shape() == Shape{});
  CHECK(adam.state(1).at("max_exp_avg_sq").shape() == Shape{3});
  CHECK_THROWS_WITH_AS(adam.state(2), "Adam: parameter index 2 out of range for 2 parameters", Error);
}

TEST_CASE("amsgrad's running maximum propagates NaN as torch.maximum does") {
  Tensor p = zeros({3}).requires_grad_();
  Adam opt({p}, {.amsgrad = true});
  p.mutable_grad() = from_vector<float>({1, 2, 3}, {3});
  opt.step();
  const Tensor first = opt.state(0).at("max_exp_avg_sq").clone();
  p.mutable_grad() = from_vector<float>({NAN, 0, 5}, {3});
  opt.step();
  const Tensor m = opt.state(0).at("max_exp_avg_sq");
  CHECK(std::isnan(m.select(0, 0).item<float>()));
  // Element 1 decayed (its new square is 0), so the maximum is still the first step's value.
  CHECK(m.select(0, 1).item<float>() == first.select(0, 1).item<float>());
  CHECK(m.select(0, 2).item<float>() > first.select(0, 2).item<float>());
  CHECK(m.select(0, 2).item<float>() == opt.state(0).at("exp_avg_sq").select(0, 2).item<float>());
}

TEST_CASE("zero_grad zeroes .grad in place by default, as PyTorch 1.13's, or clears it") {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  SGD opt({a, b}, {.lr = 0.1});
  a.mutable_grad() = from_vector<float>({3, NAN}, {2});
  const Tensor kept = a.grad();
  opt.zero_grad();
  CHECK(a.grad().is_same(kept));
  CHECK(kept.sum().item<float>() == 0);
  CHECK_FALSE(b.grad().defined());
  opt.zero_grad(true);
  CHECK_FALSE(a.grad().defined());
}

TEST_CASE("constructor errors use PyTorch's wording and the values") {
  Tensor p = ones({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(SGD({}, {.lr = 0.1}), "optimizer got an empty parameter list", Error);
  CHECK_THROWS_WITH_AS(Adam({}), "optimizer got an empty parameter list", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.momentum = 0.9}),
                       "SGD: parameter group didn't specify a value of required optimization parameter lr", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = -0.5}), "SGD: Invalid learning rate: -0.5", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = 0.1, .momentum = -0.25}), "SGD: Invalid momentum value: -0.25", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = 0.1, .weight_decay = -1}), "SGD: Invalid weight_decay value: -1", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = 0.1, .nesterov = true}),
                       "SGD: Nesterov momentum requires a momentum and zero dampening (momentum=0, dampening=0)",
                       Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.5, .nesterov = true}),
                       "SGD: Nesterov momentum requires a momentum and zero dampening (momentum=0.9, dampening=0.5)",
                       Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.lr = -1}), "Adam: Invalid learning rate: -1", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.eps = -1e-8}), "Adam: Invalid epsilon value: -1e-08", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.betas = {1.0, 0.999}}), "Adam: Invalid beta parameter at index 0: 1", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.betas = {0.9, -0.1}}), "Adam: Invalid beta parameter at index 1: -0.1", Error);
  CHECK_THROWS_WITH_AS(AdamW({p}, {.betas = {0.9, 1.5}}), "AdamW: Invalid beta parameter at index 1: 1.5", Error);
  CHECK_THROWS_WITH_AS(AdamW({p}, {.weight_decay = -0.01}), "AdamW: Invalid weight_decay value: -0.01", Error);
}

TEST_CASE("a NaN hyper-parameter is refused with PyTorch's words and the value, given or set later") {
  Tensor p = ones({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = NAN}), "SGD: Invalid learning rate: nan", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = 0.1, .momentum = NAN}), "SGD: Invalid momentum value: nan", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = 0.1, .dampening = NAN}), "SGD: Invalid dampening value: nan", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = 0.1, .weight_decay = NAN}), "SGD: Invalid weight_decay value: nan", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.lr = NAN}), "Adam: Invalid learning rate: nan", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.eps = NAN}), "Adam: Invalid epsilon value: nan", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.betas = {NAN, 0.999}}), "Adam: Invalid beta parameter at index 0: nan", Error);
  CHECK_THROWS_WITH_AS(AdamW({p}, {.weight_decay = NAN}), "AdamW: Invalid weight_decay value: nan", Error);

  // Set on a group later (by hand or by a scheduler): step names the group when there are several.
  Tensor q = ones({2}).requires_grad_();
  SGD opt({p}, {.lr = 0.1});
  p.mutable_grad() = ones({2});
  opt.param_groups()[0].options["lr"] = NAN;
  CHECK_THROWS_WITH_AS(opt.step(), "SGD: Invalid learning rate: nan", Error);
  opt.param_groups()[0].options["lr"] = 0.1;
  opt.add_param_group({q}, {{"lr", 0.2}});
  q.mutable_grad() = ones({2});
  opt.param_groups()[1].options["lr"] = NAN;
  CHECK_THROWS_WITH_AS(opt.step(), "SGD: Invalid learning rate: nan (parameter group 1)", Error);
  CHECK(p.sum().item<float>() == 2);
  CHECK(q.sum().item<float>() == 2);
  // An empty list is reported before a missing lr, as by PyTorch's constructor.
  CHECK_THROWS_WITH_AS(SGD({}, {}), "optimizer got an empty parameter list", Error);
}

TEST_CASE("a bool option (nesterov, maximize, amsgrad, centered) takes 0 or 1 in a group's options, nothing else") {
  Tensor p = ones({2}).requires_grad_(), q = ones({2}).requires_grad_();
  SGD sgd({p}, {.lr = 0.1, .momentum = 0.9});
  CHECK_THROWS_WITH_AS(sgd.add_param_group({q}, {{"nesterov", 0.5}}),
                       "SGD: option 'nesterov' is a bool, 0 or 1 in a group's options, got 0.5", Error);
  CHECK_THROWS_WITH_AS(Adam({q}, AdamOptions{}).add_param_group({ones({1}).requires_grad_()}, {{"amsgrad", 2}}),
                       "Adam: option 'amsgrad' is a bool, 0 or 1 in a group's options, got 2", Error);
  CHECK(sgd.param_groups().size() == 1);
  p.mutable_grad() = ones({2});
  sgd.param_groups()[0].options["maximize"] = -1;
  CHECK_THROWS_WITH_AS(sgd.step(), "SGD: option 'maximize' is a bool, 0 or 1 in a group's options, got -1", Error);
  CHECK(p.sum().item<float>() == 2);
  RMSprop rms({q}, {});
  rms.param_groups()[0].options["centered"] = NAN;
  q.mutable_grad() = ones({2});
  CHECK_THROWS_WITH_AS(rms.step(), "RMSprop: option 'centered' is a bool, 0 or 1 in a group's options, got nan", Error);
  sgd.param_groups()[0].options["maximize"] = 1;
  sgd.step();
  CHECK(p.sum().item<float>() == doctest::Approx(2.2));
}

TEST_CASE("parameters must be distinct floating-point leaves") {
  Tensor p = ones({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(SGD({p, Tensor()}, {.lr = 0.1}), "SGD: parameter 1 of the group is undefined (None)", Error);
  CHECK_THROWS_WITH_AS(SGD({zeros({2}, DType::Int64)}, {.lr = 0.1}),
                       "SGD: can only optimize floating-point tensors, parameter 0 is torch.int64", Error);
  CHECK_THROWS_WITH_AS(SGD({p.mul(2)}, {.lr = 0.1}), "can't optimize a non-leaf Tensor (parameter 0 of the group)",
                       Error);
  CHECK_THROWS_WITH_AS(SGD({p, p}, {.lr = 0.1}),
                       "some parameters appear in more than one parameter group (parameter 1 is parameter 0 of the "
                       "same group)",
                       Error);
}

TEST_CASE("add_param_group fills defaults, and a failed call adds nothing") {
  Tensor a = ones({2}).requires_grad_(), b = ones({3}).requires_grad_(), c = ones({1}).requires_grad_();
  SGD opt({a}, {.lr = 0.1, .momentum = 0.9});
  CHECK_THROWS_WITH_AS(opt.add_param_group({b, a}),
                       "some parameters appear in more than one parameter group (parameter 1 is in group 0)", Error);
  CHECK_THROWS_WITH_AS(opt.add_param_group({b}, {{"betas", 0.5}}),
                       "SGD: unknown option 'betas' in a parameter group", Error);
  CHECK_THROWS_WITH_AS(opt.add_param_group({b}, {{"lr", -2}}), "SGD: Invalid learning rate: -2", Error);
  CHECK_THROWS_WITH_AS(opt.add_param_group({}), "optimizer got an empty parameter list", Error);
  CHECK(opt.param_groups().size() == 1);
  CHECK_THROWS_WITH_AS(opt.state(1), "SGD: parameter index 1 out of range for 1 parameters", Error);
  opt.add_param_group({b, c}, {{"lr", 0.5}});
  REQUIRE(opt.param_groups().size() == 2);
  CHECK(opt.param_groups()[1].options.at("lr") == 0.5);
  CHECK(opt.param_groups()[1].options.at("momentum") == 0.9);
  CHECK(opt.state(2).empty());
}

TEST_CASE("step checks every gradient, state and option first, and then updates nothing on error") {
  Tensor a = ones({2}).requires_grad_(), b = ones({2, 3}).requires_grad_();
  Adam opt({a, b}, {.lr = 0.1});
  a.mutable_grad() = ones({2});
  // Assigning .grad refuses these; written through the raw slot, step must refuse them too.
  Tensor& b_grad = b.mutable_grad();
  b_grad = ones({3});
  CHECK_THROWS_WITH_AS(opt.step(),
                       "Adam.step: parameter 1 of shape [2, 3] and dtype torch.float32 has a gradient of shape [3] "
                       "and dtype torch.float32",
                       Error);
  b_grad = ones({2, 3}, DType::Float64);
  CHECK_THROWS_WITH_AS(opt.step(), doctest::Contains("has a gradient of shape [2, 3] and dtype torch.float64"), Error);
  CHECK(a.sum().item<float>() == 2);
  CHECK(opt.state(0).empty());

  b.mutable_grad() = ones({2, 3});
  opt.step();
  const float a_after = a.sum().item<float>();
  opt.param_groups()[0].options["amsgrad"] = 1;
  CHECK_THROWS_WITH_AS(opt.step(),
                       "Adam.step: parameter 0 has no state 'max_exp_avg_sq', which its group's options need (were "
                       "they changed after its first step?)",
                       Error);
  opt.param_groups()[0].options["amsgrad"] = 0;
  opt.param_groups()[0].options["lr"] = -0.1;
  CHECK_THROWS_WITH_AS(opt.step(), "Adam: Invalid learning rate: -0.1", Error);
  CHECK(a.sum().item<float>() == a_after);
  CHECK(opt.state(0).at("step").item<float>() == 1);
}

TEST_CASE("one optimizer keeps one parameter dtype; a mixed list or group is refused and adds nothing") {
  Tensor a = ones({2}).requires_grad_(), h = ones({2}, DType::BFloat16).requires_grad_();
  CHECK_THROWS_WITH_AS(SGD({a, h}, {.lr = 0.1}),
                       doctest::Contains("SGD: parameter 1 of the group is torch.bfloat16 but the optimizer's first "
                                         "parameter is torch.float32"),
                       Error);
  SGD opt({a}, {.lr = 0.1});
  CHECK_THROWS_WITH_AS(opt.add_param_group({h}), doctest::Contains("run the forward under tl::autocast"), Error);
  CHECK(opt.param_groups().size() == 1);
  SGD bf16_only({h}, {.lr = 0.1});  // one dtype throughout is fine, bfloat16 too
  CHECK(bf16_only.param_groups()[0].params.size() == 1);
}

TEST_CASE("step inside an open autocast scope is refused and updates nothing") {
  Tensor a = ones({2}).requires_grad_();
  SGD opt({a}, {.lr = 0.1, .momentum = 0.9});
  a.mutable_grad() = ones({2});
  {
    autocast scope;
    CHECK_THROWS_WITH_AS(opt.step(),
                         "SGD.step: called inside an open tl::autocast scope (torch.bfloat16); close the scope after "
                         "the forward pass and the loss, before backward() and step()",
                         Error);
  }
  CHECK(a.sum().item<float>() == 2);
  CHECK(opt.state(0).empty());
  opt.step();
  CHECK(a.sum().item<float>() == doctest::Approx(1.8));
}

TEST_CASE("model->to(dtype) after the optimizer was built converts the tensors it holds, so training goes on") {
  manual_seed(43);
  auto net = std::make_shared<nn::Linear>(3, 2);
  SGD opt(net->parameters(), {.lr = 0.5, .momentum = 0.9});
  const Tensor weight = net->get_parameter("weight");
  (*net)(randn({4, 3})).sum().backward();
  const Tensor grad = weight.grad();
  const Tensor grad_values = grad.clone();

  net->to(DType::Float64);
  CHECK(net->get_parameter("weight").is_same(weight));
  CHECK(opt.param_groups()[0].params[0].dtype() == DType::Float64);
  // Its gradient is converted in place too (PyTorch's param.grad.data = ...).
  CHECK(weight.grad().is_same(grad));
  CHECK(grad.dtype() == DType::Float64);
  CHECK(equal(grad, grad_values.to(DType::Float64)));
  CHECK(weight.requires_grad());
  CHECK(weight.is_leaf());

  for (int i = 0; i < 2; ++i) {
    const Tensor start = weight.clone();
    opt.step();
    CHECK_FALSE(equal(weight, start));  // the optimizer updates the model's parameter
    CHECK(opt.state(weight).at("momentum_buffer").dtype() == DType::Float64);
    opt.zero_grad();
    (*net)(randn({4, 3}, DType::Float64)).sum().backward();
  }
}


TEST_CASE("each optimizer's defaults are PyTorch 1.13's") {
  const Json data = Json::parse(testing::read_reference("optim_trajectories.json"));
  for (const Json& d : data.at("defaults")) {
    const std::string kind = d.at("kind");
    CAPTURE(kind);
    const Json options = kind == "SGD" ? Json{{"lr", 0.1}} : Json::object();
    const std::unique_ptr<Optimizer> opt = make_optimizer(kind, one_group({ones({2}).requires_grad_()}), options);
    CHECK(opt->kind() == kind);
    CHECK(opt->param_groups()[0].options == d.at("options").get<Hyperparameters>());
  }
}

TEST_CASE("the optimizers after SGD and Adam refuse invalid options with PyTorch's words and change nothing") {
  Tensor p = ones({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(RMSprop({}), "optimizer got an empty parameter list", Error);
  CHECK_THROWS_WITH_AS(RMSprop({p}, {.lr = -1}), "RMSprop: Invalid learning rate: -1", Error);
  CHECK_THROWS_WITH_AS(RMSprop({p}, {.eps = -1}), "RMSprop: Invalid epsilon value: -1", Error);
  CHECK_THROWS_WITH_AS(RMSprop({p}, {.momentum = -0.5}), "RMSprop: Invalid momentum value: -0.5", Error);
  CHECK_THROWS_WITH_AS(RMSprop({p}, {.weight_decay = NAN}), "RMSprop: Invalid weight_decay value: nan", Error);
  CHECK_THROWS_WITH_AS(RMSprop({p}, {.alpha = -0.1}), "RMSprop: Invalid alpha value: -0.1", Error);
  CHECK_THROWS_WITH_AS(Adagrad({p}, {.lr = -1}), "Adagrad: Invalid learning rate: -1", Error);
  CHECK_THROWS_WITH_AS(Adagrad({p}, {.lr_decay = -1}), "Adagrad: Invalid lr_decay value: -1", Error);
  CHECK_THROWS_WITH_AS(Adagrad({p}, {.weight_decay = -1}), "Adagrad: Invalid weight_decay value: -1", Error);
  CHECK_THROWS_WITH_AS(Adagrad({p}, {.initial_accumulator_value = -1}),
                       "Adagrad: Invalid initial_accumulator_value value: -1", Error);
  CHECK_THROWS_WITH_AS(Adagrad({p}, {.eps = -1}), "Adagrad: Invalid epsilon value: -1", Error);
  CHECK_THROWS_WITH_AS(Adadelta({p}, {.lr = -1}), "Adadelta: Invalid learning rate: -1", Error);
  CHECK_THROWS_WITH_AS(Adadelta({p}, {.rho = 1.5}), "Adadelta: Invalid rho value: 1.5", Error);
  CHECK_THROWS_WITH_AS(Adadelta({p}, {.eps = -1}), "Adadelta: Invalid epsilon value: -1", Error);
  CHECK_THROWS_WITH_AS(Adadelta({p}, {.weight_decay = -1}), "Adadelta: Invalid weight_decay value: -1", Error);
  CHECK_THROWS_WITH_AS(Adamax({p}, {.lr = -1}), "Adamax: Invalid learning rate: -1", Error);
  CHECK_THROWS_WITH_AS(Adamax({p}, {.betas = {1.0, 0.9}}), "Adamax: Invalid beta parameter at index 0: 1", Error);
  CHECK_THROWS_WITH_AS(NAdam({p}, {.betas = {0.9, -0.1}}), "NAdam: Invalid beta parameter at index 1: -0.1", Error);
  CHECK_THROWS_WITH_AS(NAdam({p}, {.momentum_decay = -1}), "NAdam: Invalid momentum_decay value: -1", Error);
  CHECK_THROWS_WITH_AS(RAdam({p}, {.eps = -1}), "RAdam: Invalid epsilon value: -1", Error);
  CHECK_THROWS_WITH_AS(RAdam({p}, {.weight_decay = -1}), "RAdam: Invalid weight_decay value: -1", Error);
  // PyTorch 1.13's NAdam and RAdam have no maximize.
  CHECK_THROWS_WITH_AS(RAdam({{.params = {p}, .options = {{"maximize", 1}}}}),
                       "RAdam: unknown option 'maximize' in a parameter group", Error);

  // Set on a group later, the value is refused by step, which updates nothing.
  RMSprop opt({p}, {.momentum = 0.9});
  p.mutable_grad() = ones({2});
  opt.step();
  const Tensor after = p.clone();
  const Tensor buffer = opt.state(p).at("momentum_buffer").clone();
  opt.param_groups()[0].options["alpha"] = -1;
  CHECK_THROWS_WITH_AS(opt.step(), "RMSprop: Invalid alpha value: -1", Error);
  CHECK(equal(p, after));
  CHECK(equal(opt.state(p).at("momentum_buffer"), buffer));
  CHECK(opt.state(p).at("step").item<int64_t>() == 1);
}

TEST_CASE("a list of parameter groups takes per-group overrides, and a bad group makes no optimizer") {
  Tensor a = ones({2}).requires_grad_(), b = ones({3}).requires_grad_();
  SGD opt({{.params = {a}}, {.params = {b}, .options = {{"lr", 1e-2}, {"momentum", 0.5}}}}, {.lr = 0.1});
  REQUIRE(opt.param_groups().size() == 2);
  CHECK(opt.param_groups()[0].options.at("lr") == 0.1);
  CHECK(opt.param_groups()[0].options.at("momentum") == 0);
  CHECK(opt.param_groups()[1].options.at("lr") == 1e-2);
  CHECK(opt.param_groups()[1].options.at("momentum") == 0.5);
  const std::vector<ParamGroup> groups{{.params = {a}}, {.params = {b}}};
  CHECK(Adam(groups).param_groups().size() == 2);
  CHECK_THROWS_WITH_AS(SGD({{.params = {a}}, {.params = {b}}}, {}),
                       "SGD: parameter group didn't specify a value of required optimization parameter lr", Error);
  CHECK_THROWS_WITH_AS(Adam({{.params = {a}}, {.params = {a}}}),
                       "some parameters appear in more than one parameter group (parameter 0 is in group 0)", Error);
  CHECK_THROWS_WITH_AS(Adam({{.params = {a}}, {.params = {b}, .options = {{"lr", -1}}}}),
                       "Adam: Invalid learning rate: -1", Error);
  CHECK_THROWS_WITH_AS(Adam({{.params = {a}}, {.params = {}}}), "optimizer got an empty parameter list", Error);
  CHECK_THROWS_WITH_AS(Adagrad(std::vector<ParamGroup>{}), "optimizer got an empty parameter list", Error);
}

TEST_CASE("Adam's fused loop (dense float parameters) and its per-op path (others) agree bit for bit") {
  for (const DType dtype : {DType::Float32, DType::Float64})
    for (const bool decoupled : {false, true}) {
      CAPTURE(dtype);
      CAPTURE(decoupled);
      manual_seed(3);
      const Tensor values = randn({5, 3}, dtype);
      Tensor dense = values.clone().requires_grad_();
      Tensor strided = values.t().contiguous().t().requires_grad_();  // the same values, column-major
      REQUIRE_FALSE(strided.is_contiguous());
      const AdamWOptions o{.lr = 0.05, .weight_decay = 0.1, .amsgrad = true, .maximize = true};
      std::unique_ptr<Optimizer> fused, per_op;
      if (decoupled) {
        fused = std::make_unique<AdamW>(std::vector{dense}, o);
        per_op = std::make_unique<AdamW>(std::vector{strided}, o);
      } else {
        const AdamOptions adam{.lr = o.lr, .weight_decay = o.weight_decay, .amsgrad = true, .maximize = true};
        fused = std::make_unique<Adam>(std::vector{dense}, adam);
        per_op = std::make_unique<Adam>(std::vector{strided}, adam);
      }
      for (int step = 0; step < 4; ++step) {
        const Tensor grad = randn({5, 3}, dtype);
        dense.mutable_grad() = grad;
        strided.mutable_grad() = grad;
        fused->step();
        per_op->step();
        CHECK(equal(dense, strided));
        CHECK(equal(fused->state(0).at("max_exp_avg_sq"), per_op->state(0).at("max_exp_avg_sq")));
      }
    }
}

TEST_CASE("Adagrad fills its state in the constructor, as PyTorch's") {
  Tensor a = ones({2}).requires_grad_(), b = ones({3}).requires_grad_();
  Adagrad opt({{.params = {a}}, {.params = {b}, .options = {{"initial_accumulator_value", 2}}}},
              {.initial_accumulator_value = 0.5});
  CHECK(opt.state(a).at("step").item<float>() == 0);
  CHECK(opt.state(a).at("sum").sum().item<float>() == 1);
  CHECK(opt.state(b).at("sum").sum().item<float>() == doctest::Approx(1.5));  // the constructor's value
  CHECK(opt.state_dict().state.size() == 2);
  Tensor c = ones({1}).requires_grad_();
  opt.add_param_group({c}, {{"initial_accumulator_value", 3}});
  CHECK(opt.state(c).empty());
  c.mutable_grad() = zeros({1});
  opt.step();
  CHECK(opt.state(c).at("sum").item<float>() == 3);
}

}  // namespace tl::optim
