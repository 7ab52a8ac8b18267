// ops/batch_norm.cpp — batch_norm: running statistics in inference; batch statistics in training,
// where running_mean / running_var are updated in place exactly as PyTorch does (running_var takes the
// unbiased variance). Output is contiguous, or channels-last for a channels-last input (ATen's
// suggest_memory_format). Also its backward, native_batch_norm_backward. Plain parallel kernels over
// contiguous (N, C, S) or channels-last (N * H * W rows of C) data: oneDNN 2.6 offers only its
// reference-grade ncsp_bnorm for NCHW, measured ~10x slower here (forward; its backward is the same one).
// instance_norm is ATen's composite over batch_norm: the (N, C) instances as the channels of one sample.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/memory_format.h"
#include "ops/norm_moments.h"
#include "ops/onednn/memory.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

using detail::acc_t;
using detail::channel_moments;
using detail::first_finite_or_zero;
using detail::mean_var;
using detail::Moments;
using detail::narrow;

struct BatchNormInputs {
  Tensor x, weight, bias, running_mean, running_var;
};

/// Offset (in elements) of flat element `i` of `t`, honouring any strides.
int64_t offset_of(const Tensor& t, int64_t i) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (i % t.size(d)) * t.stride(d);
    i /= t.size(d);
  }
  return offset;
}

/// A per-channel tensor's values (any shape with C elements, any strides), or `fill` when None.
std::vector<double> channel_values(const Tensor& t, int64_t channels, double fill) {
  std::vector<double> values(static_cast<size_t>(channels), fill);
  if (!t.defined()) return values;
  TL_DISPATCH_FLOATING_TYPES(t.dtype(), "batch_norm", [&] {
    const scalar_t* p = t.data<scalar_t>();
    for (int64_t i = 0; i < channels; ++i) values[i] = static_cast<double>(p[offset_of(t, i)]);
  });
  return values;
}

/// running = (1 - momentum) * running + momentum * batch, in place.
void update_running(const Tensor& running, const std::vector<double>& batch, double momentum) {
  TL_DISPATCH_FLOATING_TYPES(running.dtype(), "batch_norm", [&] {
    scalar_t* p = running.data<scalar_t>();
    const int64_t n = running.numel();
    for (int64_t i = 0; i < n; ++i) {
      scalar_t& r = p[offset_of(running, i)];
      r = static_cast<scalar_t>((1.0 - momentum) * static_cast<double>(r) + momentum * batch[i]);
    }
  });
}

void check_inputs(const BatchNormInputs& in, bool training, double eps) {
  const Tensor& x = in.x;
  TL_CHECK(x.dim() >= 2, "batch_norm: expected at least 2-D input (N, C, ...), got ", x.shape());
  TL_CHECK(is_floating_point(x.dtype()), "batch_norm: expected a floating point input, got ", x.dtype());
  const std::pair<const char*, const Tensor*> params[] = {
      {"weight", &in.weight}, {"bias", &in.bias}, {"running_mean", &in.running_mean}, {"running_var", &in.running_var}};
  for (const auto& [name, t] : params) {
    if (!t->defined()) continue;
    // As in PyTorch: parameters share the input's dtype, or are float32 for a bfloat16 input.
    TL_CHECK(t->dtype() == x.dtype() || (x.dtype() == DType::BFloat16 && t->dtype() == DType::Float32), "batch_norm: ",
             name, " dtype ", t->dtype(), " differs from input dtype ", x.dtype());
    TL_CHECK(t->numel() == x.size(1), "batch_norm: ", name, " has ", t->numel(), " elements (shape ", t->shape(),
             ") but input ", x.shape(), " has ", x.size(1), " channels");
  }
  TL_CHECK(in.running_mean.defined() == in.running_var.defined(),
           "batch_norm: running_mean and running_var must both be given or both be None");
  TL_CHECK(training || in.running_mean.defined(),
           "batch_norm: running_mean and running_var must be defined in evaluation mode (training=false)");
  TL_CHECK(!training || x.numel() == 0 || x.numel() / x.size(1) > 1,
           "batch_norm: expected more than 1 value per channel when training, got input size ", x.shape());
  TL_CHECK(eps >= 0, "batch_norm: eps must be non-negative, got ", eps);
}

/// y = x * a + b over one contiguous run; `x` and `y` may be the same buffer.
template <typename T>
void scale_shift_run(const T* x, T* y, int64_t S, acc_t<T> a, acc_t<T> b) {
#pragma omp simd
  for (int64_t s = 0; s < S; ++s) y[s] = narrow<T>(static_cast<acc_t<T>>(x[s]) * a + b);
}

/// Normalises contiguous (N, C, S) `src` into `out` (possibly the same tensor); returns the batch mean and
/// biased variance used (the running ones in inference). Training works channel by channel, the
/// statistics pass and the normalising pass back to back while the channel is still in cache.
template <typename T>
std::pair<std::vector<double>, std::vector<double>> normalize(const BatchNormInputs& in, const Tensor& src,
                                                              const Tensor& out, bool training, double eps) {
  const int64_t N = src.size(0), C = src.size(1), S = src.numel() / (N * C);
  std::vector<double> mean = channel_values(in.running_mean, C, 0.0), var = channel_values(in.running_var, C, 1.0);
  const std::vector<double> weight = channel_values(in.weight, C, 1.0), bias = channel_values(in.bias, C, 0.0);
  // Locals, not captured references the element loops would reload after every store.
  const T* const x = src.data<T>();
  T* const y = out.data<T>();
  double* const mean_p = mean.data();
  double* const var_p = var.data();
  const double* const weight_p = weight.data();
  const double* const bias_p = bias.data();
  const double count = static_cast<double>(N * S);
  auto normalize_channel = [=](int64_t c) {
    const double scale = weight_p[c] / std::sqrt(var_p[c] + eps), shift = bias_p[c] - mean_p[c] * scale;
    for (int64_t n = 0; n < N; ++n)
      scale_shift_run(x + (n * C + c) * S, y + (n * C + c) * S, S, static_cast<acc_t<T>>(scale),
                      static_cast<acc_t<T>>(shift));
  };
  if (!training) {
    parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [=](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) normalize_channel(c);
    });
    return {std::move(mean), std::move(var)};
  }
  parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [=](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const double shift = first_finite_or_zero(x + c * S);
      std::tie(mean_p[c], var_p[c]) = mean_var(channel_moments<T>(x, nullptr, N, C, S, c, shift), shift, count);
      normalize_channel(c);
    }
  });
  return {std::move(mean), std::move(var)};
}

/// native_batch_norm_backward's operands; per-channel ones may be undefined (None).
struct BackwardInputs {
  Tensor grad, x, weight, running_mean, running_var, save_mean, save_invstd;
};

void check_backward_inputs(const BackwardInputs& in, bool train, double eps) {
  const char* op = "native_batch_norm_backward";
  const Tensor& x = in.x;
  TL_CHECK(x.dim() >= 2, op, ": expected at least 2-D input (N, C, ...), got ", x.shape());
  TL_CHECK(is_floating_point(x.dtype()), op, ": expected a floating point input, got ", x.dtype());
  TL_CHECK(in.grad.dtype() == x.dtype(), op, ": grad_out dtype ", in.grad.dtype(), " differs from input dtype ",
           x.dtype());
  TL_CHECK(in.grad.shape() == x.shape(), op, ": grad_out ", in.grad.shape(), " differs from input ", x.shape());
  const std::pair<const char*, const Tensor*> params[] = {{"weight", &in.weight},
                                                          {"running_mean", &in.running_mean},
                                                          {"running_var", &in.running_var},
                                                          {"save_mean", &in.save_mean},
                                                          {"save_invstd", &in.save_invstd}};
  for (const auto& [name, t] : params) {
    if (!t->defined()) continue;
    TL_CHECK(t->dtype() == x.dtype() || (x.dtype() == DType::BFloat16 && t->dtype() == DType::Float32), op, ": ",
             name, " dtype ", t->dtype(), " differs from input dtype ", x.dtype());
    TL_CHECK(t->numel() == x.size(1), op, ": ", name, " has ", t->numel(), " elements (shape ", t->shape(),
             ") but input ", x.shape(), " has ", x.size(1), " channels");
  }
  TL_CHECK(in.save_mean.defined() == in.save_invstd.defined(), op,
           ": save_mean and save_invstd must both be given or both be None");
  TL_CHECK(train || (in.running_mean.defined() && in.running_var.defined()), op,
           ": running_mean and running_var must be defined when train=false");
  TL_CHECK(eps >= 0, op, ": eps must be non-negative, got ", eps);
}

/// Writes grad_weight's and grad_bias's values into out[1] and out[2] where defined.
void store_parameter_grads(const TensorList& out, const std::vector<double>& dweight, const std::vector<double>& dbias) {
  for (int i = 1; i < 3; ++i) {
    if (!out[i].defined()) continue;
    const Tensor& t = out[i];
    const std::vector<double>& values = i == 1 ? dweight : dbias;
    TL_DISPATCH_FLOATING_TYPES(t.dtype(), "native_batch_norm_backward", [&] {
      for (size_t c = 0; c < values.size(); ++c) t.data<scalar_t>()[c] = static_cast<scalar_t>(values[c]);
    });
  }
}

/// The three gradients over contiguous (N, C, S) `x` and `grad`, channel by channel in parallel: with
/// xhat = (x - mean) * invstd, grad_weight = sum(grad * xhat), grad_bias = sum(grad), and
/// grad_input = weight * invstd * (grad - [train] (grad_bias + xhat * grad_weight) / (N * S)).
/// mean / invstd are the running ones (train=false), the saved ones, or else the batch's: one pass
/// over x and grad gives the sums and, about a shift, the batch statistics together; a second writes
/// grad_input while the channel is still in cache.
template <typename T>
void batch_norm_gradients(const BackwardInputs& in, const Tensor& x, const Tensor& grad, bool train, double eps,
                          const TensorList& out) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  const bool saved = train && in.save_mean.defined();
  const bool batch = train && !saved && N * S > 0;  // statistics computed here
  const std::vector<double> mean = saved ? channel_values(in.save_mean, C, 0) : channel_values(in.running_mean, C, 0);
  std::vector<double> invstd = saved ? channel_values(in.save_invstd, C, 1) : channel_values(in.running_var, C, 1);
  if (!saved)
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  const std::vector<double> weight = channel_values(in.weight, C, 1.0);
  std::vector<double> dweight(static_cast<size_t>(C)), dbias(static_cast<size_t>(C));
  // Locals, not captured references: the element loops must not reload them after each store.
  const T* const xp = x.data<T>();
  const T* const gp = grad.data<T>();
  T* const op = out[0].defined() ? out[0].data<T>() : nullptr;
  const double *const mean_p = mean.data(), *const invstd_p = invstd.data(), *const weight_p = weight.data();
  double *const dweight_p = dweight.data(), *const dbias_p = dbias.data();
  const double count = static_cast<double>(N * S);
  using A = acc_t<T>;
  parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [=](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const double shift = batch ? first_finite_or_zero(xp + c * S) : mean_p[c];
      const Moments m = channel_moments<T>(xp, gp, N, C, S, c, shift);
      double mu = mean_p[c], is = invstd_p[c];
      if (batch) {
        const auto [bm, bv] = mean_var(m, shift, count);
        mu = bm;
        is = 1.0 / std::sqrt(bv + eps);
      }
      double dot = m.gd - (mu - shift) * m.g;  // sum(grad * (x - mean))
      // An inf in grad makes the correction inf - inf; summing about the mean itself gives PyTorch's inf.
      if (batch && !std::isfinite(dot)) dot = channel_moments<T>(xp, gp, N, C, S, c, mu).gd;
      dbias_p[c] = m.g;
      dweight_p[c] = dot * is;
      if (op == nullptr) continue;
      const A scale = static_cast<A>(weight_p[c] * is);
      for (int64_t n = 0; n < N; ++n) {
        const T* __restrict xs = xp + (n * C + c) * S;
        const T* __restrict gs = gp + (n * C + c) * S;
        T* __restrict o = op + (n * C + c) * S;
        if (!train) {  // the input does not enter: an inf or NaN there must not reach grad_input
#pragma omp simd
          for (int64_t s = 0; s < S; ++s) o[s] = narrow<T>(static_cast<A>(gs[s]) * scale);
          continue;
        }
        const A mean_grad = static_cast<A>(m.g / count), xhat_coeff = static_cast<A>(dot * is * is / count);
        const A mean_a = static_cast<A>(mu);
#pragma omp simd
        for (int64_t s = 0; s < S; ++s)
          o[s] = narrow<T>((static_cast<A>(gs[s]) - mean_grad - (static_cast<A>(xs[s]) - mean_a) * xhat_coeff) * scale);
      }
    }
  });
  store_parameter_grads(out, dweight, dbias);
}

/// Channels-last dense (N, C, H, W) seen as R = N * H * W rows of C: per-channel sums over the rows, in
/// kChunks fixed blocks of rows (so the result does not depend on the thread count) run in parallel, each
/// with its own double lanes across the channels, added up in order at the end.
constexpr int64_t kChunks = 16;

/// Σd, Σd² (d = x - shift[c]) and, when `g` is given, Σg, Σg·d per channel of the (R, C) rows.
template <typename T>
std::vector<Moments> row_moments(const T* x, const T* g, int64_t R, int64_t C, const std::vector<double>& shift) {
  using A = acc_t<T>;
  const int64_t chunks = std::min(kChunks, R), sums = g == nullptr ? 2 : 4;
  std::vector<double> partial(static_cast<size_t>(chunks * sums * C), 0.0);
  double* const partial_p = partial.data();
  const double* const shift_p = shift.data();
  parallel_for(0, chunks, 1, [=](int64_t begin, int64_t end) {
    for (int64_t chunk = begin; chunk < end; ++chunk) {
      double* __restrict sd = partial_p + chunk * sums * C;
      double* __restrict sdd = sd + C;
      double* __restrict sg = sdd + C;
      double* __restrict sgd = sg + C;
      for (int64_t r = R * chunk / chunks; r < R * (chunk + 1) / chunks; ++r) {
        const T* __restrict xr = x + r * C;
        if (g == nullptr) {
#pragma omp simd
          for (int64_t c = 0; c < C; ++c) {
            const double d = static_cast<double>(static_cast<A>(xr[c])) - shift_p[c];
            sd[c] += d;
            sdd[c] += d * d;
          }
          continue;
        }
        const T* __restrict gr = g + r * C;
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) {
          const double d = static_cast<double>(static_cast<A>(xr[c])) - shift_p[c];
          const double gv = static_cast<double>(static_cast<A>(gr[c]));
          sd[c] += d;
          sdd[c] += d * d;
          sg[c] += gv;
          sgd[c] += gv * d;
        }
      }
    }
  });
  std::vector<Moments> m(static_cast<size_t>(C));
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const double* p = partial_p + chunk * sums * C;
    for (int64_t c = 0; c < C; ++c) {
      m[c].d += p[c];
      m[c].dd += p[C + c];
      if (sums == 4) {
        m[c].g += p[2 * C + c];
        m[c].gd += p[3 * C + c];
      }
    }
  }
  return m;
}

/// The shift for row_moments: each channel's value in the first row, or 0 where that is inf or NaN.
template <typename T>
std::vector<double> first_row_shift(const T* x, int64_t C) {
  std::vector<double> shift(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) shift[c] = first_finite_or_zero(x + c);
  return shift;
}

/// normalize for channels-last dense `src` and `out` (N, C, H, W): the statistics pass over all rows, then
/// y = x * scale[c] + shift[c] in parallel over rows.
template <typename T>
std::pair<std::vector<double>, std::vector<double>> normalize_channels_last(const BatchNormInputs& in,
                                                                            const Tensor& src, const Tensor& out,
                                                                            bool training, double eps) {
  const int64_t C = src.size(1), R = src.numel() / C;
  std::vector<double> mean = channel_values(in.running_mean, C, 0.0), var = channel_values(in.running_var, C, 1.0);
  const std::vector<double> weight = channel_values(in.weight, C, 1.0), bias = channel_values(in.bias, C, 0.0);
  const T* const x = src.data<T>();
  T* const y = out.data<T>();
  if (training) {
    const std::vector<double> shift = first_row_shift(x, C);
    const std::vector<Moments> m = row_moments<T>(x, nullptr, R, C, shift);
    for (int64_t c = 0; c < C; ++c) std::tie(mean[c], var[c]) = mean_var(m[c], shift[c], static_cast<double>(R));
  }
  using A = acc_t<T>;
  std::vector<A> scale(static_cast<size_t>(C)), shift(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    const double a = weight[c] / std::sqrt(var[c] + eps);
    scale[c] = static_cast<A>(a);
    shift[c] = static_cast<A>(bias[c] - mean[c] * a);
  }
  const A* const scale_p = scale.data();
  const A* const shift_p = shift.data();
  parallel_for(0, R, std::max<int64_t>(1, kGrainSize / C), [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* xr = x + r * C;  // y may be x itself
      T* yr = y + r * C;
#pragma omp simd
      for (int64_t c = 0; c < C; ++c) yr[c] = narrow<T>(static_cast<A>(xr[c]) * scale_p[c] + shift_p[c]);
    }
  });
  return {std::move(mean), std::move(var)};
}

/// batch_norm_gradients for channels-last dense x, grad and out[0] (N, C, H, W): a pass for the sums, then
/// grad_input in parallel over rows. Returns grad_weight's and grad_bias's values.
template <typename T>
std::pair<std::vector<double>, std::vector<double>> batch_norm_gradients_channels_last(
    const BackwardInputs& in, const Tensor& x, const Tensor& grad, bool train, double eps, const Tensor& grad_input) {
  const int64_t C = x.size(1), R = x.numel() / std::max<int64_t>(1, C);
  const bool saved = train && in.save_mean.defined();
  const bool batch = train && !saved && R > 0;  // statistics computed here
  std::vector<double> mean = saved ? channel_values(in.save_mean, C, 0) : channel_values(in.running_mean, C, 0);
  std::vector<double> invstd = saved ? channel_values(in.save_invstd, C, 1) : channel_values(in.running_var, C, 1);
  if (!saved)
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  const std::vector<double> weight = channel_values(in.weight, C, 1.0);
  const T* const xp = x.data<T>();
  const T* const gp = grad.data<T>();
  const std::vector<double> shift = batch && R > 0 ? first_row_shift(xp, C) : mean;
  const std::vector<Moments> m = row_moments<T>(xp, gp, R, C, shift);
  std::vector<double> dweight(static_cast<size_t>(C)), dbias(static_cast<size_t>(C));
  const double count = static_cast<double>(R);
  using A = acc_t<T>;
  std::vector<A> mean_grad(static_cast<size_t>(C)), xhat_coeff(static_cast<size_t>(C)), mu_a(static_cast<size_t>(C)),
      scale(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) {
    if (batch) {
      const auto [bm, bv] = mean_var(m[c], shift[c], count);
      mean[c] = bm;
      invstd[c] = 1.0 / std::sqrt(bv + eps);
    }
    const double mu = mean[c], is = invstd[c];
    double dot = m[c].gd - (mu - shift[c]) * m[c].g;  // sum(grad * (x - mean))
    // An inf in grad makes the correction inf - inf; summing about the mean itself gives PyTorch's inf.
    if (batch && !std::isfinite(dot)) {
      dot = 0;
      for (int64_t r = 0; r < R; ++r)
        dot += static_cast<double>(static_cast<A>(gp[r * C + c])) * (static_cast<double>(static_cast<A>(xp[r * C + c])) - mu);
    }
    dbias[c] = m[c].g;
    dweight[c] = dot * is;
    mean_grad[c] = static_cast<A>(m[c].g / count);
    xhat_coeff[c] = static_cast<A>(dot * is * is / count);
    mu_a[c] = static_cast<A>(mu);
    scale[c] = static_cast<A>(weight[c] * is);
  }
  if (!grad_input.defined()) return {std::move(dweight), std::move(dbias)};
  T* const op = grad_input.data<T>();
  const A *const mean_grad_p = mean_grad.data(), *const xhat_p = xhat_coeff.data(), *const mu_p = mu_a.data(),
                 *const scale_p = scale.data();
  parallel_for(0, R, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, C)), [=](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const T* __restrict xr = xp + r * C;
      const T* __restrict gr = gp + r * C;
      T* __restrict o = op + r * C;
      if (!train) {  // the input does not enter: an inf or NaN there must not reach grad_input
#pragma omp simd
        for (int64_t c = 0; c < C; ++c) o[c] = narrow<T>(static_cast<A>(gr[c]) * scale_p[c]);
        continue;
      }
#pragma omp simd
      for (int64_t c = 0; c < C; ++c)
        o[c] = narrow<T>((static_cast<A>(gr[c]) - mean_grad_p[c] - (static_cast<A>(xr[c]) - mu_p[c]) * xhat_p[c]) *
                         scale_p[c]);
    }
  });
  return {std::move(dweight), std::move(dbias)};
}

}  // namespace

// grad_out and input (N, C, *); weight, running_mean, running_var, save_mean, save_invstd: C elements
// each, or None -> (grad_input like input, grad_weight (C), grad_bias (C)), each undefined where
// output_mask is false. grad_weight / grad_bias take weight's dtype (input's without a weight).
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& weight, const Tensor& running_mean,
                                                              const Tensor& running_var, const Tensor& save_mean,
                                                              const Tensor& save_invstd,
                                                              const NativeBatchNormBackwardArgs& args) {
  const BackwardInputs in{grad_out, input, weight, running_mean, running_var, save_mean, save_invstd};
  const std::array<bool, 3>& mask = args.output_mask;
  check_backward_inputs(in, args.train, args.eps);
  const DType param_dtype = in.weight.defined() ? in.weight.dtype() : in.x.dtype();
  TensorList out(3);
  if (mask[0]) out[0] = Tensor::allocate(in.x.sizes(), in.x.dtype());
  for (int i = 1; i < 3; ++i)
    if (mask[i]) out[i] = Tensor::allocate({in.x.size(1)}, param_dtype);
  if (!mask[0] && !mask[1] && !mask[2]) return {out[0], out[1], out[2]};
  if (detail::suggests_channels_last(in.x)) {  // as ATen's: grad_input channels-last, no NCHW copies
    const Tensor x = detail::channels_last_dense(in.x), grad = detail::channels_last_dense(in.grad);
    if (mask[0]) out[0] = detail::allocate_channels_last(in.x.shape(), in.x.dtype());
    const auto [dweight, dbias] = TL_DISPATCH_FLOATING_TYPES(x.dtype(), "native_batch_norm_backward", [&] {
      return batch_norm_gradients_channels_last<scalar_t>(in, x, grad, args.train, args.eps, out[0]);
    });
    store_parameter_grads(out, dweight, dbias);
    return {out[0], out[1], out[2]};
  }
  const Tensor x = onednn::to_contiguous(in.x, "native_batch_norm_backward");
  const Tensor grad = onednn::to_contiguous(in.grad, "native_batch_norm_backward");
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "native_batch_norm_backward", [&] {
    batch_norm_gradients<scalar_t>(in, x, grad, args.train, args.eps, out);
  });
  return {out[0], out[1], out[2]};
}

// input (N, C, *); weight, bias, running_mean, running_var: C elements each, or None.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, const BatchNormArgs& args) {
  const BatchNormInputs in{input, weight, bias, running_mean, running_var};
  check_inputs(in, args.training, args.eps);
  if (in.x.numel() == 0) return Tensor::allocate(in.x.sizes(), in.x.dtype());
  // A strided input is first copied, and the copy is then normalised in place. A channels-last one stays
  // channels-last, as ATen's.
  const bool channels_last = detail::suggests_channels_last(in.x);
  const Tensor src = channels_last ? detail::channels_last_dense(in.x) : onednn::to_contiguous(in.x, "batch_norm");
  const Tensor out = !src.is_same(in.x)  ? src
                     : channels_last     ? detail::allocate_channels_last(in.x.shape(), in.x.dtype())
                                         : Tensor::allocate(in.x.sizes(), in.x.dtype());
  const auto [mean, var] = TL_DISPATCH_FLOATING_TYPES(in.x.dtype(), "batch_norm", [&] {
    return channels_last ? normalize_channels_last<scalar_t>(in, src, out, args.training, args.eps)
                         : normalize<scalar_t>(in, src, out, args.training, args.eps);
  });
  if (args.training && in.running_mean.defined()) {
    const double n = static_cast<double>(src.numel() / src.size(1));
    std::vector<double> unbiased(var.size());
    for (size_t c = 0; c < var.size(); ++c) unbiased[c] = var[c] * n / (n - 1.0);
    update_running(in.running_mean, mean, args.momentum);
    update_running(in.running_var, unbiased, args.momentum);
  }
  return out;
}

// input (N, C, *); weight, bias, running_mean, running_var: C elements or None. As ATen's: batch_norm of input
// viewed as (1, N * C, *) with the per-channel tensors repeated N times; the running statistics then take the mean
// of their N updated copies.
Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, const InstanceNormArgs& args) {
  TL_CHECK(args.use_input_stats || (running_mean.defined() && running_var.defined()),
           "instance_norm: expected running_mean and running_var to be defined when use_input_stats is false");
  TL_CHECK(input.dim() >= 2, "instance_norm: expected at least 2-D input (N, C, ...), got ", input.shape());
  const int64_t b = input.size(0), c = input.size(1);
  Shape shape = input.shape();
  shape[0] = 1;
  shape[1] = b * c;
  const auto repeated = [b](const Tensor& t) { return t.defined() ? t.repeat({b}) : t; };
  const Tensor running_mean_ = repeated(running_mean), running_var_ = repeated(running_var);
  const Tensor out = tl::batch_norm(input.contiguous().view(shape), repeated(weight), repeated(bias), running_mean_,
                                    running_var_, args.use_input_stats, args.momentum, args.eps, args.cudnn_enabled);
  for (auto [running, copies] : {std::pair{running_mean, running_mean_}, std::pair{running_var, running_var_}})
    if (running.defined()) running.copy_(copies.view({b, c}).mean(0));
  return out.view(input.shape());
}

}  // namespace tl::kernels
