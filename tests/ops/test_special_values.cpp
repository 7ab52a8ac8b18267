// tests/ops/test_special_values.cpp — every op in core/op_list.h fed NaN, +inf, -inf, -0.0 and a
// denormal, compared with PyTorch 1.13 eager (tests/ops/data/special_values.json, written by
// gen_special_values.py, whose SAMPLES this table mirrors). An op without a sample fails the test.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using Json = nlohmann::json;
using SampleFn = std::function<TensorList(const Tensor& x, const Tensor& y)>;

/// One way of calling an op. `atol_scale` > 0 (ops that sum products) allows an absolute error of
/// atol_scale * max |expected| and ignores the sign of zero; 0 asks for exact zeros and denormals.
struct Sample {
  std::string name;
  SampleFn fn;
  double atol_scale = 0;
};

const Json& reference() {
  static const Json data = [] {
    std::ifstream in("tests/ops/data/special_values.json");
    if (!in) throw std::runtime_error("tests/ops/data/special_values.json not found (run from the project root)");
    return Json::parse(in);
  }();
  return data;
}

Tensor tensor_of(const Json& values, const Shape& shape) {
  std::vector<float> v;
  for (const auto& s : values) v.push_back(std::strtof(s.get<std::string>().c_str(), nullptr));
  return from_vector<float>(v, shape);
}

TensorList list(const Tensor& t) { return {t}; }
Tensor flag(bool b) { return scalar_tensor(b, DType::Bool); }

// ---- the inference ops, called as optimize_for_inference's modules call them ----

Tensor to_mkldnn(const Tensor& x, std::optional<DType> dtype = std::nullopt) {
  return dispatch::call1(OpKind::ToMkldnn, {x, Tensor()}, {{"dtype", dtype ? AttrValue(*dtype) : AttrValue()}});
}
Tensor to_dense(const Tensor& x, int64_t channels) {
  return dispatch::call1(OpKind::ToDense, {x, Tensor()}, {{"channels", channels}});
}
/// The dense weight prepacked for input x (bias, residual and ReLU as the conv will use them).
Tensor pack(const Tensor& w, const Tensor& x, Shape padding, bool sum, bool relu, bool winograd) {
  const Attrs attrs{{"padding", padding},   {"stride", Shape{1, 1}},  {"dilation", Shape{1, 1}},
                    {"groups", int64_t{1}}, {"input_size", x.shape()}, {"input_stride", x.strides()},
                    {"input_dtype", x.dtype()}, {"bias", true},       {"sum", sum},
                    {"relu", relu},         {"winograd", winograd}};
  return dispatch::call1(OpKind::MkldnnReorderConv2dWeight, {w}, attrs);
}
/// mkldnn_convolution on x (already in an inference layout) as dense NCHW; w is prepacked for x, except
/// with Winograd: only a dense weight lets the kernel take the direct path for non-finite data.
Tensor mkldnn_conv(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& other, Shape padding, bool relu,
                   bool winograd) {
  const Attrs attrs{{"padding", padding},   {"stride", Shape{1, 1}}, {"dilation", Shape{1, 1}},
                    {"groups", int64_t{1}}, {"relu", relu},          {"winograd", winograd},
                    {"weight_size", w.shape()}, {"packed_for", x.shape()}};
  const Tensor weight = winograd ? w : pack(w, x, padding, other.defined(), relu, winograd);
  return to_dense(dispatch::call1(OpKind::MkldnnConvolution, {x, weight, b, other, Tensor()}, attrs), w.size(0));
}
Tensor mkldnn_max_pool(const Tensor& x, DType dtype, Shape kernel, Shape stride, Shape padding) {
  const Tensor y = dispatch::call1(OpKind::MkldnnMaxPool2d, {to_mkldnn(x, dtype), Tensor()},
                                   {{"kernel_size", kernel}, {"stride", stride}, {"padding", padding},
                                    {"dilation", Shape{1, 1}}, {"ceil_mode", false}});
  return to_dense(y, x.size(1)).to(dtype);
}
Tensor mkldnn_adaptive(const Tensor& x, DType dtype, int64_t size) {
  const Tensor y = dispatch::call1(OpKind::MkldnnAdaptiveAvgPool2d, {to_mkldnn(x, dtype), Tensor()},
                                   {{"output_size", Shape{size, size}}});
  return to_dense(y, x.size(1)).to(dtype);
}

// ---- the sample table (mirrors SAMPLES in gen_special_values.py) ----

Tensor conv_weight() {
  std::vector<float> v;
  for (int i = 0; i < 54; ++i) v.push_back(static_cast<float>((i * 3) % 11 - 5) / 8);
  return from_vector<float>(v, {3, 2, 3, 3});
}
Tensor conv_bias() { return from_vector<float>({0.1f, -0.2f, 0.3f}, {3}); }
Tensor bn(int i) {
  const std::vector<std::vector<float>> v{{1.5f, -0.5f}, {0.1f, 0.2f}, {0.25f, -0.5f}, {0.5f, 2.0f}};
  return from_vector<float>(v[static_cast<size_t>(i)], {2});
}
Tensor residual(const Tensor& x) { return cat(std::vector<Tensor>{x, x.slice(1, 0, 1)}, 1); }
double x5(const Tensor& x) { return static_cast<double>(x.flatten().data<float>()[5]); }

using Table = std::map<std::string, std::vector<Sample>>;

void add_elementwise(Table& t) {
  const std::map<std::string, Tensor (*)(const Tensor&)> unary{
      {"neg", neg}, {"abs", abs}, {"exp", exp}, {"log", log}, {"sqrt", sqrt},
      {"rsqrt", rsqrt}, {"relu", relu}, {"sigmoid", sigmoid}, {"tanh", tanh}};
  const std::map<std::string, Tensor& (Tensor::*)()> unary_{
      {"neg_", &Tensor::neg_}, {"abs_", &Tensor::abs_}, {"exp_", &Tensor::exp_}, {"log_", &Tensor::log_},
      {"sqrt_", &Tensor::sqrt_}, {"rsqrt_", &Tensor::rsqrt_}, {"relu_", &Tensor::relu_},
      {"sigmoid_", &Tensor::sigmoid_}, {"tanh_", &Tensor::tanh_}};
  for (const auto& [name, f] : unary) t[name] = {{"plain", [f = f](const Tensor& x, const Tensor&) { return list(f(x)); }}};
  for (const auto& [name, f] : unary_)
    t[name] = {{"plain", [f = f](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list((c.*f)()); }}};
  const std::map<std::string, Tensor (*)(const Tensor&, const Tensor&)> binary{
      {"add", add}, {"sub", sub}, {"mul", mul}, {"div", div}, {"pow", pow}};
  const std::map<std::string, Tensor& (Tensor::*)(const Tensor&)> binary_{
      {"add_", &Tensor::add_}, {"sub_", &Tensor::sub_}, {"mul_", &Tensor::mul_}, {"div_", &Tensor::div_},
      {"pow_", &Tensor::pow_}};
  for (const auto& [name, f] : binary)
    t[name] = {{"self", [f = f](const Tensor& x, const Tensor& y) { return list(f(x, y)); }},
               {"other", [f = f](const Tensor& x, const Tensor& y) { return list(f(y, x)); }}};
  for (const auto& [name, f] : binary_)
    t[name] = {{"self", [f = f](const Tensor& x, const Tensor& y) { Tensor c = x.clone(); return list((c.*f)(y)); }}};
  using Compare = Tensor (Tensor::*)(const Tensor&) const;
  const std::map<std::string, Compare> compare{
      {"gt", &Tensor::gt}, {"lt", &Tensor::lt}, {"ge", &Tensor::ge},
      {"le", &Tensor::le}, {"eq", &Tensor::eq}, {"ne", &Tensor::ne}};
  for (const auto& [name, f] : compare)
    t[name] = {{"xy", [f = f](const Tensor& x, const Tensor& y) { return list((x.*f)(y)); }},
               {"xx", [f = f](const Tensor& x, const Tensor&) { return list((x.*f)(x)); }}};
}

const Table& samples() {
  static const Table table = [] {
    Table t;
    add_elementwise(t);
    constexpr double kSums = 1e-6;  // ops whose results are sums of products
    t["empty"] = {{"shape", [](const Tensor&, const Tensor&) { return list(empty({2, 3})); }}};
    t["zeros"] = {{"plain", [](const Tensor&, const Tensor&) { return list(zeros({2, 3})); }}};
    t["ones"] = {{"plain", [](const Tensor&, const Tensor&) { return list(ones({2, 3})); }}};
    t["full"] = {{"fill", [](const Tensor& x, const Tensor&) { return list(full({2, 3}, x5(x))); }}};
    t["arange"] = {{"end", [](const Tensor& x, const Tensor&) { return list(arange(int64_t{0}, x5(x))); }}};
    t["rand"] = {{"shape", [](const Tensor&, const Tensor&) { return list(rand({2, 3})); }}};
    t["randn"] = {{"shape", [](const Tensor&, const Tensor&) { return list(randn({2, 3})); }}};
    t["copy_"] = {{"plain", [](const Tensor& x, const Tensor& y) { Tensor c = y.clone(); return list(c.copy_(x)); }}};
    t["clone"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(x.clone()); }}};
    t["contiguous"] = {{"transposed", [](const Tensor& x, const Tensor&) { return list(x.transpose(2, 3).contiguous()); }}};
    t["to"] = {{"bfloat16", [](const Tensor& x, const Tensor&) { return list(x.to(DType::BFloat16)); }},
               {"float64", [](const Tensor& x, const Tensor&) { return list(x.to(DType::Float64)); }}};
    t["view"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(x.view({2, 16})); }}};
    t["reshape"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(reshape(x, {4, 8})); }}};
    t["flatten"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(flatten(x)); }}};
    t["permute"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(permute(x, {0, 2, 3, 1})); }}};
    t["transpose"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(transpose(x, 1, 3)); }}};
    t["t"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(x.view({4, 8}).t()); }}};
    t["slice"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(x.slice(2, 1, 3)); }}};
    t["select"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(x.select(1, 1)); }}};
    t["expand"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(x.view({1, 32}).expand({2, 32})); }}};
    t["squeeze"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(squeeze(x, 0)); }}};
    t["unsqueeze"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(unsqueeze(x, 1)); }}};
    t["clamp"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(clamp(x, -1.0, 1.0)); }}};
    t["clamp_"] = {{"plain", [](const Tensor& x, const Tensor&) { Tensor c = x.clone(); return list(c.clamp_(-1.0, 1.0)); }}};
    t["where"] = {{"plain", [](const Tensor& x, const Tensor& y) { return list(where(y.gt(Scalar(1.2)), x, y)); }}};
    t["allclose"] = {{"self", [](const Tensor& x, const Tensor&) { return list(flag(allclose(x, x))); }},
                     {"equal_nan", [](const Tensor& x, const Tensor&) { return list(flag(allclose(x, x, 1e-5, 1e-8, true))); }}};
    t["equal"] = {{"self", [](const Tensor& x, const Tensor&) { return list(flag(equal(x, x))); }}};
    t["sum"] = {{"all", [](const Tensor& x, const Tensor&) { return list(sum(x)); }, kSums},
                {"dims", [](const Tensor& x, const Tensor&) { return list(sum(x, {2, 3})); }, kSums}};
    t["mean"] = {{"all", [](const Tensor& x, const Tensor&) { return list(mean(x)); }, kSums},
                 {"dim", [](const Tensor& x, const Tensor&) { return list(mean(x, {3})); }, kSums}};
    t["max"] = {{"all", [](const Tensor& x, const Tensor&) { return list(max(x)); }},
                {"dim", [](const Tensor& x, const Tensor&) { auto [v, i] = max(x, 3); return TensorList{v, i}; }}};
    t["min"] = {{"all", [](const Tensor& x, const Tensor&) { return list(min(x)); }},
                {"dim", [](const Tensor& x, const Tensor&) { auto [v, i] = min(x, 3); return TensorList{v, i}; }}};
    t["argmax"] = {{"all", [](const Tensor& x, const Tensor&) { return list(argmax(x)); }},
                   {"dim", [](const Tensor& x, const Tensor&) { return list(argmax(x, 3)); }}};
    t["nonzero"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(nonzero(x)); }}};
    t["argwhere"] = {{"plain", [](const Tensor& x, const Tensor&) { return list(argwhere(x)); }}};
    t["index_select"] = {{"plain", [](const Tensor& x, const Tensor&) {
      return list(index_select(x, 3, from_vector<int64_t>({3, 0, 2}, {3})));
    }}};
    t["masked_select"] = {{"plain", [](const Tensor& x, const Tensor& y) { return list(masked_select(x, y.gt(Scalar(1.2)))); }}};
    t["cat"] = {{"plain", [](const Tensor& x, const Tensor& y) { return list(cat(std::vector<Tensor>{x, y}, 1)); }}};
    t["stack"] = {{"plain", [](const Tensor& x, const Tensor& y) { return list(stack(std::vector<Tensor>{x, y}, 0)); }}};
    t["matmul"] = {{"self", [](const Tensor& x, const Tensor& y) { return list(matmul(x.view({8, 4}), y.view({4, 8}))); }, kSums},
                   {"other", [](const Tensor& x, const Tensor& y) { return list(matmul(y.view({8, 4}), x.view({4, 8}))); }, kSums}};
    t["mm"] = {{"plain", [](const Tensor& x, const Tensor& y) { return list(mm(x.view({8, 4}), y.view({4, 8}))); }, kSums}};
    t["bmm"] = {{"plain", [](const Tensor& x, const Tensor& y) { return list(bmm(x.view({2, 4, 4}), y.view({2, 4, 4}))); }, kSums}};
    t["addmm"] = {{"plain", [](const Tensor& x, const Tensor& y) {
                     return list(addmm(y.flatten().slice(0, 0, 8), x.view({8, 4}), y.view({4, 8})));
                   }, kSums},
                  {"self", [](const Tensor& x, const Tensor& y) {
                     return list(addmm(x.flatten().slice(0, 0, 8), y.view({8, 4}), y.view({4, 8})));
                   }, kSums}};
    t["linear"] = {{"plain", [](const Tensor& x, const Tensor& y) {
      return list(linear(x.view({8, 4}), y.view({8, 4}), y.flatten().slice(0, 0, 8)));
    }, kSums}};
    t["conv2d"] = {{"input", [](const Tensor& x, const Tensor&) { return list(conv2d(x, conv_weight(), conv_bias(), {1, 1}, {1, 1})); }, kSums},
                   {"weight", [](const Tensor& x, const Tensor& y) { return list(conv2d(y, x.view({2, 2, 2, 4}))); }, kSums}};
    t["batch_norm"] = {{"eval", [](const Tensor& x, const Tensor&) {
                          return list(batch_norm(x, bn(0), bn(1), bn(2), bn(3), false, 0.1, 1e-5));
                        }, kSums},
                       {"train", [](const Tensor& x, const Tensor&) {
                          const Tensor rm = bn(2), rv = bn(3);
                          const Tensor out = batch_norm(x, bn(0), bn(1), rm, rv, true, 0.1, 1e-5);
                          return TensorList{out, rm, rv};
                        }, kSums}};
    t["max_pool2d"] = {{"k2", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {2, 2})); }},
                       {"k3s2p1", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {3, 3}, {2, 2}, {1, 1})); }},
                       {"dilation2", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {2, 2}, {1, 1}, {0, 0}, {2, 2})); }},
                       {"ceil", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x, {3, 3}, {2, 2}, {0, 0}, {1, 1}, true)); }},
                       {"bfloat16", [](const Tensor& x, const Tensor&) { return list(max_pool2d(x.to(DType::BFloat16), {2, 2})); }}};
    t["avg_pool2d"] = {{"k2", [](const Tensor& x, const Tensor&) { return list(avg_pool2d(x, {2, 2})); }, kSums},
                       {"k3s2p1", [](const Tensor& x, const Tensor&) { return list(avg_pool2d(x, {3, 3}, {2, 2}, {1, 1})); }, kSums},
                       {"ceil_exclude_pad", [](const Tensor& x, const Tensor&) {
                          return list(avg_pool2d(x, {3, 3}, {2, 2}, {1, 1}, true, false));
                        }, kSums}};
    t["adaptive_avg_pool2d"] = {{"2x2", [](const Tensor& x, const Tensor&) { return list(adaptive_avg_pool2d(x, {2, 2})); }, kSums},
                                {"3x3", [](const Tensor& x, const Tensor&) { return list(adaptive_avg_pool2d(x, {3, 3})); }, kSums}};
    t["dropout"] = {{"eval", [](const Tensor& x, const Tensor&) { return list(dropout(x, 0.5, false)); }}};
    t["to_mkldnn"] = {{"float32", [](const Tensor& x, const Tensor&) { return list(to_dense(to_mkldnn(x), 2)); }},
                      {"bfloat16", [](const Tensor& x, const Tensor&) {
                         return list(to_dense(to_mkldnn(x, DType::BFloat16), 2).to(DType::BFloat16));
                       }}};
    t["to_dense"] = {{"float32", [](const Tensor& x, const Tensor&) { return list(to_dense(to_mkldnn(x), -1).slice(1, 0, 2)); }}};
    const auto conv = [](bool on_x, bool sum, bool winograd, std::optional<DType> dtype) {
      return [=](const Tensor& x, const Tensor& y) {
        const Tensor in = to_mkldnn(on_x ? x : y, dtype);
        const Tensor other = sum ? to_mkldnn(residual(x), dtype) : Tensor();
        const Tensor out = mkldnn_conv(in, conv_weight(), conv_bias(), other, {1, 1}, true, winograd);
        return list(dtype ? out.to(*dtype) : out);
      };
    };
    constexpr double kBf16Sums = 1e-2;
    t["mkldnn_convolution"] = {{"direct_relu", conv(true, false, false, std::nullopt), kSums},
                               {"winograd_relu", conv(true, false, true, std::nullopt), kSums},
                               {"sum_relu", conv(false, true, false, std::nullopt), kSums},
                               {"winograd_sum_relu", conv(false, true, true, std::nullopt), kSums},
                               {"bfloat16_relu", conv(true, false, false, DType::BFloat16), kBf16Sums},
                               {"bfloat16_sum_relu", conv(false, true, false, DType::BFloat16), kBf16Sums},
                               {"winograd_weight", [](const Tensor& x, const Tensor& y) {
                                  const Tensor w = x.flatten().slice(0, 0, 18).view({1, 2, 3, 3});
                                  return list(mkldnn_conv(to_mkldnn(y), w, zeros({1}), Tensor(), {0, 0}, false, true));
                                }, kSums}};
    t["mkldnn_reorder_conv2d_weight"] = {{"direct", [](const Tensor& x, const Tensor& y) {
      return list(mkldnn_conv(to_mkldnn(y), x.view({2, 2, 2, 4}), zeros({2}), Tensor(), {0, 0}, false, false));
    }, kSums}};
    t["mkldnn_max_pool2d"] = {
        {"k2", [](const Tensor& x, const Tensor&) { return list(mkldnn_max_pool(x, DType::Float32, {2, 2}, {2, 2}, {0, 0})); }},
        {"k3s2p1", [](const Tensor& x, const Tensor&) { return list(mkldnn_max_pool(x, DType::Float32, {3, 3}, {2, 2}, {1, 1})); }},
        {"bfloat16", [](const Tensor& x, const Tensor&) { return list(mkldnn_max_pool(x, DType::BFloat16, {2, 2}, {2, 2}, {0, 0})); }}};
    t["mkldnn_adaptive_avg_pool2d"] = {
        {"1x1", [](const Tensor& x, const Tensor&) { return list(mkldnn_adaptive(x, DType::Float32, 1)); }, kSums},
        {"3x3", [](const Tensor& x, const Tensor&) { return list(mkldnn_adaptive(x, DType::Float32, 3)); }, kSums},
        {"bfloat16", [](const Tensor& x, const Tensor&) { return list(mkldnn_adaptive(x, DType::BFloat16, 1)); }, kBf16Sums}};
    return t;
  }();
  return table;
}

std::string torch_dtype_name(DType d) {
  switch (d) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::BFloat16: return "bfloat16";
    case DType::Bool: return "bool";
    case DType::Int64: return "int64";
    default: return "other";
  }
}

double parse_value(const std::string& s) {
  if (s == "True") return 1;
  if (s == "False") return 0;
  return std::strtod(s.c_str(), nullptr);
}

/// Empty when `actual` matches PyTorch's `expected` (NaN equals NaN, infinities and, unless atol_scale
/// is set, zeros' signs and denormals exactly); otherwise the first mismatch.
std::string mismatch(const Tensor& actual, const Json& expected, double atol_scale) {
  Shape shape;
  for (const auto& d : expected["shape"]) shape.push_back(d.get<int64_t>());
  std::ostringstream why;
  if (actual.shape() != shape || torch_dtype_name(actual.dtype()) != expected["dtype"].get<std::string>()) {
    why << "got " << actual.shape() << " " << actual.dtype() << ", PyTorch " << shape << " " << expected["dtype"];
    return why.str();
  }
  if (!expected.contains("values")) return "";
  std::vector<double> e;
  for (const auto& v : expected["values"]) e.push_back(parse_value(v.get<std::string>()));
  double scale = 0;
  for (double v : e)
    if (std::isfinite(v)) scale = std::max(scale, std::abs(v));
  const bool bf16 = actual.dtype() == DType::BFloat16;
  const double rtol = bf16 ? 1e-2 : actual.dtype() == DType::Float32 ? 1e-5 : 1e-12;
  const double atol = atol_scale * scale;
  for (size_t i = 0; i < e.size(); ++i) {
    const double a = testing::element_at(actual, static_cast<int64_t>(i));
    bool ok;
    if (std::isnan(e[i]) || std::isnan(a)) ok = std::isnan(e[i]) && std::isnan(a);
    else if (std::isinf(e[i]) || std::isinf(a)) ok = a == e[i];
    else if (e[i] == 0 && atol == 0) ok = a == 0 && std::signbit(a) == std::signbit(e[i]);
    else ok = std::abs(a - e[i]) <= atol + rtol * std::abs(e[i]);
    if (!ok) {
      why.precision(9);
      why << "element " << i << ": got " << a << ", PyTorch " << e[i];
      return why.str();
    }
  }
  return "";
}

TEST_CASE("special values: every op matches PyTorch on NaN, +inf, -inf, -0.0 and denormals") {
  const Json& ref = reference();
  const Tensor y = tensor_of(ref["y"], {1, 2, 4, 4});
  int checked = 0;
  for (int k = 0; k < kNumOps; ++k) {
    const std::string op(op_name(static_cast<OpKind>(k)));
    CAPTURE(op);
    const auto it = samples().find(op);
    REQUIRE_MESSAGE(it != samples().end(), "op ", op, " has no special-value sample: add one to test_special_values.cpp and "
                                                     "gen_special_values.py");
    REQUIRE_MESSAGE(ref["results"].contains(op), "op ", op, " has no PyTorch reference: rerun gen_special_values.py");
    for (const Sample& sample : it->second) {
      CAPTURE(sample.name);
      const Json& by_special = ref["results"][op][sample.name];
      REQUIRE_MESSAGE(by_special.size() == ref["x"].size(), "no reference for sample ", sample.name);
      for (const auto& item : by_special.items()) {
        const std::string special = item.key();  // named copies: clang 14 cannot capture bindings
        const Json& expected = item.value();
        CAPTURE(special);
        const Tensor x = tensor_of(ref["x"][special], {1, 2, 4, 4});
        ++checked;
        if (expected.contains("error")) {
          CHECK_THROWS_AS(sample.fn(x, y.clone()), Error);
          continue;
        }
        TensorList got;
        try {
          got = sample.fn(x, y.clone());
        } catch (const Error& e) {
          FAIL_CHECK("threw: ", e.what());
          continue;
        }
        const Json& outs = expected["outputs"];
        REQUIRE(got.size() == outs.size());
        for (size_t i = 0; i < got.size(); ++i) {
          CAPTURE(i);
          const std::string why = mismatch(got[i], outs[i], sample.atol_scale);
          CHECK_MESSAGE(why.empty(), why);
        }
      }
    }
  }
  MESSAGE("special-value cases checked: ", checked, " (", kNumOps, " ops)");
}

TEST_CASE("special values: Winograd refuses data it would answer wrongly") {
  const Tensor y = to_mkldnn(ones({1, 2, 4, 4}));
  Tensor bad = ones({1, 2, 4, 4});
  bad.data<float>()[5] = INFINITY;
  CHECK_THROWS_WITH_AS(pack(bad.flatten().slice(0, 0, 18).view({1, 2, 3, 3}), y, {1, 1}, false, false, true),
                       "mkldnn_reorder_conv2d_weight: weight [1, 2, 3, 3] holds NaN or inf, which Winograd's weight "
                       "transform turns into NaN; pack it with winograd=False",
                       Error);
  const Tensor w = conv_weight();
  const Tensor packed = pack(w, y, {1, 1}, false, false, true);
  const Attrs attrs{{"padding", Shape{1, 1}}, {"stride", Shape{1, 1}}, {"dilation", Shape{1, 1}},
                    {"groups", int64_t{1}},   {"relu", false},         {"winograd", true},
                    {"weight_size", w.shape()}, {"packed_for", y.shape()}};
  CHECK_THROWS_WITH_AS(dispatch::call1(OpKind::MkldnnConvolution, {to_mkldnn(bad), packed, conv_bias(), Tensor(), Tensor()}, attrs),
                       "mkldnn_convolution: input [1, 1, 4, 4, 16] or its residual holds NaN or inf, which Winograd "
                       "turns into NaN; pass a weight packed with winograd=False",
                       Error);
}

}  // namespace
}  // namespace tl
