// ops/batch_norm.cpp — batch_norm: running statistics in inference; batch statistics in training,
// where running_mean / running_var are updated in place exactly as PyTorch does (running_var takes the
// unbiased variance). Output is contiguous. Also its backward, native_batch_norm_backward. Plain
// parallel kernels over contiguous (N, C, S) data: oneDNN 2.6 offers only its reference-grade
// ncsp_bnorm for NCHW, measured ~10x slower here (forward; its backward is the same implementation).
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/parallel.h"
#include "ops/attr_util.h"
#include "ops/onednn/memory.h"

namespace tl::kernels {
namespace {

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
    for (int64_t i = 0; i < running.numel(); ++i) {
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

/// Per-channel mean and biased variance of contiguous (N, C, S) data: two passes, in double.
template <typename T>
void batch_stats(const T* x, int64_t N, int64_t C, int64_t S, std::vector<double>& mean, std::vector<double>& var) {
  const double count = static_cast<double>(N * S);
  parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      double sum = 0, squares = 0;
      for (int64_t n = 0; n < N; ++n) {
        const T* p = x + (n * C + c) * S;
#pragma omp simd reduction(+ : sum)
        for (int64_t s = 0; s < S; ++s) sum += static_cast<double>(p[s]);
      }
      const double m = sum / count;
      for (int64_t n = 0; n < N; ++n) {
        const T* p = x + (n * C + c) * S;
#pragma omp simd reduction(+ : squares)
        for (int64_t s = 0; s < S; ++s) squares += (static_cast<double>(p[s]) - m) * (static_cast<double>(p[s]) - m);
      }
      mean[c] = m;
      var[c] = squares / count;
    }
  });
}

/// y = x * scale[c] + shift[c] over contiguous (N, C, S) data, in parallel over (n, c) planes.
/// `x` and `y` may be the same buffer.
template <typename T>
void scale_shift(const T* x, T* y, int64_t N, int64_t C, int64_t S, const std::vector<double>& scale,
                 const std::vector<double>& shift) {
  using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;
  parallel_for(0, N * C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, S)), [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      const auto a = static_cast<acc_t>(scale[plane % C]), b = static_cast<acc_t>(shift[plane % C]);
      const T* in = x + plane * S;
      T* out = y + plane * S;
#pragma omp simd
      for (int64_t s = 0; s < S; ++s) out[s] = static_cast<T>(static_cast<acc_t>(in[s]) * a + b);
    }
  });
}

/// Normalises contiguous `src` into `out` (possibly the same tensor); returns the batch mean and
/// biased variance used (the running ones in inference).
template <typename T>
std::pair<std::vector<double>, std::vector<double>> normalize(const BatchNormInputs& in, const Tensor& src,
                                                              const Tensor& out, bool training, double eps) {
  const int64_t N = src.size(0), C = src.size(1), S = src.numel() / (N * C);
  std::vector<double> mean = channel_values(in.running_mean, C, 0.0), var = channel_values(in.running_var, C, 1.0);
  if (training) batch_stats(src.data<T>(), N, C, S, mean, var);
  const std::vector<double> weight = channel_values(in.weight, C, 1.0), bias = channel_values(in.bias, C, 0.0);
  std::vector<double> scale(C), shift(C);
  for (int64_t c = 0; c < C; ++c) {
    scale[c] = weight[c] / std::sqrt(var[c] + eps);
    shift[c] = bias[c] - mean[c] * scale[c];
  }
  scale_shift(src.data<T>(), out.data<T>(), N, C, S, scale, shift);
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

/// Per channel: the mean and 1 / sqrt(var + eps) the forward normalised with: the running ones
/// (train=false), the saved ones, or the batch's biased ones computed from contiguous `x`.
template <typename T>
std::pair<std::vector<double>, std::vector<double>> backward_stats(const BackwardInputs& in, const Tensor& x, bool train,
                                                                   double eps) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  if (train && in.save_mean.defined()) return {channel_values(in.save_mean, C, 0), channel_values(in.save_invstd, C, 1)};
  std::vector<double> mean = channel_values(in.running_mean, C, 0), var = channel_values(in.running_var, C, 1);
  if (train && x.numel() > 0) batch_stats(x.data<T>(), N, C, S, mean, var);
  std::vector<double> invstd(static_cast<size_t>(C));
  for (int64_t c = 0; c < C; ++c) invstd[c] = 1.0 / std::sqrt(var[c] + eps);
  return {std::move(mean), std::move(invstd)};
}

/// The three gradients over contiguous (N, C, S) `x` and `grad`, in parallel over channels: with
/// xhat = (x - mean) * invstd, grad_weight = sum(grad * xhat), grad_bias = sum(grad), and
/// grad_input = weight * invstd * (grad - [train] (grad_bias + xhat * grad_weight) / (N * S)).
template <typename T>
void batch_norm_gradients(const BackwardInputs& in, const Tensor& x, const Tensor& grad, bool train, double eps,
                          const TensorList& out) {
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  const auto stats = backward_stats<T>(in, x, train, eps);
  const std::vector<double>&mean = stats.first, &invstd = stats.second;
  const std::vector<double> weight = channel_values(in.weight, C, 1.0);
  std::vector<double> dweight(static_cast<size_t>(C)), dbias(static_cast<size_t>(C));
  const T* xp = x.data<T>();
  const T* gp = grad.data<T>();
  const double count = static_cast<double>(N * S);
  parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      double sum = 0, dot = 0;
      for (int64_t n = 0; n < N; ++n) {
        const T* xs = xp + (n * C + c) * S;
        const T* gs = gp + (n * C + c) * S;
        for (int64_t s = 0; s < S; ++s) {
          sum += static_cast<double>(gs[s]);
          dot += static_cast<double>(gs[s]) * (static_cast<double>(xs[s]) - mean[c]);
        }
      }
      dbias[c] = sum;
      dweight[c] = dot * invstd[c];
      if (!out[0].defined()) continue;
      const double scale = weight[c] * invstd[c];
      const double mean_grad = sum / count, xhat_coeff = dot * invstd[c] * invstd[c] / count;
      T* o = out[0].data<T>();
      for (int64_t n = 0; n < N; ++n) {
        const int64_t base = (n * C + c) * S;
        if (!train) {  // the input does not enter: an inf or NaN there must not reach grad_input
          for (int64_t s = 0; s < S; ++s) o[base + s] = static_cast<T>(static_cast<double>(gp[base + s]) * scale);
          continue;
        }
        for (int64_t s = 0; s < S; ++s) {
          const double centred = static_cast<double>(xp[base + s]) - mean[c];
          o[base + s] = static_cast<T>((static_cast<double>(gp[base + s]) - mean_grad - centred * xhat_coeff) * scale);
        }
      }
    }
  });
  for (int i = 1; i < 3; ++i) {
    if (!out[i].defined()) continue;
    const Tensor& t = out[i];
    const std::vector<double>& values = i == 1 ? dweight : dbias;
    TL_DISPATCH_FLOATING_TYPES(t.dtype(), "native_batch_norm_backward", [&] {
      for (int64_t c = 0; c < C; ++c) t.data<scalar_t>()[c] = static_cast<scalar_t>(values[c]);
    });
  }
}

}  // namespace

// grad_out and input (N, C, *); weight, running_mean, running_var, save_mean, save_invstd: C elements
// each, or None -> (grad_input like input, grad_weight (C), grad_bias (C)), each undefined where
// output_mask is false. grad_weight / grad_bias take weight's dtype (input's without a weight).
TensorList native_batch_norm_backward(std::span<const Tensor> inputs, const Attrs& attrs) {
  const BackwardInputs in{inputs[0], inputs[1], inputs[2], inputs[3], inputs[4], inputs[5], inputs[6]};
  const bool train = attrs.get<bool>("train");
  const double eps = attrs.get<double>("eps");
  const std::array<bool, 3> mask = detail::bool3_from_attr(attrs, "output_mask", "native_batch_norm_backward");
  check_backward_inputs(in, train, eps);
  const DType param_dtype = in.weight.defined() ? in.weight.dtype() : in.x.dtype();
  TensorList out(3);
  if (mask[0]) out[0] = Tensor::allocate(in.x.sizes(), in.x.dtype());
  for (int i = 1; i < 3; ++i)
    if (mask[i]) out[i] = Tensor::allocate({in.x.size(1)}, param_dtype);
  if (!mask[0] && !mask[1] && !mask[2]) return out;
  const Tensor x = onednn::to_contiguous(in.x, "native_batch_norm_backward");
  const Tensor grad = onednn::to_contiguous(in.grad, "native_batch_norm_backward");
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "native_batch_norm_backward", [&] {
    batch_norm_gradients<scalar_t>(in, x, grad, train, eps, out);
  });
  return out;
}

// input (N, C, *); weight, bias, running_mean, running_var: C elements each, or None.
TensorList batch_norm(std::span<const Tensor> inputs, const Attrs& attrs) {
  const BatchNormInputs in{inputs[0], inputs[1], inputs[2], inputs[3], inputs[4]};
  const bool training = attrs.get<bool>("training");
  const double momentum = attrs.get<double>("momentum"), eps = attrs.get<double>("eps");
  check_inputs(in, training, eps);
  if (in.x.numel() == 0) return {Tensor::allocate(in.x.sizes(), in.x.dtype())};
  // A strided input is first copied, and the copy is then normalised in place.
  const Tensor src = onednn::to_contiguous(in.x, "batch_norm");
  const Tensor out = src.is_same(in.x) ? Tensor::allocate(in.x.sizes(), in.x.dtype()) : src;
  const auto [mean, var] = TL_DISPATCH_FLOATING_TYPES(in.x.dtype(), "batch_norm", [&] {
    return normalize<scalar_t>(in, src, out, training, eps);
  });
  if (training && in.running_mean.defined()) {
    const double n = static_cast<double>(src.numel() / src.size(1));
    std::vector<double> unbiased(var.size());
    for (size_t c = 0; c < var.size(); ++c) unbiased[c] = var[c] * n / (n - 1.0);
    update_running(in.running_mean, mean, momentum);
    update_running(in.running_var, unbiased, momentum);
  }
  return {out};
}

}  // namespace tl::kernels
