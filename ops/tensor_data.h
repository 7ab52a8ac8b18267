// ops/tensor_data.h — what tl::tensor takes (LibTorch's TensorDataContainer): a number, or a braced list
// of them nested once per dimension, checked to be rectangular and of one scalar type as it is built.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "core/dtype.h"
#include "core/scalar.h"
#include "core/shape.h"

namespace tl {

/// A number (0-d) or a nested braced list: `{1.0, 2.0}`, `{{1, 2}, {3, 4}}`, or a std::vector (1-D).
/// The scalar type is the C++ type's (int: Int32, int64_t: Int64, float, double, bool); tl::tensor turns
/// integers into int64 and floating numbers into float32, as LibTorch's torch::tensor does. Throws
/// tl::Error for ragged lists and for elements of different scalar types.
class TensorData {
 public:
  TensorData(bool v) : type_(DType::Bool), values_{Scalar(v)} {}  // NOLINT: implicit, as LibTorch's
  template <typename T, std::enable_if_t<std::is_arithmetic_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorData(T v) : type_(scalar_type<T>()), values_{Scalar(v)} {}  // NOLINT
  TensorData(std::initializer_list<TensorData> list);  // NOLINT
  template <typename T>
  TensorData(const std::vector<T>& values)  // NOLINT
      : type_(scalar_type<T>()), shape_{static_cast<int64_t>(values.size())} {
    for (const T& v : values) values_.push_back(Scalar(v));
  }

  /// The element type as written (Int32 for an int literal).
  DType scalar_type() const { return type_; }
  const Shape& sizes() const { return shape_; }
  /// The elements in row-major order.
  const std::vector<Scalar>& values() const { return values_; }

 private:
  template <typename T>
  static constexpr DType scalar_type() {
    if constexpr (std::is_same_v<T, bool>) return DType::Bool;
    else if constexpr (std::is_floating_point_v<T>) return sizeof(T) == sizeof(float) ? DType::Float32 : DType::Float64;
    else return sizeof(T) <= sizeof(int32_t) ? DType::Int32 : DType::Int64;
  }

  DType type_ = DType::Float32;
  Shape shape_;
  std::vector<Scalar> values_;
};

}  // namespace tl
