// ops/binary.cpp — add, sub, mul, div, pow and their in-place forms, rsub, Python's __rtruediv__, clamp
// and where: broadcasting,
// PyTorch's type promotion, and in-place results cast back only where torch.can_cast allows.
// Integer arithmetic wraps around as PyTorch's does; bfloat16 computes in float.
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/record_function.h"
#include "ops/aten_scope.h"
#include "ops/elementwise.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

using detail::BinaryOperands;
using detail::ElementwiseLoop;

// Integer arithmetic in the unsigned type wraps around instead of overflowing, as PyTorch's does.
template <typename A, typename Op>
A wrapping(A a, A b, Op op) {
  using U = std::make_unsigned_t<A>;
  return static_cast<A>(op(static_cast<U>(a), static_cast<U>(b)));
}

// Integer power by squaring; negative exponents give what integer division would (PyTorch's rule).
template <typename A>
A int_pow(A base, A exp) {
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? A(-1) : A(1);
    return 0;
  }
  A result = 1;
  for (; exp > 0; exp >>= 1, base = wrapping(base, base, std::multiplies<>()))
    if (exp & 1) result = wrapping(result, base, std::multiplies<>());
  return result;
}

// The dtypes an op's f is written for; others get "not implemented for" errors from the dispatch.
enum class Types { All, Numeric, Floating };

// Each op: names, the dtype it computes in for a given result type, the dtypes it accepts, the
// checks PyTorch makes, and f over the compute type (float for bfloat16). Defaults first.
struct BinaryOpDefaults {
  static constexpr const char* kOther = "other";
  static constexpr bool kAlpha = false;  // takes `Scalar alpha=1`, the factor of other (add, sub)
  static constexpr detail::NumberOperand kNumber = detail::NumberOperand::Wrapped;
  static DType compute_dtype(DType result) { return result; }
  static void check(const BinaryOperands&, const char*) {}
};

struct Add : BinaryOpDefaults {
  static constexpr const char* kName = "add";
  static constexpr const char* kInplaceName = "add_";
  static constexpr bool kAlpha = true;
  static constexpr Types kTypes = Types::All;
  template <typename A>
  static A f(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) return a || b;
    else if constexpr (std::is_integral_v<A>) return wrapping(a, b, std::plus<>());
    else return a + b;
  }
};

struct Sub : BinaryOpDefaults {
  static constexpr const char* kName = "sub";
  static constexpr const char* kInplaceName = "sub_";
  static constexpr bool kAlpha = true;
  static constexpr Types kTypes = Types::Numeric;
  static void check(const BinaryOperands& b, const char* name) {
    const bool self_bool = b.self.dtype() == DType::Bool, other_bool = b.other_dtype == DType::Bool;
    TL_CHECK(!(self_bool && other_bool), name, ": Subtraction, the `-` operator, with two bool tensors is not "
             "supported. Use the `^` or `logical_xor()` operator instead.");
    TL_CHECK(!(self_bool || other_bool), name, ": Subtraction, the `-` operator, with a bool tensor is not "
             "supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  }
  template <typename A>
  static A f(A a, A b) {
    if constexpr (std::is_integral_v<A>) return wrapping(a, b, std::minus<>());
    else return a - b;
  }
};

struct Mul : BinaryOpDefaults {
  static constexpr const char* kName = "mul";
  static constexpr const char* kInplaceName = "mul_";
  static constexpr Types kTypes = Types::All;
  template <typename A>
  static A f(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) return a && b;
    else if constexpr (std::is_integral_v<A>) return wrapping(a, b, std::multiplies<>());
    else return a * b;
  }
};

// rsub(self, other) is other - self (`2.0 - x`), with sub's types and checks.
struct Rsub : Sub {
  static constexpr const char* kName = "rsub";
  template <typename A>
  static A f(A a, A b) { return Sub::f(b, a); }
};

// True division: integral and bool operands divide as float32.
struct Div : BinaryOpDefaults {
  static constexpr const char* kName = "div";
  static constexpr const char* kInplaceName = "div_";
  static constexpr Types kTypes = Types::Floating;
  static DType compute_dtype(DType result) { return is_floating_point(result) ? result : DType::Float32; }
  template <typename A>
  static A f(A a, A b) { return a / b; }
};

struct Pow : BinaryOpDefaults {
  static constexpr const char* kName = "pow";
  static constexpr const char* kInplaceName = "pow_";
  static constexpr const char* kOther = "exponent";
  static constexpr detail::NumberOperand kNumber = detail::NumberOperand::AsIs;  // pow.Tensor_Scalar
  static constexpr Types kTypes = Types::Numeric;
  static void check(const BinaryOperands& b, const char* name) {
    const bool integral = !is_floating_point(b.dtype) && b.dtype != DType::Bool;
    TL_CHECK(!(integral && b.other_is_scalar && b.other.item<int64_t>() < 0), name,
             ": Integers to negative integer powers are not allowed.");
  }
  template <typename A>
  static A f(A a, A b) {
    if constexpr (std::is_integral_v<A>) return int_pow(a, b);
    else return std::pow(a, b);
  }
};

// f(a, b), or f(a, alpha * b) with a scale (ATen's add and sub with alpha != 1).
template <typename Op, typename T>
void binary_loop(const ElementwiseLoop& loop, const std::optional<Scalar>& alpha) {
  using A = detail::acc_type<T>;
  if (!alpha) {
    detail::map_elements<T, T, T>(loop,
                                  [](T a, T b) { return static_cast<T>(Op::f(static_cast<A>(a), static_cast<A>(b))); });
    return;
  }
  const A s = alpha->to<A>();
  detail::map_elements<T, T, T>(
      loop, [s](T a, T b) { return static_cast<T>(Op::f(static_cast<A>(a), Mul::f(s, static_cast<A>(b)))); });
}

template <typename Op>
void run_loop(DType dtype, const ElementwiseLoop& loop, const char* name, const std::optional<Scalar>& alpha = {}) {
  if constexpr (Op::kTypes == Types::All) {
    TL_DISPATCH_ALL_TYPES(dtype, name, [&] { binary_loop<Op, scalar_t>(loop, alpha); });
  } else if constexpr (Op::kTypes == Types::Numeric) {
    TL_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { binary_loop<Op, scalar_t>(loop, alpha); });
  } else {
    TL_DISPATCH_FLOATING_TYPES(dtype, name, [&] { binary_loop<Op, scalar_t>(loop, alpha); });
  }
}

// An op's alpha when it has one other than 1, after ATen's checks against the result type `dtype`.
template <typename Op>
std::optional<Scalar> alpha_of(const Attrs& attrs, DType dtype, const char* name) {
  if constexpr (!Op::kAlpha) {
    return std::nullopt;
  } else {
    if (attrs.is_none("alpha")) return std::nullopt;
    const Scalar alpha = attrs.scalar("alpha");
    TL_CHECK(!alpha.is_bool() || dtype == DType::Bool, name, ": Boolean alpha only supported for Boolean results.");
    TL_CHECK(is_floating_point(dtype) || !alpha.is_floating_point(), name,
             ": For integral input tensors, argument alpha must not be a floating point number.");
    if (alpha.is_floating_point() ? alpha.to<double>() == 1.0 : alpha.to<int64_t>() == 1) return std::nullopt;
    return alpha;
  }
}

template <typename Op>
TensorList binary(std::span<const Tensor> inputs, const Attrs& attrs) {
  const BinaryOperands b = detail::binary_operands(inputs, attrs, Op::kName, Op::kOther, Op::kNumber);
  Op::check(b, Op::kName);
  const std::optional<Scalar> alpha = alpha_of<Op>(attrs, b.dtype, Op::kName);
  const DType dtype = Op::compute_dtype(b.dtype);
  detail::operand_to_scopes(b, dtype);
  const Tensor x = detail::to_dtype(b.self, dtype), y = detail::to_dtype(b.other, dtype);
  Tensor out = Tensor::allocate(b.shape, dtype);
  run_loop<Op>(dtype, ElementwiseLoop(out, {x, y}), Op::kName, alpha);
  return {out};
}

template <typename Op>
TensorList binary_(std::span<const Tensor> inputs, const Attrs& attrs) {
  const char* name = Op::kInplaceName;
  const BinaryOperands b = detail::binary_operands(inputs, attrs, name, Op::kOther, Op::kNumber);
  const Tensor& self = b.self;
  Op::check(b, name);
  detail::check_inplace_broadcast(self, b.other.shape(), name);
  const DType dtype = Op::compute_dtype(b.dtype);
  TL_CHECK(detail::can_cast(dtype, self.dtype()), name, ": result type ", dtype,
           " can't be cast to the desired output type ", self.dtype());
  const std::optional<Scalar> alpha = alpha_of<Op>(attrs, b.dtype, name);
  detail::check_no_internal_overlap(self, name);
  detail::check_no_partial_overlap(self, b.other, name);
  detail::operand_to_scopes(b, dtype);
  const Tensor y = detail::to_dtype(b.other, dtype);
  if (dtype == self.dtype()) {
    run_loop<Op>(dtype, ElementwiseLoop(self, {self, y}), name, alpha);
    return {self};
  }
  // A wider result (float32 += float64) is computed apart, then rounded into self with ATen's copy_.
  const Tensor wide = detail::to_dtype(self, dtype);
  run_loop<Op>(dtype, ElementwiseLoop(wide, {wide, y}), name, alpha);
  RecordFunction copy("aten::copy_", [&] { return ScopeArgs{self, wide, AttrValue(false)}; });
  detail::copy_elements(self, wide);
  return {self};
}

// min(max(x, lo), hi) with either bound optional; NaN stays NaN, lo > hi gives hi, and a NaN bound
// gives NaN everywhere when both are given but is ignored alone (as ATen's clamp_out).
template <typename T>
void clamp_loop(const ElementwiseLoop& loop, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  using A = detail::acc_type<T>;
  const A l = lo ? lo->to<A>() : A(0), h = hi ? hi->to<A>() : A(0);
  if (lo && hi && (l != l || h != h)) {
    detail::map_elements<T, T>(loop, [](T) { return static_cast<T>(std::numeric_limits<A>::quiet_NaN()); });
    return;
  }
  auto lower = [l](A v) { return v < l ? l : v; };
  auto upper = [h](A v) { return v > h ? h : v; };
  if (lo && hi) detail::map_elements<T, T>(loop, [=](T x) { return static_cast<T>(upper(lower(static_cast<A>(x)))); });
  else if (lo) detail::map_elements<T, T>(loop, [=](T x) { return static_cast<T>(lower(static_cast<A>(x))); });
  else detail::map_elements<T, T>(loop, [=](T x) { return static_cast<T>(upper(static_cast<A>(x))); });
}

TensorList clamp_impl(std::span<const Tensor> inputs, const Attrs& attrs, bool inplace) {
  const char* name = inplace ? "clamp_" : "clamp";
  const Tensor& self = inputs[0];
  const std::optional<Scalar> lo = attrs.is_none("min") ? std::nullopt : std::optional(attrs.scalar("min"));
  const std::optional<Scalar> hi = attrs.is_none("max") ? std::nullopt : std::optional(attrs.scalar("max"));
  TL_CHECK(lo || hi, name, ": at least one of 'min' or 'max' must not be None");
  std::vector<Scalar> bounds;
  if (lo) bounds.push_back(*lo);
  if (hi) bounds.push_back(*hi);
  const DType dtype = detail::result_type(inputs.first(1), bounds);
  Tensor out;
  if (inplace) {
    // A clamp result is never wider than self unless self cannot hold it at all (int64 bounds for bool).
    TL_CHECK(dtype == self.dtype(), name, ": result type ", dtype, " can't be cast to the desired output type ",
             self.dtype());
    detail::check_no_internal_overlap(self, name);
    out = self;
  } else {
    out = Tensor::allocate(self.shape(), dtype);
  }
  const ElementwiseLoop loop(out, {detail::to_dtype(self, dtype)});
  TL_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { clamp_loop<scalar_t>(loop, lo, hi); });
  return {out};
}

}  // namespace

#define TL_BINARY_KERNELS(Op, name)                                                                                \
  TensorList name(std::span<const Tensor> inputs, const Attrs& attrs) { return binary<Op>(inputs, attrs); }       \
  TensorList name##_(std::span<const Tensor> inputs, const Attrs& attrs) { return binary_<Op>(inputs, attrs); }
TL_BINARY_KERNELS(Add, add)
TL_BINARY_KERNELS(Sub, sub)
TL_BINARY_KERNELS(Mul, mul)
TL_BINARY_KERNELS(Div, div)
TL_BINARY_KERNELS(Pow, pow)
#undef TL_BINARY_KERNELS

// ATen's rsub is sub(other, self), recorded with the number wrapped in a 0-d tensor and sub's alpha.
TensorList rsub(std::span<const Tensor> inputs, const Attrs& attrs) {
  RecordFunction sub("aten::sub", [&] {
    if (inputs.size() > 1) return ScopeArgs{inputs[1], inputs[0], AttrValue(int64_t{1})};
    return ScopeArgs{TensorType{Shape{}, detail::wrapped_number_dtype(attrs.scalar("other"))}, inputs[0],
                     AttrValue(int64_t{1})};
  });
  return binary<Rsub>(inputs, attrs);
}

// Python's Tensor.__rtruediv__ (`1.0 / x`) in PyTorch 1.13: reciprocal(x) * other, two ops.
TensorList rtruediv(std::span<const Tensor> inputs, const Attrs& attrs) {
  return {reciprocal(inputs[0]) * attrs.scalar("other")};
}

TensorList clamp(std::span<const Tensor> inputs, const Attrs& attrs) { return clamp_impl(inputs, attrs, false); }
TensorList clamp_(std::span<const Tensor> inputs, const Attrs& attrs) { return clamp_impl(inputs, attrs, true); }

// condition, a and b broadcast together; a and b promote to their result type.
TensorList where(std::span<const Tensor> inputs, const Attrs&) {
  const Tensor& condition = inputs[0];
  TL_CHECK(inputs.size() == 3 && inputs[1].defined() && inputs[2].defined(),
           "where: expected tensors for condition, self and other");
  TL_CHECK(condition.dtype() == DType::Bool,
           "where: expected condition to be a boolean tensor, but got a tensor with dtype ", condition.dtype());
  const DType dtype = detail::result_type(inputs.subspan(1, 2));
  const Shape shape =
      broadcast_shapes(broadcast_shapes(condition.shape(), inputs[1].shape(), "where"), inputs[2].shape(), "where");
  const Tensor a = detail::to_dtype(inputs[1], dtype), b = detail::to_dtype(inputs[2], dtype);
  Tensor out = Tensor::allocate(shape, dtype);
  const ElementwiseLoop loop(out, {condition, a, b});
  TL_DISPATCH_ALL_TYPES(dtype, "where", [&] {
    detail::map_elements<scalar_t, bool, scalar_t, scalar_t>(loop,
                                                             [](bool c, scalar_t x, scalar_t y) { return c ? x : y; });
  });
  return {out};
}

}  // namespace tl::kernels
