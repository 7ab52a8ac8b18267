// ops/tensor_methods.cpp — Tensor's op methods and operators: each builds its attrs and
// dispatches (CallStyle::Method or ::Operator so tracing records the spelling the user wrote).
#include <span>

#include "core/dispatch.h"
#include "ops/attr_util.h"

namespace tl {
namespace {

using detail::scalar_attr;
constexpr CallStyle kMethod = CallStyle::Method;
constexpr CallStyle kOperator = CallStyle::Operator;

Tensor call_method(OpKind op, std::initializer_list<Tensor> inputs, const Attrs& attrs = {}) {
  return dispatch::call1(op, inputs, attrs, kMethod);
}

Tensor binary(OpKind op, const Tensor& a, const Tensor& b, CallStyle style) {
  return dispatch::call1(op, {a, b}, {}, style);
}

Tensor binary(OpKind op, const Tensor& a, const Scalar& b, CallStyle style, const char* name = "other") {
  return dispatch::call1(op, {a}, {{name, scalar_attr(b)}}, style);
}

std::pair<Tensor, Tensor> values_indices(OpKind op, const Tensor& self, int64_t dim, bool keepdim) {
  const Tensor in[] = {self};
  TensorList out = dispatch::call(op, in, {{"dim", dim}, {"keepdim", keepdim}}, kMethod);
  return {std::move(out.at(0)), std::move(out.at(1))};
}

}  // namespace

Tensor Tensor::view(const Shape& size) const { return call_method(OpKind::View, {*this}, {{"size", size}}); }
Tensor Tensor::reshape(const Shape& shape) const {
  return call_method(OpKind::Reshape, {*this}, {{"shape", shape}});
}
Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  return call_method(OpKind::Flatten, {*this}, {{"start_dim", start_dim}, {"end_dim", end_dim}});
}
Tensor Tensor::permute(const Shape& dims) const { return call_method(OpKind::Permute, {*this}, {{"dims", dims}}); }
Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  return call_method(OpKind::Transpose, {*this}, {{"dim0", dim0}, {"dim1", dim1}});
}
Tensor Tensor::t() const { return call_method(OpKind::T, {*this}); }
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  return call_method(OpKind::Slice, {*this},
                     {{"dim", dim},
                      {"start", detail::optional_int_attr(start)},
                      {"end", detail::optional_int_attr(end)},
                      {"step", step}});
}
Tensor Tensor::select(int64_t dim, int64_t index) const {
  return call_method(OpKind::Select, {*this}, {{"dim", dim}, {"index", index}});
}
Tensor Tensor::expand(const Shape& size) const { return call_method(OpKind::Expand, {*this}, {{"size", size}}); }
Tensor Tensor::squeeze() const { return call_method(OpKind::Squeeze, {*this}, {{"dim", AttrValue{}}}); }
Tensor Tensor::squeeze(int64_t dim) const { return call_method(OpKind::Squeeze, {*this}, {{"dim", dim}}); }
Tensor Tensor::unsqueeze(int64_t dim) const { return call_method(OpKind::Unsqueeze, {*this}, {{"dim", dim}}); }

Tensor Tensor::contiguous() const { return call_method(OpKind::Contiguous, {*this}); }
Tensor Tensor::clone() const { return call_method(OpKind::Clone, {*this}); }
Tensor Tensor::to(DType dtype) const { return call_method(OpKind::To, {*this}, {{"dtype", dtype}}); }
Tensor& Tensor::copy_(const Tensor& src) {
  call_method(OpKind::Copy_, {*this, src});
  return *this;
}

#define TL_UNARY_METHODS(name, Enum)                                             \
  Tensor Tensor::name() const { return call_method(OpKind::Enum, {*this}); }      \
  Tensor& Tensor::name##_() {                                                     \
    call_method(OpKind::Enum##_, {*this});                                        \
    return *this;                                                                 \
  }
TL_UNARY_METHODS(neg, Neg)
TL_UNARY_METHODS(abs, Abs)
TL_UNARY_METHODS(exp, Exp)
TL_UNARY_METHODS(log, Log)
TL_UNARY_METHODS(sqrt, Sqrt)
TL_UNARY_METHODS(rsqrt, Rsqrt)
TL_UNARY_METHODS(relu, Relu)
TL_UNARY_METHODS(sigmoid, Sigmoid)
TL_UNARY_METHODS(tanh, Tanh)
#undef TL_UNARY_METHODS

#define TL_BINARY_METHODS(name, Enum, arg)                                                          \
  Tensor Tensor::name(const Tensor& arg) const { return binary(OpKind::Enum, *this, arg, kMethod); } \
  Tensor Tensor::name(const Scalar& arg) const { return binary(OpKind::Enum, *this, arg, kMethod, #arg); } \
  Tensor& Tensor::name##_(const Tensor& arg) {                                                      \
    binary(OpKind::Enum##_, *this, arg, kMethod);                                                   \
    return *this;                                                                                   \
  }                                                                                                 \
  Tensor& Tensor::name##_(const Scalar& arg) {                                                      \
    binary(OpKind::Enum##_, *this, arg, kMethod, #arg);                                             \
    return *this;                                                                                   \
  }
TL_BINARY_METHODS(add, Add, other)
TL_BINARY_METHODS(sub, Sub, other)
TL_BINARY_METHODS(mul, Mul, other)
TL_BINARY_METHODS(div, Div, other)
TL_BINARY_METHODS(pow, Pow, exponent)
#undef TL_BINARY_METHODS

Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return call_method(OpKind::Clamp, {*this},
                     {{"min", detail::optional_scalar_attr(min)}, {"max", detail::optional_scalar_attr(max)}});
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  call_method(OpKind::Clamp_, {*this},
              {{"min", detail::optional_scalar_attr(min)}, {"max", detail::optional_scalar_attr(max)}});
  return *this;
}

#define TL_COMPARE_METHODS(name, Enum)                                                              \
  Tensor Tensor::name(const Tensor& other) const { return binary(OpKind::Enum, *this, other, kMethod); } \
  Tensor Tensor::name(const Scalar& other) const { return binary(OpKind::Enum, *this, other, kMethod); }
TL_COMPARE_METHODS(gt, Gt)
TL_COMPARE_METHODS(lt, Lt)
TL_COMPARE_METHODS(ge, Ge)
TL_COMPARE_METHODS(le, Le)
TL_COMPARE_METHODS(eq, Eq)
TL_COMPARE_METHODS(ne, Ne)
#undef TL_COMPARE_METHODS

Tensor Tensor::sum() const {
  return call_method(OpKind::Sum, {*this}, {{"dim", AttrValue{}}, {"keepdim", false}});
}
Tensor Tensor::sum(const Shape& dims, bool keepdim) const {
  return call_method(OpKind::Sum, {*this}, {{"dim", dims}, {"keepdim", keepdim}});
}
Tensor Tensor::mean() const {
  return call_method(OpKind::Mean, {*this}, {{"dim", AttrValue{}}, {"keepdim", false}});
}
Tensor Tensor::mean(const Shape& dims, bool keepdim) const {
  return call_method(OpKind::Mean, {*this}, {{"dim", dims}, {"keepdim", keepdim}});
}
Tensor Tensor::max() const {
  return call_method(OpKind::Max, {*this}, {{"dim", AttrValue{}}, {"keepdim", false}});
}
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return values_indices(OpKind::Max, *this, dim, keepdim);
}
Tensor Tensor::min() const {
  return call_method(OpKind::Min, {*this}, {{"dim", AttrValue{}}, {"keepdim", false}});
}
std::pair<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return values_indices(OpKind::Min, *this, dim, keepdim);
}
Tensor Tensor::argmax() const {
  return call_method(OpKind::Argmax, {*this}, {{"dim", AttrValue{}}, {"keepdim", false}});
}
Tensor Tensor::argmax(int64_t dim, bool keepdim) const {
  return call_method(OpKind::Argmax, {*this}, {{"dim", dim}, {"keepdim", keepdim}});
}

Tensor Tensor::nonzero() const { return call_method(OpKind::Nonzero, {*this}, {{"as_tuple", false}}); }
Tensor Tensor::index_select(int64_t dim, const Tensor& index) const {
  return call_method(OpKind::IndexSelect, {*this, index}, {{"dim", dim}});
}
Tensor Tensor::masked_select(const Tensor& mask) const { return call_method(OpKind::MaskedSelect, {*this, mask}); }

Tensor Tensor::matmul(const Tensor& other) const { return binary(OpKind::Matmul, *this, other, kMethod); }
Tensor Tensor::mm(const Tensor& mat2) const { return binary(OpKind::Mm, *this, mat2, kMethod); }
Tensor Tensor::bmm(const Tensor& mat2) const { return binary(OpKind::Bmm, *this, mat2, kMethod); }

Tensor operator+(const Tensor& a, const Tensor& b) { return binary(OpKind::Add, a, b, kOperator); }
Tensor operator-(const Tensor& a, const Tensor& b) { return binary(OpKind::Sub, a, b, kOperator); }
Tensor operator*(const Tensor& a, const Tensor& b) { return binary(OpKind::Mul, a, b, kOperator); }
Tensor operator/(const Tensor& a, const Tensor& b) { return binary(OpKind::Div, a, b, kOperator); }
Tensor operator+(const Tensor& a, const Scalar& b) { return binary(OpKind::Add, a, b, kOperator); }
Tensor operator-(const Tensor& a, const Scalar& b) { return binary(OpKind::Sub, a, b, kOperator); }
Tensor operator*(const Tensor& a, const Scalar& b) { return binary(OpKind::Mul, a, b, kOperator); }
Tensor operator/(const Tensor& a, const Scalar& b) { return binary(OpKind::Div, a, b, kOperator); }
Tensor operator-(const Tensor& a) { return dispatch::call1(OpKind::Neg, {a}, {}, kOperator); }
Tensor& operator+=(Tensor& a, const Tensor& b) {
  binary(OpKind::Add_, a, b, kOperator);
  return a;
}
Tensor& operator-=(Tensor& a, const Tensor& b) {
  binary(OpKind::Sub_, a, b, kOperator);
  return a;
}
Tensor& operator*=(Tensor& a, const Tensor& b) {
  binary(OpKind::Mul_, a, b, kOperator);
  return a;
}
Tensor& operator/=(Tensor& a, const Tensor& b) {
  binary(OpKind::Div_, a, b, kOperator);
  return a;
}
Tensor operator>(const Tensor& a, const Tensor& b) { return binary(OpKind::Gt, a, b, kOperator); }
Tensor operator<(const Tensor& a, const Tensor& b) { return binary(OpKind::Lt, a, b, kOperator); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return binary(OpKind::Ge, a, b, kOperator); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return binary(OpKind::Le, a, b, kOperator); }
Tensor operator>(const Tensor& a, const Scalar& b) { return binary(OpKind::Gt, a, b, kOperator); }
Tensor operator<(const Tensor& a, const Scalar& b) { return binary(OpKind::Lt, a, b, kOperator); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return binary(OpKind::Ge, a, b, kOperator); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return binary(OpKind::Le, a, b, kOperator); }

}  // namespace tl
