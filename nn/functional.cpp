// nn/functional.cpp — F.* wrappers: argument conversion and PyTorch's argument checks, then the op.
#include "nn/functional.h"

#include "core/record_function.h"
#include "nn/repr.h"

namespace tl::nn {

std::string IntPair::repr() const { return single_ ? std::to_string(h_) : tuple_repr(); }
std::string IntPair::tuple_repr() const { return py_tuple(h_, w_); }

namespace functional {

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, IntPair padding,
              IntPair dilation, int64_t groups) {
  return tl::conv2d(input, weight, bias, stride.shape(), padding.shape(), dilation.shape(), groups);
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  return tl::batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, true);
}

Tensor relu(const Tensor& input, bool inplace) {
  if (!inplace) return tl::relu(input);
  Tensor out = input;
  out.relu_();
  return out;
}

Tensor hardswish(const Tensor& input) { return tl::hardswish(input); }

Tensor silu(const Tensor& input) { return tl::silu(input); }

Tensor gelu(const Tensor& input, const std::string& approximate) { return tl::gelu(input, approximate); }

Tensor mish(const Tensor& input) { return tl::mish(input); }

Tensor leaky_relu(const Tensor& input, double negative_slope, bool inplace) {
  return inplace ? tl::leaky_relu_(input, negative_slope) : tl::leaky_relu(input, negative_slope);
}

Tensor elu(const Tensor& input, double alpha, bool inplace) {
  return inplace ? tl::elu_(input, alpha) : tl::elu(input, alpha);
}

Tensor softplus(const Tensor& input, const Scalar& beta, const Scalar& threshold) {
  return tl::softplus(input, beta, threshold);
}

Tensor hardsigmoid(const Tensor& input) { return tl::hardsigmoid(input); }

Tensor hardtanh(const Tensor& input, const Scalar& min_val, const Scalar& max_val) {
  return tl::hardtanh(input, min_val, max_val);
}

Tensor relu6(const Tensor& input) { return tl::hardtanh(input, 0, 6); }

Tensor prelu(const Tensor& input, const Tensor& weight) { return tl::prelu(input, weight); }

Tensor max_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                  IntPair dilation, bool ceil_mode) {
  return tl::max_pool2d(input, kernel_size.shape(), stride.value_or(kernel_size).shape(), padding.shape(),
                        dilation.shape(), ceil_mode);
}

Tensor avg_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride, IntPair padding,
                  bool ceil_mode, bool count_include_pad) {
  return tl::avg_pool2d(input, kernel_size.shape(), stride.value_or(kernel_size).shape(), padding.shape(), ceil_mode,
                        count_include_pad);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntPair output_size) {
  return tl::adaptive_avg_pool2d(input, output_size.shape());
}

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout: probability has to be between 0 and 1, but got ", p);
  if (!inplace) return tl::dropout(input, p, training);
  Tensor out = input;
  if (training) out.copy_(tl::dropout(input, p, training));
  return out;
}

int64_t reduction_enum(const std::string& reduction, const char* who) {
  if (reduction == "none") return Reduction::None;
  if (reduction == "mean") return Reduction::Mean;
  TL_CHECK(reduction == "sum", who, ": '", reduction,
           "' is not a valid value for reduction (expected 'none', 'mean' or 'sum')");
  return Reduction::Sum;
}

Tensor softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype) { return tl::softmax(input, dim, dtype); }
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype) {
  return tl::log_softmax(input, dim, dtype);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                const std::string& reduction) {
  return tl::nll_loss_nd(input, target, weight, reduction_enum(reduction, "nll_loss"), ignore_index);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const std::string& reduction, double label_smoothing) {
  return tl::cross_entropy_loss(input, target, weight, reduction_enum(reduction, "cross_entropy"), ignore_index,
                                label_smoothing);
}

Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  // PyTorch's F.mse_loss broadcasts its operands first; ours must have one shape, so the op has no work.
  { RecordFunction broadcast("aten::broadcast_tensors", [] { return ScopeArgs{AttrValue{}}; }); }
  return tl::mse_loss(input, target, reduction_enum(reduction, "mse_loss"));
}

}  // namespace functional
}  // namespace tl::nn
