// optim/adam.cpp — the Adam / AdamW update, step for step PyTorch 1.13's _single_tensor_adam(w) so that
// float32 results round as PyTorch's do: scalars are computed in double, each tensor op rounds once. A
// dense float parameter takes one fused loop doing the same operations (see FusedAdam).
#include "optim/adam.h"

#include <cmath>

#include "core/error.h"
#include "core/parallel.h"
#include "ops/ops.h"

namespace tl::optim {
namespace detail {

void check_adam_like_options(const char* kind, const Hyperparameters& o) {
  const double beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  TL_CHECK(option(o, "lr") >= 0, kind, ": Invalid learning rate: ", option(o, "lr"));
  TL_CHECK(option(o, "eps") >= 0, kind, ": Invalid epsilon value: ", option(o, "eps"));
  TL_CHECK(beta1 >= 0 && beta1 < 1, kind, ": Invalid beta parameter at index 0: ", beta1);
  TL_CHECK(beta2 >= 0 && beta2 < 1, kind, ": Invalid beta parameter at index 1: ", beta2);
  TL_CHECK(option(o, "weight_decay") >= 0, kind, ": Invalid weight_decay value: ", option(o, "weight_decay"));
}

// Neither a < b nor a >= b holds when either is NaN; a + b is NaN then.
void maximum_(Tensor& a, const Tensor& b) { a.copy_(where(a.lt(b), b, where(a.ge(b), a, a.add(b)))); }

}  // namespace detail

namespace {

template <typename Options>
Hyperparameters adam_defaults(const Options& o) {
  Hyperparameters defaults = detail::adam_like_defaults(o);
  defaults["amsgrad"] = o.amsgrad ? 1.0 : 0.0;
  defaults["maximize"] = o.maximize ? 1.0 : 0.0;
  return defaults;
}

}  // namespace

Adam::Adam(std::vector<Tensor> params, const AdamOptions& o)
    : Adam(std::vector{ParamGroup{std::move(params), {}}}, o) {}
Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& o) : Adam("Adam", std::move(groups), adam_defaults(o)) {}
Adam::Adam(const char* kind, std::vector<ParamGroup> groups, Hyperparameters defaults)
    : Optimizer(kind, std::move(defaults)) {
  add_first_groups(std::move(groups));
}
AdamW::AdamW(std::vector<Tensor> params, const AdamWOptions& o)
    : AdamW(std::vector{ParamGroup{std::move(params), {}}}, o) {}
AdamW::AdamW(std::vector<ParamGroup> groups, const AdamWOptions& o)
    : Adam("AdamW", std::move(groups), adam_defaults(o)) {}

void Adam::check_options(const Hyperparameters& o) const { detail::check_adam_like_options(kind(), o); }

std::vector<std::string> Adam::state_keys(const Hyperparameters& o) const {
  if (option(o, "amsgrad")) return {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
  return {"step", "exp_avg", "exp_avg_sq"};
}

namespace {

// Adam's update of one parameter as one loop over its elements, without temporaries or dispatch: the
// per-op path's operations in its order, each rounded to T once and each number rounded to T first,
// as the ops (and PyTorch's CPU kernels) round them, so both paths agree bit for bit.
struct FusedAdam {
  double lr, beta1, beta2, eps, weight_decay, step_size, bias_correction2_sqrt;
  bool decoupled, maximize;

  template <typename T>
  void run(const Tensor& param, const Tensor& grad_t, const Tensor& exp_avg_t, const Tensor& exp_avg_sq_t,
           const Tensor* max_exp_avg_sq_t) const {
    T* p = param.data<T>();
    const T* g_in = grad_t.data<T>();
    T* m = exp_avg_t.data<T>();
    T* v = exp_avg_sq_t.data<T>();
    T* v_max = max_exp_avg_sq_t ? max_exp_avg_sq_t->data<T>() : nullptr;
    const T decay = static_cast<T>(1 - lr * weight_decay), wd = static_cast<T>(weight_decay);
    const T b1 = static_cast<T>(beta1), c1 = static_cast<T>(1 - beta1);
    const T b2 = static_cast<T>(beta2), c2 = static_cast<T>(1 - beta2);
    const T bc2 = static_cast<T>(bias_correction2_sqrt), e = static_cast<T>(eps), ss = static_cast<T>(-step_size);
    const bool l2 = !decoupled && weight_decay != 0;
    parallel_for(0, param.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        T g = maximize ? -g_in[i] : g_in[i];
        if (decoupled) p[i] = p[i] * decay;
        else if (l2) g = g + p[i] * wd;
        m[i] = m[i] * b1 + g * c1;
        v[i] = v[i] * b2 + g * c2 * g;
        T second = v[i];
        if (v_max) {
          const T a = v_max[i], b = v[i];  // torch.maximum, NaN when either is
          v_max[i] = a < b ? b : (a >= b ? a : a + b);
          second = v_max[i];
        }
        const T denom = std::sqrt(second) / bc2 + e;
        p[i] = p[i] + m[i] * ss / denom;
      }
    });
  }
};

// The fused loop covers float32 and float64 parameters whose tensors are all dense in memory.
bool fusable(const Tensor& param, const Tensor& grad, const ParamState& state) {
  if (param.dtype() != DType::Float32 && param.dtype() != DType::Float64) return false;
  if (!param.is_contiguous() || !grad.is_contiguous() || grad.dtype() != param.dtype()) return false;
  for (const auto& [key, value] : state)
    if (key != "step" && (!value.is_contiguous() || value.dtype() != param.dtype())) return false;
  return true;
}

}  // namespace

void Adam::update(Tensor& param, const Tensor& grad_in, const Hyperparameters& o, ParamState& state) {
  const double lr = option(o, "lr"), beta1 = option(o, "beta1"), beta2 = option(o, "beta2");
  const double eps = option(o, "eps"), weight_decay = option(o, "weight_decay");
  const bool amsgrad = option(o, "amsgrad"), maximize = option(o, "maximize");
  if (state.empty()) {
    state["step"] = zeros({}, DType::Float32);
    state["exp_avg"] = zeros(param.shape(), param.dtype());
    state["exp_avg_sq"] = zeros(param.shape(), param.dtype());
    if (amsgrad) state["max_exp_avg_sq"] = zeros(param.shape(), param.dtype());
  }
  Tensor& step_t = state.at("step");
  Tensor& exp_avg = state.at("exp_avg");
  Tensor& exp_avg_sq = state.at("exp_avg_sq");
  step_t.add_(1);
  const double step = step_t.item<float>();
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);

  if (fusable(param, grad_in, state)) {
    const FusedAdam fused{lr,        beta1,        beta2, eps, weight_decay, step_size, bias_correction2_sqrt,
                          decoupled_weight_decay(), maximize};
    const Tensor* max_exp_avg_sq = amsgrad ? &state.at("max_exp_avg_sq") : nullptr;
    if (param.dtype() == DType::Float32) fused.run<float>(param, grad_in, exp_avg, exp_avg_sq, max_exp_avg_sq);
    else fused.run<double>(param, grad_in, exp_avg, exp_avg_sq, max_exp_avg_sq);
    return;
  }

  Tensor grad = maximize ? grad_in.neg() : grad_in;
  if (decoupled_weight_decay()) param.mul_(1 - lr * weight_decay);
  else if (weight_decay != 0) grad = grad.add(param.mul(weight_decay));
  exp_avg.mul_(beta1).add_(grad.mul(1 - beta1));
  exp_avg_sq.mul_(beta2).add_(grad.mul(1 - beta2).mul(grad));
  Tensor denom;
  if (amsgrad) {
    Tensor& max_exp_avg_sq = state.at("max_exp_avg_sq");
    detail::maximum_(max_exp_avg_sq, exp_avg_sq);
    denom = max_exp_avg_sq.sqrt().div(bias_correction2_sqrt).add_(eps);
  } else {
    denom = exp_avg_sq.sqrt().div(bias_correction2_sqrt).add_(eps);
  }
  param.add_(exp_avg.mul(-step_size).div(denom));
}

}  // namespace tl::optim
