// core/scalar.cpp — Scalar printing (Python spelling) and result types.
#include "core/scalar.h"

#include <cmath>
#include <ostream>

namespace tl {

DType Scalar::result_type(DType tensor_dtype) const {
  if (is_floating_point() && !tl::is_floating_point(tensor_dtype)) return DType::Float32;
  if (is_integral() && tensor_dtype == DType::Bool) return DType::Int64;
  return tensor_dtype;
}

std::ostream& operator<<(std::ostream& os, const Scalar& s) {
  if (s.is_bool()) return os << (s.to<bool>() ? "True" : "False");
  if (s.is_integral()) return os << s.to<int64_t>();
  const double d = s.to<double>();
  if (std::isinf(d)) return os << (d > 0 ? "inf" : "-inf");
  if (std::isnan(d)) return os << "nan";
  if (d == std::floor(d) && std::fabs(d) < 1e16) return os << static_cast<int64_t>(d) << ".0";
  return os << d;
}

}  // namespace tl
