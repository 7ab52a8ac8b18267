// nn/init.cpp — torch.nn.init's fills, each the tensor's own in-place op under no_grad as in PyTorch:
// uniform_ / normal_ (PyTorch's draws, in memory order) and a copy_ of the constant.
#include "nn/init.h"

#include <cmath>
#include <string>

#include "core/grad_mode.h"
#include "ops/ops.h"

namespace tl::nn::init {
namespace {

/// The undefined-tensor check of every fill.
void check_defined(const Tensor& tensor, const char* op) {
  TL_CHECK(tensor.defined(), op, ": the tensor is undefined (None)");
}

int64_t kaiming_fan(const Tensor& tensor, std::string_view mode, const char* op) {
  TL_CHECK(mode == "fan_in" || mode == "fan_out", op, ": mode '", mode,
           "' not supported, please use one of 'fan_in', 'fan_out'");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return mode == "fan_in" ? fan_in : fan_out;
}

}  // namespace

double calculate_gain(std::string_view nonlinearity, std::optional<double> param) {
  if (nonlinearity == "linear" || nonlinearity == "conv1d" || nonlinearity == "conv2d" ||
      nonlinearity == "conv3d" || nonlinearity == "conv_transpose1d" || nonlinearity == "conv_transpose2d" ||
      nonlinearity == "conv_transpose3d" || nonlinearity == "sigmoid")
    return 1.0;
  if (nonlinearity == "tanh") return 5.0 / 3.0;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1.0 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4.0;
  tl::detail::throw_error(tl::detail::str_cat("calculate_gain: unsupported nonlinearity '", nonlinearity, "'"));
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor) {
  TL_CHECK(tensor.dim() >= 2,
           "calculate_fan_in_and_fan_out: fan in and fan out can not be computed for tensor with fewer than 2 "
           "dimensions, got shape ",
           tensor.shape());
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

// As torch.nn.init: the tensor's own uniform_ / normal_ under no_grad (so a parameter can be filled).
Tensor uniform_(const Tensor& tensor, double a, double b) {
  check_defined(tensor, "uniform_");
  TL_CHECK(a <= b, "uniform_: expects a <= b, got a=", a, " and b=", b);
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  Tensor(tensor).uniform_(a, b);
  return tensor;
}

Tensor normal_(const Tensor& tensor, double mean, double std) {
  check_defined(tensor, "normal_");
  TL_CHECK(std >= 0.0, "normal_: expects std >= 0.0, got std=", std);
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;
  Tensor(tensor).normal_(mean, std);
  return tensor;
}

Tensor constant_(const Tensor& tensor, double value) {
  check_defined(tensor, "constant_");
  if (tensor.numel() == 0) return tensor;
  NoGradGuard no_grad;  // PyTorch's fill_: the value converted to the tensor's dtype, through its strides
  Tensor(tensor).copy_(full({}, value, DType::Float64));
  return tensor;
}

Tensor ones_(const Tensor& tensor) { return constant_(tensor, 1.0); }
Tensor zeros_(const Tensor& tensor) { return constant_(tensor, 0.0); }

Tensor kaiming_uniform_(const Tensor& tensor, double a, std::string_view mode, std::string_view nonlinearity) {
  check_defined(tensor, "kaiming_uniform_");
  if (tensor.numel() == 0) return tensor;
  const int64_t fan = kaiming_fan(tensor, mode, "kaiming_uniform_");
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
  const double bound = std::sqrt(3.0) * std;  // PyTorch's order of rounding
  return uniform_(tensor, -bound, bound);
}

Tensor kaiming_normal_(const Tensor& tensor, double a, std::string_view mode, std::string_view nonlinearity) {
  check_defined(tensor, "kaiming_normal_");
  if (tensor.numel() == 0) return tensor;
  const int64_t fan = kaiming_fan(tensor, mode, "kaiming_normal_");
  return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan)));
}

Tensor xavier_uniform_(const Tensor& tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double bound = std::sqrt(3.0) * std;  // PyTorch's order of rounding
  return uniform_(tensor, -bound, bound);
}

Tensor xavier_normal_(const Tensor& tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return normal_(tensor, 0.0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)));
}

void default_weight_and_bias_(const Tensor& weight, const Tensor& bias) {
  kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  const int64_t fan_in = calculate_fan_in_and_fan_out(weight).first;
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  uniform_(bias, -bound, bound);
}

}  // namespace tl::nn::init
