// core/dtype.h — element types, the bfloat16 storage type, the quantized integer types, and the macros
// that turn a runtime DType into a compile-time C++ type for kernels.
#pragma once

#include <cstdint>
#include <cstring>
#include <iosfwd>

namespace tl {

/// The plain types, then the quantized ones (torch.quint8, torch.qint8, torch.qint32): a quantized tensor
/// stores the integers of its underlying type (UInt8, Int8, Int32) and carries a Quantizer (core/quantizer.h)
/// that maps them to real values.
enum class DType : uint8_t { Float32, Float64, Int64, Int32, Bool, BFloat16, UInt8, Int8, QUInt8, QInt8, QInt32 };

/// LibTorch's dtype shorthands (torch::kFloat, ...): `x.to(tl::kFloat)`, `tl::zeros({2}, tl::kLong)`.
inline constexpr DType kFloat = DType::Float32, kFloat32 = DType::Float32, kDouble = DType::Float64,
                       kFloat64 = DType::Float64, kLong = DType::Int64, kInt64 = DType::Int64, kInt = DType::Int32,
                       kInt32 = DType::Int32, kBool = DType::Bool, kBFloat16 = DType::BFloat16, kByte = DType::UInt8,
                       kUInt8 = DType::UInt8, kChar = DType::Int8, kInt8 = DType::Int8, kQUInt8 = DType::QUInt8,
                       kQInt8 = DType::QInt8, kQInt32 = DType::QInt32;

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

/// c10::quint8 / qint8 / qint32: one element of a quantized tensor, the integer it stores (`val_`).
struct quint8 {
  using underlying = uint8_t;
  uint8_t val_;
};
struct qint8 {
  using underlying = int8_t;
  int8_t val_;
};
struct qint32 {
  using underlying = int32_t;
  int32_t val_;
};

/// Bytes per element.
int64_t element_size(DType dtype);
/// PyTorch's spelling: "torch.float32", "torch.int64", ...
const char* dtype_name(DType dtype);
/// c10's ScalarType name, which PyTorch's messages use: "Float", "Long", "Byte", "QUInt8", ...
const char* scalar_type_name(DType dtype);
bool is_floating_point(DType dtype);
/// True for torch.quint8, torch.qint8 and torch.qint32.
bool is_quantized(DType dtype);
/// The integer type a quantized dtype stores (c10::toUnderlying): QUInt8 -> UInt8, QInt8 -> Int8, QInt32 -> Int32;
/// any other dtype is its own.
DType underlying_dtype(DType dtype);
/// The result type of a binary op between two tensors (PyTorch's promotion lattice). Throws tl::Error for a
/// quantized type (PyTorch does not promote them) and for uint8 with int8, whose result, int16, torchless
/// does not have.
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
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::Int8; };
template <> struct DTypeOf<quint8> { static constexpr DType value = DType::QUInt8; };
template <> struct DTypeOf<qint8> { static constexpr DType value = DType::QInt8; };
template <> struct DTypeOf<qint32> { static constexpr DType value = DType::QInt32; };

template <typename T>
inline constexpr DType dtype_of = DTypeOf<T>::value;

}  // namespace tl

#define TL_DTYPE_CASE(enum_value, cpp_type, ...) \
  case ::tl::DType::enum_value: {               \
    using scalar_t = cpp_type;                  \
    return __VA_ARGS__();                       \
  }

/// The cases of the six types ops compute in (float32, float64, int64, int32, bool, bfloat16), for the
/// dispatch macros' switches.
#define TL_COMPUTE_TYPE_CASES(...)                          \
  TL_DTYPE_CASE(Float32, float, __VA_ARGS__)                \
  TL_DTYPE_CASE(Float64, double, __VA_ARGS__)               \
  TL_DTYPE_CASE(Int64, int64_t, __VA_ARGS__)                \
  TL_DTYPE_CASE(Int32, int32_t, __VA_ARGS__)                \
  TL_DTYPE_CASE(Bool, bool, __VA_ARGS__)                    \
  TL_DTYPE_CASE(BFloat16, ::tl::BFloat16, __VA_ARGS__)

/// Runs the lambda `__VA_ARGS__` with `scalar_t` bound to the C++ type of `dtype`: every plain type (the six
/// torchless computes in and the byte types uint8 / int8). For kernels that move, compare, sum or print
/// elements, which are right for every one of them; a quantized dtype gets a tl::Error naming the op.
/// The lambda is not a template: each branch of it must compile for every type; put type-specific
/// code in a function template called from it.
#define TL_DISPATCH_ALL_TYPES(dtype, op_name, ...)                                              \
  [&] {                                                                                         \
    switch (dtype) {                                                                            \
      TL_COMPUTE_TYPE_CASES(__VA_ARGS__)                                                        \
      TL_DTYPE_CASE(UInt8, uint8_t, __VA_ARGS__)                                                \
      TL_DTYPE_CASE(Int8, int8_t, __VA_ARGS__)                                                  \
      default: break;                                                                           \
    }                                                                                           \
    ::tl::detail::throw_error(::tl::detail::str_cat(op_name, ": not implemented for ", dtype)); \
  }()

/// The six types torchless computes in: arithmetic, reductions other than sum, random draws. uint8 and int8
/// are storage types here (made, copied, compared, indexed, summed, printed; `.to(kFloat)` to compute), so
/// these kernels give them a tl::Error naming the op and the dtype.
#define TL_DISPATCH_COMPUTE_TYPES(dtype, op_name, ...)                                                              \
  [&] {                                                                                                             \
    switch (dtype) { TL_COMPUTE_TYPE_CASES(__VA_ARGS__) default: break; }                                            \
    ::tl::detail::throw_error(::tl::detail::str_cat(op_name, ": not implemented for ", dtype));                     \
  }()

/// ATen's AT_DISPATCH_QINT_TYPES: the quantized types, with `scalar_t` the element struct (quint8, ...) and
/// `underlying_t` the integer it stores; any other dtype gets a tl::Error naming the op.
#define TL_QINT_CASE(enum_value, cpp_type, ...) \
  case ::tl::DType::enum_value: {              \
    using scalar_t [[maybe_unused]] = cpp_type; \
    using underlying_t = cpp_type::underlying; \
    return __VA_ARGS__();                      \
  }
#define TL_DISPATCH_QINT_TYPES(dtype, op_name, ...)                                                     \
  [&] {                                                                                                 \
    switch (dtype) {                                                                                    \
      TL_QINT_CASE(QUInt8, ::tl::quint8, __VA_ARGS__)                                                   \
      TL_QINT_CASE(QInt8, ::tl::qint8, __VA_ARGS__)                                                     \
      TL_QINT_CASE(QInt32, ::tl::qint32, __VA_ARGS__)                                                   \
      default: break;                                                                                   \
    }                                                                                                   \
    ::tl::detail::throw_error(::tl::detail::str_cat(op_name, ": expected a quantized dtype, got ", dtype)); \
  }()

/// Same as TL_DISPATCH_COMPUTE_TYPES but rejects bool with a tl::Error (arithmetic kernels).
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
