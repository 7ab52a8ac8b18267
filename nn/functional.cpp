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

Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  return tl::layer_norm(input, normalized_shape, weight, bias, eps);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  TL_CHECK(input.is_proxy() || input.dim() >= 2,
           "group_norm: expected at least 2 dimensions for input tensor but received ", input.dim());
  return tl::group_norm(input, num_groups, weight, bias, eps);
}

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  return tl::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, true);
}

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 bool scale_grad_by_freq) {
  int64_t padding = -1;
  if (padding_idx) {
    const int64_t n = weight.size(0);
    TL_CHECK(*padding_idx < n && *padding_idx >= -n, "embedding: padding_idx must be within num_embeddings (",
             n, "), got ", *padding_idx);
    padding = *padding_idx < 0 ? *padding_idx + n : *padding_idx;
  }
  return tl::embedding(weight, input, padding, scale_grad_by_freq);
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  return tl::bilinear(input1, input2, weight, bias);
}

Tensor relu(const Tensor& input, bool inplace) {
  if (!inplace) return tl::relu(input);
  Tensor out = input;
  out.relu_();
  return out;
}

Tensor hardswish(const Tensor& input) { return tl::hardswish(input); }

Tensor silu(const Tensor& input) { return tl::silu(input); }

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

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout2d: dropout probability has to be between 0 and 1, but got ", p);
  if (!inplace) return tl::feature_dropout(input, p, training);
  Tensor out = input;
  if (training) out.copy_(tl::feature_dropout(input, p, training));
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
