// ops/binary.cpp — add, sub, mul, div, pow, fmod, remainder and their in-place forms, xlogy, rsub, Python's
// __rtruediv__, div with a rounding mode, floor_divide, maximum, minimum, the bitwise ops, clamp, clamp_min,
// clamp_max, hardtanh (a clamp) and where: broadcasting,
// PyTorch's type promotion, and in-place results cast back only where torch.can_cast allows.
// Integer arithmetic wraps around as PyTorch's does; bfloat16 computes in float.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/op_args.h"
#include "core/record_function.h"
#include "ops/elementwise.h"
#include "ops/memory_format.h"
#include "ops/ops.h"
#include "ops/quantized/activation.h"
#include "ops/vector_math.h"

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
enum class Types { All, Numeric, Floating, Integral };

// Each op: names, the dtype it computes in for a given result type, the dtypes it accepts, the
// checks PyTorch makes, and f over the compute type (float for bfloat16). Defaults first.
struct BinaryOpDefaults {
  static constexpr const char* kOther = "other";
  static DType compute_dtype(DType result) { return result; }
  static void check(const BinaryOperands&, const char*) {}
  /// A check of `other` converted to the compute dtype (the values the loop will read).
  static void check_other(const Tensor&, const char*) {}
};

// Integer division by zero is refused (the loop must not throw): ATen's words, checked before any write.
void check_no_integer_zero(const Tensor& other, const char* name) {
  if (is_floating_point(other.dtype())) return;
  Tensor zero = Tensor::allocate(other.shape(), DType::Bool);
  TL_DISPATCH_NUMERIC_TYPES(other.dtype(), name, [&] {
    detail::map_elements<bool, scalar_t>(ElementwiseLoop(zero, {other}), [](scalar_t v) { return v == 0; });
  });
  const auto n = static_cast<size_t>(zero.numel());
  TL_CHECK(n == 0 || std::memchr(zero.raw_data(), 1, n) == nullptr, name, ": ZeroDivisionError");
}

// a % b with b != 0; INT_MIN % -1 (undefined in C++) is 0.
template <typename A>
A int_fmod(A a, A b) {
  return b == A(-1) ? A(0) : static_cast<A>(a % b);
}

struct Add : BinaryOpDefaults {
  static constexpr const char* kName = "add";
  static constexpr const char* kInplaceName = "add_";
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

// pow.Scalar, a number base (torch.pow(2, x)): the exponent tensor comes first, as rsub's other.
struct Rpow : Pow {
  static constexpr const char* kOther = "self";
  static void check(const BinaryOperands&, const char*) {}
  template <typename A>
  static A f(A a, A b) { return Pow::f(b, a); }
};

// The dtypes and checks of fmod, which remainder and div with a rounding mode share: an integer divisor of 0 is
// refused.
struct FmodChecks : BinaryOpDefaults {
  static constexpr Types kTypes = Types::Numeric;
  static void check_other(const Tensor& other, const char* name) { check_no_integer_zero(other, name); }
};

// C's fmod: the remainder takes the dividend's sign. float (and bfloat16) where ops/vector_math.h's vector_fmod
// holds (|a / b| < 2^23, b finite), exactly as std::fmod, vectorised by the running CPU's build of
// ops/vector_kernels.h; std::fmod beyond.
struct Fmod : FmodChecks {
  static constexpr const char* kName = "fmod";
  static constexpr const char* kInplaceName = "fmod_";
  template <typename A>
  static A f(A a, A b) {
    if constexpr (std::is_integral_v<A>) return int_fmod(a, b);
    else return std::fmod(a, b);
  }
  static bool valid(float a, float b) { return detail::div_floor_in_range(a, b); }
  static detail::VectorBlock fast() { return detail::vector_kernels().fmod; }
};

// Python's %: the remainder takes the divisor's sign (ATen's fmod, then + b where the signs differ), with
// fmod's types, checks and range.
struct Remainder : Fmod {
  static constexpr const char* kName = "remainder";
  static constexpr const char* kInplaceName = "remainder_";
  template <typename A>
  static A f(A a, A b) { return detail::remainder_from_fmod(Fmod::f(a, b), b); }
  static detail::VectorBlock fast() { return detail::vector_kernels().remainder; }
};

// x * log(y) with xlogy(0, y) = 0 unless y is NaN (ATen's xlogy); integral operands compute as float32.
struct Xlogy : Div {
  static constexpr const char* kName = "xlogy";
  template <typename A>
  static A f(A x, A y) {  // selects, no branch: the loop vectorises
    const A product = x == A(0) ? A(0) : x * detail::vector_log(y);
    return y != y ? y : product;
  }
};

// Division rounded toward zero (div's rounding_mode="trunc"); integers divide exactly, a divisor of 0 refused.
struct DivTrunc : FmodChecks {
  static constexpr const char* kName = "div";
  template <typename A>
  static A f(A a, A b) {
    if constexpr (std::is_integral_v<A>) return b == A(-1) ? wrapping(A(0), a, std::minus<>()) : static_cast<A>(a / b);
    else return detail::vector_trunc(a / b);
  }
};

// Division rounded toward -inf (rounding_mode="floor"), as ATen's div_floor_floating: from fmod, so that the
// quotient is exact where a / b would round up to the next integer; a zero quotient keeps a / b's sign.
struct DivFloor : FmodChecks {
  static constexpr const char* kName = "div";
  template <typename A>
  static A f(A a, A b) {
    if constexpr (std::is_integral_v<A>) {
      const A quot = DivTrunc::f(a, b);
      return (a < 0) != (b < 0) && int_fmod(a, b) != 0 ? static_cast<A>(quot - 1) : quot;
    } else {
      if (b == A(0)) return a / b;
      const A mod = std::fmod(a, b);
      A div = (a - mod) / b;
      if (mod != A(0) && (b < A(0)) != (mod < A(0))) div -= A(1);
      if (div == A(0)) return std::copysign(A(0), a / b);
      const A floordiv = std::floor(div);
      return div - floordiv > A(0.5) ? floordiv + A(1) : floordiv;
    }
  }
  // float (and bfloat16) where ops/vector_math.h's vector_div_floor holds, vectorised by the running CPU's build
  // of ops/vector_kernels.h.
  static bool valid(float a, float b) { return detail::div_floor_in_range(a, b); }
  static detail::VectorBlock fast() { return detail::vector_kernels().div_floor; }
};

// Python's //: floor division (PyTorch 1.13 rounds floor_divide toward -inf).
struct FloorDivide : DivFloor {
  static constexpr const char* kName = "floor_divide";
};

// maximum / minimum: NaN wins; at a tie the first operand is returned (maximum(-0.0, 0.0) is -0.0), as ATen's
// std::max / std::min. float (and bfloat16) vectorised by the running CPU's build of ops/vector_kernels.h.
template <bool kMax>
struct Extreme : BinaryOpDefaults {
  static constexpr const char* kName = kMax ? "maximum" : "minimum";
  static constexpr Types kTypes = Types::All;
  template <typename A>
  static A f(A a, A b) { return detail::vector_extreme<kMax>(a, b); }
  static bool valid(float, float) { return true; }
  static detail::VectorBlock fast() {
    return kMax ? detail::vector_kernels().maximum : detail::vector_kernels().minimum;
  }
};

// The bitwise ops take integers and bool only, as ATen's ("bitwise_and_cpu" not implemented for 'Float').
template <typename Bits>
struct Bitwise : BinaryOpDefaults {
  static constexpr Types kTypes = Types::Integral;
  static void check(const BinaryOperands& b, const char* name) {
    TL_CHECK(!is_floating_point(b.dtype), name, ": \"", name, "_cpu\" not implemented for '", scalar_type_name(b.dtype),
             "'");
  }
  template <typename A>
  static A f(A a, A b) { return static_cast<A>(Bits{}(a, b)); }
};
struct BitwiseAnd : Bitwise<std::bit_and<>> {
  static constexpr const char* kName = "bitwise_and";
};
struct BitwiseOr : Bitwise<std::bit_or<>> {
  static constexpr const char* kName = "bitwise_or";
};
struct BitwiseXor : Bitwise<std::bit_xor<>> {
  static constexpr const char* kName = "bitwise_xor";
};

// f(a, b), or f(a, alpha * b) with a scale (ATen's add and sub with alpha != 1).
template <typename Op, typename T>
void binary_loop(const ElementwiseLoop& loop, const std::optional<Scalar>& alpha) {
  using A = detail::acc_type<T>;
  if constexpr (std::is_same_v<A, float> && requires { Op::fast(); }) {
    if (!alpha) {
      detail::map_elements_fast<T, T, T>(loop, Op::fast(), [](float a, float b) { return Op::valid(a, b); },
                                         [](float a, float b) { return Op::f(a, b); });
      return;
    }
  }
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
    TL_DISPATCH_COMPUTE_TYPES(dtype, name, [&] { binary_loop<Op, scalar_t>(loop, alpha); });
  } else if constexpr (Op::kTypes == Types::Numeric) {
    TL_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { binary_loop<Op, scalar_t>(loop, alpha); });
  } else if constexpr (Op::kTypes == Types::Integral) {
    // Op::check has refused the floating types.
    TL_DISPATCH_COMPUTE_TYPES(dtype, name, [&] {
      if constexpr (std::is_integral_v<scalar_t>) binary_loop<Op, scalar_t>(loop, alpha);
    });
  } else {
    TL_DISPATCH_FLOATING_TYPES(dtype, name, [&] { binary_loop<Op, scalar_t>(loop, alpha); });
  }
}

// The alpha of add and sub (none for the other ops) when it is other than 1, after ATen's checks against the
// result type `dtype`.
std::optional<Scalar> alpha_of(const std::optional<Scalar>& alpha, DType dtype, const char* name) {
  if (!alpha) return std::nullopt;
  TL_CHECK(!alpha->is_bool() || dtype == DType::Bool, name, ": Boolean alpha only supported for Boolean results.");
  TL_CHECK(is_floating_point(dtype) || !alpha->is_floating_point(), name,
           ": For integral input tensors, argument alpha must not be a floating point number.");
  if (alpha->is_floating_point() ? alpha->to<double>() == 1.0 : alpha->to<int64_t>() == 1) return std::nullopt;
  return alpha;
}

// self op other, where `other` is undefined when the op got the number `number` instead (x + 2); `alpha` is
// add's and sub's.
template <typename Op>
Tensor binary(const Tensor& self, const Tensor& other, const std::optional<Scalar>& number,
              const std::optional<Scalar>& alpha_arg = std::nullopt) {
  const BinaryOperands b = detail::binary_operands(self, other, number, Op::kName, Op::kOther);
  Op::check(b, Op::kName);
  const std::optional<Scalar> alpha = alpha_of(alpha_arg, b.dtype, Op::kName);
  const DType dtype = Op::compute_dtype(b.dtype);
  const Tensor x = detail::to_dtype(b.self, dtype), y = detail::to_dtype(b.other, dtype);
  Op::check_other(y, Op::kName);
  Tensor out = detail::allocate_like_inputs(b.shape, dtype, {b.self, b.other});
  run_loop<Op>(dtype, ElementwiseLoop(out, {x, y}), Op::kName, alpha);
  return out;
}

template <typename Op>
Tensor binary_(const Tensor& self, const Tensor& other, const std::optional<Scalar>& number,
               const std::optional<Scalar>& alpha_arg = std::nullopt) {
  const char* name = Op::kInplaceName;
  const BinaryOperands b = detail::binary_operands(self, other, number, name, Op::kOther);
  Op::check(b, name);
  detail::check_inplace_broadcast(self, b.other.shape(), name);
  const DType dtype = Op::compute_dtype(b.dtype);
  TL_CHECK(detail::can_cast(dtype, self.dtype()), name, ": result type ", dtype,
           " can't be cast to the desired output type ", self.dtype());
  const std::optional<Scalar> alpha = alpha_of(alpha_arg, b.dtype, name);
  const Tensor y = detail::to_dtype(b.other, dtype);
  Op::check_other(y, name);
  if (dtype == self.dtype()) {
    run_loop<Op>(dtype, ElementwiseLoop(self, {self, y}), name, alpha);
    return self;
  }
  // A wider result (float32 += float64) is computed apart, then rounded into self.
  const Tensor wide = detail::to_dtype(self, dtype);
  run_loop<Op>(dtype, ElementwiseLoop(wide, {wide, y}), name, alpha);
  detail::copy_elements(self, wide);
  return self;
}

// min(max(x, lo), hi) with either bound optional; NaN stays NaN and lo > hi gives hi. `fill_nan`: the
// caller's rule found a NaN bound that makes every element NaN.
template <typename T>
void clamp_loop(const ElementwiseLoop& loop, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                bool fill_nan) {
  using A = detail::acc_type<T>;
  const A l = lo ? lo->to<A>() : A(0), h = hi ? hi->to<A>() : A(0);
  if (fill_nan) {
    detail::map_elements<T, T>(loop, [](T) { return static_cast<T>(std::numeric_limits<A>::quiet_NaN()); });
    return;
  }
  auto lower = [l](A v) { return v < l ? l : v; };
  auto upper = [h](A v) { return v > h ? h : v; };
  if (lo && hi) detail::map_elements<T, T>(loop, [=](T x) { return static_cast<T>(upper(lower(static_cast<A>(x)))); });
  else if (lo) detail::map_elements<T, T>(loop, [=](T x) { return static_cast<T>(lower(static_cast<A>(x))); });
  else detail::map_elements<T, T>(loop, [=](T x) { return static_cast<T>(upper(static_cast<A>(x))); });
}

bool is_nan(const std::optional<Scalar>& bound) {
  return bound && bound->is_floating_point() && std::isnan(bound->to<double>());
}

// clamp and its one-sided forms. A NaN bound makes every element NaN for clamp_min and clamp_max (ATen
// fills the result) and for clamp with both bounds, and is ignored by clamp with one (as ATen's clamp_out).
Tensor clamp_impl(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi,
                  const char* name, bool inplace, bool one_sided) {
  TL_CHECK(lo || hi, name, ": at least one of 'min' or 'max' must not be None");
  std::vector<Scalar> bounds;
  if (lo) bounds.push_back(*lo);
  if (hi) bounds.push_back(*hi);
  const DType dtype = detail::result_type(std::span<const Tensor>(&self, 1), bounds);
  Tensor out;
  if (inplace) {
    // A clamp result is never wider than self unless self cannot hold it at all (int64 bounds for bool).
    TL_CHECK(dtype == self.dtype(), name, ": result type ", dtype, " can't be cast to the desired output type ",
             self.dtype());
    out = self;
  } else {
    out = Tensor::allocate(self.shape(), dtype);
  }
  const bool fill_nan = one_sided ? is_nan(lo) || is_nan(hi) : lo && hi && (is_nan(lo) || is_nan(hi));
  const ElementwiseLoop loop(out, {detail::to_dtype(self, dtype)});
  TL_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { clamp_loop<scalar_t>(loop, lo, hi, fill_nan); });
  return out;
}

}  // namespace

Tensor add(const Tensor& self, const Tensor& other, const AddArgs& args) {
  return binary<Add>(self, other, args.other, args.alpha);
}
Tensor add_(const Tensor& self, const Tensor& other, const AddArgs& args) {
  return binary_<Add>(self, other, args.other, args.alpha);
}
Tensor sub(const Tensor& self, const Tensor& other, const SubArgs& args) {
  return binary<Sub>(self, other, args.other, args.alpha);
}
Tensor sub_(const Tensor& self, const Tensor& other, const SubArgs& args) {
  return binary_<Sub>(self, other, args.other, args.alpha);
}
Tensor mul(const Tensor& self, const Tensor& other, const MulArgs& args) { return binary<Mul>(self, other, args.other); }
Tensor mul_(const Tensor& self, const Tensor& other, const MulArgs& args) { return binary_<Mul>(self, other, args.other); }
Tensor div(const Tensor& self, const Tensor& other, const DivArgs& args) { return binary<Div>(self, other, args.other); }
Tensor div_(const Tensor& self, const Tensor& other, const DivArgs& args) { return binary_<Div>(self, other, args.other); }
Tensor pow(const Tensor& self, const Tensor& exponent, const PowArgs& args) {
  return binary<Pow>(self, exponent, args.exponent);
}
Tensor pow_(const Tensor& self, const Tensor& exponent, const PowArgs& args) {
  return binary_<Pow>(self, exponent, args.exponent);
}

Tensor pow_scalar(const Tensor& exponent, const PowScalarArgs& args) { return binary<Rpow>(exponent, Tensor(), args.self); }

// other - self (ATen's rsub, recorded as its sub by ops/aten_tree.cpp).
Tensor rsub(const Tensor& self, const Tensor& other, const RsubArgs& args) { return binary<Rsub>(self, other, args.other); }

// Python's Tensor.__rtruediv__ (`1.0 / x`) in PyTorch 1.13: reciprocal(x) * other, two ops.
Tensor rtruediv(const Tensor& self, const RtruedivArgs& args) { return tl::reciprocal(self) * args.other; }

Tensor fmod(const Tensor& self, const Tensor& other, const FmodArgs& args) { return binary<Fmod>(self, other, args.other); }
Tensor fmod_(const Tensor& self, const Tensor& other, const FmodArgs& args) { return binary_<Fmod>(self, other, args.other); }
Tensor remainder(const Tensor& self, const Tensor& other, const RemainderArgs& args) {
  return binary<Remainder>(self, other, args.other);
}
Tensor remainder_(const Tensor& self, const Tensor& other, const RemainderArgs& args) {
  return binary_<Remainder>(self, other, args.other);
}

Tensor xlogy(const Tensor& self, const Tensor& other, const XlogyArgs& args) {
  return binary<Xlogy>(self, other, args.other);
}

Tensor div_tensor_mode(const Tensor& self, const Tensor& other, const DivTensorModeArgs& args) {
  if (!args.rounding_mode) return binary<Div>(self, other, args.other);
  const std::string& mode = *args.rounding_mode;
  if (mode == "trunc") return binary<DivTrunc>(self, other, args.other);
  TL_CHECK(mode == "floor", "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", mode, "'");
  return binary<DivFloor>(self, other, args.other);
}
Tensor floor_divide(const Tensor& self, const Tensor& other, const FloorDivideArgs& args) {
  return binary<FloorDivide>(self, other, args.other);
}
Tensor maximum(const Tensor& self, const Tensor& other) { return binary<Extreme<true>>(self, other, std::nullopt); }
Tensor minimum(const Tensor& self, const Tensor& other) { return binary<Extreme<false>>(self, other, std::nullopt); }
Tensor bitwise_and(const Tensor& self, const Tensor& other, const BitwiseAndArgs& args) {
  return binary<BitwiseAnd>(self, other, args.other);
}
Tensor bitwise_or(const Tensor& self, const Tensor& other, const BitwiseOrArgs& args) {
  return binary<BitwiseOr>(self, other, args.other);
}
Tensor bitwise_xor(const Tensor& self, const Tensor& other, const BitwiseXorArgs& args) {
  return binary<BitwiseXor>(self, other, args.other);
}

Tensor clamp(const Tensor& self, const ClampArgs& args) { return clamp_impl(self, args.min, args.max, "clamp", false, false); }
Tensor clamp_(const Tensor& self, const ClampArgs& args) { return clamp_impl(self, args.min, args.max, "clamp_", true, false); }
Tensor clamp_min(const Tensor& self, const ClampMinArgs& args) {
  return clamp_impl(self, args.min, std::nullopt, "clamp_min", false, true);
}
Tensor clamp_min_(const Tensor& self, const ClampMinArgs& args) {
  return clamp_impl(self, args.min, std::nullopt, "clamp_min_", true, true);
}
Tensor clamp_max(const Tensor& self, const ClampMaxArgs& args) {
  return clamp_impl(self, std::nullopt, args.max, "clamp_max", false, true);
}
Tensor clamp_max_(const Tensor& self, const ClampMaxArgs& args) {
  return clamp_impl(self, std::nullopt, args.max, "clamp_max_", true, true);
}

namespace {

// clamp(self, min_val, max_val), as ATen's hardtanh: an integral self keeps its dtype (the bounds are
// truncated to integers first), bool is refused; a quint8 self is clamped to the bounds' integers.
Tensor hardtanh_impl(const Tensor& self, const HardtanhArgs& args, const char* name, bool inplace) {
  if (self.is_quantized())
    return int8::hardtanh(name, self, args.min_val.to<double>(), args.max_val.to<double>(), inplace);
  TL_CHECK(self.dtype() != DType::Bool, "Bool inputs not supported for hardtanh");
  if (is_floating_point(self.dtype())) return clamp_impl(self, args.min_val, args.max_val, name, inplace, false);
  return clamp_impl(self, Scalar(args.min_val.to<int64_t>()), Scalar(args.max_val.to<int64_t>()), name, inplace, false);
}

}  // namespace

Tensor hardtanh(const Tensor& self, const HardtanhArgs& args) { return hardtanh_impl(self, args, "hardtanh", false); }
Tensor hardtanh_(const Tensor& self, const HardtanhArgs& args) { return hardtanh_impl(self, args, "hardtanh_", true); }

// relu6 as ATen's composite: hardtanh(self, 0, 6), recorded under it.
Tensor relu6(const Tensor& self) { return tl::hardtanh(self, 0, 6); }
Tensor relu6_(const Tensor& self) { return tl::hardtanh_(self, 0, 6); }

// condition, self and other broadcast together; self and other promote to their result type.
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  TL_CHECK(self.defined() && other.defined(), "where: expected tensors for condition, self and other");
  TL_CHECK(condition.dtype() == DType::Bool,
           "where: expected condition to be a boolean tensor, but got a tensor with dtype ", condition.dtype());
  const DType dtype = detail::result_type(std::initializer_list<Tensor>{self, other});
  const Shape shape =
      broadcast_shapes(broadcast_shapes(condition.shape(), self.shape(), "where"), other.shape(), "where");
  const Tensor a = detail::to_dtype(self, dtype), b = detail::to_dtype(other, dtype);
  Tensor out = Tensor::allocate(shape, dtype);
  const ElementwiseLoop loop(out, {condition, a, b});
  TL_DISPATCH_ALL_TYPES(dtype, "where", [&] {
    detail::map_elements<scalar_t, bool, scalar_t, scalar_t>(loop,
                                                             [](bool c, scalar_t x, scalar_t y) { return c ? x : y; });
  });
  return out;
}

}  // namespace tl::kernels
