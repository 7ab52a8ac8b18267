// ops/unary.cpp — neg, abs, exp, log, sqrt, rsqrt, relu, sigmoid, tanh and their in-place forms; reciprocal,
// gelu, hardswish.
// The transcendental ops give float32 for integral or bool input, as PyTorch does; an in-place form
// refuses a result its tensor cannot hold. bfloat16 computes in float.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/op_args.h"
#include "ops/elementwise.h"

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
  template <typename A> static A f(A x) { return std::exp(x); }
};
struct Log {
  static constexpr const char* kName = "log";
  static constexpr const char* kInplaceName = "log_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return std::log(x); }
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
  template <typename A> static A f(A x) { return A(1) / (A(1) + std::exp(-x)); }
};
struct Tanh {
  static constexpr const char* kName = "tanh";
  static constexpr const char* kInplaceName = "tanh_";
  static constexpr bool kFloatResult = true;
  template <typename A> static A f(A x) { return std::tanh(x); }
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
  detail::map_elements<T, T>(loop, [](T x) { return static_cast<T>(Op::f(static_cast<A>(x))); });
}

template <typename Op>
void run_loop(DType dtype, const detail::ElementwiseLoop& loop, const char* name) {
  if constexpr (Op::kFloatResult) {
    TL_DISPATCH_FLOATING_TYPES(dtype, name, [&] { unary_loop<Op, scalar_t>(loop); });
  } else {
    TL_DISPATCH_NUMERIC_TYPES(dtype, name, [&] { unary_loop<Op, scalar_t>(loop); });
  }
}

template <typename Op>
Tensor unary(const Tensor& x) {
  check_input<Op>(x, Op::kName);
  const DType dtype = result_dtype<Op>(x.dtype());
  // A promoted input is converted into a fresh tensor, which then doubles as the output.
  const Tensor src = detail::to_dtype(x, dtype);
  const Tensor out = src.is_same(x) ? Tensor::allocate(x.shape(), dtype) : src;
  run_loop<Op>(dtype, detail::ElementwiseLoop(out, {src}), Op::kName);
  return out;
}

template <typename Op>
Tensor unary_(const Tensor& self) {
  check_input<Op>(self, Op::kInplaceName);
  const DType dtype = result_dtype<Op>(self.dtype());
  TL_CHECK(dtype == self.dtype(), Op::kInplaceName, ": result type ", dtype,
           " can't be cast to the desired output type ", self.dtype());
  detail::check_no_internal_overlap(self, Op::kInplaceName);
  run_loop<Op>(dtype, detail::ElementwiseLoop(self, {self}), Op::kInplaceName);
  return self;
}

}  // namespace

#define TL_UNARY_KERNELS(Op, name)                                \
  Tensor name(const Tensor& self) { return unary<Op>(self); }     \
  Tensor name##_(const Tensor& self) { return unary_<Op>(self); }
TL_UNARY_KERNELS(Neg, neg)
TL_UNARY_KERNELS(Abs, abs)
TL_UNARY_KERNELS(Relu, relu)
TL_UNARY_KERNELS(Exp, exp)
TL_UNARY_KERNELS(Log, log)
TL_UNARY_KERNELS(Sqrt, sqrt)
TL_UNARY_KERNELS(Rsqrt, rsqrt)
TL_UNARY_KERNELS(Sigmoid, sigmoid)
TL_UNARY_KERNELS(Tanh, tanh)
#undef TL_UNARY_KERNELS
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
    return static_cast<decltype(v)>(a * A(0.5) * (A(1) + std::erf(a * A(M_SQRT1_2))) + zero_sign);
  });
}

// hardswish: x * min(max(x + 3, 0), 6) / 6, in ATen's order of operations. NaN stays NaN (max keeps a
// NaN operand, as ATen's vectorised maximum does).
Tensor hardswish(const Tensor& self) {
  return detail::floating_map(self, "hardswish", [](auto v) {
    using A = detail::acc_type<decltype(v)>;
    const A a = static_cast<A>(v), shifted = a + A(3);
    const A clipped = std::isnan(shifted) ? shifted : std::min(std::max(shifted, A(0)), A(6));
    return static_cast<decltype(v)>(a * clipped / A(6));
  });
}

}  // namespace tl::kernels
