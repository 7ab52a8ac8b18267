// nn/init.cpp — torch.nn.init's fills. Random fills are the tensor's own in-place ops under no_grad, as in
// PyTorch: uniform_ / normal_ (PyTorch's draws, in memory order), with the arguments and in the order
// PyTorch's init.py draws; the deterministic ones (eye_, dirac_, trunc_normal_'s transform) write through
// the strides.
#include "nn/init.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "core/grad_mode.h"
#include "core/warning.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/reduce_plan.h"

namespace tl::nn::init {
namespace {

/// The undefined-tensor check of every fill.
void check_defined(const Tensor& tensor, const char* op) {
  TL_CHECK(tensor.defined(), op, ": the tensor is undefined (None)");
}

/// PyTorch's _calculate_correct_fan: the mode is compared lower-cased.
int64_t kaiming_fan(const Tensor& tensor, std::string_view mode, const char* op) {
  std::string lowered(mode);
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
  TL_CHECK(lowered == "fan_in" || lowered == "fan_out", op, ": mode '", mode,
           "' not supported, please use one of 'fan_in', 'fan_out'");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(tensor);
  return lowered == "fan_in" ? fan_in : fan_out;
}

/// PyTorch's calc_erfinv (ATen/native/Math.h) in T (float or double): a rational first guess, then two
/// Newton steps. ATen's erfinv kernel is compiled per CPU capability (AVX2, AVX512: -mfma), where the compiler
/// contracts each Horner step into a fused multiply-add; written as std::fma here, its values are PyTorch's bit
/// for bit on such a CPU (without it, 13% of float32 draws were one ulp off).
template <typename T>
T erfinv(T y) {
  constexpr T a[4] = {T(0.886226899), T(-1.645349621), T(0.914624893), T(-0.140543331)};
  constexpr T b[4] = {T(-2.118377725), T(1.442710462), T(-0.329097515), T(0.012229801)};
  constexpr T c[4] = {T(-1.970840454), T(-1.624906493), T(3.429567803), T(1.641345311)};
  constexpr T d[2] = {T(3.543889200), T(1.637067800)};
  const T y_abs = std::abs(y);
  if (y_abs > T(1)) return std::numeric_limits<T>::quiet_NaN();
  if (y_abs == T(1)) return std::copysign(std::numeric_limits<T>::infinity(), y);
  T x;
  if (y_abs <= T(0.7)) {
    const T z = y * y;
    const T num = std::fma(std::fma(std::fma(a[3], z, a[2]), z, a[1]), z, a[0]);
    const T dem = std::fma(std::fma(std::fma(std::fma(b[3], z, b[2]), z, b[1]), z, b[0]), z, T(1));
    x = y * num / dem;
  } else {
    const T z = std::sqrt(-std::log((T(1) - y_abs) / T(2)));
    const T num = std::fma(std::fma(std::fma(c[3], z, c[2]), z, c[1]), z, c[0]);
    const T dem = std::fma(std::fma(d[1], z, d[0]), z, T(1));
    x = std::copysign(num, y) / dem;
  }
  const T two_over_sqrt_pi = T(2) / static_cast<T>(std::sqrt(std::numbers::pi));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

/// Q (m x n, row-major) of the Householder QR of the row-major m x n matrix `a` (m >= n), each column
/// multiplied by the sign of R's diagonal entry (0 for 0), as init.orthogonal_ normalises linalg.qr's Q.
std::vector<double> orthonormal_q(std::vector<double> a, int64_t m, int64_t n) {
  std::vector<std::vector<double>> reflectors;  // v_k over rows k..m-1, empty when H_k = I
  std::vector<double> diag(n);
  for (int64_t k = 0; k < n; ++k) {
    std::vector<double> v(m - k);
    double norm2 = 0;
    for (int64_t i = k; i < m; ++i) norm2 += a[i * n + k] * a[i * n + k];
    if (norm2 == 0.0) {
      reflectors.emplace_back();
      diag[k] = 0.0;
      continue;
    }
    const double beta = -std::copysign(std::sqrt(norm2), a[k * n + k]);
    for (int64_t i = k; i < m; ++i) v[i - k] = a[i * n + k];
    v[0] -= beta;
    double v2 = 0;
    for (const double e : v) v2 += e * e;
    for (int64_t j = k; j < n; ++j) {  // R[k:, k:] -= 2 v (v^T R[k:, k:]) / (v^T v)
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i - k] * a[i * n + j];
      const double f = 2.0 * dot / v2;
      for (int64_t i = k; i < m; ++i) a[i * n + j] -= f * v[i - k];
    }
    diag[k] = a[k * n + k];
    reflectors.push_back(std::move(v));
  }
  std::vector<double> q(m * n, 0.0);  // H_0 ... H_{n-1} applied to the first n columns of I
  for (int64_t j = 0; j < n; ++j) q[j * n + j] = 1.0;
  for (int64_t k = n; k-- > 0;) {
    const std::vector<double>& v = reflectors[k];
    if (v.empty()) continue;
    double v2 = 0;
    for (const double e : v) v2 += e * e;
    for (int64_t j = 0; j < n; ++j) {
      double dot = 0;
      for (int64_t i = k; i < m; ++i) dot += v[i - k] * q[i * n + j];
      const double f = 2.0 * dot / v2;
      for (int64_t i = k; i < m; ++i) q[i * n + j] -= f * v[i - k];
    }
  }
  for (int64_t j = 0; j < n; ++j) {
    const double sign = diag[j] > 0 ? 1.0 : diag[j] < 0 ? -1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) q[i * n + j] *= sign;
  }
  return q;
}

/// The element of `t` at `index` (one entry per dimension), through the strides.
template <typename T>
T& element(const Tensor& t, const std::vector<int64_t>& index) {
  int64_t offset = 0;
  for (size_t d = 0; d < index.size(); ++d) offset += index[d] * t.stride(static_cast<int64_t>(d));
  return t.data<T>()[offset];
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
  const double bound = std::sqrt(3.0) * std;  // in PyTorch's order: the bound rounds as its does
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
  const double bound = std::sqrt(3.0) * std;  // in PyTorch's order: the bound rounds as its does
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

Tensor trunc_normal_(const Tensor& tensor, double mean, double std, double a, double b) {
  TL_CHECK(tensor.defined(), "trunc_normal_: the tensor is undefined (None)");
  if (mean < a - 2 * std || mean > b + 2 * std)
    TL_WARN_ONCE("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values may be "
            "incorrect.");
  const auto norm_cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  const double l = norm_cdf((a - mean) / std), u = norm_cdf((b - mean) / std);
  uniform_(tensor, 2 * l - 1, 2 * u - 1);
  // PyTorch's erfinv_, mul_(std * sqrt(2)), add_(mean), clamp_(a, b), each rounded to the dtype.
  TL_DISPATCH_FLOATING_TYPES(tensor.dtype(), "trunc_normal_", [&] {
    using acc_t = tl::detail::acc_type<scalar_t>;  // bfloat16 steps compute in float, rounding each result
    const auto scale = static_cast<scalar_t>(std * std::sqrt(2.)), shift = static_cast<scalar_t>(mean);
    const auto lo = static_cast<acc_t>(static_cast<scalar_t>(a)), hi = static_cast<acc_t>(static_cast<scalar_t>(b));
    tl::detail::for_each_element<scalar_t>(tensor, false, [&](scalar_t* p) {
      const auto x = static_cast<scalar_t>(erfinv(static_cast<acc_t>(*p)));
      const auto scaled = static_cast<scalar_t>(static_cast<acc_t>(x) * static_cast<acc_t>(scale));
      const auto shifted = static_cast<acc_t>(static_cast<scalar_t>(static_cast<acc_t>(scaled) + static_cast<acc_t>(shift)));
      *p = static_cast<scalar_t>(std::min(std::max(shifted, lo), hi));
    });
  });
  return tensor;
}

Tensor sparse_(const Tensor& tensor, double sparsity, double std) {
  check_defined(tensor, "sparse_");
  TL_CHECK(tensor.dim() == 2, "sparse_: only tensors with 2 dimensions are supported, got shape ", tensor.shape());
  TL_CHECK(sparsity >= 0.0 && sparsity <= 1.0, "sparse_: expected a sparsity in [0, 1], got ", sparsity);
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto zeros = static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows)));
  normal_(tensor, 0.0, std);
  NoGradGuard no_grad;
  for (int64_t c = 0; c < cols; ++c) {
    const Tensor order = randperm(rows);
    const int64_t* r = order.data<int64_t>();
    for (int64_t i = 0; i < zeros; ++i) Tensor(tensor).index_put_({r[i], c}, 0.0);
  }
  return tensor;
}

Tensor orthogonal_(const Tensor& tensor, double gain) {
  TL_CHECK(tensor.defined(), "orthogonal_: the tensor is undefined (None)");
  TL_CHECK(tensor.dim() >= 2, "orthogonal_: only tensors with 2 or more dimensions are supported, got shape ",
           tensor.shape());
  if (tensor.numel() == 0) return tensor;
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  const Tensor drawn = normal_(empty({rows, cols}, tensor.dtype()));
  // PyTorch factors the transpose of a wide matrix and transposes Q back.
  const bool wide = rows < cols;
  const Tensor a = (wide ? drawn.t() : drawn).to(DType::Float64).contiguous();
  const int64_t m = a.size(0), n = a.size(1);
  const std::vector<double> q = orthonormal_q(std::vector<double>(a.data<double>(), a.data<double>() + m * n), m, n);
  TL_DISPATCH_FLOATING_TYPES(tensor.dtype(), "orthogonal_", [&] {
    const auto g = static_cast<scalar_t>(gain);
    int64_t i = 0;  // row-major over (rows, cols)
    tl::detail::for_each_element<scalar_t>(tensor, false, [&](scalar_t* p) {
      const int64_t r = i / cols, c = i % cols;
      *p = static_cast<scalar_t>(wide ? q[c * n + r] : q[r * n + c]) * g;
      ++i;
    });
  });
  return tensor;
}

Tensor eye_(const Tensor& tensor) {
  TL_CHECK(tensor.defined(), "eye_: the tensor is undefined (None)");
  TL_CHECK(tensor.dim() == 2, "eye_: only tensors with 2 dimensions are supported, got shape ", tensor.shape());
  if (tensor.numel() == 0) return tensor;
  const int64_t cols = tensor.size(1);
  TL_DISPATCH_ALL_TYPES(tensor.dtype(), "eye_", [&] {
    int64_t i = 0;
    tl::detail::for_each_element<scalar_t>(tensor, false, [&](scalar_t* p) {
      *p = static_cast<scalar_t>(i / cols == i % cols ? 1 : 0);
      ++i;
    });
  });
  return tensor;
}

Tensor dirac_(const Tensor& tensor, int64_t groups) {
  TL_CHECK(tensor.defined(), "dirac_: the tensor is undefined (None)");
  const int64_t dims = tensor.dim();
  TL_CHECK(dims >= 3 && dims <= 5, "dirac_: only tensors with 3, 4, or 5 dimensions are supported, got shape ",
           tensor.shape());
  TL_CHECK(groups > 0, "dirac_: groups must be positive, got ", groups);
  TL_CHECK(tensor.size(0) % groups == 0, "dirac_: dim 0 must be divisible by groups, got size ", tensor.size(0),
           " and groups=", groups);
  zeros_(tensor);
  if (tensor.numel() == 0) return tensor;
  const int64_t out_per_group = tensor.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, tensor.size(1));
  std::vector<int64_t> index(dims);
  for (int64_t d = 2; d < dims; ++d) index[d] = tensor.size(d) / 2;
  TL_DISPATCH_ALL_TYPES(tensor.dtype(), "dirac_", [&] {
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t d = 0; d < min_dim; ++d) {
        index[0] = g * out_per_group + d;
        index[1] = d;
        element<scalar_t>(tensor, index) = scalar_t(1);
      }
  });
  return tensor;
}

}  // namespace tl::nn::init
