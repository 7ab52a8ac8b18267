// tests/ops/test_loss.cpp — nll_loss_forward / nll_loss_backward, nll_loss over (N, C, d1, ...),
// cross_entropy_loss (weight, ignore_index, label_smoothing, class-probability targets), mse_loss, the
// other losses of torch.nn (l1, smooth_l1, huber, binary_cross_entropy(_with_logits), kl_div, the embedding
// and margin losses), xlogy, pairwise_distance, cosine_similarity and one_hot: PyTorch 1.13's values and
// torch.autograd's gradients (loss_cases.json), central finite differences of the float64 forward for the
// backward kernels, and each misuse's error text with its inputs left as they were.
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
  CHECK(testing::check_loss_cases(/*softmax=*/false) == 634);
}

TEST_CASE("loss: every case's gradients match torch.autograd's (the weights are constants, as in PyTorch)") {
  int checked = 0;
  for (const testing::OpCase& c : testing::loss_cases()) {
    if (c.grads.empty()) continue;
    CAPTURE(c.name);
    testing::OpCase leaves = c;
    for (auto& input : leaves.inputs)
      if (input.second.defined() && is_floating_point(input.second.dtype()) &&
          input.first.find("weight") == std::string::npos)
        input.second = input.second.clone().requires_grad_();
    const Tensor out = testing::run_loss_case(leaves).at(0);
    (out * c.inputs.at("grad_weight")).sum().backward();
    for (const auto& grad : c.grads) {
      const std::string name = grad.first;
      CAPTURE(name);
      const double rtol = testing::loss_rtol(grad.second);
      CHECK_TENSOR_CLOSE(leaves.inputs.at(name).grad(), grad.second, rtol, rtol);
    }
    ++checked;
  }
  CHECK(checked == 268);
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

TEST_CASE("loss: misuse of the other losses, distances and one_hot throws PyTorch's words with the values") {
  const Tensor x = from_vector<float>({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, {2, 3});
  const Tensor x_before = x.clone();
  CHECK_THROWS_WITH_AS(binary_cross_entropy(x * 2, x),
                       "binary_cross_entropy: all elements of input should be between 0 and 1", Error);
  CHECK_THROWS_WITH_AS(binary_cross_entropy(full({2, 3}, std::nan("")), x),
                       "binary_cross_entropy: all elements of input should be between 0 and 1", Error);
  CHECK_THROWS_WITH_AS(binary_cross_entropy(x, x, ones({2})),
                       "binary_cross_entropy: shapes [2] and [2, 3] cannot be broadcast (size 2 vs 3 at dimension 1)",
                       Error);
  CHECK_THROWS_WITH_AS(binary_cross_entropy(x, x, ones({4, 2, 3})),
                       "binary_cross_entropy: weight of shape [4, 2, 3] does not broadcast to the input's shape [2, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(binary_cross_entropy_with_logits(x, x, {}, ones({3}, DType::Float64)),
                       "binary_cross_entropy_with_logits: expected pos_weight of the input's dtype torch.float32, got "
                       "torch.float64",
                       Error);
  CHECK_THROWS_WITH_AS(smooth_l1_loss(x, x, Reduction::Mean, -0.5),
                       "smooth_l1_loss: smooth_l1_loss does not support negative values for beta, got -0.5", Error);
  CHECK_THROWS_WITH_AS(huber_loss(x, x, Reduction::Mean, 0.0),
                       "huber_loss: huber_loss does not support non-positive values for delta, got 0", Error);
  CHECK_THROWS_WITH_AS(huber_loss(x, ones({3, 2})), "huber_loss: input [2, 3] and target [3, 2] must have the same shape",
                       Error);
  CHECK_THROWS_WITH_AS(smooth_l1_loss(x, x.to(DType::Float64)),
                       "smooth_l1_loss: expected target of the input's dtype torch.float32, got torch.float64", Error);
  CHECK_THROWS_WITH_AS(l1_loss(x, x, 3), "l1_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got 3", Error);
  CHECK_THROWS_WITH_AS(huber_loss_backward(ones({2, 3}), x, x, Reduction::Sum, 1.0),
                       "huber_loss_backward: expected grad_output [] torch.float32 for reduction 2, got [2, 3] "
                       "torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(kl_div(x, ones({2, 3}, DType::Int64)),
                       "kl_div: Integral inputs not supported, got input torch.float32 and target torch.int64", Error);
  CHECK_THROWS_WITH_AS(cosine_embedding_loss(x, x, ones({2, 1})),
                       "cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not supported, got target "
                       "of shape [2, 1]",
                       Error);
  CHECK_THROWS_WITH_AS(triplet_margin_loss(x, x.select(0, 0), x),
                       "triplet_margin_loss: All inputs should have same dimension but got 2D, 1D and 2D inputs.", Error);
  CHECK_THROWS_WITH_AS(cosine_similarity(x.to(DType::Int64), x.to(DType::Int64)),
                       "cosine_similarity: expected common dtype to be floating point, yet common dtype is torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(pairwise_distance(x, ones({2, 4})),
                       "sub: shapes [2, 3] and [2, 4] cannot be broadcast (size 3 vs 4 at dimension 1)", Error);
  const Tensor classes = from_vector<int64_t>({1, 3, 0}, {3});
  CHECK_THROWS_WITH_AS(one_hot(from_vector<int64_t>({1, -2}, {2})),
                       "one_hot: Class values must be non-negative, got -2", Error);
  CHECK_THROWS_WITH_AS(one_hot(classes, 3), "one_hot: Class values must be smaller than num_classes (3), got 3", Error);
  CHECK_THROWS_WITH_AS(one_hot(x), "one_hot: one_hot is only applicable to index tensor, got torch.float32", Error);
  CHECK_THROWS_WITH_AS(one_hot(zeros({0}, DType::Int64)),
                       "one_hot: Can not infer total number of classes from empty tensor.", Error);
  CHECK(equal(x, x_before));
  CHECK(equal(classes, from_vector<int64_t>({1, 3, 0}, {3})));
}

TEST_CASE("loss: the composite losses record PyTorch's parts (the ops torch.profiler shows under them)") {
  const Tensor x = from_vector<double>({0.1, -0.2, 0.3, 0.4, -0.5, 0.6}, {2, 3});
  const Tensor y = from_vector<double>({0.3, 0.2, -0.1, 0.0, 0.5, 0.9}, {2, 3});
  const Tensor signs = from_vector<double>({1, -1}, {2});
  const Tensor probabilities = y.abs(), x0 = x.select(1, 0), y0 = y.select(1, 0), negative = y.flip({0});
  const auto parts = [](const std::function<void()>& run) {
    OpNames seen;
    dispatch::HookGuard guard(&seen);
    run();
    return seen.names;
  };
  using Names = std::vector<std::string>;
  CHECK(parts([&] { l1_loss(x, y); }) == Names{"l1_loss", "sub", "abs", "mean"});
  CHECK(parts([&] { kl_div(x, probabilities, Reduction::Sum); }) == Names{"kl_div", "mul", "xlogy", "sub", "sum"});
  CHECK(parts([&] { kl_div(x, y, Reduction::None, true); }) == Names{"kl_div", "sub", "exp", "mul"});
  CHECK(parts([&] { margin_ranking_loss(x0, y0, signs); }) ==
        Names{"margin_ranking_loss", "sub", "neg", "mul", "add", "clamp_min_", "mean"});
  CHECK(parts([&] { pairwise_distance(x, y); }) == Names{"pairwise_distance", "sub", "add", "norm"});
  CHECK(parts([&] { triplet_margin_loss(x, y, negative); }) ==
        Names{"triplet_margin_loss", "pairwise_distance", "sub", "add", "norm", "pairwise_distance", "sub", "add",
              "norm", "add", "sub", "clamp_min", "mean"});
  CHECK(parts([&] { cosine_embedding_loss(x, y, signs); }) ==
        Names{"cosine_embedding_loss", "mul", "sum", "mul", "sum", "add", "mul", "sum", "add", "mul", "sqrt_", "div",
              "zeros_like", "rsub", "sub", "clamp_min_", "eq", "where", "eq", "where", "add", "mean"});
}

}  // namespace
}  // namespace tl
