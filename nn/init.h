// nn/init.h — torch.nn.init: in-place initialisation of a tensor's values; the random fills draw from the
// default generator (tl::manual_seed) as PyTorch's do, in memory order. Names and defaults are PyTorch's.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "core/tensor.h"

namespace tl::nn::init {

/// The gain PyTorch recommends for a nonlinearity: 1 for linear / conv* / sigmoid, 5/3 for tanh,
/// sqrt(2) for relu, sqrt(2 / (1 + slope^2)) for leaky_relu (slope = param, default 0.01), 3/4 for
/// selu. Throws tl::Error for another name.
double calculate_gain(std::string_view nonlinearity, std::optional<double> param = std::nullopt);

/// (fan_in, fan_out) of a weight (out, in, *receptive): (in * receptive, out * receptive).
/// Throws tl::Error for fewer than 2 dimensions.
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& tensor);

// Each function fills `tensor` in place (the handle is const, its values are not) and returns it.
// Random fills need a floating dtype; the constant fills take any dtype. A tensor with no elements
// is left as it is.

/// U(a, b).
Tensor uniform_(const Tensor& tensor, double a = 0.0, double b = 1.0);
/// N(mean, std^2).
Tensor normal_(const Tensor& tensor, double mean = 0.0, double std = 1.0);
Tensor constant_(const Tensor& tensor, double value);
Tensor ones_(const Tensor& tensor);
Tensor zeros_(const Tensor& tensor);

/// U(-bound, bound), bound = gain * sqrt(3 / fan), gain = calculate_gain(nonlinearity, a), fan chosen
/// by mode ("fan_in" or "fan_out"). Conv2d and Linear use a = sqrt(5), i.e. bound = 1 / sqrt(fan_in).
Tensor kaiming_uniform_(const Tensor& tensor, double a = 0.0, std::string_view mode = "fan_in",
                        std::string_view nonlinearity = "leaky_relu");
/// N(0, std^2), std = gain / sqrt(fan) (torchvision's ResNet: mode="fan_out", nonlinearity="relu").
Tensor kaiming_normal_(const Tensor& tensor, double a = 0.0, std::string_view mode = "fan_in",
                       std::string_view nonlinearity = "leaky_relu");
/// U(-bound, bound), bound = gain * sqrt(6 / (fan_in + fan_out)).
Tensor xavier_uniform_(const Tensor& tensor, double gain = 1.0);
/// nn.Linear's and nn.ConvNd's reset_parameters(): weight kaiming_uniform_(a=sqrt(5)), then bias
/// (when defined) U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with the weight's fan_in.
void default_weight_and_bias_(const Tensor& weight, const Tensor& bias);
/// N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out)).
Tensor xavier_normal_(const Tensor& tensor, double gain = 1.0);

/// N(mean, std^2) truncated to [a, b], PyTorch's way: one uniform_ draw in [2 cdf(a) - 1, 2 cdf(b) - 1]
/// (cdf of the standard normal at (bound - mean) / std), then erfinv, * std * sqrt(2), + mean and a clamp
/// to [a, b], each step rounded to the tensor's dtype.
Tensor trunc_normal_(const Tensor& tensor, double mean = 0.0, double std = 1.0, double a = -2.0, double b = 2.0);
/// A (semi-)orthogonal matrix times gain: the tensor viewed as (rows = size(0), cols = numel / rows) gets
/// Q of the QR decomposition of a fresh N(0, 1) (rows, cols) draw (of its transpose when rows < cols,
/// then transposed back), with PyTorch's sign convention (each column of Q times the sign of R's
/// diagonal). Throws tl::Error for fewer than 2 dimensions; a tensor with no elements is left as it is.
Tensor orthogonal_(const Tensor& tensor, double gain = 1.0);
/// A sparse 2-D matrix (Martens 2010), as torch.nn.init.sparse_: N(0, std^2) everywhere, then in each
/// column the rows at the first ceil(sparsity * rows) positions of a fresh randperm(rows) set to 0 (PyTorch's
/// draws, in its order). Throws tl::Error, changing nothing, for another rank, a sparsity outside [0, 1] or
/// a negative std.
Tensor sparse_(const Tensor& tensor, double sparsity, double std = 0.01);
/// The identity matrix (torch.eye(rows, cols)) into a 2-D tensor; throws tl::Error for another rank.
Tensor eye_(const Tensor& tensor);
/// The Dirac delta of a convolution weight (out, in, *kernel) with 1 to 3 kernel dimensions: zeros, then
/// for each of `groups` groups of out / groups output channels, 1 at [g * out / groups + d, d, centre]
/// for d < min(out / groups, in). Throws tl::Error for another rank or out not divisible by groups.
Tensor dirac_(const Tensor& tensor, int64_t groups = 1);

}  // namespace tl::nn::init
