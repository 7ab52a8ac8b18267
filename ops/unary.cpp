// ops/unary.cpp — neg, abs, exp, log, sqrt, rsqrt, relu, sigmoid, tanh, floor, ceil, round, trunc, sign, erf,
// sin, cos and their in-place forms (relu, relu_ and sigmoid of a quint8 tensor too); reciprocal, gelu,
// hardswish; nan_to_num; isnan, isinf, isfinite, logical_not.
// The transcendental ops give float32 for integral or bool input, as PyTorch does; an in-place form
// refuses a result its tensor cannot hold. bfloat16 computes in float.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/memory_format.h"
#include "ops/quantized/activation.h"
#include "ops/vector_math.h"

namespace tl::kernels {
namespace {

// Integer negation wraps (INT_MIN stays INT_MIN) instead of overflowing.
template <typename A>
A negate(A x) {
  if constexpr (std::is_integral_v<A>) return static_cast<A>(0 - static_cast<std::make_unsigned_t<A>>(x));
  else return -x;
}

// Each op: its names, whether integral input promotes to float32, and f over the compute type.
struct Neg {
  static constexpr const char* kName = "neg";
  static constexpr const char* kInplaceName = "neg_";
  static constexpr bool kFloatResult = false;
  template <typename A> static A f(A x) { return negate(x); }
};
struct Abs {
  static constexpr const char* kName = "abs";
  static constexpr const char* kInplaceName = "abs_";
  static constexpr bool kFloatResult = false;
  template <typename A> static A f(A x) {
    if constexpr (std::is_floating_point_v<A>) return std::fabs(x);  // clears -0.0's sign, as PyTorch does
    else return x < A(0) ? negate(x) : x;
  }
};
struct Relu {
  static constexpr const char* kName = "relu";
  static constexpr const char* kInplaceName = "relu_";
  static constexpr bool kFloatResult = false;
  template <typename A> static A f(A x) { return x < A(0) ? A(0) : x; }  // NaN stays NaN
};
struct Exp {
  static constexpr const char* kName = "exp";
  static constexpr const char* kInplaceName = "exp_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return detail::vector_exp(x); }
};
struct Log {
  static constexpr const char* kName = "log";
  static constexpr const char* kInplaceName = "log_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return detail::vector_log(x); }
};
struct Sqrt {
  static constexpr const char* kName = "sqrt";
  static constexpr const char* kInplaceName = "sqrt_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return std::sqrt(x); }
};
struct Rsqrt {
  static constexpr const char* kName = "rsqrt";
  static constexpr const char* kInplaceName = "rsqrt_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return A(1) / std::sqrt(x); }
};
struct Reciprocal {
  static constexpr const char* kName = "reciprocal";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return A(1) / x; }
};
struct Sigmoid {
  static constexpr const char* kName = "sigmoid";
  static constexpr const char* kInplaceName = "sigmoid_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return A(1) / (A(1) + detail::vector_exp(-x)); }
};
struct Tanh {
  static constexpr const char* kName = "tanh";
  static constexpr const char* kInplaceName = "tanh_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return std::tanh(x); }
};

// Rounding: an integral input is returned as it is (a copy), as PyTorch's; Op::round is the floating case
// (ops/vector_math.h: no libm call, so that the loop vectorises), float (and bfloat16) in the running CPU's build
// of ops/vector_kernels.h.
template <typename Op>
struct Rounding {
  static constexpr bool kFloatResult = false;
  template <typename A> static A f(A x) {
    if constexpr (std::is_integral_v<A>) return x;
    else return Op::round(x);
  }
  static bool valid(float) { return true; }
};
struct Floor : Rounding<Floor> {
  static constexpr const char* kName = "floor";
  static constexpr const char* kInplaceName = "floor_";
  template <typename A> static A round(A x) { return detail::vector_floor(x); }
  static detail::VectorBlock fast() { return detail::vector_kernels().floor; }
};
struct Ceil : Rounding<Ceil> {
  static constexpr const char* kName = "ceil";
  static constexpr const char* kInplaceName = "ceil_";
  template <typename A> static A round(A x) { return detail::vector_ceil(x); }
  static detail::VectorBlock fast() { return detail::vector_kernels().ceil; }
};
struct Round : Rounding<Round> {
  static constexpr const char* kName = "round";
  static constexpr const char* kInplaceName = "round_";
  template <typename A> static A round(A x) { return detail::vector_round(x); }
  static detail::VectorBlock fast() { return detail::vector_kernels().round; }
};
struct Trunc : Rounding<Trunc> {
  static constexpr const char* kName = "trunc";
  static constexpr const char* kInplaceName = "trunc_";
  template <typename A> static A round(A x) { return detail::vector_trunc(x); }
  static detail::VectorBlock fast() { return detail::vector_kernels().trunc; }
};
// (0 < x) - (x < 0), ATen's: sign(NaN) and sign(-0.0) are +0.0; a bool is its own sign.
struct Sign {
  static constexpr const char* kName = "sign";
  static constexpr const char* kInplaceName = "sign_";
  static constexpr bool kFloatResult = false;
  static constexpr bool kTakesBool = true;
  template <typename A> static A f(A x) {
    if constexpr (std::is_same_v<A, bool>) return x;
    else return static_cast<A>(static_cast<A>(A(0) < x) - static_cast<A>(x < A(0)));
  }
};
struct Erf {
  static constexpr const char* kName = "erf";
  static constexpr const char* kInplaceName = "erf_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return detail::vector_erf(x); }
};
// sin and cos of float (and bfloat16) take ops/vector_math.h's polynomial where it holds (|x| <= 2^20), as
// PyTorch's take SLEEF's, vectorised by the running CPU's build of ops/vector_kernels.h (no FMA: every build gives
// the same bits); beyond it, and for float64, <cmath>.
struct Sin {
  static constexpr const char* kName = "sin";
  static constexpr const char* kInplaceName = "sin_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return std::sin(x); }
  static bool valid(float x) { return detail::trig_in_range(x); }
  static detail::VectorBlock fast() { return detail::vector_kernels().sin; }
};
struct Cos {
  static constexpr const char* kName = "cos";
  static constexpr const char* kInplaceName = "cos_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return std::cos(x); }
  static bool valid(float x) { return detail::trig_in_range(x); }
  static detail::VectorBlock fast() { return detail::vector_kernels().cos; }
};

template <typename Op>
DType result_dtype(DType input) {
  return Op::kFloatResult && !is_floating_point(input) ? DType::Float32 : input;
}

// PyTorch's own words for the bool cases that are refused rather than promoted.
template <typename Op>
void check_input(const Tensor& x, const char* name) {
  if constexpr (std::is_same_v<Op, Neg>)
    TL_CHECK(x.dtype() != DType::Bool, name, ": Negation, the `-` operator, on a bool tensor is not supported. "
             "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
  if constexpr (std::is_same_v<Op, Relu>)
    TL_CHECK(x.dtype() != DType::Bool, name, ": boolean inputs not supported for relu");
}

template <typename Op, typename T>
void unary_loop(const detail::ElementwiseLoop& loop) {
  using A = detail::acc_type<T>;
  if constexpr (std::is_same_v<A, float> && requires { Op::fast(); }) {
    detail::map_elements_fast<T, T>(loop, Op::fast(), [](float x) { return Op::valid(x); },
                                    [](float x) { return Op::f(x); });
  } else {
    detail::map_elements<T, T>(loop, [](T x) { return static_cast<T>(Op::f(static_cast<A>(x))); });
  }
}

template <typename Op>
void run_loop(DType dtype, const detail::ElementwiseLoop& loop, const char* name) {
  if constexpr (Op::kFloatResult) {
    TL_DISPATCH_FLOATING_TYPES(dtype, name, [&] { unary_loop<Op, scalar_t>(loop); });
  } else if constexpr (requires { Op::kTakesBool; }) {
    TL_DISPATCH_COMPUTE_TYPES(dtype, name, [&] { unary_loop<Op, scalar_t>(loop); });
  } else {
    TL_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { unary_loop<Op, scalar_t>(loop); });
  }
}

template <typename Op>
Tensor unary(const Tensor& x) {
  check_input<Op>(x, Op::kName);
  const DType dtype = result_dtype<Op>(x.dtype());
  // Laid out as ATen's TensorIterator lays it out (x.t().sin() is transposed too), so that the loop runs dense.
  // A promoted input is converted into the output, which the op then rewrites in place.
  const Tensor out = detail::allocate_like_inputs(x.shape(), dtype, {x});
  if (dtype != x.dtype()) detail::copy_elements(out, x);
  run_loop<Op>(dtype, detail::ElementwiseLoop(out, {dtype == x.dtype() ? x : out}), Op::kName);
  return out;
}

template <typename Op>
Tensor unary_(const Tensor& self) {
  check_input<Op>(self, Op::kInplaceName);
  const DType dtype = result_dtype<Op>(self.dtype());
  TL_CHECK(dtype == self.dtype(), Op::kInplaceName, ": result type ", dtype,
           " can't be cast to the desired output type ", self.dtype());
  run_loop<Op>(dtype, detail::ElementwiseLoop(self, {self}), Op::kInplaceName);
  return self;
}

}  // namespace

#define TL_UNARY_KERNELS(Op, name)                                \
  Tensor name(const Tensor& self) { return unary<Op>(self); }     \
  Tensor name##_(const Tensor& self) { return unary_<Op>(self); }
TL_UNARY_KERNELS(Neg, neg)
TL_UNARY_KERNELS(Abs, abs)
TL_UNARY_KERNELS(Exp, exp)
TL_UNARY_KERNELS(Log, log)
TL_UNARY_KERNELS(Sqrt, sqrt)
TL_UNARY_KERNELS(Rsqrt, rsqrt)
TL_UNARY_KERNELS(Tanh, tanh)
TL_UNARY_KERNELS(Floor, floor)
TL_UNARY_KERNELS(Ceil, ceil)
TL_UNARY_KERNELS(Round, round)
TL_UNARY_KERNELS(Trunc, trunc)
TL_UNARY_KERNELS(Sign, sign)
TL_UNARY_KERNELS(Erf, erf)
TL_UNARY_KERNELS(Sin, sin)
TL_UNARY_KERNELS(Cos, cos)
#undef TL_UNARY_KERNELS

// A quantized input runs ATen's QuantizedCPU kernels, under the same op names (ops/quantized/activation.h).
Tensor relu(const Tensor& self) { return self.is_quantized() ? int8::relu("relu", self, false) : unary<Relu>(self); }
Tensor relu_(const Tensor& self) { return self.is_quantized() ? int8::relu("relu_", self, true) : unary_<Relu>(self); }
Tensor sigmoid(const Tensor& self) { return self.is_quantized() ? int8::sigmoid(self) : unary<Sigmoid>(self); }
Tensor sigmoid_(const Tensor& self) { return unary_<Sigmoid>(self); }
Tensor reciprocal(const Tensor& self) { return unary<Reciprocal>(self); }

// gelu: x/2 (1 + erf(x/sqrt 2)), or with approximate="tanh" x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// NaN stays NaN and gelu(-inf) is NaN (-inf * 0), as PyTorch's. PyTorch computes the exact form in
// float32 and bfloat16 through oneDNN, which gives +0.0 where the result is zero (x = -0.0, large negative
// x); float64 and the tanh form keep ATen's -0.0.
Tensor gelu(const Tensor& x, const GeluArgs& args) {  // x: any shape
  const std::string& approximate = args.approximate;
  TL_CHECK(approximate == "none" || approximate == "tanh",
           "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
  if (approximate == "tanh")
    return detail::floating_map(x, "gelu", [](auto v) {
      using A = detail::acc_type<decltype(v)>;
      const A a = static_cast<A>(v), k_beta = A(M_SQRT2 * M_2_SQRTPI * 0.5), k_kappa = A(0.044715);
      return static_cast<decltype(v)>(A(0.5) * a * (A(1) + std::tanh(k_beta * (a + k_kappa * a * a * a))));
    });
  return detail::floating_map(x, "gelu", [](auto v) {
    using A = detail::acc_type<decltype(v)>;
    // Adding +0.0 turns -0.0 into +0.0 and changes nothing else: oneDNN's zeros (see above).
    const A a = static_cast<A>(v), zero_sign = std::is_same_v<decltype(v), double> ? A(-0.0) : A(0);
    return static_cast<decltype(v)>(a * A(0.5) * (A(1) + detail::vector_erf(a * A(M_SQRT1_2))) + zero_sign);
  });
}

namespace {

// hardswish: x * min(max(x + 3, 0), 6) / 6, in ATen's order of operations. NaN stays NaN (max keeps a
// NaN operand, as ATen's vectorised maximum does).
constexpr auto kHardswish = [](auto v) {
  using A = detail::acc_type<decltype(v)>;
  const A a = static_cast<A>(v), shifted = a + A(3);
  const A clipped = std::isnan(shifted) ? shifted : std::min(std::max(shifted, A(0)), A(6));
  return static_cast<decltype(v)>(a * clipped / A(6));
};

}  // namespace

Tensor hardswish(const Tensor& self) { return detail::floating_map(self, "hardswish", kHardswish); }
Tensor hardswish_(const Tensor& self) { return detail::floating_map(self, "hardswish_", kHardswish, true); }

namespace {

// The largest finite value of T (bfloat16's is 0x7f7f, which float holds exactly).
template <typename T>
detail::acc_type<T> largest() {
  if constexpr (std::is_same_v<T, BFloat16>) return std::bit_cast<float>(uint32_t{0x7f7f0000});
  else return std::numeric_limits<T>::max();
}

// out = x with NaN, +inf and -inf replaced (by default 0, the dtype's largest and lowest finite values); an
// integral or bool x is copied as it is, as PyTorch's.
void nan_to_num_into(const Tensor& out, const Tensor& x, const NanToNumArgs& args) {
  if (!is_floating_point(x.dtype())) {
    if (!out.is_same(x)) detail::copy_elements(out, x);
    return;
  }
  const detail::ElementwiseLoop loop(out, {x});
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "nan_to_num", [&] {
    using A = detail::acc_type<scalar_t>;
    // Each replacement rounded to the dtype first, as ATen's static_cast<scalar_t>.
    const scalar_t nan = static_cast<scalar_t>(static_cast<A>(args.nan.value_or(0.0)));
    const scalar_t posinf = static_cast<scalar_t>(args.posinf ? static_cast<A>(*args.posinf) : largest<scalar_t>());
    const scalar_t neginf = static_cast<scalar_t>(args.neginf ? static_cast<A>(*args.neginf) : -largest<scalar_t>());
    detail::map_elements<scalar_t, scalar_t>(loop, [=](scalar_t v) {
      const A a = static_cast<A>(v);
      return a != a ? nan : a == std::numeric_limits<A>::infinity() ? posinf
                          : a == -std::numeric_limits<A>::infinity() ? neginf : v;
    });
  });
}

// A bool test of each element, any dtype in.
template <typename F>
Tensor predicate(const Tensor& x, const char* name, const F& f) {
  Tensor out = Tensor::allocate(x.shape(), DType::Bool);
  const detail::ElementwiseLoop loop(out, {x});
  TL_DISPATCH_ALL_TYPES(x.dtype(), name, [&] {
    detail::map_elements<bool, scalar_t>(loop, [&](scalar_t v) { return f(static_cast<detail::acc_type<scalar_t>>(v)); });
  });
  return out;
}

}  // namespace

Tensor nan_to_num(const Tensor& self, const NanToNumArgs& args) {
  Tensor out = Tensor::allocate(self.shape(), self.dtype());
  nan_to_num_into(out, self, args);
  return out;
}

Tensor nan_to_num_(const Tensor& self, const NanToNumArgs& args) {
  nan_to_num_into(self, self, args);
  return self;
}

// Integral and bool elements are never NaN or infinite.
Tensor isnan(const Tensor& self) {
  return predicate(self, "isnan", []<typename A>(A v) {
    if constexpr (std::is_floating_point_v<A>) return std::isnan(v);
    else return false;
  });
}
Tensor isinf(const Tensor& self) {
  return predicate(self, "isinf", []<typename A>(A v) {
    if constexpr (std::is_floating_point_v<A>) return std::isinf(v);
    else return false;
  });
}
Tensor isfinite(const Tensor& self) {
  return predicate(self, "isfinite", []<typename A>(A v) {
    if constexpr (std::is_floating_point_v<A>) return std::isfinite(v);
    else return true;
  });
}
// NaN is true, as any non-zero value.
Tensor logical_not(const Tensor& self) {
  return predicate(self, "logical_not", []<typename A>(A v) { return v == A(0); });
}

}  // namespace tl::kernels
