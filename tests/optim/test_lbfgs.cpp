// tests/optim/test_lbfgs.cpp — LBFGS against PyTorch 1.13 (tests/reference/make_optim_references.py) on
// least squares and Rosenbrock, with and without the strong Wolfe line search, and its errors.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "optim/lbfgs.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::optim {
namespace {

using Json = nlohmann::json;

LBFGSOptions lbfgs_options(const Json& o) {
  LBFGSOptions options;
  options.lr = o.value("lr", options.lr);
  options.max_iter = o.value("max_iter", options.max_iter);
  options.history_size = o.value("history_size", options.history_size);
  if (o.value("line_search_fn", 0) == 1) options.line_search_fn = "strong_wolfe";
  return options;
}

// The closure of PyTorch's LBFGS examples: zero_grad, the loss, backward.
LBFGS::Closure make_closure(LBFGS& opt, const Tensor& p, const std::string& problem, const Json& data) {
  if (problem == "least_squares") {
    const Tensor a = from_vector(data.at("a").get<std::vector<float>>(), {10, 4});
    const Tensor b = from_vector(data.at("b").get<std::vector<float>>(), {10});
    return [&opt, p, a, b] {
      opt.zero_grad();
      Tensor loss = a.matmul(p).sub(b).pow(2).sum();
      loss.backward();
      return loss;
    };
  }
  return [&opt, p] {
    opt.zero_grad();
    const Tensor x = p.select(0, 0), y = p.select(0, 1);
    Tensor loss = rsub(x, 1).pow(2).add(y.sub(x.pow(2)).pow(2).mul(100));
    loss.backward();
    return loss;
  };
}

}  // namespace

// Not bit for bit: torch.dot and matmul sum in BLAS's order and PyTorch's line search mixes float32
// tensors with Python floats. A loss one ulp apart ends a step an evaluation earlier or later (its
// |loss - prev_loss| < tolerance_change test), so the counts of evaluations and Rosenbrock's path
// through its narrow valley may differ. Least squares agrees after every step to 1e-5 relative (worst
// seen: 1.5e-6 of 0.37), Rosenbrock at its minimum (1, 1) after the last step to 1e-4 (worst: 4.9e-5).
TEST_CASE("LBFGS reaches PyTorch 1.13's parameters on least squares and Rosenbrock") {
  const Json data = Json::parse(testing::read_reference("optim_trajectories.json"));
  for (const Json& c : data.at("lbfgs")) {
    const std::string name = c.at("name");
    CAPTURE(name);
    const std::vector<float> initial = c.at("initial").get<std::vector<float>>();
    Tensor p = from_vector(initial, {static_cast<int64_t>(initial.size())}).requires_grad_();
    LBFGS opt({p}, lbfgs_options(c.at("options")));
    const LBFGS::Closure closure = make_closure(opt, p, c.at("problem"), c.at("data"));
    const size_t steps = c.at("expected").size();
    for (size_t step = 0; step < steps; ++step) {
      CAPTURE(step);
      const Tensor loss = opt.step(closure);
      if (step == 0) CHECK(loss.item<double>() == doctest::Approx(c.at("losses")[0].get<double>()).epsilon(1e-6));
      if (c.at("problem") == "least_squares" || step + 1 == steps) {
        const std::vector<float> expected = c.at("expected")[step].get<std::vector<float>>();
        const bool lsq = c.at("problem") == "least_squares";
        CHECK_TENSOR_CLOSE(p.detach(), from_vector(expected, p.shape()), lsq ? 1e-5 : 1e-4, lsq ? 1e-6 : 1e-5);
      }
    }
    CHECK(opt.state(p).at("n_iter").item<int64_t>() > 0);
  }
}

TEST_CASE("LBFGS's misuse is refused with PyTorch's words, changing nothing") {
  Tensor a = ones({2}).requires_grad_(), b = ones({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(LBFGS({{.params = {a}}, {.params = {b}}}),
                       "LBFGS doesn't support per-parameter options (parameter groups)", Error);
  CHECK_THROWS_WITH_AS(LBFGS({a}, {.line_search_fn = "backtracking"}),
                       "LBFGS: only 'strong_wolfe' is supported, got 'backtracking'", Error);
  CHECK_THROWS_WITH_AS(LBFGS({a}, {.history_size = 0}), "LBFGS: history_size must be at least 1, got 0", Error);
  CHECK_THROWS_WITH_AS(LBFGS({}), "optimizer got an empty parameter list", Error);

  LBFGS opt({a});
  CHECK(opt.param_groups()[0].options.at("max_eval") == 25);  // PyTorch's max_iter * 5 // 4
  CHECK_THROWS_WITH_AS(
      opt.step([] { return ones({2}); }),
      "LBFGS.step: the closure must return the loss, a one-element tensor, got one of shape [2]", Error);
  CHECK(opt.state(a).empty());
  a.mutable_grad() = ones({2});
  Optimizer& base = opt;
  CHECK_THROWS_WITH_AS(
      base.step(),
      "LBFGS.step: needs a closure that reevaluates the model and returns the loss (LBFGS::step(closure))", Error);
  CHECK(a.sum().item<float>() == 2);
  opt.add_param_group({b});
  CHECK_THROWS_WITH_AS(opt.step([&] { return a.sum(); }),
                       "LBFGS doesn't support per-parameter options (parameter groups)", Error);
  CHECK(a.sum().item<float>() == 2);
}

TEST_CASE("LBFGS: a closure that throws mid-step leaves the parameters and the state as before the step") {
  const Tensor target = from_vector<float>({1, -2, 3}, {3}), weight = from_vector<float>({1, 10, 100}, {3});
  for (const bool line_search : {false, true}) {
    CAPTURE(line_search);
    Tensor p = zeros({3}).requires_grad_(), q = zeros({3}).requires_grad_();
    const LBFGSOptions options{.max_iter = 4, .history_size = 3,
                               .line_search_fn = line_search ? std::optional<std::string>("strong_wolfe") : std::nullopt};
    LBFGS failing({p}, options), clean({q}, options);
    int calls = 0, fail_at = -1;
    const auto closure = [&](LBFGS& opt, const Tensor& x) {
      return [&, model = &opt, x] {
        TL_CHECK(calls++ != fail_at, "the model failed");
        model->zero_grad();
        Tensor loss = x.sub(target).pow(2).mul(weight).sum();
        loss.backward();
        return loss;
      };
    };
    failing.step(closure(failing, p));
    clean.step(closure(clean, q));
    const OptimizerStateDict before = failing.state_dict();
    const Tensor p_before = p.detach().clone();
    for (const int k : {0, 1, 3}) {  // the first evaluation, the next, one inside the iterations
      CAPTURE(k);
      calls = 0, fail_at = k;
      CHECK_THROWS_WITH_AS(failing.step(closure(failing, p)), "the model failed", Error);
      CHECK(equal(p.detach(), p_before));
      const OptimizerStateDict after = failing.state_dict();
      REQUIRE(after.state.at(0).size() == before.state.at(0).size());
      for (const auto& entry : before.state.at(0)) {
        const std::string& key = entry.first;
        CAPTURE(key);
        CHECK(equal(after.state.at(0).at(key), entry.second));
      }
    }
    fail_at = -1;
    failing.step(closure(failing, p));
    clean.step(closure(clean, q));
    CHECK(equal(p, q));
  }
}

TEST_CASE("LBFGS: an empty closure is a tl::Error, not std::bad_function_call") {
  Tensor a = ones({2}).requires_grad_();
  LBFGS opt({a});
  CHECK_THROWS_WITH_AS(opt.step(LBFGS::Closure{}),
                       "LBFGS.step: the closure is empty; it must reevaluate the model and return the loss", Error);
  CHECK(opt.state(a).empty());
}

TEST_CASE("LBFGS's state dict carries its history, so a loaded optimizer continues as the original") {
  const Tensor target = from_vector<float>({1, -2, 3}, {3}), weight = from_vector<float>({1, 10, 100}, {3});
  const auto run = [&](LBFGS& opt, const Tensor& p, int steps) {
    for (int i = 0; i < steps; ++i)
      opt.step([&] {
        opt.zero_grad();
        Tensor loss = p.sub(target).pow(2).mul(weight).sum();
        loss.backward();
        return loss;
      });
  };
  const LBFGSOptions options{.max_iter = 2, .history_size = 3, .line_search_fn = "strong_wolfe"};
  Tensor p = zeros({3}).requires_grad_(), q = zeros({3}).requires_grad_();
  LBFGS straight({p}, options), resumed({q}, options);
  run(straight, p, 2);
  const OptimizerStateDict dict = straight.state_dict();
  CHECK(dict.state.at(0).at("old_dirs").dim() == 2);
  q.detach().copy_(p.detach());
  resumed.load_state_dict(dict);
  run(straight, p, 2);
  run(resumed, q, 2);
  CHECK(equal(p, q));
}

}  // namespace tl::optim
