// core/scalar.h — a Python-like number (bool, integer or floating) passed to ops as an argument.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <type_traits>
#include <variant>

#include "core/dtype.h"

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

  template <typename T>
  T to() const {
    return std::visit([](auto x) { return static_cast<T>(x); }, v_);
  }

  /// The dtype this number takes when it meets a tensor of `tensor_dtype` (PyTorch's rule for
  /// wrapped numbers: a float scalar lifts an integral tensor to float32, otherwise the tensor wins).
  DType result_type(DType tensor_dtype) const;

  friend std::ostream& operator<<(std::ostream& os, const Scalar& s);

 private:
  std::variant<bool, int64_t, double> v_;
};

}  // namespace tl
