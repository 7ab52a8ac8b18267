// core/dtype.h — element types, the bfloat16 storage type, and the macro that turns a runtime
// DType into a compile-time C++ type for kernels.
#pragma once

#include <cstdint>
#include <cstring>
#include <iosfwd>

namespace tl {

enum class DType : uint8_t { Float32, Float64, Int64, Int32, Bool, BFloat16 };

/// LibTorch's dtype shorthands (torch::kFloat, ...): `x.to(tl::kFloat)`, `tl::zeros({2}, tl::kLong)`.
inline constexpr DType kFloat = DType::Float32, kFloat32 = DType::Float32, kDouble = DType::Float64,
                       kFloat64 = DType::Float64, kLong = DType::Int64, kInt64 = DType::Int64, kInt = DType::Int32,
                       kInt32 = DType::Int32, kBool = DType::Bool, kBFloat16 = DType::BFloat16;

/// bfloat16: the upper 16 bits of an IEEE float32; converts with round-to-nearest-even.
struct BFloat16 {
  /// The largest finite bfloat16 (bits 0x7f7f).
  static constexpr double kMax = 3.3895313892515355e38;

  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(round(f)) {}  // NOLINT: implicit like a built-in float type
  operator float() const {               // NOLINT
    uint32_t u = static_cast<uint32_t>(bits) << 16;
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
  }

 private:
  static uint16_t round(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
};

/// Bytes per element.
int64_t element_size(DType dtype);
/// PyTorch's spelling: "torch.float32", "torch.int64", ...
const char* dtype_name(DType dtype);
bool is_floating_point(DType dtype);
/// The result type of a binary op between two tensors (PyTorch's promotion lattice).
DType promote_types(DType a, DType b);

std::ostream& operator<<(std::ostream& os, DType dtype);

template <typename T>
struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::Float32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::Float64; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::BFloat16; };

template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace tl

#define TL_DTYPE_CASE(enum_value, cpp_type, ...) \
  case ::tl::DType::enum_value: {               \
    using scalar_t = cpp_type;                  \
    return __VA_ARGS__();                       \
  }

/// Runs the lambda `__VA_ARGS__` with `scalar_t` bound to the C++ type of `dtype` (all six types).
/// The lambda is not a template: each branch of it must compile for every type; put type-specific
/// code in a function template called from it.
#define TL_DISPATCH_ALL_TYPES(dtype, op_name, ...)                                   \
  [&] {                                                                              \
    switch (dtype) {                                                                 \
      TL_DTYPE_CASE(Float32, float, __VA_ARGS__)                                     \
      TL_DTYPE_CASE(Float64, double, __VA_ARGS__)                                    \
      TL_DTYPE_CASE(Int64, int64_t, __VA_ARGS__)                                     \
      TL_DTYPE_CASE(Int32, int32_t, __VA_ARGS__)                                     \
      TL_DTYPE_CASE(Bool, bool, __VA_ARGS__)                                         \
      TL_DTYPE_CASE(BFloat16, ::tl::BFloat16, __VA_ARGS__)                           \
    }                                                                                \
    ::tl::detail::throw_error(::tl::detail::str_cat(op_name, ": unknown dtype"));    \
  }()

/// Same as TL_DISPATCH_ALL_TYPES but rejects bool with a tl::Error (arithmetic kernels).
#define TL_DISPATCH_NUMERIC_TYPES(dtype, op_name, ...)                                       \
  [&] {                                                                                      \
    switch (dtype) {                                                                         \
      TL_DTYPE_CASE(Float32, float, __VA_ARGS__)                                             \
      TL_DTYPE_CASE(Float64, double, __VA_ARGS__)                                            \
      TL_DTYPE_CASE(Int64, int64_t, __VA_ARGS__)                                             \
      TL_DTYPE_CASE(Int32, int32_t, __VA_ARGS__)                                             \
      TL_DTYPE_CASE(BFloat16, ::tl::BFloat16, __VA_ARGS__)                                   \
      default: break;                                                                        \
    }                                                                                        \
    ::tl::detail::throw_error(::tl::detail::str_cat(op_name, ": not implemented for ", dtype)); \
  }()

/// Floating types only (float32, float64, bfloat16); other dtypes get a tl::Error.
#define TL_DISPATCH_FLOATING_TYPES(dtype, op_name, ...)                                      \
  [&] {                                                                                      \
    switch (dtype) {                                                                         \
      TL_DTYPE_CASE(Float32, float, __VA_ARGS__)                                             \
      TL_DTYPE_CASE(Float64, double, __VA_ARGS__)                                            \
      TL_DTYPE_CASE(BFloat16, ::tl::BFloat16, __VA_ARGS__)                                   \
      default: break;                                                                        \
    }                                                                                        \
    ::tl::detail::throw_error(::tl::detail::str_cat(op_name, ": expected a floating point dtype, got ", dtype)); \
  }()
