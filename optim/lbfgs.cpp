// optim/lbfgs.cpp — LBFGS's step and its strong Wolfe line search, statement for statement PyTorch
// 1.13's torch/optim/lbfgs.py. The vectors are float tensors as there; the line search's numbers are
// doubles where PyTorch mixes Python floats and 0-dim float32 tensors, and torch.dot sums in BLAS's
// order, so results agree with PyTorch's to rounding, not bit for bit.
#include "optim/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

#include "core/error.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "ops/ops.h"

namespace tl::optim {
namespace {

Hyperparameters lbfgs_defaults(const LBFGSOptions& o) {
  TL_CHECK(!o.line_search_fn || *o.line_search_fn == "strong_wolfe", "LBFGS: only 'strong_wolfe' is supported, got '",
           o.line_search_fn.value_or(""), "'");
  return {{"lr", o.lr},
          {"max_iter", static_cast<double>(o.max_iter)},
          {"max_eval", static_cast<double>(o.max_eval.value_or(o.max_iter * 5 / 4))},
          {"tolerance_grad", o.tolerance_grad},
          {"tolerance_change", o.tolerance_change},
          {"history_size", static_cast<double>(o.history_size)},
          {"line_search_fn", o.line_search_fn ? 1.0 : 0.0}};
}

std::vector<ParamGroup> one_group(std::vector<ParamGroup> groups) {
  TL_CHECK(groups.size() <= 1, "LBFGS doesn't support per-parameter options (parameter groups)");
  return groups;
}

// torch.dot(a, b) as a 0-dim tensor of their dtype.
Tensor dot(const Tensor& a, const Tensor& b) { return a.mul(b).sum(); }

double max_abs(const Tensor& x) { return x.abs().max().item<double>(); }

// The closure's loss, with grad mode on (torch.enable_grad()(closure)).
Tensor evaluate(const LBFGS::Closure& closure) {
  AutoGradMode enable_grad(true);
  Tensor loss = closure();
  TL_CHECK(loss.defined() && loss.numel() == 1,
           "LBFGS.step: the closure must return the loss, a one-element tensor, got ", loss.defined() ? detail::str_cat("one of shape ", loss.shape()) : std::string("an undefined tensor"));
  return loss;
}

// The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clamped to `bounds`
// (by default the interval between x1 and x2); its midpoint when the cubic has no minimum.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [xmin_bound, xmax_bound] = bounds ? *bounds : (x1 <= x2 ? std::pair(x1, x2) : std::pair(x2, x1));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square < 0) return (xmin_bound + xmax_bound) / 2.;
  const double d2 = std::sqrt(d2_square);
  const double min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                  : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  return std::min(std::max(min_pos, xmin_bound), xmax_bound);
}

struct LineSearchResult {
  double loss;
  Tensor flat_grad;
  double t;
  int64_t func_evals;
};

// The loss and flat gradient at the params moved t along the search direction.
using Objective = std::function<std::pair<double, Tensor>(double t)>;

// PyTorch's _strong_wolfe: a step t along d (gtd = g . d < 0) meeting the strong Wolfe conditions, by
// bracketing and then zooming in with cubic interpolation, at most max_ls evaluations.
LineSearchResult strong_wolfe(const Objective& obj, double t, const Tensor& d, double f, const Tensor& g, double gtd,
                              double c1 = 1e-4, double c2 = 0.9, double tolerance_change = 1e-9, int64_t max_ls = 25) {
  const double d_norm = max_abs(d);
  double f_new = 0;  // not a structured binding: the lambda below captures it (clang 14 refuses that)
  Tensor g_new;
  std::tie(f_new, g_new) = obj(t);
  int64_t ls_func_evals = 1;
  double gtd_new = dot(g_new, d).item<double>();
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g.clone();
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  const auto bracket_previous_and_new = [&] {
    bracket = {t_prev, t}, bracket_f = {f_prev, f_new}, bracket_g = {g_prev, g_new.clone()};
    bracket_gtd = {gtd_prev, gtd_new};
  };
  while (ls_iter < max_ls) {
    if (f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= f_prev)) {
      bracket_previous_and_new();
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t}, bracket_f = {f_new}, bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket_previous_and_new();
      break;
    }
    // Interpolate a longer step.
    const double min_step = t + 0.01 * (t - t_prev);
    const double max_step = t * 10;
    const double tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair(min_step, max_step));
    t_prev = tmp, f_prev = f_new, g_prev = g_new.clone(), gtd_prev = gtd_new;
    std::tie(f_new, g_new) = obj(t);
    ++ls_func_evals;
    gtd_new = dot(g_new, d).item<double>();
    ++ls_iter;
  }
  if (ls_iter == max_ls) bracket = {0, t}, bracket_f = {f, f_new}, bracket_g = {g, g_new};

  // Zoom: shrink the bracket until a point satisfies the conditions or it cannot shrink further.
  bool insuf_progress = false;
  size_t low_pos = bracket_f.front() <= bracket_f.back() ? 0 : 1, high_pos = 1 - low_pos;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    const double hi = std::max(bracket[0], bracket[1]), lo = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (hi - lo);
    // Too close to an end of the bracket: move away from it, unless the last step made progress.
    if (std::min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj(t);
    ++ls_func_evals;
    gtd_new = dot(g_new, d).item<double>();
    ++ls_iter;
    if (f_new > f + c1 * t * gtd || f_new >= bracket_f[low_pos]) {
      bracket[high_pos] = t, bracket_f[high_pos] = f_new, bracket_g[high_pos] = g_new.clone();
      bracket_gtd[high_pos] = gtd_new;
      low_pos = bracket_f[0] <= bracket_f[1] ? 0 : 1, high_pos = 1 - low_pos;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0) {
        bracket[high_pos] = bracket[low_pos], bracket_f[high_pos] = bracket_f[low_pos];
        bracket_g[high_pos] = bracket_g[low_pos], bracket_gtd[high_pos] = bracket_gtd[low_pos];
      }
      bracket[low_pos] = t, bracket_f[low_pos] = f_new, bracket_g[low_pos] = g_new.clone();
      bracket_gtd[low_pos] = gtd_new;
    }
  }
  return {bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals};
}

}  // namespace

LBFGS::LBFGS(std::vector<Tensor> params, const LBFGSOptions& o)
    : LBFGS(std::vector{ParamGroup{std::move(params), {}}}, o) {}
LBFGS::LBFGS(std::vector<ParamGroup> groups, const LBFGSOptions& o) : Optimizer("LBFGS", lbfgs_defaults(o)) {
  add_first_groups(one_group(std::move(groups)));
}

void LBFGS::check_options(const Hyperparameters& o) const {
  TL_CHECK(option(o, "history_size") >= 1, "LBFGS: history_size must be at least 1, got ", option(o, "history_size"));
  TL_CHECK(option(o, "line_search_fn") == 0 || option(o, "line_search_fn") == 1,
           "LBFGS: line_search_fn is 0 (None) or 1 ('strong_wolfe') in a group's options, got ",
           option(o, "line_search_fn"));
}

std::vector<std::string> LBFGS::state_keys(const Hyperparameters&) const { return {"func_evals", "n_iter"}; }

std::vector<std::string> LBFGS::optional_state_keys() const {
  return {"d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss"};
}

std::optional<Shape> LBFGS::state_shape(const std::string& key, const Tensor&) const {
  if (key == "d" || key == "old_dirs" || key == "old_stps" || key == "ro" || key == "prev_flat_grad")
    return std::nullopt;
  return Shape{};
}

void LBFGS::update(Tensor&, const Tensor&, const Hyperparameters&, ParamState&) {
  TL_CHECK(false, "LBFGS.step: needs a closure that reevaluates the model and returns the loss (LBFGS::step(closure))");
}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups()[0].params)
    views.push_back(p.grad().defined() ? p.grad().reshape({p.numel()}) : zeros({p.numel()}, p.dtype()));
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& direction) {
  int64_t offset = 0;
  for (Tensor& p : param_groups()[0].params) {
    const int64_t numel = p.numel();
    p.add_(direction.slice(0, offset, offset + numel).reshape(p.shape()), step_size);
    offset += numel;
  }
}

std::pair<double, Tensor> LBFGS::directional_evaluate(const Closure& closure, const std::vector<Tensor>& x, double t,
                                                      const Tensor& d) {
  add_grad(t, d);
  const double loss = evaluate(closure).item<double>();
  Tensor flat_grad = gather_flat_grad();
  std::vector<Tensor>& params = param_groups()[0].params;
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(x[i]);
  return {loss, flat_grad};
}

Tensor LBFGS::step(const Closure& closure) {
  RecordFunction scope([] { return std::string("Optimizer.step#LBFGS.step"); }, RecordScope::UserScope);
  TL_CHECK(static_cast<bool>(closure), "LBFGS.step: the closure is empty; it must reevaluate the model and return the loss");
  TL_CHECK(param_groups().size() == 1, "LBFGS doesn't support per-parameter options (parameter groups)");
  check_step();
  NoGradGuard no_grad;
  // The iterations move the parameters and keep the new state apart until the end: a closure that throws
  // (a failing model, a bad loss) leaves both as they were before the step.
  std::vector<Tensor>& params = param_groups()[0].params;
  std::vector<Tensor> saved;
  for (const Tensor& p : params) saved.push_back(p.clone());
  try {
    return iterate(closure);
  } catch (...) {
    for (size_t i = 0; i < params.size(); ++i) params[i].copy_(saved[i]);
    throw;
  }
}

Tensor LBFGS::iterate(const Closure& closure) {
  const Hyperparameters& o = param_groups()[0].options;
  const double lr = option(o, "lr"), tolerance_grad = option(o, "tolerance_grad");
  const double tolerance_change = option(o, "tolerance_change");
  const auto max_iter = static_cast<int64_t>(option(o, "max_iter"));
  const auto max_eval = static_cast<int64_t>(option(o, "max_eval"));
  const auto history_size = static_cast<size_t>(option(o, "history_size"));
  const bool line_search = option(o, "line_search_fn") == 1;
  const Tensor first = param_groups()[0].params[0];
  const DType dtype = first.dtype();
  const ParamState& state = this->state(first);
  const auto get = [&](const char* key) { return state.count(key) ? state.at(key) : Tensor(); };
  const auto count = [&](const char* key) { return state.count(key) ? state.at(key).item<int64_t>() : int64_t{0}; };
  int64_t func_evals = count("func_evals"), state_n_iter = count("n_iter");

  const Tensor orig_loss = evaluate(closure);
  double loss = orig_loss.item<double>();
  int64_t current_evals = 1;
  ++func_evals;
  Tensor flat_grad = gather_flat_grad();
  bool opt_cond = max_abs(flat_grad) <= tolerance_grad;
  ParamState next = state;  // the state after the step, installed at its end
  next["func_evals"] = scalar_tensor(func_evals, DType::Int64);
  next["n_iter"] = scalar_tensor(state_n_iter, DType::Int64);
  if (opt_cond) {  // optimal condition
    mutable_state(first) = std::move(next);
    return orig_loss;
  }

  // The previous step's direction, step size and history (PyTorch's lists of tensors, stacked in the state).
  Tensor d = get("d"), prev_flat_grad = get("prev_flat_grad"), H_diag = get("H_diag");
  double t = state.count("t") ? state.at("t").item<double>() : 0;
  double prev_loss = state.count("prev_loss") ? state.at("prev_loss").item<double>() : 0;
  std::vector<Tensor> old_dirs, old_stps, ro;
  if (state.count("old_dirs"))
    for (int64_t i = 0; i < state.at("old_dirs").size(0); ++i) {
      old_dirs.push_back(state.at("old_dirs").select(0, i));
      old_stps.push_back(state.at("old_stps").select(0, i));
      ro.push_back(state.at("ro").select(0, i));
    }

  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    ++n_iter;
    ++state_n_iter;
    // The descent direction.
    if (state_n_iter == 1) {
      d = flat_grad.neg();
      old_dirs.clear(), old_stps.clear(), ro.clear();
      H_diag = ones({}, dtype);
    } else {
      // Update the memory with the last step's gradient difference y and step s.
      const Tensor y = flat_grad.sub(prev_flat_grad);
      const Tensor s = d.mul(t);
      const Tensor ys = dot(y, s);
      if (ys.item<double>() > 1e-10) {
        if (old_dirs.size() == history_size) {
          old_dirs.erase(old_dirs.begin()), old_stps.erase(old_stps.begin()), ro.erase(ro.begin());
        }
        old_dirs.push_back(y), old_stps.push_back(s), ro.push_back(ys.reciprocal());
        H_diag = ys.div(dot(y, y));  // an estimate of the Hessian's scale
      }
      // The two-loop recursion: d = -H grad.
      const size_t num_old = old_dirs.size();
      std::vector<Tensor> al(num_old);
      Tensor q = flat_grad.neg();
      for (size_t i = num_old; i-- > 0;) {
        al[i] = dot(old_stps[i], q).mul(ro[i]);
        q.add_(old_dirs[i], -al[i].item<double>());
      }
      d = q.mul(H_diag);
      for (size_t i = 0; i < num_old; ++i) {
        const Tensor be_i = dot(old_dirs[i], d).mul(ro[i]);
        d.add_(old_stps[i], al[i].sub(be_i).item<double>());
      }
    }
    prev_flat_grad = flat_grad.clone();  // not copy_ into the state's: that is committed at the end
    prev_loss = loss;

    // The step size: the first one scaled by the gradient's size, as PyTorch's min(1., 1. / |g|_1) * lr.
    if (state_n_iter == 1) {
      const Tensor inverse = flat_grad.abs().sum().reciprocal();
      t = inverse.item<double>() < 1. ? inverse.mul(lr).item<double>() : lr;
    } else {
      t = lr;
    }
    const double gtd = dot(flat_grad, d).item<double>();
    if (gtd > -tolerance_change) break;  // the directional derivative is below tolerance

    int64_t ls_func_evals = 0;
    if (line_search) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : param_groups()[0].params) x_init.push_back(p.clone());
      const Objective obj = [&](double step) { return directional_evaluate(closure, x_init, step, d); };
      LineSearchResult found = strong_wolfe(obj, t, d, loss, flat_grad, gtd);
      loss = found.loss, flat_grad = found.flat_grad, t = found.t, ls_func_evals = found.func_evals;
      add_grad(t, d);
      opt_cond = max_abs(flat_grad) <= tolerance_grad;
    } else {
      // A fixed step; re-evaluate unless this is the last iteration.
      add_grad(t, d);
      if (n_iter != max_iter) {
        loss = evaluate(closure).item<double>();
        flat_grad = gather_flat_grad();
        opt_cond = max_abs(flat_grad) <= tolerance_grad;
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    func_evals += ls_func_evals;

    if (n_iter == max_iter || current_evals >= max_eval || opt_cond) break;
    if (max_abs(d.mul(t)) <= tolerance_change) break;  // lack of progress
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }

  next["func_evals"] = scalar_tensor(func_evals, DType::Int64);
  next["n_iter"] = scalar_tensor(state_n_iter, DType::Int64);
  if (d.defined()) {
    const int64_t numel = d.numel();
    next["d"] = d;
    next["t"] = scalar_tensor(t, DType::Float64);
    next["old_dirs"] = old_dirs.empty() ? zeros({0, numel}, dtype) : stack(old_dirs);
    next["old_stps"] = old_stps.empty() ? zeros({0, numel}, dtype) : stack(old_stps);
    next["ro"] = ro.empty() ? zeros({0}, dtype) : stack(ro);
    next["H_diag"] = H_diag;
    next["prev_flat_grad"] = prev_flat_grad;
    next["prev_loss"] = scalar_tensor(prev_loss, DType::Float64);
  }
  mutable_state(first) = std::move(next);
  return orig_loss;
}

}  // namespace tl::optim
