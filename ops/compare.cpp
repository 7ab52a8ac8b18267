// ops/compare.cpp — gt, lt, ge, le, eq, ne (bool tensors, broadcasting, operands promoted to their
// result type), and allclose / equal, which answer with a 0-dim bool tensor.
#include <cmath>
#include <cstring>
#include <type_traits>

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

template <typename Op>
TensorList compare(std::span<const Tensor> inputs, const Attrs& attrs) {
  const detail::BinaryOperands b = detail::binary_operands(inputs, attrs, Op::kName);
  detail::operand_to_scopes(b, b.dtype);
  return {compare_tensors<Op>(detail::to_dtype(b.self, b.dtype), detail::to_dtype(b.other, b.dtype), b.shape)};
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

void check_defined(std::span<const Tensor> inputs, const char* op) {
  TL_CHECK(inputs.size() == 2 && inputs[0].defined() && inputs[1].defined(), op, ": expected two tensors");
}

}  // namespace

#define TL_COMPARE_KERNEL(Op, name) \
  TensorList name(std::span<const Tensor> inputs, const Attrs& attrs) { return compare<Op>(inputs, attrs); }
TL_COMPARE_KERNEL(Gt, gt)
TL_COMPARE_KERNEL(Lt, lt)
TL_COMPARE_KERNEL(Ge, ge)
TL_COMPARE_KERNEL(Le, le)
TL_COMPARE_KERNEL(Eq, eq)
TL_COMPARE_KERNEL(Ne, ne)
#undef TL_COMPARE_KERNEL

// Unlike torch.allclose, operands of different dtypes are compared in their result type.
TensorList allclose(std::span<const Tensor> inputs, const Attrs& attrs) {
  check_defined(inputs, "allclose");
  const double rtol = attrs.get<double>("rtol"), atol = attrs.get<double>("atol");
  const bool equal_nan = attrs.get<bool>("equal_nan");
  TL_CHECK(rtol >= 0, "allclose: rtol must be greater than or equal to zero, but got ", rtol);
  TL_CHECK(atol >= 0, "allclose: atol must be greater than or equal to zero, but got ", atol);
  const DType dtype = detail::result_type(inputs);
  const Shape shape = broadcast_shapes(inputs[0].shape(), inputs[1].shape(), "allclose");
  const Tensor x = detail::to_dtype(inputs[0], dtype), y = detail::to_dtype(inputs[1], dtype);
  Tensor close = Tensor::allocate(shape, DType::Bool);
  const ElementwiseLoop loop(close, {x, y});
  TL_DISPATCH_ALL_TYPES(dtype, "allclose", [&] {
    detail::map_elements<bool, scalar_t, scalar_t>(
        loop, [=](scalar_t a, scalar_t b) { return is_close(a, b, rtol, atol, equal_nan); });
  });
  return {detail::scalar_to_tensor(all_true(close), DType::Bool)};
}

// Same shape and the same values after promotion; NaN equals nothing.
TensorList equal(std::span<const Tensor> inputs, const Attrs&) {
  check_defined(inputs, "equal");
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  if (a.shape() != b.shape()) return {detail::scalar_to_tensor(false, DType::Bool)};
  const DType dtype = detail::result_type(inputs);
  const Tensor same = compare_tensors<Eq>(detail::to_dtype(a, dtype), detail::to_dtype(b, dtype), a.shape());
  return {detail::scalar_to_tensor(all_true(same), DType::Bool)};
}

}  // namespace tl::kernels
