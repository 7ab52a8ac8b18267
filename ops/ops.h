// ops/ops.h — the free-function op API (torch.* in PyTorch). Each function builds the op's
// inputs and attrs and goes through dispatch::call; kernels live in the other ops/ files.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"

namespace tl {

// ---- factories (dtype defaults to float32, arange's to int64 / the step's type) ----
Tensor empty(const Shape& size, DType dtype = DType::Float32);
Tensor zeros(const Shape& size, DType dtype = DType::Float32);
Tensor ones(const Shape& size, DType dtype = DType::Float32);
Tensor full(const Shape& size, const Scalar& fill_value, DType dtype = DType::Float32);
/// [0, end) with step 1, int64 for an integer end, float32 for a floating one.
Tensor arange(const Scalar& end);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype);
/// Uniform in [0, 1), from the default generator (tl::manual_seed).
Tensor rand(const Shape& size, DType dtype = DType::Float32);
/// Standard normal, from the default generator.
Tensor randn(const Shape& size, DType dtype = DType::Float32);
/// A 0-dim tensor holding `value`, with the dtype Python gives that number.
Tensor scalar_tensor(const Scalar& value, DType dtype);
/// Copies a buffer into a new tensor of `size` (numel must match).
template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& size);

// ---- elementwise ----
Tensor neg(const Tensor& x);
Tensor abs(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
Tensor sqrt(const Tensor& x);
Tensor rsqrt(const Tensor& x);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
/// Gaussian error linear unit: x/2 (1 + erf(x/sqrt 2)); approximate="tanh" uses the tanh form.
/// Floating x only; throws tl::Error for another approximate.
Tensor gelu(const Tensor& x, const std::string& approximate = "none");
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& base, const Tensor& exponent);
Tensor pow(const Tensor& base, const Scalar& exponent);
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);
/// Elements of `a` where `condition` is true, else of `b` (all three broadcast).
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
/// ReLU's backward: `grad` where self > threshold, else 0.
Tensor threshold_backward(const Tensor& grad, const Tensor& self, const Scalar& threshold);
/// gelu's backward: grad * gelu'(self) (approximate as for gelu).
Tensor gelu_backward(const Tensor& grad, const Tensor& self, const std::string& approximate = "none");

// ---- comparisons ----
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8, bool equal_nan = false);
/// Same shape and same values (dtypes promoted).
bool equal(const Tensor& a, const Tensor& b);

// ---- reductions ----
Tensor sum(const Tensor& x);
Tensor sum(const Tensor& x, const Shape& dims, bool keepdim = false);
Tensor mean(const Tensor& x);
Tensor mean(const Tensor& x, const Shape& dims, bool keepdim = false);
Tensor max(const Tensor& x);
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& x);
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x);
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim = false);

// ---- views ----
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor reshape(const Tensor& x, const Shape& shape);
Tensor permute(const Tensor& x, const Shape& dims);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor squeeze(const Tensor& x);
Tensor squeeze(const Tensor& x, int64_t dim);
Tensor unsqueeze(const Tensor& x, int64_t dim);

// ---- indexing and joining ----
/// (n, x.dim()) int64 coordinates of the non-zero elements, in row-major order.
Tensor nonzero(const Tensor& x);
/// One int64 index tensor per dimension (torch.nonzero(x, as_tuple=True)).
std::vector<Tensor> nonzero_tuple(const Tensor& x);
Tensor argwhere(const Tensor& x);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor masked_select(const Tensor& x, const Tensor& mask);
Tensor cat(std::span<const Tensor> tensors, int64_t dim = 0);
Tensor stack(std::span<const Tensor> tensors, int64_t dim = 0);

// ---- linear algebra (float32 and float64) ----
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
/// beta * self + alpha * (mat1 @ mat2); self broadcasts to the product's shape.
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1);
/// input @ weight.T + bias; input (*, in), weight (out, in), bias (out) or undefined.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});

// ---- neural-network kernels ----
/// input (N, C_in, H, W), weight (C_out, C_in / groups, kH, kW), bias (C_out) or undefined.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, const Shape& stride = {1, 1},
              const Shape& padding = {0, 0}, const Shape& dilation = {1, 1}, int64_t groups = 1);
/// input (N, C, H, W); per-channel (C) tensors, each may be undefined. In training mode the batch
/// statistics normalise and running_mean / running_var are updated in place with `momentum`.
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps);
/// An empty `stride` means stride = kernel_size, as in PyTorch.
Tensor max_pool2d(const Tensor& input, const Shape& kernel_size, const Shape& stride = {},
                  const Shape& padding = {0, 0}, const Shape& dilation = {1, 1}, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& input, const Shape& kernel_size, const Shape& stride = {},
                  const Shape& padding = {0, 0}, bool ceil_mode = false, bool count_include_pad = true);
Tensor adaptive_avg_pool2d(const Tensor& input, const Shape& output_size);
/// Zeroes each element with probability p and scales the rest by 1/(1-p) when `train`.
Tensor dropout(const Tensor& input, double p, bool train);
/// dropout's (output, bool mask of the kept elements); draws the numbers dropout draws.
std::pair<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train = true);
/// grad * mask * scale: native_dropout's backward.
Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale);

// ---- their backward kernels (PyTorch's aten names; autograd's derivative formulas call them) ----
/// The gradients of conv2d(input, weight, bias, stride, padding, dilation, groups) for grad_output
/// (N, C_out, H_out, W_out): (grad_input, grad_weight, grad_bias), each undefined where output_mask is
/// false. bias_sizes, when given, must be [C_out]. Throws tl::Error for transposed=true.
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, const std::optional<Shape>& bias_sizes,
                                                        const Shape& stride, const Shape& padding,
                                                        const Shape& dilation, bool transposed,
                                                        const Shape& output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask);
/// The gradients of batch_norm for grad_out (input's shape): (grad_input, grad_weight, grad_bias),
/// each undefined where output_mask is false. train=true differentiates through the batch statistics
/// (save_mean / save_invstd, or computed from input when both are undefined); train=false uses the
/// running ones.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask);
/// max_pool2d's values and the flat index h * W + w (int64) of each maximum within its input plane.
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Shape& kernel_size,
                                                  const Shape& stride = {}, const Shape& padding = {0, 0},
                                                  const Shape& dilation = {1, 1}, bool ceil_mode = false);
/// grad_input (input's shape): each grad_output element added at the input element `indices` names.
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& input, const Shape& kernel_size,
                                        const Shape& stride, const Shape& padding, const Shape& dilation,
                                        bool ceil_mode, const Tensor& indices);
/// grad_input (input's shape) of avg_pool2d; divisor_override, when given, divides every window.
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& input, const Shape& kernel_size,
                           const Shape& stride, const Shape& padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override = std::nullopt);
/// grad_input (input's shape) of adaptive_avg_pool2d, whose output size is grad_output's (aten's
/// _adaptive_avg_pool2d_backward).
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& input);

// ---- softmax and losses ----
/// A loss's reduction argument, as PyTorch's at::Reduction numbers it.
namespace Reduction {
enum : int64_t { None = 0, Mean = 1, Sum = 2 };
}
/// exp(x - max) / sum along `dim`, float32 or float64 (half_to_float must be false on CPU, as in PyTorch).
Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float = false);
/// x - max - log(sum(exp(x - max))) along `dim`.
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float = false);
/// The gradient of _softmax's input from the gradient of its `output`; input_dtype is the output's dtype.
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, DType input_dtype);
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, DType input_dtype);
/// Composite: `self` converted to `dtype` when given, then _softmax / _log_softmax.
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt);
/// self (N, C) or (C) log-probabilities, target (N) or () int64 class indices, weight (C) or undefined.
/// Returns (output, total_weight): the loss ((N) for Reduction::None, else 0-dim) and the summed
/// weight of the targets not equal to ignore_index (0-dim). Throws for a target outside [0, C).
std::pair<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target, const Tensor& weight,
                                           int64_t reduction, int64_t ignore_index);
/// The gradient of nll_loss_forward's `self`: zeros but -weight[t] * grad (divided by total_weight for Mean).
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, const Tensor& weight,
                         int64_t reduction, int64_t ignore_index, const Tensor& total_weight);
/// Composite: self (N, C, d1, ...) with target (N, d1, ...) as well as nll_loss_forward's shapes.
Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
/// Composite: nll_loss of log_softmax over the class dim (1, or 0 for a (C) input), blended with the
/// uniform-target loss by label_smoothing in [0, 1] as PyTorch 1.13 does.
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);
/// (self - target)^2, reduced; self and target of one shape and floating dtype.
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
/// 2 (self - target) grad_output, divided by numel for Mean; grad_output is 0-dim unless Reduction::None.
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction);

// ---- checks (plain scans, not ops: never traced or profiled) ----
/// True when no element of `x` is NaN or ±inf (always true for integer and bool tensors).
bool all_finite(const Tensor& x);
/// True when some element of `x` is NaN (never for integer and bool tensors); ±inf do not count.
bool has_nan(const Tensor& x);
/// True when some element of `x` is NaN or subnormal (never for integer and bool tensors).
bool has_nan_or_subnormal(const Tensor& x);

template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& size) {
  Tensor t = empty(size, dtype_of<T>);
  TL_CHECK(static_cast<int64_t>(values.size()) == t.numel(), "from_vector: ", values.size(),
           " values do not fill size ", size, " (", t.numel(), " elements)");
  T* p = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

}  // namespace tl
