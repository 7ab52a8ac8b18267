// tests/ops/op_db.cpp — the samples of every op (op_db.h), one function per op or per family. The
// special-value references in gen_special_values.py's SAMPLES mirror these, sample by sample.
#include "tests/ops/op_db.h"

#include <array>
#include <cmath>

#include "core/op_kind.h"
#include "ops/ops.h"

namespace tl::testing {
namespace {

using indexing::Slice;

constexpr double kBf16Sums = 1e-2;  // bfloat16 ops that sum products
constexpr const char* kReadsValue = "reads a value of x while building its call, which a proxy does not have";
constexpr const char* kViewsFlat = "views x as a matrix, which PyTorch refuses too for a non-contiguous x";
constexpr const char* kReturnsBool = "returns a C++ bool (item()), which a proxy cannot give";
constexpr const char* kZeroDivision = "divides by an integer 0, which throws (PyTorch's ZeroDivisionError)";

TensorList list(const Tensor& t) { return {t}; }
Tensor flag(bool b) { return scalar_tensor(b, DType::Bool); }
double x5(const Tensor& x) { return static_cast<double>(x.flatten().data<float>()[5]); }

Tensor to_dense(const Tensor& x, int64_t channels) {
  return dispatch::call_single_output(OpKind::ToDense, {x, Tensor()}, {{"channels", channels}});
}
/// mkldnn_convolution on x (already in an inference layout) as dense NCHW; w is prepacked for x, except
/// with Winograd: only a dense weight lets the kernel take the direct path for non-finite data.
Tensor mkldnn_conv(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& other, Shape padding, bool relu,
                   bool winograd) {
  const Attrs attrs{{"padding", padding},   {"stride", Shape{1, 1}}, {"dilation", Shape{1, 1}},
                    {"groups", int64_t{1}}, {"relu", relu},          {"winograd", winograd},
                    {"weight_size", w.shape()}, {"packed_for", x.shape()}};
  const Tensor weight = winograd ? w : pack_conv_weight(w, x, padding, other.defined(), relu, winograd);
  return to_dense(dispatch::call_single_output(OpKind::MkldnnConvolution, {x, weight, b, other, Tensor()}, attrs), w.size(0));
}
/// mkldnn_linear of x (..., 4) by w (3, 4) packed for x, as MkldnnLinear calls it.
Tensor mkldnn_linear(const Tensor& x, const Tensor& w, const Tensor& b, bool gelu) {
  const Tensor packed = dispatch::call_single_output(OpKind::MkldnnReorderLinearWeight, {w},
                                                     {{"input_size", x.shape()}, {"bias", b.defined()}, {"gelu", gelu}});
  return dispatch::call_single_output(OpKind::MkldnnLinear, {x, packed, b, Tensor()},
                                      {{"gelu", gelu}, {"weight_size", w.shape()}});
}
/// The linear samples' weight (3, 4), with an exact zero, and bias (3).
Tensor linear_weight() {
  std::vector<float> v;
  for (int i = 0; i < 12; ++i) v.push_back(static_cast<float>((i * 5) % 9 - 4) / 4);
  return from_vector<float>(v, {3, 4});
}
Tensor linear_bias() { return from_vector<float>({0.1f, -0.2f, 0.3f}, {3}); }
/// The first 12 elements of x as a (3, 4) weight: its special values in the weight.
Tensor weight_of(const Tensor& x) { return x.flatten().slice(0, 0, 12).view({3, 4}); }
Tensor mkldnn_max_pool(const Tensor& x, DType dtype, Shape kernel, Shape stride, Shape padding) {
  const Tensor y = dispatch::call_single_output(OpKind::MkldnnMaxPool2d, {to_mkldnn(x, dtype), Tensor()},
                                   {{"kernel_size", kernel}, {"stride", stride}, {"padding", padding},
                                    {"dilation", Shape{1, 1}}, {"ceil_mode", false}});
  return to_dense(y, x.size(1)).to(dtype);
}
Tensor mkldnn_adaptive(const Tensor& x, DType dtype, int64_t size) {
  const Tensor y = dispatch::call_single_output(OpKind::MkldnnAdaptiveAvgPool2d, {to_mkldnn(x, dtype), Tensor()},
                                   {{"output_size", Shape{size, size}}});
  return to_dense(y, x.size(1)).to(dtype);
}

Tensor bn(int i) {
  const std::vector<std::vector<float>> v{{1.5f, -0.5f}, {0.1f, 0.2f}, {0.25f, -0.5f}, {0.5f, 2.0f}};
  return from_vector<float>(v[static_cast<size_t>(i)], {2});
}
// gather / scatter indices for x (1, 2, 4, 4) along dim 3: distinct within each row, or with repeats.
Tensor row_index() {
  return from_vector<int64_t>({3, 0, 1, 2, 0, 3, 2, 1, 1, 3, 2, 0, 3, 1, 0, 2}, {1, 2, 4, 2});
}
Tensor repeated_index() {
  return from_vector<int64_t>({2, 2, 0, 1, 3, 3, 1, 0, 0, 0, 2, 2, 1, 3, 3, 1}, {1, 2, 4, 2});
}
Tensor residual(const Tensor& x) { return cat(std::vector<Tensor>{x, x.slice(1, 0, 1)}, 1); }

// ---- families ----

Samples unary(Tensor (*f)(const Tensor&)) {
  return {Sample{"plain", [f](const Tensor& x, const Tensor&) { return list(f(x)); }}.generic()};
}
Samples unary_(Tensor& (Tensor::*f)()) {
  return {Sample{"plain", [f](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list((c.*f)()); }}.generic()};
}
Samples binary(Tensor (*f)(const Tensor&, const Tensor&)) {
  return {Sample{"self", [f](const Tensor& x, const Tensor& y) { return list(f(x, y)); }}.generic(),
          Sample{"other", [f](const Tensor& x, const Tensor& y) { return list(f(y, x)); }}.generic()};
}
Samples binary_(Tensor& (*f)(Tensor&, const Tensor&)) {
  return {Sample{"self", [f](const Tensor& x, const Tensor& y) { Tensor c = x.clone(); return list(f(c, y)); }}.generic()};
}
Samples compare(Tensor (Tensor::*f)(const Tensor&) const) {
  return {Sample{"xy", [f](const Tensor& x, const Tensor& y) { return list((x.*f)(y)); }}.generic(),
          Sample{"xx", [f](const Tensor& x, const Tensor&) { return list((x.*f)(x)); }}.generic()};
}
/// bool results of any dtype: the tests and logical_not, also of an int64 and a bool tensor.
Samples predicate(Tensor (*f)(const Tensor&)) {
  return {Sample{"plain", [f](const Tensor& x, const Tensor&) { return list(f(x)); }}.generic(),
          Sample{"int64", [f](const Tensor& x, const Tensor&) { return list(f(x.to(DType::Int64))); }}.generic(),
          Sample{"bool", [f](const Tensor& x, const Tensor&) { return list(f(x.gt(Scalar(0.0)))); }}.generic()};
}
/// An op that keeps (floor, sign, ...) or promotes (erf) its dtype: also of int64 and bfloat16, and of bool
/// where it takes one (sign).
Samples with_dtypes(Tensor (*f)(const Tensor&), bool takes_bool = false) {
  Samples s{Sample{"plain", [f](const Tensor& x, const Tensor&) { return list(f(x)); }}.generic(),
            Sample{"int64", [f](const Tensor& x, const Tensor&) { return list(f((x * 4.0).to(DType::Int64))); }}.generic(),
            Sample{"bfloat16", [f](const Tensor& x, const Tensor&) { return list(f(x.to(DType::BFloat16))); }}.generic()};
  if (takes_bool) s.push_back(Sample{"bool", [f](const Tensor& x, const Tensor&) { return list(f(x.gt(Scalar(0.0)))); }}.generic());
  return s;
}
Samples one(const char* name, SampleFn fn) { return {Sample{name, std::move(fn)}}; }
Samples one_generic(SampleFn fn) { return {Sample{"plain", std::move(fn)}.generic()}; }

/// A sample of the inference convolution: on x or y, with a residual, through Winograd, in bfloat16.
SampleFn inference_conv(bool on_x, bool sum, bool winograd, std::optional<DType> dtype) {
  return [=](const Tensor& x, const Tensor& y) {
    const Tensor in = to_mkldnn(on_x ? x : y, dtype);
    const Tensor other = sum ? to_mkldnn(residual(x), dtype) : Tensor();
    const Tensor out = mkldnn_conv(in, conv_weight(), conv_bias(), other, {1, 1}, true, winograd);
    return list(dtype ? out.to(*dtype) : out);
  };
}

}  // namespace

Tensor to_mkldnn(const Tensor& x, std::optional<DType> dtype) {
  return dispatch::call_single_output(OpKind::ToMkldnn, {x, Tensor()}, {{"dtype", dtype ? AttrValue(*dtype) : AttrValue()}});
}
Tensor pack_conv_weight(const Tensor& w, const Tensor& x, Shape padding, bool sum, bool relu, bool winograd) {
  const Attrs attrs{{"padding", padding},   {"stride", Shape{1, 1}},  {"dilation", Shape{1, 1}},
                    {"groups", int64_t{1}}, {"input_size", x.shape()}, {"input_stride", x.strides()},
                    {"input_dtype", x.dtype()}, {"bias", true},       {"sum", sum},
                    {"relu", relu},         {"winograd", winograd}};
  return dispatch::call_single_output(OpKind::MkldnnReorderConv2dWeight, {w}, attrs);
}
Tensor conv_weight() {
  std::vector<float> v;
  for (int i = 0; i < 54; ++i) v.push_back(static_cast<float>((i * 3) % 11 - 5) / 8);
  return from_vector<float>(v, {3, 2, 3, 3});
}
Tensor conv_bias() { return from_vector<float>({0.1f, -0.2f, 0.3f}, {3}); }

// ---- factories ----
Samples opinfo_empty() {
  return {Sample{"shape", [](const Tensor&, const Tensor&) { return list(empty({2, 3})); }}
              .no_noncontiguous("uninitialized values differ between calls")
              .no_trace("uninitialized values differ between calls")};
}
Samples opinfo_zeros() { return one("plain", [](const Tensor&, const Tensor&) { return list(zeros({2, 3})); }); }
Samples opinfo_ones() { return one("plain", [](const Tensor&, const Tensor&) { return list(ones({2, 3})); }); }
Samples opinfo_full() {
  return {Sample{"fill", [](const Tensor& x, const Tensor&) { return list(full({2, 3}, x5(x))); }}.no_trace(kReadsValue)};
}
Samples opinfo_arange() {
  return {Sample{"end", [](const Tensor& x, const Tensor&) { return list(arange(int64_t{0}, x5(x))); }}.no_trace(kReadsValue)};
}
Samples opinfo_empty_like() {
  return {Sample{"shape", [](const Tensor& x, const Tensor&) { return list(empty_like(x)); }}
              .no_noncontiguous("uninitialized values differ between calls")
              .no_trace("uninitialized values differ between calls")};
}
Samples opinfo_zeros_like() { return one_generic([](const Tensor& x, const Tensor&) { return list(zeros_like(x)); }); }
Samples opinfo_ones_like() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(ones_like(x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(ones_like(x, kDouble)); }}.generic()};
}
Samples opinfo_full_like() {
  return one_generic([](const Tensor& x, const Tensor&) { return list(full_like(x, -2.5)); });
}
Samples opinfo_eye() {
  return {Sample{"square", [](const Tensor&, const Tensor&) { return list(eye(3)); }},
          Sample{"m", [](const Tensor&, const Tensor&) { return list(eye(2, 3, kLong)); }}};
}
Samples opinfo_linspace() {
  return {Sample{"plain", [](const Tensor&, const Tensor&) { return list(linspace(-1.5, 2, 9)); }},
          Sample{"int64", [](const Tensor&, const Tensor&) { return list(linspace(0, 10, 7, kLong)); }}};
}
Samples opinfo_logspace() {
  return {Sample{"plain", [](const Tensor&, const Tensor&) { return list(logspace(-2, 2, 5)); }},
          Sample{"base", [](const Tensor&, const Tensor&) { return list(logspace(0, 3, 4, 2.0)); }}};
}
Samples opinfo_rand() { return one("shape", [](const Tensor&, const Tensor&) { return list(rand({2, 3})); }); }
Samples opinfo_randn() { return one("shape", [](const Tensor&, const Tensor&) { return list(randn({2, 3})); }); }
// The seeded ops' values are PyTorch's streams (tests/ops/test_random.cpp); here their shapes and dtypes.
Samples opinfo_randint() { return one("shape", [](const Tensor&, const Tensor&) { return list(randint(-3, 10, {2, 3})); }); }
Samples opinfo_randperm() { return one("shape", [](const Tensor&, const Tensor&) { return list(randperm(7)); }); }
Samples opinfo_rand_like() {
  return {Sample{"shape", [](const Tensor& x, const Tensor&) { return list(rand_like(x)); }}.generic()};
}
Samples opinfo_randn_like() {
  return {Sample{"shape", [](const Tensor& x, const Tensor&) { return list(randn_like(x)); }}.generic()};
}
Samples opinfo_randint_like() {
  return {Sample{"shape", [](const Tensor& x, const Tensor&) { return list(randint_like(x, 0, 5)); }}.generic()};
}
Samples opinfo_normal() {
  return {Sample{"shape", [](const Tensor& x, const Tensor& y) { return list(normal(x, y)); }}.generic()};
}
Samples opinfo_bernoulli() {
  return one("shape", [](const Tensor&, const Tensor& y) { return list(bernoulli((y - 0.5) / 2)); });
}
Samples opinfo_bernoulli_() {
  return {Sample{"shape", [](const Tensor& x, const Tensor&) { return list(x.clone().bernoulli_(0.3)); }}.generic()};
}
Samples opinfo_multinomial() {
  return one("shape", [](const Tensor&, const Tensor& y) { return list(multinomial(y.flatten(), 3)); });
}
Samples opinfo_uniform_() {
  return {Sample{"shape", [](const Tensor& x, const Tensor&) { return list(x.clone().uniform_(-1.0, 2.0)); }}.generic()};
}
Samples opinfo_normal_() {
  return {Sample{"shape", [](const Tensor& x, const Tensor&) { return list(x.clone().normal_(0.5, 2.0)); }}.generic()};
}

// ---- copies and conversion ----
Samples opinfo_copy_() {
  return one_generic([](const Tensor& x, const Tensor& y) { Tensor c = y.clone(); return list(c.copy_(x)); });
}
Samples opinfo_clone() { return one_generic([](const Tensor& x, const Tensor&) { return list(x.clone()); }); }
Samples opinfo_contiguous() {
  return {Sample{"transposed", [](const Tensor& x, const Tensor&) { return list(x.transpose(2, 3).contiguous()); }}.generic()};
}
Samples opinfo_to() {
  return {Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(x.to(DType::BFloat16)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(x.to(DType::Float64)); }}.generic()};
}

// ---- views ----
Samples opinfo_view() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(x.view({2, 16})); }}.no_noncontiguous(kViewsFlat)};
}
Samples opinfo_reshape() { return one("plain", [](const Tensor& x, const Tensor&) { return list(reshape(x, {4, 8})); }); }
Samples opinfo_flatten() { return one_generic([](const Tensor& x, const Tensor&) { return list(flatten(x)); }); }
Samples opinfo_permute() { return one_generic([](const Tensor& x, const Tensor&) { return list(permute(x, {0, 2, 3, 1})); }); }
Samples opinfo_transpose() { return one_generic([](const Tensor& x, const Tensor&) { return list(transpose(x, 1, 3)); }); }
Samples opinfo_t() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(x.view({4, 8}).t()); }}.no_noncontiguous(kViewsFlat)};
}
Samples opinfo_slice() { return one_generic([](const Tensor& x, const Tensor&) { return list(x.slice(2, 1, 3)); }); }
Samples opinfo_select() { return one_generic([](const Tensor& x, const Tensor&) { return list(x.select(1, 1)); }); }
Samples opinfo_expand() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(x.view({1, 32}).expand({2, 32})); }}
              .no_noncontiguous(kViewsFlat)};
}
Samples opinfo_squeeze() { return one_generic([](const Tensor& x, const Tensor&) { return list(squeeze(x)); }); }
Samples opinfo_squeeze_dim() { return one_generic([](const Tensor& x, const Tensor&) { return list(squeeze(x, 0)); }); }
Samples opinfo_unsqueeze() { return one_generic([](const Tensor& x, const Tensor&) { return list(unsqueeze(x, 1)); }); }
Samples opinfo_narrow() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(narrow(x, 2, 1, 2)); }}.generic(),
          Sample{"negative_start", [](const Tensor& x, const Tensor&) { return list(x.narrow(3, -3, 2)); }}.generic()};
}
Samples opinfo_diagonal() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(diagonal(x, 0, 2, 3)); }}.generic(),
          Sample{"offset", [](const Tensor& x, const Tensor&) { return list(x.diagonal(-1, 3, 1)); }}.generic()};
}
Samples opinfo_diagonal_backward() {
  return one_generic([](const Tensor& x, const Tensor&) {
    return list(diagonal_backward(x.diagonal(1, 2, 3), x.shape(), 1, 2, 3));
  });
}
// The list ops: their pieces, in order.
Samples opinfo_chunk() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return chunk(x, 2, 1); }}.generic(),
          Sample{"uneven", [](const Tensor& x, const Tensor&) { return x.flatten().chunk(3); }}.generic()};
}
Samples opinfo_split() { return one_generic([](const Tensor& x, const Tensor&) { return x.split(3, 3); }); }
Samples opinfo_split_with_sizes() {
  return one_generic([](const Tensor& x, const Tensor&) { return split_with_sizes(x, {1, 3}, 3); });
}
Samples opinfo_unbind() { return one_generic([](const Tensor& x, const Tensor&) { return x.unbind(1); }); }
Samples opinfo_flip() { return one_generic([](const Tensor& x, const Tensor&) { return list(flip(x, {1, 3})); }); }
Samples opinfo_roll() {
  return {Sample{"dims", [](const Tensor& x, const Tensor&) { return list(x.roll({1, -2}, {2, 3})); }}.generic(),
          Sample{"flat", [](const Tensor& x, const Tensor&) { return list(roll(x.transpose(2, 3), {5})); }}.generic()};
}
Samples opinfo_repeat() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(x.repeat({2, 1, 1, 2})); }}.generic(),
          Sample{"new_dims", [](const Tensor& x, const Tensor&) { return list(x.repeat({2, 1, 3, 1, 1})); }}.generic()};
}
Samples opinfo_tile() { return one_generic([](const Tensor& x, const Tensor&) { return list(tile(x, {2, 3})); }); }
Samples opinfo_triu() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(triu(x)); }}.generic(),
          Sample{"diagonal", [](const Tensor& x, const Tensor&) { return list(x.triu(-1)); }}.generic()};
}
Samples opinfo_tril() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(tril(x)); }}.generic(),
          Sample{"diagonal", [](const Tensor& x, const Tensor&) { return list(x.tril(1)); }}.generic()};
}

// ---- elementwise ----
#define TL_UNARY_OPINFO(name)                                              \
  Samples opinfo_##name() { return unary(name); }                          \
  Samples opinfo_##name##_() { return unary_(&Tensor::name##_); }
TL_UNARY_OPINFO(neg)
TL_UNARY_OPINFO(abs)
TL_UNARY_OPINFO(exp)
TL_UNARY_OPINFO(log)
TL_UNARY_OPINFO(sqrt)
TL_UNARY_OPINFO(rsqrt)
TL_UNARY_OPINFO(relu)
TL_UNARY_OPINFO(sigmoid)
TL_UNARY_OPINFO(tanh)
#undef TL_UNARY_OPINFO
#define TL_DTYPES_OPINFO(name, takes_bool)                                  \
  Samples opinfo_##name() { return with_dtypes(name, takes_bool); }         \
  Samples opinfo_##name##_() { return unary_(&Tensor::name##_); }
TL_DTYPES_OPINFO(floor, false)
TL_DTYPES_OPINFO(ceil, false)
TL_DTYPES_OPINFO(round, false)
TL_DTYPES_OPINFO(trunc, false)
TL_DTYPES_OPINFO(sign, true)
TL_DTYPES_OPINFO(erf, false)
TL_DTYPES_OPINFO(sin, false)
TL_DTYPES_OPINFO(cos, false)
#undef TL_DTYPES_OPINFO
Samples opinfo_reciprocal() { return unary(reciprocal); }
Samples opinfo_gelu() {
  return {Sample{"none", [](const Tensor& x, const Tensor&) { return list(gelu(x)); }}.generic(),
          Sample{"tanh", [](const Tensor& x, const Tensor&) { return list(gelu(x, "tanh")); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(gelu(x.to(DType::Float64))); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(gelu(x.to(DType::BFloat16))); }}.generic()};
}
Samples opinfo_hardswish() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(hardswish(x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(hardswish(x.to(DType::Float64))); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(x.to(DType::BFloat16).hardswish()); }}.generic()};
}
Samples opinfo_silu() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(silu(x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(silu(x.to(DType::Float64))); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(x.to(DType::BFloat16).silu()); }}.generic()};
}
Samples opinfo_mish() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(mish(x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(mish(x.to(DType::Float64))); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(mish(x.to(DType::BFloat16))); }}.generic()};
}
Samples opinfo_leaky_relu() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(leaky_relu(x)); }}.generic(),
          Sample{"slope", [](const Tensor& x, const Tensor&) { return list(leaky_relu(x, 0.2)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(leaky_relu(x.to(DType::Float64), -0.5)); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(leaky_relu(x.to(DType::BFloat16))); }}.generic()};
}
// The in-place activations: on a clone (float32) and on a float64 copy.
#define TL_INPLACE_ACTIVATION_OPINFO(name)                                                                        \
  Samples opinfo_##name##_() {                                                                                   \
    return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(name##_(x.clone())); }}.generic(),     \
            Sample{"float64", [](const Tensor& x, const Tensor&) { return list(name##_(x.to(DType::Float64) * 1.0)); }} \
                .generic()};                                                                                     \
  }
TL_INPLACE_ACTIVATION_OPINFO(hardswish)
TL_INPLACE_ACTIVATION_OPINFO(silu)
TL_INPLACE_ACTIVATION_OPINFO(mish)
TL_INPLACE_ACTIVATION_OPINFO(hardsigmoid)
TL_INPLACE_ACTIVATION_OPINFO(relu6)
#undef TL_INPLACE_ACTIVATION_OPINFO
Samples opinfo_hardtanh_() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(hardtanh_(x.clone(), -0.5, 1.25)); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor&) { return list(hardtanh_((x * 4.0).to(DType::Int64), -1.5, 2.5)); }}
              .generic()};
}
Samples opinfo_relu6() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(relu6(x)); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor&) { return list(relu6((x * 4.0).to(DType::Int64))); }}.generic()};
}
Samples opinfo_leaky_relu_() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(leaky_relu_(x.clone(), 0.2)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(leaky_relu_(x.to(DType::Float64) * 1.0, 0.2)); }}.generic()};
}
Samples opinfo_elu() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(elu(x)); }}.generic(),
          Sample{"params", [](const Tensor& x, const Tensor&) { return list(elu(x, 0.5, 2.0, 1.5)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(elu(x.to(DType::Float64), 0.5, 2.0, 1.5)); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(elu(x.to(DType::BFloat16))); }}.generic()};
}
Samples opinfo_elu_() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(elu_(x.clone(), 0.5, 2.0, 1.5)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(elu_(x.to(DType::Float64) * 1.0, 0.5)); }}.generic()};
}
Samples opinfo_softplus() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(softplus(x)); }}.generic(),
          Sample{"params", [](const Tensor& x, const Tensor&) { return list(softplus(x, 2, 1.5)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(softplus(x.to(DType::Float64), 2, 1.5)); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(softplus(x.to(DType::BFloat16))); }}.generic()};
}
Samples opinfo_hardsigmoid() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(hardsigmoid(x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(hardsigmoid(x.to(DType::Float64))); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(hardsigmoid(x.to(DType::BFloat16))); }}.generic()};
}
Samples opinfo_hardtanh() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(hardtanh(x)); }}.generic(),
          Sample{"bounds", [](const Tensor& x, const Tensor&) { return list(hardtanh(x, -0.5, 1.25)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(hardtanh(x.to(DType::Float64), 0, 6)); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor&) { return list(hardtanh((x * 4.0).to(DType::Int64), -1.5, 2.5)); }}.generic()};
}
// One slope for all, or one per channel (x has two): (0.25) and (0.25, -0.5).
Tensor prelu_weight(int64_t n, DType dtype = DType::Float32) {
  return from_vector<float>({0.25f, -0.5f}, {2}).slice(0, 0, n).to(dtype);
}
Samples opinfo_prelu() {
  return {Sample{"one", [](const Tensor& x, const Tensor&) { return list(prelu(x, prelu_weight(1))); }}.generic(),
          Sample{"channels", [](const Tensor& x, const Tensor&) { return list(x.prelu(prelu_weight(2))); }}.generic(),
          Sample{"weight", [](const Tensor& x, const Tensor& y) { return list(prelu(y - 1.25, x.flatten().slice(0, 5, 7))); }},
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(prelu(x.to(DType::Float64), (y.flatten().slice(0, 0, 2) - 1.0).to(DType::Float64)));
          }}.generic()};
}
Samples opinfo_nan_to_num() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(nan_to_num(x)); }}.generic(),
          Sample{"values", [](const Tensor& x, const Tensor&) { return list(x.nan_to_num(1.0, 2.0, -3.0)); }}.generic(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(x.to(DType::BFloat16).nan_to_num()); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor&) { return list(x.to(DType::Float64).nan_to_num()); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor&) { return list(x.to(DType::Int64).nan_to_num()); }}.generic()};
}
Samples opinfo_nan_to_num_() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list(c.nan_to_num_()); }}.generic(),
          Sample{"values", [](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list(c.nan_to_num_(1.0, 2.0, -3.0)); }}
              .generic()};
}
Samples opinfo_isnan() { return predicate(isnan); }
Samples opinfo_isinf() { return predicate(isinf); }
Samples opinfo_isfinite() { return predicate(isfinite); }
Samples opinfo_logical_not() { return predicate(logical_not); }

#define TL_BINARY_OPINFO(name)                                             \
  Samples opinfo_##name() { return binary(name); }                         \
  Samples opinfo_##name##_() {                                             \
    return binary_([](Tensor& self, const Tensor& other) -> Tensor& { return self.name##_(other); }); \
  }
TL_BINARY_OPINFO(mul)
TL_BINARY_OPINFO(div)
#undef TL_BINARY_OPINFO
// add and sub also with alpha, the factor of other.
#define TL_ALPHA_OPINFO(name, alpha)                                                                               \
  Samples opinfo_##name() {                                                                                      \
    Samples s = binary([](const Tensor& a, const Tensor& b) { return name(a, b); });                               \
    s.push_back(Sample{"alpha", [](const Tensor& x, const Tensor& y) { return list(name(x, y, alpha)); }}.generic()); \
    return s;                                                                                                    \
  }                                                                                                              \
  Samples opinfo_##name##_() {                                                                                   \
    Samples s = binary_([](Tensor& self, const Tensor& other) -> Tensor& { return self.name##_(other); });         \
    s.push_back(Sample{"alpha", [](const Tensor& x, const Tensor& y) {                                           \
                  Tensor c = x.clone();                                                                          \
                  return list(c.name##_(y, alpha));                                                              \
                }}.generic());                                                                                   \
    return s;                                                                                                    \
  }
TL_ALPHA_OPINFO(add, 2.5)
TL_ALPHA_OPINFO(sub, 0.5)
#undef TL_ALPHA_OPINFO
Samples opinfo_rsub() {
  Samples s = binary(rsub);
  s.push_back(Sample{"number", [](const Tensor& x, const Tensor&) { return list(2.0 - x); }}.generic());
  return s;
}
Samples opinfo_rtruediv() {
  return {Sample{"number", [](const Tensor& x, const Tensor&) { return list(1.0 / x); }}.generic().no_profile(
      "Python's Tensor.__rtruediv__, not an ATen op: a profile holds the reciprocal and mul it runs")};
}
Samples opinfo_pow() { return binary([](const Tensor& a, const Tensor& b) { return pow(a, b); }); }
Samples opinfo_pow_scalar() {
  return {Sample{"base", [](const Tensor& x, const Tensor&) { return list(pow(2.5, x)); }}.generic(),
          Sample{"zero", [](const Tensor& x, const Tensor&) { return list(pow(0, x)); }}.generic()};
}
Samples opinfo_pow_() {
  return binary_([](Tensor& self, const Tensor& other) -> Tensor& { return self.pow_(other); });
}
// fmod and remainder: also by a number of either sign and in int64 (a divisor of 0 is refused there).
#define TL_REMAINDER_OPINFO(name)                                                                                 \
  Samples opinfo_##name() {                                                                                      \
    Samples s = binary([](const Tensor& a, const Tensor& b) { return name(a, b); });                               \
    s.push_back(Sample{"number", [](const Tensor& x, const Tensor&) { return list(name(x, 1.5)); }}.generic());     \
    s.push_back(Sample{"negative_number", [](const Tensor& x, const Tensor&) { return list(x.name(-0.75)); }}.generic()); \
    s.push_back(Sample{"int64", [](const Tensor& x, const Tensor& y) {                                           \
                  return list(name((x * 4.0).to(DType::Int64), (y * -4.0).to(DType::Int64)));                      \
                }}.generic());                                                                                   \
    s.push_back(Sample{"int64_zero", [](const Tensor& x, const Tensor& y) {                                      \
                  return list(name(x.to(DType::Int64), y.to(DType::Int64)));                                     \
                }}.generic().no_profile(kZeroDivision).no_trace(kZeroDivision));                              \
    return s;                                                                                                    \
  }                                                                                                              \
  Samples opinfo_##name##_() {                                                                                   \
    return binary_([](Tensor& self, const Tensor& other) -> Tensor& { return self.name##_(other); });            \
  }
TL_REMAINDER_OPINFO(fmod)
TL_REMAINDER_OPINFO(remainder)
#undef TL_REMAINDER_OPINFO
// div with a rounding mode and floor_divide: also by a negative number and in int64 (floor rounds toward -inf).
Samples opinfo_div_tensor_mode() {
  return {Sample{"trunc", [](const Tensor& x, const Tensor& y) { return list(div(x, y, "trunc")); }}.generic(),
          Sample{"floor", [](const Tensor& x, const Tensor& y) { return list(x.div(y, "floor")); }}.generic(),
          Sample{"none", [](const Tensor& x, const Tensor& y) { return list(div(x, y, std::nullopt)); }}.generic(),
          Sample{"number", [](const Tensor& x, const Tensor&) { return list(div(x, -1.5, "floor")); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor& y) {
            return list(div((x * 4.0).to(DType::Int64), (y * -4.0).to(DType::Int64), "floor"));
          }}.generic()};
}
Samples opinfo_floor_divide() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(floor_divide(x, y)); }}.generic(),
          Sample{"number", [](const Tensor& x, const Tensor&) { return list(x.floor_divide(-1.5)); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor& y) {
            return list(floor_divide((x * 4.0).to(DType::Int64), (y * -4.0).to(DType::Int64)));
          }}.generic()};
}
// maximum / minimum: x's NaN wins from either side; also in int64.
#define TL_EXTREME_OPINFO(name)                                                                         \
  Samples opinfo_##name() {                                                                             \
    Samples s = binary(name);                                                                           \
    s.push_back(Sample{"int64", [](const Tensor& x, const Tensor& y) {                                  \
                  return list(name((x * 4.0).to(DType::Int64), (y * -4.0).to(DType::Int64)));           \
                }}.generic());                                                                          \
    return s;                                                                                           \
  }
TL_EXTREME_OPINFO(maximum)
TL_EXTREME_OPINFO(minimum)
#undef TL_EXTREME_OPINFO
// The bitwise ops: integers (x's specials as int64's lowest value), bools, and a number.
#define TL_BITWISE_OPINFO(name)                                                                         \
  Samples opinfo_##name() {                                                                             \
    return {Sample{"int64", [](const Tensor& x, const Tensor& y) {                                      \
              return list(name((x * 4.0).to(DType::Int64), (y * 4.0).to(DType::Int64)));                \
            }}.generic(),                                                                               \
            Sample{"bool", [](const Tensor& x, const Tensor& y) { return list(name(x.gt(0.0), y.gt(1.0))); }} \
                .generic(),                                                                             \
            Sample{"number", [](const Tensor& x, const Tensor&) { return list((x * 4.0).to(DType::Int64).name(6)); }} \
                .generic()};                                                                            \
  }
TL_BITWISE_OPINFO(bitwise_and)
TL_BITWISE_OPINFO(bitwise_or)
TL_BITWISE_OPINFO(bitwise_xor)
#undef TL_BITWISE_OPINFO
Samples opinfo_clamp() { return one_generic([](const Tensor& x, const Tensor&) { return list(clamp(x, -1.0, 1.0)); }); }
Samples opinfo_clamp_() {
  return one_generic([](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list(c.clamp_(-1.0, 1.0)); });
}
// One bound: also a NaN bound (every element NaN) and an int64 tensor with a float bound (float32 result).
Samples opinfo_clamp_min() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(clamp_min(x, -0.5)); }}.generic(),
          Sample{"nan_bound", [](const Tensor& x, const Tensor&) { return list(x.clamp_min(std::nan(""))); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor&) { return list(x.to(DType::Int64).clamp_min(0.5)); }}.generic()};
}
Samples opinfo_clamp_max() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(clamp_max(x, 0.5)); }}.generic(),
          Sample{"nan_bound", [](const Tensor& x, const Tensor&) { return list(x.clamp_max(std::nan(""))); }}.generic(),
          Sample{"int64", [](const Tensor& x, const Tensor&) { return list(x.to(DType::Int64).clamp_max(0.5)); }}.generic()};
}
Samples opinfo_clamp_min_() {
  return one_generic([](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list(c.clamp_min_(-0.5)); });
}
Samples opinfo_clamp_max_() {
  return one_generic([](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list(c.clamp_max_(0.5)); });
}
// clamp with tensor bounds: the special value in self or in a bound, one bound or both, bounds crossing
// (min > max gives max), a broadcast bound and an int64 self promoted by float bounds.
Samples opinfo_clamp_tensor() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(clamp(x, y - 2.0, y)); }}.generic(),
          Sample{"min_bound", [](const Tensor& x, const Tensor& y) { return list(clamp(y, x, y + 1.0)); }}.generic(),
          Sample{"max_bound", [](const Tensor& x, const Tensor& y) { return list(y.clamp(y - 1.0, x)); }}.generic(),
          Sample{"min_only", [](const Tensor& x, const Tensor& y) { return list(clamp(x, y - 1.5, Tensor())); }}.generic(),
          Sample{"max_only", [](const Tensor& x, const Tensor& y) { return list(clamp(x, Tensor(), y - 1.0)); }}.generic(),
          Sample{"crossing", [](const Tensor& x, const Tensor& y) { return list(clamp(x, y, y - 1.0)); }}.generic(),
          Sample{"broadcast", [](const Tensor& x, const Tensor& y) { return list(clamp(x, y.slice(3, 0, 1) - 1.75, y)); }},
          Sample{"int64", [](const Tensor& x, const Tensor& y) {
            return list(clamp((x * 4.0).to(DType::Int64), y - 2.0, y));
          }}.generic()};
}
Samples opinfo_clamp_tensor_() {
  return one_generic([](const Tensor& x, const Tensor& y) { Tensor c = x.clone(); return list(c.clamp_(y - 2.0, y)); });
}
Samples opinfo_clamp_min_tensor() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(clamp_min(x, y - 1.5)); }}.generic(),
          Sample{"min", [](const Tensor& x, const Tensor& y) { return list(y.clamp_min(x)); }}.generic()};
}
Samples opinfo_clamp_max_tensor() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(clamp_max(x, y - 1.0)); }}.generic(),
          Sample{"max", [](const Tensor& x, const Tensor& y) { return list(y.clamp_max(x)); }}.generic()};
}
Samples opinfo_clamp_min_tensor_() {
  return one_generic([](const Tensor& x, const Tensor& y) { Tensor c = x.clone(); return list(c.clamp_min_(y - 1.5)); });
}
Samples opinfo_clamp_max_tensor_() {
  return one_generic([](const Tensor& x, const Tensor& y) { Tensor c = x.clone(); return list(c.clamp_max_(y - 1.0)); });
}
Samples opinfo_where() {
  return one_generic([](const Tensor& x, const Tensor& y) { return list(where(y.gt(Scalar(1.2)), x, y)); });
}
Samples opinfo_lerp() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(lerp(x, y, y * 0.5 - 0.5)); }}.generic(),
          Sample{"end", [](const Tensor& x, const Tensor& y) { return list(lerp(y, x, y - 1.0)); }}.generic(),
          Sample{"weight", [](const Tensor& x, const Tensor& y) { return list(lerp(y, y * 2.0, x)); }}.generic(),
          Sample{"broadcast", [](const Tensor& x, const Tensor& y) { return list(lerp(x, y.slice(3, 0, 1), y.slice(2, 0, 1))); }},
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(lerp(x.to(DType::Float64), y.to(DType::Float64), (y * 0.5 - 0.5).to(DType::Float64)));
          }}.generic()};
}
// lerp.Scalar: a weight below and above 0.5 (the two formulas), a broadcast end, bfloat16.
Samples opinfo_lerp_scalar() {
  return {Sample{"scalar", [](const Tensor& x, const Tensor& y) { return list(lerp(x, y, 0.3)); }}.generic(),
          Sample{"scalar_high", [](const Tensor& x, const Tensor& y) { return list(y.lerp(x, 0.75)); }}.generic(),
          Sample{"broadcast", [](const Tensor& x, const Tensor& y) { return list(lerp(x, y.slice(3, 0, 1), 0.6)); }},
          Sample{"bfloat16", [](const Tensor& x, const Tensor& y) {
            return list(lerp(x.to(DType::BFloat16), y.to(DType::BFloat16), 0.25));
          }}.generic()};
}
// Samples of addcmul and addcdiv: the special value in self, tensor1 or tensor2, a value, a broadcast
// and a promotion to float64.
template <Tensor (*F)(const Tensor&, const Tensor&, const Tensor&, const Scalar&)>
Samples addc() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(F(x, y, y - 1.0, 0.5)); }}.generic(),
          Sample{"tensor1", [](const Tensor& x, const Tensor& y) { return list(F(y, x, y, 1)); }}.generic(),
          Sample{"tensor2", [](const Tensor& x, const Tensor& y) { return list(F(y, y, x, -2)); }}.generic(),
          Sample{"broadcast", [](const Tensor& x, const Tensor& y) { return list(F(x, y.slice(1, 0, 1), y.slice(3, 1, 2), 1)); }},
          Sample{"float64", [](const Tensor& x, const Tensor& y) { return list(F(x, y.to(DType::Float64), y, 0.5)); }}.generic()};
}
Samples opinfo_addcmul() {
  Samples s = addc<addcmul>();
  s.push_back(Sample{"int64", [](const Tensor& x, const Tensor& y) {
    return list(addcmul((x * 4.0).to(DType::Int64), (y * 2.0).to(DType::Int64), (y * 4.0).to(DType::Int64), 3));
  }}.generic());
  return s;
}
Samples opinfo_addcdiv() { return addc<addcdiv>(); }

// ---- backward of elementwise ops ----
Samples opinfo_threshold_backward() {
  return one_generic([](const Tensor& x, const Tensor& y) { return list(threshold_backward(y, x, 0.0)); });
}
// gelu' = cdf + x pdf cancels (x = -0.75: 0.2266 - 0.2258) and PyTorch's vectorised erf / exp round
// differently from the C library's in float32: the last bits of the small results differ.
Samples opinfo_gelu_backward() {
  return {Sample{"none", [](const Tensor& x, const Tensor& y) { return list(gelu_backward(y, x)); }}.generic().sums(1e-7),
          Sample{"tanh", [](const Tensor& x, const Tensor& y) { return list(gelu_backward(y, x, "tanh")); }}.generic().sums(1e-7),
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(gelu_backward(y.to(DType::Float64), x.to(DType::Float64)));
          }}.generic()};
}
Samples opinfo_hardswish_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(hardswish_backward(y, x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(hardswish_backward(y.to(DType::Float64), x.to(DType::Float64)));
          }}.generic()};
}
Samples opinfo_silu_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(silu_backward(y, x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(silu_backward(y.to(DType::Float64), x.to(DType::Float64)));
          }}.generic()};
}
Samples opinfo_mish_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(mish_backward(y, x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(mish_backward(y.to(DType::Float64), x.to(DType::Float64)));
          }}.generic()};
}
Samples opinfo_leaky_relu_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(leaky_relu_backward(y, x, 0.2, false)); }}.generic(),
          Sample{"result", [](const Tensor& x, const Tensor& y) { return list(leaky_relu_backward(y, x, 0.01, true)); }}.generic()};
}
Samples opinfo_elu_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(elu_backward(y, 0.5, 2.0, 1.5, false, x)); }}.generic(),
          Sample{"result", [](const Tensor& x, const Tensor& y) { return list(elu_backward(y, 0.5, 2.0, 1.5, true, x)); }}.generic(),
          Sample{"float64", [](const Tensor& x, const Tensor& y) {
            return list(elu_backward(y.to(DType::Float64), 1, 1, 1, false, x.to(DType::Float64)));
          }}.generic()};
}
Samples opinfo_softplus_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(softplus_backward(y, x, 1, 20)); }}.generic(),
          Sample{"params", [](const Tensor& x, const Tensor& y) { return list(softplus_backward(y, x, 2, 1.5)); }}.generic()};
}
Samples opinfo_hardsigmoid_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(hardsigmoid_backward(y, x)); }}.generic()};
}
Samples opinfo_hardtanh_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(hardtanh_backward(y, x, -0.5, 1.25)); }}.generic()};
}
Samples opinfo_prelu_backward() {
  auto two = [](std::tuple<Tensor, Tensor> t) { return TensorList{std::get<0>(t), std::get<1>(t)}; };
  return {Sample{"one", [two](const Tensor& x, const Tensor& y) { return two(prelu_backward(y, x, prelu_weight(1))); }}.generic().sums(),
          Sample{"channels", [two](const Tensor& x, const Tensor& y) { return two(prelu_backward(y, x, prelu_weight(2))); }}.generic().sums()};
}
Samples opinfo_native_dropout() {
  return {Sample{"eval", [](const Tensor& x, const Tensor&) {
            auto [out, mask] = native_dropout(x, 0.5, false);
            return TensorList{out, mask};
          }}.generic(),
          Sample{"p0", [](const Tensor& x, const Tensor&) {
            auto [out, mask] = native_dropout(x, 0.0, true);
            return TensorList{out, mask};
          }}.generic()};
}
Samples opinfo_native_dropout_backward() {
  return one_generic([](const Tensor& x, const Tensor& y) { return list(native_dropout_backward(x, y.gt(1.0), 2.0)); });
}

// ---- comparisons ----
Samples opinfo_gt() { return compare(&Tensor::gt); }
Samples opinfo_lt() { return compare(&Tensor::lt); }
Samples opinfo_ge() { return compare(&Tensor::ge); }
Samples opinfo_le() { return compare(&Tensor::le); }
Samples opinfo_eq() { return compare(&Tensor::eq); }
Samples opinfo_ne() { return compare(&Tensor::ne); }
Samples opinfo_logical_and() { return compare(&Tensor::logical_and); }
Samples opinfo_logical_or() { return compare(&Tensor::logical_or); }
Samples opinfo_logical_xor() { return compare(&Tensor::logical_xor); }
Samples opinfo_allclose() {
  return {Sample{"self", [](const Tensor& x, const Tensor&) { return list(flag(allclose(x, x))); }}.no_trace(kReturnsBool),
          Sample{"equal_nan", [](const Tensor& x, const Tensor&) { return list(flag(allclose(x, x, 1e-5, 1e-8, true))); }}
              .no_trace(kReturnsBool)};
}
Samples opinfo_equal() {
  return {Sample{"self", [](const Tensor& x, const Tensor&) { return list(flag(equal(x, x))); }}.no_trace(kReturnsBool)};
}

// ---- reductions ----
Samples opinfo_sum() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(sum(x)); }}.sums(),
          Sample{"dims", [](const Tensor& x, const Tensor&) { return list(sum(x, {2, 3})); }}.sums(),
          Sample{"dtype", [](const Tensor& x, const Tensor&) { return list(sum(x, {2, 3}, false, DType::Float64)); }}.sums()};
}
Samples opinfo_mean() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(mean(x)); }}.sums(),
          Sample{"dim", [](const Tensor& x, const Tensor&) { return list(mean(x, {3})); }}.sums().generic(),
          Sample{"dtype", [](const Tensor& x, const Tensor&) { return list(mean(x, {3}, true, DType::Float64)); }}.sums(),
          Sample{"quantized", [](const Tensor& x, const Tensor&) {
            return list(mean(quantize_per_tensor(x, 0.1, 128, kQUInt8), {2, 3}).int_repr());
          }}.generic()};
}
Samples opinfo_max() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(max(x)); }},
          Sample{"dim", [](const Tensor& x, const Tensor&) {
            const auto vi = max(x, 3);
            return TensorList{vi.values, vi.indices};
          }}.generic()};
}
Samples opinfo_min() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(min(x)); }},
          Sample{"dim", [](const Tensor& x, const Tensor&) {
            const auto vi = min(x, 3);
            return TensorList{vi.values, vi.indices};
          }}.generic()};
}
Samples opinfo_argmax() {
  return {Sample{"all", [](const Tensor& x, const Tensor&) { return list(argmax(x)); }},
          Sample{"dim", [](const Tensor& x, const Tensor&) { return list(argmax(x, 3)); }}.generic()};
}

// ---- indexing and joining ----
Samples opinfo_nonzero() { return one_generic([](const Tensor& x, const Tensor&) { return list(nonzero(x)); }); }
Samples opinfo_argwhere() { return one_generic([](const Tensor& x, const Tensor&) { return list(argwhere(x)); }); }
Samples opinfo_index_select() {
  return one_generic([](const Tensor& x, const Tensor&) { return list(index_select(x, 3, from_vector<int64_t>({3, 0, 2}, {3}))); });
}
Samples opinfo_masked_select() {
  return one_generic([](const Tensor& x, const Tensor& y) { return list(masked_select(x, y.gt(Scalar(1.2)))); });
}
Samples opinfo_index() {
  return {Sample{"mask", [](const Tensor& x, const Tensor& y) { return list(x.index({y.gt(Scalar(1.2))})); }}.generic(),
          Sample{"tensors", [](const Tensor& x, const Tensor&) {
            return list(index(x, {Tensor(), from_vector<int64_t>({1, 0, 1}, {3}), Tensor(),
                                  from_vector<int64_t>({3, -1, 0}, {3})}));
          }}.generic()};
}
// x written at y's largest places (and y at x's), with repeats added for accumulate.
Samples opinfo_index_put() {
  return {Sample{"values", [](const Tensor& x, const Tensor& y) {
            return list(index_put(y, {y.gt(Scalar(1.2))}, x.index({y.gt(Scalar(1.2))})));
          }}.generic(),
          Sample{"self", [](const Tensor& x, const Tensor& y) {
            return list(index_put(x, {Tensor(), from_vector<int64_t>({1, 1}, {2})}, y.index({Slice(), 0}), true));
          }}.generic()};
}
Samples opinfo_index_put_() {
  return one_generic([](const Tensor& x, const Tensor& y) {
    Tensor c = x.clone();
    return list(index_put_(c, {Tensor(), from_vector<int64_t>({0, 1}, {2})}, y.index({Slice(), Slice(0, 2)})));
  });
}
Samples opinfo_gather() {
  return one("plain", [](const Tensor& x, const Tensor&) { return list(gather(x, 3, row_index())); });
}
Samples opinfo_take_along_dim() {
  return {Sample{"dim", [](const Tensor& x, const Tensor&) { return list(take_along_dim(x, row_index(), 3)); }},
          Sample{"flat", [](const Tensor& x, const Tensor&) {
            return list(take_along_dim(x, from_vector<int64_t>({5, 0, 31, 5}, {4})));
          }}};
}
Samples opinfo_scatter() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(scatter(x, 3, row_index(), y)); }},
          Sample{"src", [](const Tensor& x, const Tensor& y) { return list(scatter(y, 3, row_index(), x)); }}};
}
Samples opinfo_scatter_() {
  return one("plain", [](const Tensor& x, const Tensor& y) { Tensor c = x.clone(); return list(c.scatter_(3, row_index(), y)); });
}
Samples opinfo_scatter_value() {
  return one("plain", [](const Tensor& x, const Tensor&) { return list(x.scatter(3, row_index(), -1.5)); });
}
Samples opinfo_scatter_value_() {
  return one("plain", [](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list(c.scatter_(3, row_index(), 2)); });
}
Samples opinfo_scatter_add() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(scatter_add(x, 3, repeated_index(), y)); }},
          Sample{"src", [](const Tensor& x, const Tensor& y) { return list(scatter_add(y, 3, repeated_index(), x)); }}};
}
Samples opinfo_scatter_add_() {
  return one("plain", [](const Tensor& x, const Tensor& y) {
    Tensor c = x.clone();
    return list(c.scatter_add_(3, repeated_index(), y));
  });
}
Samples opinfo_index_add() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) {
            return list(index_add(x, 3, from_vector<int64_t>({3, 0, 3}, {3}), y.slice(3, 0, 3), 2.0));
          }},
          Sample{"source", [](const Tensor& x, const Tensor& y) {
            return list(index_add(y, 3, from_vector<int64_t>({3, 0, 3}, {3}), x.slice(3, 0, 3)));
          }}};
}
Samples opinfo_index_add_() {
  return one("plain", [](const Tensor& x, const Tensor& y) {
    Tensor c = x.clone();
    return list(c.index_add_(3, from_vector<int64_t>({3, 0, 3}, {3}), y.slice(3, 0, 3)));
  });
}
Samples opinfo_masked_fill() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(masked_fill(x, y.gt(1.2), -1.5)); }}.generic(),
          Sample{"broadcast", [](const Tensor& x, const Tensor&) {
            return list(x.masked_fill(from_vector<bool>({true, false, false, true}, {4}), 0.5));
          }}};
}
Samples opinfo_masked_fill_() {
  return one_generic([](const Tensor& x, const Tensor& y) { Tensor c = x.clone(); return list(c.masked_fill_(y.gt(1.2), 2)); });
}
Samples opinfo_masked_fill_tensor() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(x.masked_fill(y.gt(1.2), y.sum())); }}.generic(),
          Sample{"value", [](const Tensor& x, const Tensor& y) { return list(y.masked_fill(y.gt(1.2), x.sum())); }}.sums()};
}
Samples opinfo_masked_fill_tensor_() {
  return one_generic([](const Tensor& x, const Tensor& y) {
    Tensor c = x.clone();
    return list(c.masked_fill_(y.gt(1.2), y.max()));
  });
}
Samples opinfo_cat() {
  return one_generic([](const Tensor& x, const Tensor& y) { return list(cat(std::vector<Tensor>{x, y}, 1)); });
}
Samples opinfo_stack() {
  return one_generic([](const Tensor& x, const Tensor& y) { return list(stack(std::vector<Tensor>{x, y}, 0)); });
}

// ---- linear algebra ----
Samples opinfo_matmul() {
  return {Sample{"self", [](const Tensor& x, const Tensor& y) { return list(matmul(x.view({8, 4}), y.view({4, 8}))); }}
              .sums().no_noncontiguous(kViewsFlat),
          Sample{"other", [](const Tensor& x, const Tensor& y) { return list(matmul(y.view({8, 4}), x.view({4, 8}))); }}
              .sums().no_noncontiguous(kViewsFlat)};
}
Samples opinfo_mm() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(mm(x.view({8, 4}), y.view({4, 8}))); }}
              .sums().no_noncontiguous(kViewsFlat)};
}
Samples opinfo_einsum() {
  return {Sample{"bmm", [](const Tensor& x, const Tensor& y) { return list(einsum("bhqd,bhkd->bhqk", {x, y})); }}
              .sums()
              .generic(),
          Sample{"implicit", [](const Tensor& x, const Tensor& y) { return list(einsum("bhij,bhjk", {x, y})); }}
              .sums()
              .generic(),
          Sample{"transpose", [](const Tensor& x, const Tensor&) { return list(einsum("...ij->...ji", {x})); }}.generic(),
          Sample{"diagonal", [](const Tensor& x, const Tensor&) { return list(einsum("bhii->bhi", {x})); }}.generic(),
          Sample{"sum", [](const Tensor& x, const Tensor&) { return list(einsum("bhij->hi", {x})); }}.sums().generic()};
}
Samples opinfo_bmm() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(bmm(x.view({2, 4, 4}), y.view({2, 4, 4}))); }}
              .sums().no_noncontiguous(kViewsFlat)};
}
Samples opinfo_addmm() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) {
            return list(addmm(y.flatten().slice(0, 0, 8), x.view({8, 4}), y.view({4, 8})));
          }}.sums().no_noncontiguous(kViewsFlat),
          Sample{"self", [](const Tensor& x, const Tensor& y) {
            return list(addmm(x.flatten().slice(0, 0, 8), y.view({8, 4}), y.view({4, 8})));
          }}.sums()};
}
Samples opinfo_linear() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) {
            return list(linear(x.view({8, 4}), y.view({8, 4}), y.flatten().slice(0, 0, 8)));
          }}.sums().no_noncontiguous(kViewsFlat)};
}

// ---- neural-network kernels ----
Samples opinfo_conv2d() {
  return {Sample{"input", [](const Tensor& x, const Tensor&) {
            return list(conv2d(x, conv_weight().to(x.dtype()), conv_bias().to(x.dtype()), {1, 1}, {1, 1}));
          }}
              .sums().generic(),
          Sample{"weight", [](const Tensor& x, const Tensor& y) { return list(conv2d(y, x.view({2, 2, 2, 4}))); }}
              .sums().no_noncontiguous("views x as a weight (2, 2, 2, 4), which PyTorch refuses too for a non-contiguous x")};
}
namespace {
Tensor seq(const Tensor& t) { return t.flatten(2, 3); }         // (1, 2, 16): the 1-d ops' (N, C, L)
Tensor conv1d_weight() { return conv_weight().select(2, 1); }  // (3, 2, 3)
}  // namespace

Samples opinfo_conv1d() {
  return {Sample{"input", [](const Tensor& x, const Tensor&) {
            return list(conv1d(seq(x), conv1d_weight().to(x.dtype()), conv_bias().to(x.dtype()), {2}, {1}));
          }}.sums().generic(),
          Sample{"weight_groups_dilation", [](const Tensor& x, const Tensor& y) {
            return list(conv1d(seq(y), x.view({4, 1, 8}), {}, {1}, {0}, {2}, 2));
          }}.sums().no_noncontiguous("views x as a weight (4, 1, 8), which PyTorch refuses too for a non-contiguous x")};
}
Samples opinfo_conv_transpose1d() {
  return {Sample{"input", [](const Tensor& x, const Tensor&) {
            return list(conv_transpose1d(seq(x), conv1d_weight().transpose(0, 1).to(x.dtype()), conv_bias().to(x.dtype()),
                                         {2}, {1}, {1}));
          }}.sums().generic(),
          Sample{"weight_groups", [](const Tensor& x, const Tensor& y) {
            return list(conv_transpose1d(seq(y), x.view({2, 2, 8}), {}, {3}, {2}, {1}, 2));
          }}.sums().no_noncontiguous("views x as a weight (2, 2, 8), which PyTorch refuses too for a non-contiguous x")};
}
Samples opinfo_conv_transpose2d() {
  return {Sample{"input", [](const Tensor& x, const Tensor&) {
            return list(conv_transpose2d(x, conv_weight().transpose(0, 1).to(x.dtype()), conv_bias().to(x.dtype()),
                                         {2, 2}, {1, 1}, {1, 1}));
          }}.sums().generic(),
          Sample{"weight_groups_dilation", [](const Tensor& x, const Tensor& y) {
            return list(conv_transpose2d(y, x.view({2, 2, 2, 4}), {}, {1, 1}, {0, 0}, {0, 0}, 2, {2, 1}));
          }}.sums().no_noncontiguous("views x as a weight (2, 2, 2, 4), which PyTorch refuses too for a non-contiguous x")};
}
Samples opinfo_batch_norm() {
  return {Sample{"eval", [](const Tensor& x, const Tensor&) {
            const DType t = x.dtype();  // float32 here, float64 in the gradient check
            return list(batch_norm(x, bn(0).to(t), bn(1).to(t), bn(2).to(t), bn(3).to(t), false, 0.1, 1e-5, true));
          }}.sums().generic(),
          Sample{"train", [](const Tensor& x, const Tensor&) {
            const DType t = x.dtype();
            const Tensor rm = bn(2).to(t), rv = bn(3).to(t);
            const Tensor out = batch_norm(x, bn(0).to(t), bn(1).to(t), rm, rv, true, 0.1, 1e-5, true);
            return TensorList{out, rm, rv};
          }}.sums().no_trace("updates running stats the sample creates: a traced graph holds them as constants, "
                             "updated again by every run")};
}
// layer_norm over x's last dim (weight and bias rows of y) or its last two / three dims.
namespace {
Tensor ln_weight(const Tensor& y) { return y.select(0, 0).select(0, 0).select(0, 0); }
Tensor ln_bias(const Tensor& y) { return y.select(0, 0).select(0, 1).select(0, 0); }
TensorList triple(const std::tuple<Tensor, Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t), std::get<2>(t)}; }
}  // namespace
Samples opinfo_layer_norm() {
  return {Sample{"last", [](const Tensor& x, const Tensor& y) {
            return list(layer_norm(x, {4}, ln_weight(y), ln_bias(y)));
          }}.sums().generic(),
          Sample{"plane", [](const Tensor& x, const Tensor&) { return list(layer_norm(x, {4, 4})); }}.sums()};
}
// mean and rstd come back detached: PyTorch marks them not differentiable (derivatives.yaml's
// output_differentiability), which the rows cannot say yet, so the gradient check must not weigh them.
namespace {
TensorList stats(const std::tuple<Tensor, Tensor, Tensor>& t) { return {std::get<1>(t).detach(), std::get<2>(t).detach()}; }
}  // namespace
Samples opinfo_native_layer_norm() {
  return {Sample{"last", [](const Tensor& x, const Tensor& y) {
            return list(std::get<0>(native_layer_norm(x, {4}, ln_weight(y), ln_bias(y), 1e-5)));
          }}.sums().generic(),
          Sample{"stats", [](const Tensor& x, const Tensor& y) {
            return stats(native_layer_norm(x, {4}, ln_weight(y), ln_bias(y), 1e-5));
          }}.sums().generic(),
          Sample{"plane", [](const Tensor& x, const Tensor& y) {
            return list(std::get<0>(native_layer_norm(x, {2, 4, 4}, y.select(0, 0), Tensor(), 1e-5)));
          }}.sums(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor& y) {
            const Tensor yb = y.to(DType::BFloat16);
            return triple(native_layer_norm(x.to(DType::BFloat16), {4}, ln_weight(yb), ln_bias(yb), 1e-5));
          }}.sums(kBf16Sums)};
}

// group / instance norm with per-channel weight and bias picked from y (2 channels).
namespace {
Tensor channel_weight(const Tensor& y) { return y.select(0, 0).select(1, 0).select(1, 0); }
Tensor channel_bias(const Tensor& y) { return y.select(0, 0).select(1, 1).select(1, 1); }
}  // namespace
Samples opinfo_group_norm() {
  return {Sample{"groups2", [](const Tensor& x, const Tensor& y) {
            return list(group_norm(x, 2, channel_weight(y), channel_bias(y)));
          }}.sums().generic(),
          Sample{"groups1", [](const Tensor& x, const Tensor&) { return list(group_norm(x, 1)); }}.sums().generic()};
}
Samples opinfo_native_group_norm() {
  return {Sample{"affine", [](const Tensor& x, const Tensor& y) {
            return list(std::get<0>(native_group_norm(x, channel_weight(y), channel_bias(y), 1, 2, 16, 1, 1e-5)));
          }}.sums(),
          Sample{"stats", [](const Tensor& x, const Tensor& y) {
            return stats(native_group_norm(x, channel_weight(y), channel_bias(y), 1, 2, 16, 1, 1e-5));
          }}.sums(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor& y) {
            const Tensor yb = y.to(DType::BFloat16);
            return triple(native_group_norm(x.to(DType::BFloat16), channel_weight(yb), channel_bias(yb), 1, 2, 16, 2,
                                            1e-5));
          }}.sums(kBf16Sums)};
}
Samples opinfo_instance_norm() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) {
            return list(instance_norm(x, channel_weight(y), channel_bias(y), Tensor(), Tensor(), true, 0.1, 1e-5, true));
          }}.sums().generic(),
          Sample{"running", [](const Tensor& x, const Tensor&) {
            const DType t = x.dtype();
            const Tensor rm = bn(2).to(t), rv = bn(3).to(t);
            const Tensor out = instance_norm(x, Tensor(), Tensor(), rm, rv, true, 0.1, 1e-5, true);
            return TensorList{out, rm, rv};
          }}.sums().no_trace("updates running stats the sample creates: a traced graph holds them as constants, "
                             "updated again by every run")};
}
Samples opinfo_embedding() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(embedding(x.reshape({8, 4}), row_index())); }},
          // detached: the padding row's zero gradient is by design, which finite differences would contradict
          Sample{"padding", [](const Tensor& x, const Tensor&) {
            return list(embedding(x.detach().reshape({8, 4}), repeated_index(), 2));
          }}};
}
// EmbeddingBag's bags over the 16 entries of row_index(): [0, 3), [3, 3) (empty), [3, 9), [9, 16); weight x as (8, 4).
Tensor bag_indices() { return row_index().reshape({-1}); }
Tensor bag_offsets() { return from_vector<int64_t>({0, 3, 3, 9}, {4}); }
TensorList embedding_bag_output(const Tensor& weight, int64_t mode, const Tensor& per_sample_weights = {},
                                int64_t padding_idx = -1, const Tensor& offsets = bag_offsets(),
                                bool include_last_offset = false) {
  return list(std::get<0>(_embedding_bag(weight, bag_indices(), offsets, false, mode, false, per_sample_weights,
                                         include_last_offset, padding_idx)));
}
/// _embedding_bag's bookkeeping for the backward samples (the weight (8, 4) of y, never special).
std::tuple<Tensor, Tensor, Tensor, Tensor> bags_of(const Tensor& y, int64_t mode, const Tensor& psw = {}) {
  return _embedding_bag(y.reshape({8, 4}), bag_indices(), bag_offsets(), false, mode, false, psw, false, -1);
}
Samples opinfo__embedding_bag() {
  return {Sample{"sum", [](const Tensor& x, const Tensor&) { return embedding_bag_output(x.reshape({8, 4}), 0); }}.sums(),
          Sample{"mean", [](const Tensor& x, const Tensor&) { return embedding_bag_output(x.reshape({8, 4}), 1); }}.sums(),
          Sample{"max", [](const Tensor& x, const Tensor&) { return embedding_bag_output(x.reshape({8, 4}), 2); }},
          Sample{"per_sample_weights", [](const Tensor& x, const Tensor& y) {
            return embedding_bag_output(x.reshape({8, 4}), 0, y.reshape({-1}).slice(0, 0, 16));
          }}.sums(),
          Sample{"include_last_offset", [](const Tensor& x, const Tensor&) {
            return embedding_bag_output(x.reshape({8, 4}), 0, {}, -1, from_vector<int64_t>({0, 3, 3, 9, 12}, {5}), true);
          }}.sums(),
          // detached: the padding row's zero gradient is by design, which finite differences would contradict
          Sample{"mean_padding", [](const Tensor& x, const Tensor&) {
            return embedding_bag_output(x.detach().reshape({8, 4}), 1, {}, 2);
          }}.sums(),
          Sample{"max_padding", [](const Tensor& x, const Tensor&) {
            return embedding_bag_output(x.detach().reshape({8, 4}), 2, {}, 3);
          }}};
}
Samples opinfo__embedding_bag_backward() {
  auto backward = [](int64_t mode, bool scale_grad_by_freq, bool weighted) {
    return [=](const Tensor& x, const Tensor& y) {
      const Tensor psw = weighted ? y.reshape({-1}).slice(0, 16, 32) : Tensor();
      const auto [out, offset2bag, bag_size, max_indices] = bags_of(y, mode, psw);
      return list(_embedding_bag_backward(x.reshape({-1}).slice(0, 0, 16).reshape({4, 4}), bag_indices(),
                                          bag_offsets(), offset2bag, bag_size, max_indices, 8, scale_grad_by_freq,
                                          mode, false, psw, -1));
    };
  };
  return {Sample{"sum", backward(0, false, false)}.sums(), Sample{"mean_scaled", backward(1, true, false)}.sums(),
          Sample{"max", backward(2, false, false)}.sums(), Sample{"weighted", backward(0, false, true)}.sums()};
}
Samples opinfo__embedding_bag_per_sample_weights_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) {
    const Tensor psw = y.reshape({-1}).slice(0, 16, 32);
    const Tensor offset2bag = std::get<1>(bags_of(y, 0, psw));
    return list(_embedding_bag_per_sample_weights_backward(x.reshape({-1}).slice(0, 0, 16).reshape({4, 4}),
                                                           y.reshape({8, 4}), bag_indices(), bag_offsets(), offset2bag,
                                                           0, 2));
  }}.sums()};
}
Samples opinfo_embedding_renorm_() {
  return {Sample{"l2", [](const Tensor& x, const Tensor&) {
            return list(embedding_renorm_(x.detach().clone().reshape({8, 4}), bag_indices(), 1.0, 2.0));
          }}.sums(),
          Sample{"l1", [](const Tensor& x, const Tensor&) {
            return list(embedding_renorm_(x.detach().clone().reshape({8, 4}), repeated_index(), 2.0, 1.0));
          }}.sums()};
}
Samples opinfo_bilinear() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) {
            return list(bilinear(x.reshape({8, 4}), y.reshape({8, 4}), y.reshape({2, 4, 4}), y.flatten().slice(0, 0, 2)));
          }}.sums()};
}
Samples opinfo_feature_dropout() {
  return {Sample{"eval", [](const Tensor& x, const Tensor&) { return list(feature_dropout(x, 0.5, false)); }}.generic()};
}
Samples opinfo_unflatten() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(x.unflatten(3, {2, 2})); }}.generic(),
          Sample{"inferred", [](const Tensor& x, const Tensor&) { return list(unflatten(x, -1, {-1, 1})); }}.generic()};
}

Samples opinfo_max_pool2d() {
  return {Sample{"k2", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {2, 2})); }}.generic(),
          Sample{"k3s2p1", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {3, 3}, {2, 2}, {1, 1})); }},
          Sample{"dilation2", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {2, 2}, {1, 1}, {0, 0}, {2, 2})); }},
          Sample{"ceil", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {3, 3}, {2, 2}, {0, 0}, {1, 1}, true)); }},
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x.to(DType::BFloat16), {2, 2})); }}};
}
Samples opinfo_avg_pool2d() {
  return {Sample{"k2", [](const Tensor& x, const Tensor&) { return list(avg_pool2d(x, {2, 2})); }}.sums().generic(),
          Sample{"k3s2p1", [](const Tensor& x, const Tensor&) { return list(avg_pool2d(x, {3, 3}, {2, 2}, {1, 1})); }}.sums(),
          Sample{"ceil_exclude_pad", [](const Tensor& x, const Tensor&) {
            return list(avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, true, false));
          }}.sums(),
          Sample{"divisor_override", [](const Tensor& x, const Tensor&) {
            return list(avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, false, true, 5));
          }}.sums(),
          Sample{"quantized", [](const Tensor& x, const Tensor&) {
            return list(avg_pool2d(quantize_per_tensor(x, 0.1, 128, kQUInt8), {3, 3}, {2, 2}, {1, 1}).int_repr());
          }}.generic()};
}
Samples opinfo_adaptive_avg_pool2d() {
  return {Sample{"2x2", [](const Tensor& x, const Tensor&) { return list(adaptive_avg_pool2d(x, {2, 2})); }}.sums(),
          Sample{"3x3", [](const Tensor& x, const Tensor&) { return list(adaptive_avg_pool2d(x, {3, 3})); }}.sums()};
}
Samples opinfo_max_pool1d() {
  return {Sample{"k2", [](const Tensor& x, const Tensor&) { return list(max_pool1d(seq(x), {2})); }}.generic(),
          Sample{"k3s2p1", [](const Tensor& x, const Tensor&) { return list(max_pool1d(seq(x), {3}, {2}, {1})); }},
          Sample{"dilation2_ceil", [](const Tensor& x, const Tensor&) {
            return list(max_pool1d(seq(x), {3}, {2}, {0}, {2}, true));
          }}};
}
Samples opinfo_max_pool1d_with_indices() {
  return {Sample{"k3s2p1", [](const Tensor& x, const Tensor&) {
            const auto [values, indices] = max_pool1d_with_indices(seq(x), {3}, {2}, {1});
            return TensorList{values, indices};
          }}.generic()};
}
Samples opinfo_avg_pool1d() {
  return {Sample{"k2", [](const Tensor& x, const Tensor&) { return list(avg_pool1d(seq(x), {2})); }}.sums().generic(),
          Sample{"ceil_exclude_pad", [](const Tensor& x, const Tensor&) {
            return list(avg_pool1d(seq(x), {3}, {2}, {1}, true, false));
          }}.sums()};
}
Samples opinfo_adaptive_avg_pool1d() {
  return {Sample{"5", [](const Tensor& x, const Tensor&) { return list(adaptive_avg_pool1d(seq(x), {5})); }}.sums().generic()};
}
Samples opinfo_adaptive_max_pool1d() {
  return {Sample{"5", [](const Tensor& x, const Tensor&) {
            const auto [values, indices] = adaptive_max_pool1d(seq(x), {5});
            return TensorList{values, indices};
          }}.generic()};
}
Samples opinfo_dropout() {
  return {Sample{"eval", [](const Tensor& x, const Tensor&) { return list(dropout(x, 0.5, false)); }}.generic()};
}

// ---- backward kernels: x is the forward's input in one sample, the incoming gradient in another ----
namespace {
TensorList conv_backward(const Tensor& grad, const Tensor& input) {
  const auto [gi, gw, gb] = convolution_backward(grad, input, conv_weight(), Shape{3}, {1, 1}, {1, 1}, {1, 1}, false,
                                                 {0, 0}, 1, {true, true, true});
  return {gi, gw, gb};
}
TensorList bn_backward(const Tensor& grad, const Tensor& input, bool train) {
  const auto [gi, gw, gb] = native_batch_norm_backward(grad, input, bn(0), bn(2), bn(3), Tensor(), Tensor(), train,
                                                       1e-5, {true, true, true});
  return {gi, gw, gb};
}
TensorList pair_list(const std::tuple<Tensor, Tensor>& p) { return {std::get<0>(p), std::get<1>(p)}; }
/// The top-left (1, 2, n, n) corner of t: a strided view, as a pool's grad_output.
Tensor corner(const Tensor& t, int64_t n) { return t.slice(2, 0, n).slice(3, 0, n); }
}  // namespace

Samples opinfo_convolution_backward() {
  return {Sample{"input", [](const Tensor& x, const Tensor& y) { return conv_backward(residual(y), x); }}.sums(),
          Sample{"grad_output", [](const Tensor& x, const Tensor& y) { return conv_backward(residual(x), y); }}.sums()};
}
Samples opinfo_native_batch_norm_backward() {
  return {Sample{"train", [](const Tensor& x, const Tensor& y) { return bn_backward(y, x, true); }}.sums(),
          Sample{"eval", [](const Tensor& x, const Tensor& y) { return bn_backward(y, x, false); }}.sums(),
          Sample{"train_grad_out", [](const Tensor& x, const Tensor& y) { return bn_backward(x, y, true); }}.sums()};
}
Samples opinfo_native_layer_norm_backward() {
  // grad_out, input over input's last dim, with the saved statistics of input's forward.
  static const auto ln_backward = [](const Tensor& grad, const Tensor& input, const Tensor& y) {
    const auto [out, mean, rstd] = native_layer_norm(input, {4}, ln_weight(y), ln_bias(y), 1e-5);
    return triple(native_layer_norm_backward(grad, input, {4}, mean, rstd, ln_weight(y), ln_bias(y), {true, true, true}));
  };
  return {Sample{"input", [](const Tensor& x, const Tensor& y) { return ln_backward(y, x, y); }}.sums(),
          Sample{"grad_out", [](const Tensor& x, const Tensor& y) { return ln_backward(x, y, y); }}.sums()};
}
Samples opinfo_native_group_norm_backward() {
  // grad_out, input (one group of both channels), with the saved statistics of input's forward.
  static const auto gn_backward = [](const Tensor& grad, const Tensor& input, const Tensor& y) {
    const auto [out, mean, rstd] = native_group_norm(input, channel_weight(y), channel_bias(y), 1, 2, 16, 1, 1e-5);
    return triple(native_group_norm_backward(grad, input, mean, rstd, channel_weight(y), 1, 2, 16, 1, {true, true, true}));
  };
  return {Sample{"input", [](const Tensor& x, const Tensor& y) { return gn_backward(y, x, y); }}.sums(),
          Sample{"grad_out", [](const Tensor& x, const Tensor& y) { return gn_backward(x, y, y); }}.sums()};
}
Samples opinfo_embedding_dense_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) {
            return list(embedding_dense_backward(x.reshape({1, 2, 4, 2, 2}), row_index(), 4, -1, false));
          }}.sums(),
          Sample{"padding_scaled", [](const Tensor& x, const Tensor&) {
            return list(embedding_dense_backward(x.reshape({1, 2, 4, 2, 2}), repeated_index(), 4, 1, true));
          }}.sums()};
}
Samples opinfo_max_pool2d_with_indices() {
  return {Sample{"k2", [](const Tensor& x, const Tensor&) { return pair_list(max_pool2d_with_indices(x, {2, 2})); }}.generic(),
          Sample{"k3s2p1", [](const Tensor& x, const Tensor&) {
            return pair_list(max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1}));
          }},
          Sample{"dilation2", [](const Tensor& x, const Tensor&) {
            return pair_list(max_pool2d_with_indices(x, {2, 2}, {1, 1}, {0, 0}, {2, 2}));
          }},
          Sample{"ceil", [](const Tensor& x, const Tensor&) {
            return pair_list(max_pool2d_with_indices(x, {3, 3}, {2, 2}, {0, 0}, {1, 1}, true));
          }}};
}
Samples opinfo_max_pool2d_with_indices_backward() {
  const auto k3s2p1 = [](const Tensor& grad, const Tensor& self) {
    const Tensor indices = std::get<1>(max_pool2d_with_indices(self, {3, 3}, {2, 2}, {1, 1}));
    return list(max_pool2d_with_indices_backward(grad, self, {3, 3}, {2, 2}, {1, 1}, {1, 1}, false, indices));
  };
  return {Sample{"grad_output", [=](const Tensor& x, const Tensor& y) { return k3s2p1(corner(x, 2), y); }},
          Sample{"self", [=](const Tensor& x, const Tensor& y) { return k3s2p1(corner(y, 2), x); }}};
}
Samples opinfo_avg_pool2d_backward() {
  return {Sample{"k2", [](const Tensor& x, const Tensor& y) {
            return list(avg_pool2d_backward(corner(x, 2), y, {2, 2}, {2, 2}, {0, 0}, false, true, std::nullopt));
          }}.sums(),
          Sample{"k3s2p1", [](const Tensor& x, const Tensor& y) {
            return list(avg_pool2d_backward(corner(x, 2), y, {3, 3}, {2, 2}, {1, 1}, false, true, std::nullopt));
          }}.sums(),
          Sample{"ceil_exclude_pad", [](const Tensor& x, const Tensor& y) {
            return list(avg_pool2d_backward(corner(x, 3), y, {3, 3}, {2, 2}, {1, 1}, true, false, std::nullopt));
          }}.sums(),
          Sample{"divisor_override", [](const Tensor& x, const Tensor& y) {
            return list(avg_pool2d_backward(corner(x, 2), y, {2, 2}, {2, 2}, {0, 0}, false, true, 3));
          }}.sums()};
}
Samples opinfo_adaptive_avg_pool2d_backward() {
  return {Sample{"2x2", [](const Tensor& x, const Tensor& y) { return list(_adaptive_avg_pool2d_backward(corner(x, 2), y)); }}.sums(),
          Sample{"3x3", [](const Tensor& x, const Tensor& y) { return list(_adaptive_avg_pool2d_backward(corner(x, 3), y)); }}.sums()};
}

// ---- adaptive max pooling, padding, resizing, sliding blocks: x as the input, or as the gradient ----
namespace {
Tensor flat3(const Tensor& t) { return t.flatten(0, 1); }  // (2, 4, 4): the 1-D pads' (N, C, W)
Tensor adaptive_max_backward(const Tensor& grad, const Tensor& self) {
  return adaptive_max_pool2d_backward(grad, self, std::get<1>(adaptive_max_pool2d(self, {2, 2})));
}
}  // namespace

Samples opinfo_adaptive_max_pool2d() {
  return {Sample{"2x2", [](const Tensor& x, const Tensor&) { return pair_list(adaptive_max_pool2d(x, {2, 2})); }}.generic(),
          Sample{"3x3", [](const Tensor& x, const Tensor&) { return pair_list(adaptive_max_pool2d(x, {3, 3})); }}};
}
Samples opinfo_adaptive_max_pool2d_backward() {
  return {Sample{"grad_output", [](const Tensor& x, const Tensor& y) { return list(adaptive_max_backward(corner(x, 2), y)); }}.sums(),
          Sample{"self", [](const Tensor& x, const Tensor& y) { return list(adaptive_max_backward(corner(y, 2), x)); }}.sums()};
}
Samples opinfo_constant_pad_nd() {
  return {Sample{"pad2d", [](const Tensor& x, const Tensor&) { return list(constant_pad_nd(x, {1, 2, 0, 1}, 0.5)); }},
          Sample{"crop", [](const Tensor& x, const Tensor&) { return list(constant_pad_nd(x, {-1, 1, 1, -2})); }}.generic(),
          Sample{"pad3d", [](const Tensor& x, const Tensor&) { return list(constant_pad_nd(x, {1, 0, 0, 1, 1, 0})); }}};
}
Samples opinfo_reflection_pad1d() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(reflection_pad1d(flat3(x), {2, 3})); }},
          Sample{"crop", [](const Tensor& x, const Tensor&) { return list(reflection_pad1d(flat3(x), {-1, 2})); }}};
}
Samples opinfo_reflection_pad2d() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(reflection_pad2d(x, {1, 2, 3, 0})); }},
          Sample{"unbatched", [](const Tensor& x, const Tensor&) { return list(reflection_pad2d(x.select(0, 0), {2, 1, 1, 3})); }}};
}
Samples opinfo_replication_pad1d() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(replication_pad1d(flat3(x), {3, 5})); }},
          Sample{"crop", [](const Tensor& x, const Tensor&) { return list(replication_pad1d(flat3(x), {-2, 1})); }}};
}
Samples opinfo_replication_pad2d() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) { return list(replication_pad2d(x, {5, 1, 2, 6})); }},
          Sample{"unbatched", [](const Tensor& x, const Tensor&) { return list(replication_pad2d(x.select(0, 0), {1, -1, 0, 2})); }}};
}
Samples opinfo_reflection_pad1d_backward() {
  return {Sample{"grad_output", [](const Tensor& x, const Tensor& y) {
            return list(reflection_pad1d_backward(flat3(x), flat3(y).slice(2, 0, 2), {1, 1}));
          }}.sums()};
}
Samples opinfo_reflection_pad2d_backward() {
  return {Sample{"grad_output", [](const Tensor& x, const Tensor& y) {
            return list(reflection_pad2d_backward(x, corner(y, 2), {1, 1, 1, 1}));
          }}.sums(),
          Sample{"self", [](const Tensor& x, const Tensor& y) {
            return list(reflection_pad2d_backward(corner(y, 2), x, {-1, -1, -1, -1}));
          }}.sums()};
}
Samples opinfo_replication_pad1d_backward() {
  return {Sample{"grad_output", [](const Tensor& x, const Tensor& y) {
            return list(replication_pad1d_backward(flat3(x), flat3(y).slice(2, 0, 2), {2, 0}));
          }}.sums()};
}
Samples opinfo_replication_pad2d_backward() {
  return {Sample{"grad_output", [](const Tensor& x, const Tensor& y) {
            return list(replication_pad2d_backward(x, corner(y, 2), {0, 2, 1, 1}));
          }}.sums()};
}
Samples opinfo_upsample_nearest2d() {
  return {Sample{"size", [](const Tensor& x, const Tensor&) { return list(upsample_nearest2d(x, {6, 8})); }},
          Sample{"scale", [](const Tensor& x, const Tensor&) { return list(upsample_nearest2d(x, {6, 6}, 1.5, 1.5)); }},
          Sample{"down", [](const Tensor& x, const Tensor&) { return list(upsample_nearest2d(x, {3, 2})); }}};
}
Samples opinfo_upsample_bilinear2d() {
  return {Sample{"align_corners", [](const Tensor& x, const Tensor&) { return list(upsample_bilinear2d(x, {6, 7}, true)); }}.sums(),
          Sample{"half_pixel", [](const Tensor& x, const Tensor&) { return list(upsample_bilinear2d(x, {6, 7}, false)); }}.sums(),
          Sample{"down", [](const Tensor& x, const Tensor&) { return list(upsample_bilinear2d(x, {3, 3}, false)); }}.sums(),
          Sample{"scale", [](const Tensor& x, const Tensor&) {
            return list(upsample_bilinear2d(x, {8, 8}, false, 2.0, 2.0));
          }}.sums()};
}
Samples opinfo_upsample_nearest2d_backward() {
  return {Sample{"plain", [](const Tensor& x, const Tensor&) {
            return list(upsample_nearest2d_backward(x, {4, 4}, {1, 2, 2, 3}));
          }}.sums()};
}
Samples opinfo_upsample_bilinear2d_backward() {
  return {Sample{"align_corners", [](const Tensor& x, const Tensor&) {
            return list(upsample_bilinear2d_backward(x, {4, 4}, {1, 2, 3, 3}, true));
          }}.sums(),
          Sample{"half_pixel", [](const Tensor& x, const Tensor&) {
            return list(upsample_bilinear2d_backward(x, {4, 4}, {1, 2, 2, 3}, false));
          }}.sums()};
}
Samples opinfo_im2col() {
  return {Sample{"k2", [](const Tensor& x, const Tensor&) { return list(im2col(x, {2, 2}, {1, 1}, {0, 0}, {1, 1})); }},
          Sample{"k3d2p2s2", [](const Tensor& x, const Tensor&) { return list(im2col(x, {3, 3}, {2, 2}, {2, 2}, {2, 2})); }}};
}
Samples opinfo_col2im() {
  return {Sample{"overlap", [](const Tensor& x, const Tensor&) {
            return list(col2im(x.reshape({1, 8, 4}), {3, 3}, {2, 2}, {1, 1}, {0, 0}, {1, 1}));
          }}.sums(),
          Sample{"stride2", [](const Tensor& x, const Tensor&) {
            return list(col2im(x.reshape({1, 8, 4}), {4, 4}, {2, 2}, {1, 1}, {0, 0}, {2, 2}));
          }}.sums()};
}

// ---- inference-optimized kernels ----
Samples opinfo_to_mkldnn() {
  return {Sample{"float32", [](const Tensor& x, const Tensor&) { return list(to_dense(to_mkldnn(x), 2)); }},
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) {
            return list(to_dense(to_mkldnn(x, DType::BFloat16), 2).to(DType::BFloat16));
          }}};
}
Samples opinfo_to_dense() {
  return one("float32", [](const Tensor& x, const Tensor&) { return list(to_dense(to_mkldnn(x), -1).slice(1, 0, 2)); });
}
Samples opinfo_mkldnn_convolution() {
  return {Sample{"direct_relu", inference_conv(true, false, false, std::nullopt)}.sums(),
          Sample{"winograd_relu", inference_conv(true, false, true, std::nullopt)}.sums(),
          Sample{"sum_relu", inference_conv(false, true, false, std::nullopt)}.sums(),
          Sample{"winograd_sum_relu", inference_conv(false, true, true, std::nullopt)}.sums(),
          Sample{"bfloat16_relu", inference_conv(true, false, false, DType::BFloat16)}.sums(kBf16Sums),
          Sample{"bfloat16_sum_relu", inference_conv(false, true, false, DType::BFloat16)}.sums(kBf16Sums),
          Sample{"winograd_weight", [](const Tensor& x, const Tensor& y) {
            const Tensor w = x.flatten().slice(0, 0, 18).view({1, 2, 3, 3});
            return list(mkldnn_conv(to_mkldnn(y), w, zeros({1}), Tensor(), {0, 0}, false, true));
          }}.sums()};
}
Samples opinfo_mkldnn_reorder_conv2d_weight() {
  return {Sample{"direct", [](const Tensor& x, const Tensor& y) {
            return list(mkldnn_conv(to_mkldnn(y), x.view({2, 2, 2, 4}), zeros({2}), Tensor(), {0, 0}, false, false));
          }}.sums().no_noncontiguous("views x as a weight (2, 2, 2, 4), which PyTorch refuses too for a non-contiguous x")};
}
Samples opinfo_mkldnn_linear() {
  return {Sample{"bias", [](const Tensor& x, const Tensor&) { return list(mkldnn_linear(x, linear_weight(), linear_bias(), false)); }}.sums(),
          Sample{"no_bias", [](const Tensor& x, const Tensor&) { return list(mkldnn_linear(x, linear_weight(), Tensor(), false)); }}.sums(),
          Sample{"gelu", [](const Tensor& x, const Tensor&) { return list(mkldnn_linear(x, linear_weight(), linear_bias(), true)); }}.sums(),
          Sample{"weight_gelu", [](const Tensor& x, const Tensor& y) {
            return list(mkldnn_linear(y, weight_of(x), linear_bias(), true));
          }}.sums()};
}
Samples opinfo_mkldnn_reorder_linear_weight() {
  return {Sample{"plain", [](const Tensor& x, const Tensor& y) { return list(mkldnn_linear(y, weight_of(x), Tensor(), false)); }}.sums()};
}
Samples opinfo_mkldnn_max_pool2d() {
  return {Sample{"k2", [](const Tensor& x, const Tensor&) { return list(mkldnn_max_pool(x, DType::Float32, {2, 2}, {2, 2}, {0, 0})); }},
          Sample{"k3s2p1", [](const Tensor& x, const Tensor&) {
            return list(mkldnn_max_pool(x, DType::Float32, {3, 3}, {2, 2}, {1, 1}));
          }},
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) {
            return list(mkldnn_max_pool(x, DType::BFloat16, {2, 2}, {2, 2}, {0, 0}));
          }}};
}
Samples opinfo_mkldnn_adaptive_avg_pool2d() {
  return {Sample{"1x1", [](const Tensor& x, const Tensor&) { return list(mkldnn_adaptive(x, DType::Float32, 1)); }}.sums(),
          Sample{"3x3", [](const Tensor& x, const Tensor&) { return list(mkldnn_adaptive(x, DType::Float32, 3)); }}.sums(),
          Sample{"bfloat16", [](const Tensor& x, const Tensor&) { return list(mkldnn_adaptive(x, DType::BFloat16, 1)); }}
              .sums(kBf16Sums)};
}

const Samples& samples_of(OpKind op) {
  static const std::array<Samples, kNumOps> table{
#define TL_CALL_OPINFO(Enum, kernel, aten, schema, pyop, tags, variants) opinfo_##kernel(),
      TL_FORALL_OPS(TL_CALL_OPINFO)
#undef TL_CALL_OPINFO
  };
  return table.at(static_cast<size_t>(op));
}

}  // namespace tl::testing
