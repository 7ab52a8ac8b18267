// tests/support/tensor_check.cpp — element access by flat index over any strides, for checks only.
#include "tests/support/tensor_check.h"

#include <cmath>
#include <sstream>

#include "ops/ops.h"

namespace tl::testing {

double element_at(const Tensor& t, int64_t flat) {
  int64_t offset = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    const int64_t size = t.shape()[d];
    offset += (flat % size) * t.strides()[d];
    flat /= size;
  }
  const char* base = static_cast<const char*>(t.raw_data());
  return TL_DISPATCH_ALL_TYPES(t.dtype(), "element_at", [&] {
    return static_cast<double>(*reinterpret_cast<const scalar_t*>(base + offset * t.element_size()));
  });
}

std::string compare_tensors(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  std::ostringstream os;
  if (actual.shape() != expected.shape()) {
    os << "shape " << actual.shape() << " != expected " << expected.shape();
    return os.str();
  }
  int64_t worst = -1;
  double worst_excess = 0.0;
  int64_t bad = 0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double a = element_at(actual, i), e = element_at(expected, i);
    if ((std::isnan(a) && std::isnan(e)) || a == e) continue;  // equal infinities too
    const double diff = std::fabs(a - e), allowed = atol + rtol * std::fabs(e);
    if (!(diff <= allowed)) {
      ++bad;
      const double excess = std::isnan(diff) ? INFINITY : diff - allowed;
      if (worst < 0 || excess > worst_excess) worst = i, worst_excess = excess;
    }
  }
  if (bad == 0) return {};
  Shape index(static_cast<size_t>(actual.dim()), 0);
  for (int64_t d = actual.dim() - 1, f = worst; d >= 0; --d) {
    index[d] = f % actual.shape()[d];
    f /= actual.shape()[d];
  }
  const double a = element_at(actual, worst), e = element_at(expected, worst);
  os.precision(9);
  os << bad << " of " << actual.numel() << " elements differ (rtol " << rtol << ", atol " << atol
     << "); worst at " << index << ": " << a << " vs expected " << e << " (diff " << std::fabs(a - e) << ")";
  return os.str();
}

bool same_tensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (!a.is_quantized()) return equal(a, b);
  if (a.qscheme() != b.qscheme() || !equal(a.int_repr(), b.int_repr())) return false;
  if (is_per_tensor(a.qscheme())) return a.q_scale() == b.q_scale() && a.q_zero_point() == b.q_zero_point();
  return a.q_per_channel_axis() == b.q_per_channel_axis() &&
         equal(a.q_per_channel_scales(), b.q_per_channel_scales()) &&
         equal(a.q_per_channel_zero_points(), b.q_per_channel_zero_points());
}

Tensor numeric_gradient(const std::function<double(const Tensor&)>& objective, const Tensor& x, double h) {
  Tensor grad = Tensor::allocate(x.shape(), DType::Float64);
  for (int64_t i = 0; i < x.numel(); ++i) {
    Tensor plus = x.clone(), minus = x.clone();
    plus.data<double>()[i] += h;
    minus.data<double>()[i] -= h;
    grad.data<double>()[i] = (objective(plus) - objective(minus)) / (2 * h);
  }
  return grad;
}

}  // namespace tl::testing
