// nn/init.cpp — torch.nn.init's fills. Values are written element by element through the strides
// (row-major logical order), so views and non-contiguous tensors are filled correctly.
#include "nn/init.h"

#include <cmath>
#include <mutex>
#include <string>
#include <vector>

#include "core/generator.h"

namespace tl::nn::init {
namespace {

/// Calls `set(p)` for a pointer to each element of `t`, in row-major logical order.
template <typename T, typename Set>
void for_each_element(const Tensor& t, Set set) {
  T* base = t.data<T>();
  const int64_t n = t.numel();
  if (t.is_contiguous()) {
    for (int64_t i = 0; i < n; ++i) set(base + i);
    return;
  }
  const std::vector<int64_t>& sizes = t.sizes().vec();
  const std::vector<int64_t>& strides = t.strides().vec();
  std::vector<int64_t> index(sizes.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    set(base + offset);
    for (size_t d = sizes.size(); d-- > 0;) {  // odometer increment, last dim fastest
      offset += strides[d];
      if (++index[d] < sizes[d]) break;
      offset -= strides[d] * index[d];
      index[d] = 0;
    }
  }
}

/// Fills a floating tensor with draw(generator) under the generator's lock.
template <typename Draw>
Tensor random_fill(const Tensor& tensor, const char* op, Draw draw) {
  TL_CHECK(tensor.defined(), op, ": the tensor is undefined (None)");
  if (tensor.numel() == 0) return tensor;
  Generator& gen = default_generator();
  std::lock_guard lock(gen.mutex());
  TL_DISPATCH_FLOATING_TYPES(tensor.dtype(), op, [&] {
    for_each_element<scalar_t>(tensor, [&](scalar_t* p) { *p = static_cast<scalar_t>(draw(gen)); });
  });
  return tensor;
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

Tensor uniform_(const Tensor& tensor, double a, double b) {
  TL_CHECK(a <= b, "uniform_: expects a <= b, got a=", a, " and b=", b);
  return random_fill(tensor, "uniform_", [&](Generator& g) { return a + (b - a) * g.uniform(); });
}

Tensor normal_(const Tensor& tensor, double mean, double std) {
  TL_CHECK(std >= 0.0, "normal_: expects std >= 0.0, got std=", std);
  return random_fill(tensor, "normal_", [&](Generator& g) { return mean + std * g.normal(); });
}

Tensor constant_(const Tensor& tensor, double value) {
  TL_CHECK(tensor.defined(), "constant_: the tensor is undefined (None)");
  if (tensor.numel() == 0) return tensor;
  TL_DISPATCH_ALL_TYPES(tensor.dtype(), "constant_", [&] {
    const auto v = static_cast<scalar_t>(value);
    for_each_element<scalar_t>(tensor, [&](scalar_t* p) { *p = v; });
  });
  return tensor;
}

Tensor ones_(const Tensor& tensor) { return constant_(tensor, 1.0); }
Tensor zeros_(const Tensor& tensor) { return constant_(tensor, 0.0); }

Tensor kaiming_uniform_(const Tensor& tensor, double a, std::string_view mode, std::string_view nonlinearity) {
  TL_CHECK(tensor.defined(), "kaiming_uniform_: the tensor is undefined (None)");
  if (tensor.numel() == 0) return tensor;
  const int64_t fan = kaiming_fan(tensor, mode, "kaiming_uniform_");
  const double bound = std::sqrt(3.0) * calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
  return uniform_(tensor, -bound, bound);
}

Tensor kaiming_normal_(const Tensor& tensor, double a, std::string_view mode, std::string_view nonlinearity) {
  TL_CHECK(tensor.defined(), "kaiming_normal_: the tensor is undefined (None)");
  if (tensor.numel() == 0) return tensor;
  const int64_t fan = kaiming_fan(tensor, mode, "kaiming_normal_");
  return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan)));
}

Tensor xavier_uniform_(const Tensor& tensor, double gain) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  const double bound = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
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
