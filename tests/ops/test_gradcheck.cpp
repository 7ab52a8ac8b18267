// tests/ops/test_gradcheck.cpp — the gradient check of the OpInfo harness (torch.autograd.gradcheck's
// idea): every sample of every op with a derivative formula, run on float64 inputs that require grad,
// gives the gradients of a weighted sum of its outputs that central finite differences give. Every
// op with a formula must have a sample the check can run. Each sample runs with x and y requiring
// grad, and with only one of them: a call saves only what the formulas of the inputs that need grad
// read, so each formula is checked to read nothing else.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <sstream>

#include "autograd/derivatives.h"
#include "autograd/engine.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "ops/ops.h"
#include "tests/ops/op_db.h"
#include "tests/support/tensor_check.h"

namespace tl::testing {
namespace {

constexpr double kEps = 1e-6, kAtol = 1e-5, kRtol = 1e-3;  // torch.autograd.gradcheck's defaults

// The differentiable results of a sample: float64 outputs that carry autograd history.
struct Outputs {
  TensorList values;
  bool ok = false;
};

Outputs run_sample(const SampleFn& fn, const Tensor& x, const Tensor& y) {
  Outputs out;
  try {
    manual_seed(7);
    for (const Tensor& t : fn(x, y))
      if (t.defined() && t.dtype() == DType::Float64) out.values.push_back(t);
    out.ok = true;
  } catch (const Error&) {  // a sample made for other dtypes (a float32 weight, a bfloat16 cast)
  }
  return out;
}

// sum_k <out[picked_k], w_k> with fixed random weights, so no two elements' gradients can cancel.
Tensor weighted_sum(const TensorList& outs, const std::vector<size_t>& picked, const TensorList& weights) {
  Tensor total = zeros({}, DType::Float64);
  for (size_t k = 0; k < picked.size(); ++k) total = total + (outs.at(picked[k]) * weights[k]).sum();
  return total;
}

double loss_at(const SampleFn& fn, const Tensor& x, const Tensor& y, const std::vector<size_t>& picked,
               const TensorList& weights) {
  NoGradGuard no_grad;
  const Outputs o = run_sample(fn, x, y);
  return weighted_sum(o.values, picked, weights).item<double>();
}

// Which of x and y require grad in one run of a sample.
struct Wrt {
  bool x, y;
  const char* name;
};
constexpr Wrt kWrtEach[] = {{true, true, ""}, {true, false, " (x only)"}, {false, true, " (y only)"}};

// Checks one sample on (x, y), differentiated with respect to `wrt`; returns false when it does not
// apply (no float64 result with history, or a non-finite loss at this point).
bool gradcheck(const SampleFn& fn, const Tensor& x0, const Tensor& y0, Wrt wrt, const std::string& where) {
  Tensor x = x0.clone().requires_grad_(wrt.x), y = y0.clone().requires_grad_(wrt.y);
  const Outputs o = run_sample(fn, x, y);
  if (!o.ok) return false;
  std::vector<size_t> picked;  // the results that carry history
  for (size_t k = 0; k < o.values.size(); ++k)
    if (o.values[k].requires_grad()) picked.push_back(k);
  if (picked.empty()) return false;
  manual_seed(11);
  TensorList weights;
  for (size_t k : picked) weights.push_back(randn(o.values[k].shape(), DType::Float64));
  const Tensor loss = weighted_sum(o.values, picked, weights);
  if (!std::isfinite(loss.item<double>())) return false;
  TensorList inputs, analytic(2);
  if (wrt.x) inputs.push_back(x);
  if (wrt.y) inputs.push_back(y);
  try {
    const TensorList g = autograd::grad({loss}, inputs, {}, false, /*allow_unused=*/true);
    analytic[0] = wrt.x ? g[0] : Tensor();
    analytic[1] = wrt.y ? g.back() : Tensor();
  } catch (const Error& e) {  // an input PyTorch does not differentiate either (a loss's class weights)
    if (std::string(e.what()).find("is not implemented") == std::string::npos) throw;
    return false;
  }
  for (int which = 0; which < 2; ++which) {
    if (!(which == 0 ? wrt.x : wrt.y)) continue;
    const Tensor numeric = numeric_gradient(
        [&](const Tensor& at) {
          return which == 0 ? loss_at(fn, at, y0, picked, weights) : loss_at(fn, x0, at, picked, weights);
        },
        which == 0 ? x0 : y0, kEps);
    for (int64_t i = 0; i < numeric.numel(); ++i) {
      const double n = numeric.data<double>()[i];
      if (!std::isfinite(n)) return false;  // a loss that is not finite near this point
      const double got = analytic[which].defined() ? element_at(analytic[which], i) : 0.0;
      if (std::abs(got - n) > kAtol + kRtol * std::abs(n)) {
        FAIL_CHECK(where, ": d loss / d ", which == 0 ? "x" : "y", "[", i, "] is ", got, " by autograd and ", n,
                   " by finite differences");
        return true;
      }
    }
  }
  return true;
}

TEST_CASE("op info: every op with a derivative formula passes a float64 finite-difference gradient check") {
  manual_seed(3);
  const Tensor x = randn({1, 2, 4, 4}, DType::Float64), y = randn({1, 2, 4, 4}, DType::Float64);
  const Tensor x_pos = x.abs() + 0.5, y_pos = y.abs() + 0.5;  // log, sqrt, pow of a tensor base need x > 0
  std::set<std::string> unchecked;
  int checked = 0;
  for (int k = 0; k < kNumOps; ++k) {
    const auto op = static_cast<OpKind>(k);
    if (autograd::derivative_of(op).kind != autograd::DerivativeKind::Formula) continue;
    bool covered = false;
    for (const Sample& sample : samples_of(op))
      for (const Wrt& wrt : kWrtEach) {
        const std::string where = std::string(op_name(op)) + "/" + sample.name + wrt.name;
        const bool ran_any = gradcheck(sample.fn, x, y, wrt, where);
        const bool ran_positive = gradcheck(sample.fn, x_pos, y_pos, wrt, where + " (positive)");
        const bool ran = ran_any || ran_positive;
        covered = covered || ran;
        checked += ran;
      }
    if (!covered) unchecked.insert(std::string(op_name(op)));
  }
  std::ostringstream list;
  for (const std::string& name : unchecked) list << " " << name;
  MESSAGE("gradient check: ", checked, " samples checked");
  CHECK_MESSAGE(unchecked.empty(), "ops with a derivative formula but no sample the gradient check can run:", list.str());
}

}  // namespace
}  // namespace tl::testing
