// core/scalar.h — a Python-like number (bool, integer or floating) passed to ops as an argument.
#pragma once

#include <cmath>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <type_traits>
#include <utility>
#include <variant>

#include "core/dtype.h"
#include "core/error.h"

namespace tl {

class Scalar {
 public:
  Scalar(bool v) : v_(v) {}  // NOLINT: numbers convert implicitly, as in Python
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : v_(static_cast<int64_t>(v)) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : v_(static_cast<double>(v)) {}  // NOLINT

  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_integral() const { return std::holds_alternative<int64_t>(v_); }
  bool is_floating_point() const { return std::holds_alternative<double>(v_); }

  /// The value as T (floating values truncate toward zero for an integer T). Throws tl::Error
  /// when an integer T cannot hold the value (NaN, infinity, out of range), or a float or bfloat16 T
  /// a finite double beyond its range (infinity and NaN pass), as c10::Scalar::to does.
  template <typename T>
  T to() const {
    return std::visit([](auto x) { return convert<T>(x); }, v_);
  }

  /// The dtype this number takes when it meets a tensor of `tensor_dtype` (PyTorch's rule for
  /// wrapped numbers: a float scalar lifts an integral tensor to float32, otherwise the tensor wins).
  DType result_type(DType tensor_dtype) const;

  friend std::ostream& operator<<(std::ostream& os, const Scalar& s);

 private:
  template <typename T, typename S>
  static T convert(S x) {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_floating_point_v<S>) {
      // Both bounds are powers of two, exact in double; NaN fails both comparisons.
      const double lo = static_cast<double>(std::numeric_limits<T>::min());
      const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
      TL_CHECK(std::trunc(x) >= lo && std::trunc(x) < hi, "value ", x, " cannot be converted to a ",
               sizeof(T) * 8, "-bit integer without overflow");
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && std::is_same_v<S, int64_t>) {
      TL_CHECK(std::in_range<T>(x), "value ", x, " cannot be converted to a ", sizeof(T) * 8,
               "-bit integer without overflow");
    } else if constexpr ((std::is_same_v<T, float> || std::is_same_v<T, BFloat16>) && std::is_same_v<S, double>) {
      // c10's overflows<To, double>: the bound is the type's largest finite value, compared in double.
      const double max = std::is_same_v<T, float> ? std::numeric_limits<float>::max() : BFloat16::kMax;
      TL_CHECK(!(std::abs(x) > max) || std::isinf(x), "value ", x, " cannot be converted to type ",
               std::is_same_v<T, float> ? "float" : "at::BFloat16", " without overflow");
    }
    return static_cast<T>(x);
  }

  std::variant<bool, int64_t, double> v_;
};

}  // namespace tl
