// tests/ops/test_loss.cpp — nll_loss_forward / nll_loss_backward, nll_loss over (N, C, d1, ...),
// cross_entropy_loss (weight, ignore_index, label_smoothing, class-probability targets), mse_loss and
// its backward: PyTorch 1.13's values (loss_cases.json), central finite differences of the float64
// forward for the backward kernels, and each misuse's error text with its inputs left as they were.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/generator.h"
#include "ops/ops.h"
#include "tests/ops/loss_cases.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {


/// grad_output for `reduction`: (n) values for none, one value otherwise.
Tensor grad_for(int64_t reduction, const Shape& per_element) {
  return reduction == Reduction::None ? randn(per_element, DType::Float64) : randn({}, DType::Float64);
}

TEST_CASE("loss: every nll_loss, cross_entropy_loss and mse_loss case matches PyTorch 1.13") {
  CHECK(testing::check_loss_cases(/*softmax=*/false) == 214);
}

TEST_CASE("loss: nll_loss_backward is the derivative of the float64 nll_loss_forward") {
  manual_seed(5);
  const Tensor self = randn({6, 5}, DType::Float64);
  const Tensor target = from_vector<int64_t>({4, 0, -100, 2, 2, 1}, {6});
  const Tensor weight = from_vector<double>({0.5, 1.0, 2.0, 0.25, 1.5}, {5});
  for (int64_t reduction : {Reduction::None, Reduction::Mean, Reduction::Sum})
    for (const Tensor& w : {Tensor(), weight}) {
      CAPTURE(reduction);
      CAPTURE(w.defined());
      const Tensor g = grad_for(reduction, {6});
      const auto objective = [&](const Tensor& x) {
        return sum(std::get<0>(nll_loss_forward(x, target, w, reduction, -100)) * g).item<double>();
      };
      const Tensor total = std::get<1>(nll_loss_forward(self, target, w, reduction, -100));
      CHECK_TENSOR_CLOSE(nll_loss_backward(g, self, target, w, reduction, -100, total),
                         testing::numeric_gradient(objective, self), 1e-6, 1e-8);
    }
}

TEST_CASE("loss: mse_loss_backward is the derivative of the float64 mse_loss") {
  manual_seed(6);
  const Tensor self = randn({3, 4}, DType::Float64), target = randn({3, 4}, DType::Float64);
  for (int64_t reduction : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    CAPTURE(reduction);
    const Tensor g = grad_for(reduction, {3, 4});
    const auto objective = [&](const Tensor& x) { return sum(mse_loss(x, target, reduction) * g).item<double>(); };
    CHECK_TENSOR_CLOSE(mse_loss_backward(g, self, target, reduction), testing::numeric_gradient(objective, self), 1e-6, 1e-8);
  }
}

TEST_CASE("loss: cross_entropy_loss equals nll_loss of log_softmax without smoothing, over (N, C, d) too") {
  manual_seed(7);
  const Tensor x = randn({2, 3, 4}, DType::Float64);
  const Tensor t = from_vector<int64_t>({0, 2, 1, -100, 1, 1, 0, 2}, {2, 4});
  for (int64_t reduction : {Reduction::None, Reduction::Mean, Reduction::Sum}) {
    CAPTURE(reduction);
    CHECK(equal(cross_entropy_loss(x, t, {}, reduction), nll_loss(log_softmax(x, 1), t, {}, reduction)));
  }
  // Every target ignored: PyTorch's mean is 0 / 0.
  CHECK(std::isnan(nll_loss(log_softmax(x, 1), full({2, 4}, -100, DType::Int64)).item<double>()));
}

/// The names of every op dispatched while it is installed, nested ones included, in call order.
class OpNames : public DispatchHook {
 public:
  void before(const OpCall& call) override { names.emplace_back(op_name(call.op)); }
  std::vector<std::string> names;
};

bool contains(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names)
    if (n == name) return true;
  return false;
}

TEST_CASE("loss: the composite ops do their work through dispatched ops (what autograd records)") {
  const Tensor x = from_vector<double>({0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {2, 3});
  const Tensor t = from_vector<int64_t>({2, 0}, {2});
  OpNames seen;
  {
    dispatch::HookGuard guard(&seen);
    cross_entropy_loss(x, t, {}, Reduction::Mean, -100, 0.1);
  }
  for (const char* part : {"cross_entropy_loss", "log_softmax", "_log_softmax", "nll_loss_forward", "sum", "mul"}) {
    CAPTURE(part);
    CHECK(contains(seen.names, part));
  }
  const Tensor x_nd = zeros({2, 3, 4}, DType::Float64), t_nd = zeros({2, 4}, DType::Int64);
  OpNames nd;
  {
    dispatch::HookGuard guard(&nd);
    nll_loss(x_nd, t_nd);
  }
  for (const char* part : {"nll_loss", "permute", "reshape", "nll_loss_forward"}) {
    CAPTURE(part);
    CHECK(contains(nd.names, part));
  }
}

TEST_CASE("loss: misuse throws tl::Error naming the values and leaves the inputs as they were") {
  const Tensor x = from_vector<float>({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, {2, 3});
  const Tensor t = from_vector<int64_t>({2, 0}, {2});
  const Tensor x_before = x.clone(), t_before = t.clone();
  CHECK_THROWS_WITH_AS(nll_loss(x, from_vector<int64_t>({12, 0}, {2})),
                       "nll_loss_forward: Target 12 is out of bounds: expected a class in [0, 3) or ignore_index -100",
                       Error);
  CHECK_THROWS_WITH_AS(cross_entropy_loss(x, from_vector<int64_t>({1, -1}, {2})),
                       "nll_loss_forward: Target -1 is out of bounds: expected a class in [0, 3) or ignore_index -100",
                       Error);
  CHECK_THROWS_WITH_AS(nll_loss(x, t.to(DType::Int32)), "nll_loss_forward: expected target of dtype int64, got torch.int32",
                       Error);
  CHECK_THROWS_WITH_AS(nll_loss(x, from_vector<int64_t>({0, 1, 2}, {3})),
                       "nll_loss_forward: expected input batch_size (2) to match target batch_size (3)", Error);
  CHECK_THROWS_WITH_AS(cross_entropy_loss(x, t, ones({4})),
                       "nll_loss_forward: expected weight with one element per class (3), got shape [4]", Error);
  CHECK_THROWS_WITH_AS(nll_loss(x, t, ones({3}, DType::Float64)),
                       "nll_loss_forward: expected weight of the input's dtype torch.float32, got torch.float64", Error);
  CHECK_THROWS_WITH_AS(cross_entropy_loss(x, t, {}, Reduction::Mean, -100, 1.5),
                       "cross_entropy_loss: label_smoothing must be between 0.0 and 1.0, got 1.5", Error);
  CHECK_THROWS_WITH_AS(cross_entropy_loss(x, t, {}, Reduction::Mean, -100, -0.1),
                       "cross_entropy_loss: label_smoothing must be between 0.0 and 1.0, got -0.1", Error);
  CHECK_THROWS_WITH_AS(cross_entropy_loss(x, t, {}, 3),
                       "cross_entropy_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got 3", Error);
  CHECK_THROWS_WITH_AS(nll_loss(x, t, {}, -1), "nll_loss_forward: reduction must be 0 (none), 1 (mean) or 2 (sum), got -1",
                       Error);
  CHECK_THROWS_WITH_AS(nll_loss(zeros({2, 3, 4}), zeros({2, 5}, DType::Int64)),
                       "nll_loss: expected target of size (N, d1, ...) = [2, 4] for input [2, 3, 4], got [2, 5]", Error);
  CHECK_THROWS_WITH_AS(cross_entropy_loss(x, ones({2, 2})),
                       "cross_entropy_loss: class-probability target must have the input's shape [2, 3] and dtype "
                       "torch.float32, got [2, 2] torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(mse_loss(x, ones({3, 2})), "mse_loss: input [2, 3] and target [3, 2] must have the same shape",
                       Error);
  CHECK_THROWS_WITH_AS(mse_loss(x, x, 5), "mse_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got 5", Error);
  CHECK_THROWS_WITH_AS(mse_loss_backward(ones({2, 3}), x, x, Reduction::Mean),
                       "mse_loss_backward: expected grad_output [] torch.float32 for reduction 1, got [2, 3] torch.float32", Error);
  CHECK_THROWS_WITH_AS(nll_loss_backward(ones({}), x, t, {}, Reduction::Mean, -100, ones({2})),
                       "nll_loss_backward: expected a single-element total_weight of dtype torch.float32, got [2] torch.float32",
                       Error);
  CHECK(equal(x, x_before));
  CHECK(equal(t, t_before));
}

}  // namespace
}  // namespace tl
