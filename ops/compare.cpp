// ops/compare.cpp — gt, lt, ge, le, eq, ne and logical_and, logical_or, logical_xor (bool tensors,
// broadcasting, operands promoted to their result type), and allclose / equal, which answer with a bool.
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <type_traits>

#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {
namespace {

using detail::ElementwiseLoop;

struct Gt {
  static constexpr const char* kName = "gt";
  template <typename A> static bool f(A a, A b) { return a > b; }
};
struct Lt {
  static constexpr const char* kName = "lt";
  template <typename A> static bool f(A a, A b) { return a < b; }
};
struct Ge {
  static constexpr const char* kName = "ge";
  template <typename A> static bool f(A a, A b) { return a >= b; }
};
struct Le {
  static constexpr const char* kName = "le";
  template <typename A> static bool f(A a, A b) { return a <= b; }
};
struct Eq {
  static constexpr const char* kName = "eq";
  template <typename A> static bool f(A a, A b) { return a == b; }
};
struct Ne {
  static constexpr const char* kName = "ne";
  template <typename A> static bool f(A a, A b) { return a != b; }
};

// Any non-zero value (NaN too) is true. `&` and `|`, not `&&` and `||`: a short circuit reads b under a branch,
// which keeps the loop from vectorising and mispredicts on random masks.
struct LogicalAnd {
  static constexpr const char* kName = "logical_and";
  template <typename A> static bool f(A a, A b) { return (a != A(0)) & (b != A(0)); }
};
struct LogicalOr {
  static constexpr const char* kName = "logical_or";
  template <typename A> static bool f(A a, A b) { return (a != A(0)) | (b != A(0)); }
};
struct LogicalXor {
  static constexpr const char* kName = "logical_xor";
  template <typename A> static bool f(A a, A b) { return (a != A(0)) != (b != A(0)); }
};

// bool out = Op(x, y) with x and y already of the same dtype.
template <typename Op>
Tensor compare_tensors(const Tensor& x, const Tensor& y, const Shape& shape) {
  Tensor out = Tensor::allocate(shape, DType::Bool);
  const ElementwiseLoop loop(out, {x, y});
  TL_DISPATCH_ALL_TYPES(x.dtype(), Op::kName, [&] {
    using A = detail::acc_type<scalar_t>;
    detail::map_elements<bool, scalar_t, scalar_t>(
        loop, [](scalar_t a, scalar_t b) { return Op::f(static_cast<A>(a), static_cast<A>(b)); });
  });
  return out;
}

// self op other, where `other` is undefined when the op got the number `number` instead (x > 0).
template <typename Op>
Tensor compare(const Tensor& self, const Tensor& other, const std::optional<Scalar>& number) {
  const detail::BinaryOperands b = detail::binary_operands(self, other, number, Op::kName);
  return compare_tensors<Op>(detail::to_dtype(b.self, b.dtype), detail::to_dtype(b.other, b.dtype), b.shape);
}

// |a - b| <= atol + rtol * |b| in double; equal values (infinities included) are always close.
template <typename T>
bool is_close(T a, T b, double rtol, double atol, bool equal_nan) {
  if (a == b) return true;
  if constexpr (std::is_same_v<T, bool>) {
    return false;
  } else {
    const double x = static_cast<double>(static_cast<detail::acc_type<T>>(a));
    const double y = static_cast<double>(static_cast<detail::acc_type<T>>(b));
    if (std::isnan(x) || std::isnan(y)) return equal_nan && std::isnan(x) && std::isnan(y);
    if (std::isinf(x) || std::isinf(y)) return false;
    return std::fabs(x - y) <= atol + rtol * std::fabs(y);
  }
}

bool all_true(const Tensor& flags) {
  return std::memchr(flags.raw_data(), 0, static_cast<size_t>(flags.numel())) == nullptr;
}

void check_defined(const Tensor& self, const Tensor& other, const char* op) {
  TL_CHECK(self.defined() && other.defined(), op, ": expected two tensors");
}

}  // namespace

Tensor gt(const Tensor& self, const Tensor& other, const GtArgs& args) { return compare<Gt>(self, other, args.other); }
Tensor lt(const Tensor& self, const Tensor& other, const LtArgs& args) { return compare<Lt>(self, other, args.other); }
Tensor ge(const Tensor& self, const Tensor& other, const GeArgs& args) { return compare<Ge>(self, other, args.other); }
Tensor le(const Tensor& self, const Tensor& other, const LeArgs& args) { return compare<Le>(self, other, args.other); }
Tensor eq(const Tensor& self, const Tensor& other, const EqArgs& args) { return compare<Eq>(self, other, args.other); }
Tensor ne(const Tensor& self, const Tensor& other, const NeArgs& args) { return compare<Ne>(self, other, args.other); }
Tensor logical_and(const Tensor& self, const Tensor& other, const LogicalAndArgs& args) {
  return compare<LogicalAnd>(self, other, args.other);
}
Tensor logical_or(const Tensor& self, const Tensor& other, const LogicalOrArgs& args) {
  return compare<LogicalOr>(self, other, args.other);
}
Tensor logical_xor(const Tensor& self, const Tensor& other, const LogicalXorArgs& args) {
  return compare<LogicalXor>(self, other, args.other);
}

// Unlike torch.allclose, operands of different dtypes are compared in their result type.
bool allclose(const Tensor& self, const Tensor& other, const AllcloseArgs& args) {
  check_defined(self, other, "allclose");
  const double rtol = args.rtol, atol = args.atol;
  const bool equal_nan = args.equal_nan;
  TL_CHECK(rtol >= 0, "allclose: rtol must be greater than or equal to zero, but got ", rtol);
  TL_CHECK(atol >= 0, "allclose: atol must be greater than or equal to zero, but got ", atol);
  const DType dtype = detail::result_type(std::initializer_list<Tensor>{self, other});
  const Shape shape = broadcast_shapes(self.shape(), other.shape(), "allclose");
  const Tensor x = detail::to_dtype(self, dtype), y = detail::to_dtype(other, dtype);
  Tensor close = Tensor::allocate(shape, DType::Bool);
  const ElementwiseLoop loop(close, {x, y});
  TL_DISPATCH_ALL_TYPES(dtype, "allclose", [&] {
    detail::map_elements<bool, scalar_t, scalar_t>(
        loop, [=](scalar_t a, scalar_t b) { return is_close(a, b, rtol, atol, equal_nan); });
  });
  return all_true(close);
}

// Same shape and the same values after promotion; NaN equals nothing.
bool equal(const Tensor& self, const Tensor& other) {
  check_defined(self, other, "equal");
  if (self.shape() != other.shape()) return false;
  const DType dtype = detail::result_type(std::initializer_list<Tensor>{self, other});
  const Tensor same = compare_tensors<Eq>(detail::to_dtype(self, dtype), detail::to_dtype(other, dtype), self.shape());
  return all_true(same);
}

}  // namespace tl::kernels
