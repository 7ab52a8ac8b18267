// tests/ops/test_quantized.cpp — quantized tensors against PyTorch 1.13 (tests/ops/data/quantized_cases.json,
// written by tests/ops/gen_quantized_cases.py): quantize_per_tensor / quantize_per_channel integers and
// dequantized values bit for bit, print(q) and its views, the uint8 / int8 conversions; then the accessors,
// the views that keep the quantizer, the one dispatch refusal and every misuse message.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ops/ops.h"

namespace tl {
namespace {

using Json = nlohmann::json;

const Json& cases() {
  static const Json data = [] {
    std::ifstream in("tests/ops/data/quantized_cases.json");
    if (!in) throw std::runtime_error("tests/ops/data/quantized_cases.json: not found (run from the project root)");
    return Json::parse(in);
  }();
  return data;
}

DType qdtype_named(const std::string& name) {
  return name == "quint8" ? kQUInt8 : name == "qint8" ? kQInt8 : kQInt32;
}

std::vector<float> floats_of(const Json& values) {
  std::vector<float> out;
  for (const Json& v : values) out.push_back(std::stof(v.get<std::string>()));
  return out;
}

std::vector<double> doubles_of(const Json& values) {
  std::vector<double> out;
  for (const Json& v : values) out.push_back(std::stod(v.get<std::string>()));
  return out;
}

Shape shape_of(const Json& c) { return Shape(c["shape"].get<std::vector<int64_t>>()); }

// A tensor's values, widened to int64.
std::vector<int64_t> longs(const Tensor& t) {
  const Tensor l = t.to(kLong).contiguous();
  return std::vector<int64_t>(l.data<int64_t>(), l.data<int64_t>() + l.numel());
}

// The integers of a quantized tensor, widened.
std::vector<int64_t> integers(const Tensor& q) { return longs(q.int_repr()); }

std::string printed(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

// A quantized tensor from a case's integers and qparams, through _make_per_{tensor,channel}_quantized_tensor.
Tensor from_integers(const Json& c) {
  const DType dtype = qdtype_named(c["dtype"]);
  const Tensor ints = from_vector(c["int_repr"].get<std::vector<int64_t>>(), shape_of(c)).to(underlying_dtype(dtype));
  const std::vector<double> scales = doubles_of(c["scales"]);
  const auto zero_points = c["zero_points"].get<std::vector<int64_t>>();
  if (c["axis"].get<int64_t>() < 0) return _make_per_tensor_quantized_tensor(ints, scales[0], zero_points[0]);
  return _make_per_channel_quantized_tensor(ints, from_vector(scales, {static_cast<int64_t>(scales.size())}),
                                            from_vector(zero_points, {static_cast<int64_t>(zero_points.size())}),
                                            c["axis"].get<int64_t>());
}

Tensor per_tensor_example() {
  return quantize_per_tensor(from_vector<float>({-1.0f, 0.0f, 0.05f, 0.15f, 0.25f, 1.0f}, {2, 3}), 0.1, 10, kQUInt8);
}

Tensor per_channel_example() {
  return quantize_per_channel(from_vector<float>({-1.0f, 0.5f, 2.0f, 0.4f, -0.2f, 0.9f}, {3, 2}),
                              from_vector<double>({0.1, 0.2, 0.3}, {3}), from_vector<int64_t>({0, 1, -1}, {3}), 0,
                              kQInt8);
}

TEST_CASE("quantize_per_tensor / quantize_per_channel: PyTorch's integers and dequantized values, bit for bit") {
  int64_t elements = 0;
  for (const Json& c : cases()["quantize"]) {
    CAPTURE(c["name"].get<std::string>());
    const Tensor x = from_vector(floats_of(c["input"]), shape_of(c));
    const DType dtype = qdtype_named(c["dtype"]);
    const std::vector<double> scales = doubles_of(c["scales"]);
    const auto zero_points = c["zero_points"].get<std::vector<int64_t>>();
    const int64_t axis = c["axis"];
    const Tensor q = axis < 0 ? quantize_per_tensor(x, scales[0], zero_points[0], dtype)
                              : quantize_per_channel(x, from_vector(scales, {static_cast<int64_t>(scales.size())}),
                                                     from_vector(zero_points, {static_cast<int64_t>(zero_points.size())}),
                                                     axis, dtype);
    CHECK(q.dtype() == dtype);
    CHECK(q.qscheme() == (axis < 0 ? QScheme::PerTensorAffine : QScheme::PerChannelAffine));
    CHECK(integers(q) == c["int_repr"].get<std::vector<int64_t>>());
    const std::vector<float> expected = floats_of(c["dequantized"]);
    const Tensor d = q.dequantize();
    REQUIRE(d.dtype() == kFloat);
    int64_t differ = 0;
    for (int64_t i = 0; i < d.numel(); ++i)
      differ += std::bit_cast<uint32_t>(d.data<float>()[i]) != std::bit_cast<uint32_t>(expected[static_cast<size_t>(i)]);
    CHECK(differ == 0);
    elements += q.numel();
  }
  MESSAGE("quantize: ", cases()["quantize"].size(), " cases, ", elements, " elements, all equal to PyTorch's");
}

TEST_CASE("print(q): PyTorch's text for quantized tensors and their views; _make_*_quantized_tensor from integers") {
  for (const Json& c : cases()["print"]) {
    CAPTURE(c["name"].get<std::string>());
    const Tensor q = from_integers(c);
    CHECK(integers(q) == c["int_repr"].get<std::vector<int64_t>>());
    CHECK(printed(q) == c["printed"].get<std::string>());
    for (const auto& item : c["views"].items()) {
      const std::string view = item.key();  // a named copy: clang 14 cannot capture a structured binding
      CAPTURE(view);
      const Tensor v = view == "flatten"  ? q.flatten()
                       : view == "t"      ? q.t()
                       : view == "select" ? q[1]
                       : view == "slice"  ? q.slice(1, 1, 3)
                                          : q.flatten(1);
      CHECK(v.quantizer() == q.quantizer());
      CHECK(v.storage() == q.storage());
      CHECK(printed(v) == item.value().get<std::string>());
    }
  }
}

TEST_CASE("uint8 / int8: .to() both ways as PyTorch converts (wrap-around, NaN and out of range)") {
  const Json& c = cases()["to_bytes"][0];
  const Tensor x = from_vector(floats_of(c["input"]), {static_cast<int64_t>(c["input"].size())});
  const Tensor u = x.to(kByte), s = x.to(kChar);
  CHECK(u.dtype() == DType::UInt8);
  CHECK(s.dtype() == DType::Int8);
  CHECK(longs(u) == c["uint8"].get<std::vector<int64_t>>());
  CHECK(longs(s) == c["int8"].get<std::vector<int64_t>>());
  CHECK(longs(from_vector<int64_t>({-3, 256, 1000, 7}, {4}).to(kUInt8)) == c["uint8_from_int64"].get<std::vector<int64_t>>());
}

TEST_CASE("uint8: creation, copy, comparison, equality, sum, max, item, from_blob; arithmetic refused by name") {
  uint8_t pixels[6] = {0, 255, 17, 128, 3, 99};
  const Tensor img = from_blob(pixels, {2, 3}, kUInt8);
  CHECK(img.dtype() == kUInt8);
  CHECK(img.element_size() == 1);
  CHECK(img[0][1].item<int64_t>() == 255);
  CHECK(img.to(kFloat)[1][0].item<float>() == 128.0f);
  CHECK(zeros({2, 3}, kUInt8).dtype() == kUInt8);
  CHECK(full({2}, 7, kInt8)[1].item<int64_t>() == 7);
  CHECK(equal(img, img.clone()));
  CHECK(img.gt(100).to(kLong).sum().item<int64_t>() == 2);
  CHECK(img.eq(from_vector<int64_t>({0, 255, 17, 128, 3, 99}, {2, 3}).to(kUInt8)).all().item<bool>());
  Tensor copy = zeros({2, 3}, kUInt8);
  copy.copy_(img.to(kFloat));
  CHECK(equal(copy, img));
  CHECK((img.to(kFloat) / 255.0).max().item<float>() == 1.0f);
  CHECK_THROWS_WITH_AS(img.add(img), "add: not implemented for torch.uint8", Error);
  CHECK_THROWS_WITH_AS(img.mul(2), "mul: not implemented for torch.uint8", Error);
  CHECK(img.sum().dtype() == kLong);  // PyTorch sums integers in int64
  CHECK(img.sum().item<int64_t>() == 502);
  CHECK(img.max().item<int64_t>() == 255);
  CHECK_THROWS_WITH_AS(promote_types(kUInt8, kInt8),
                       "promote_types: torch.uint8 and torch.int8 promote to torch.int16, which torchless does not have",
                       Error);
  CHECK(promote_types(kUInt8, kInt32) == kInt32);
  CHECK(promote_types(kInt8, kFloat) == kFloat);
  CHECK(img.add(img.to(kFloat)).dtype() == kFloat);
}

TEST_CASE("quantized tensor: accessors as PyTorch's; int_repr and dequantize") {
  const Tensor q = per_tensor_example();
  CHECK(q.is_quantized());
  CHECK(q.q_scale() == 0.1);
  CHECK(q.q_zero_point() == 10);
  CHECK(q.qscheme() == QScheme::PerTensorAffine);
  CHECK(q.int_repr().dtype() == kUInt8);
  CHECK(integers(q) == std::vector<int64_t>{0, 10, 10, 12, 12, 20});
  CHECK(q[1][2].dequantize().item<float>() == 1.0f);
  CHECK_THROWS_WITH_AS(q[1][2].item(), doctest::Contains("item(): a quantized tensor (torch.quint8) has no scalar value"),
                       Error);
  const Tensor c = per_channel_example();
  CHECK(c.q_per_channel_axis() == 0);
  CHECK(c.q_per_channel_scales().dtype() == kDouble);
  CHECK(c.q_per_channel_scales()[2].item<double>() == 0.3);
  CHECK(c.q_per_channel_zero_points().dtype() == kLong);
  CHECK(c.q_per_channel_zero_points()[2].item<int64_t>() == -1);
  CHECK(c.int_repr().dtype() == kInt8);
  CHECK(integers(c) == std::vector<int64_t>{-10, 5, 11, 3, -2, 2});
  const Tensor f = from_vector<float>({1.5f}, {1});
  CHECK(f.dequantize().is_same(f));
  CHECK_FALSE(f.is_quantized());
  CHECK_THROWS_WITH_AS(c.q_scale(), doctest::Contains("Expected quantizer->qscheme() == kPerTensorAffine to be true"), Error);
  CHECK_THROWS_WITH_AS(q.q_per_channel_axis(), doctest::Contains("kPerChannelAffine to be true"), Error);
  CHECK_THROWS_WITH_AS(q.q_per_channel_scales(), doctest::Contains("kPerChannelAffine to be true"), Error);
  CHECK_THROWS_WITH_AS(f.q_scale(), doctest::Contains("Could not run 'aten::q_scale' with arguments from the 'CPU' backend"),
                       Error);
  CHECK_THROWS_WITH_AS(f.qscheme(), doctest::Contains("Could not run 'aten::qscheme'"), Error);
  CHECK_THROWS_WITH_AS(f.int_repr(), doctest::Contains("Could not run 'aten::int_repr' with arguments from the 'CPU'"), Error);
}

TEST_CASE("quantized views share storage and quantizer; a per-channel view must keep its axis") {
  const Tensor q = per_tensor_example();
  for (const Tensor& v : {q.view({3, 2}), q.reshape({6}), q.flatten(), q.permute({1, 0}), q.transpose(0, 1), q.t(),
                          q.select(0, 1), q.slice(1, 0, 2), q.unsqueeze(0), q.narrow(1, 1, 2)}) {
    CHECK(v.storage() == q.storage());
    CHECK(v.quantizer() == q.quantizer());
  }
  const Tensor tc = q.t().contiguous();
  CHECK(tc.is_contiguous());
  CHECK(tc.quantizer() == q.quantizer());
  CHECK(integers(tc) == std::vector<int64_t>{0, 12, 10, 12, 10, 20});
  CHECK(integers(q.t().reshape({6})) == std::vector<int64_t>{0, 12, 10, 12, 10, 20});
  const Tensor cl = q.clone();
  CHECK(cl.storage() != q.storage());
  CHECK(*cl.quantizer() == *q.quantizer());

  const Tensor c = per_channel_example();
  CHECK(c.slice(1, 1, 2).q_per_channel_axis() == 0);
  CHECK(c.flatten(1).quantizer() == c.quantizer());
  CHECK_THROWS_WITH_AS(c.t(), doctest::Contains("view of a per-channel quantized tensor: the dimensions up to its axis 0 "
                                                "must stay as they are"),
                       Error);
  CHECK_THROWS_WITH_AS(c.flatten(), doctest::Contains("view of a per-channel quantized tensor"), Error);
  CHECK_THROWS_WITH_AS(c.select(0, 1), doctest::Contains("view of a per-channel quantized tensor"), Error);
}

TEST_CASE("dispatch: an op with no quantized kernel refuses a quantized input, naming the op and the backend") {
  const Tensor q = per_tensor_example();
  const std::vector<int64_t> before = integers(q);
  CHECK_THROWS_WITH_AS(q.add(q), doctest::Contains("Could not run 'aten::add' with arguments from the 'QuantizedCPU' "
                                                   "backend. This could be because the operator doesn't exist for this backend"),
                       Error);
  CHECK_THROWS_WITH_AS(q.neg(), doctest::Contains("Could not run 'aten::neg' with arguments from the 'QuantizedCPU'"), Error);
  CHECK_THROWS_WITH_AS(q.to(kFloat), doctest::Contains("Could not run 'aten::to'"), Error);
  CHECK_THROWS_WITH_AS(q.sum(), doctest::Contains("Could not run 'aten::sum'"), Error);
  CHECK_THROWS_WITH_AS(q.exp(), doctest::Contains("Could not run 'aten::exp'"), Error);  // cat takes them, as ATen's
  CHECK(integers(q) == before);
}

TEST_CASE("quantize misuse: ATen's messages, and nothing made") {
  const Tensor x = from_vector<float>({0.5f, -1.0f, 2.0f, 0.0f, 1.0f, 3.0f}, {2, 3});
  const Tensor scales = from_vector<double>({0.1, 0.2}, {2});
  const Tensor zps = from_vector<int64_t>({0, 0}, {2});
  CHECK_THROWS_WITH_AS(quantize_per_tensor(x.to(kDouble), 0.1, 0, kQUInt8),
                       "Quantize only works on Float Tensor, got Double", Error);
  CHECK_THROWS_WITH_AS(quantize_per_tensor(x.to(kLong), 0.1, 0, kQUInt8), "Quantize only works on Float Tensor, got Long",
                       Error);
  CHECK_THROWS_WITH_AS(quantize_per_tensor(x, 0.1, 300, kQUInt8),
                       "quantize_tensor_per_tensor_affine zero_point 300 is above upper bound.", Error);
  CHECK_THROWS_WITH_AS(quantize_per_tensor(x, 0.1, -1, kQUInt8),
                       "quantize_tensor_per_tensor_affine zero_point -1 is below lower bound.", Error);
  CHECK_THROWS_WITH_AS(quantize_per_tensor(x, 0.1, 200, kQInt8),
                       "quantize_tensor_per_tensor_affine zero_point 200 is above upper bound.", Error);
  CHECK_THROWS_WITH_AS(quantize_per_tensor(x, 0.1, 0, kFloat), "ScalarType Float is not supported in new_qtensor.", Error);
  CHECK_THROWS_WITH_AS(quantize_per_tensor(x, 0.1, 0, kUInt8), "ScalarType Byte is not supported in new_qtensor.", Error);
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity(), 1e-300})
    CHECK_THROWS_WITH_AS(quantize_per_tensor(x, bad, 0, kQUInt8),
                         doctest::Contains("quantize_tensor_per_tensor_affine: scale must be positive and finite"), Error);
  CHECK(quantize_per_tensor(x.t(), 0.5, 0, kQInt8).is_contiguous());

  CHECK_THROWS_WITH_AS(quantize_per_channel(x, from_vector<double>({0.1, 0.2, 0.3}, {3}), from_vector<int64_t>({0, 0, 0}, {3}),
                                            0, kQInt8),
                       doctest::Contains("length of scales must equal to channel"), Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x, scales, from_vector<int64_t>({0, 0, 0}, {3}), 0, kQInt8),
                       doctest::Contains("number of elements in scales and zero_points must match"), Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x, scales, zps, 2, kQInt8),
                       "Channel axis out of range in per channel affine quantization. Got: 2Expected: [0, 2)", Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x, scales, zps, -1, kQInt8),
                       "Channel axis out of range in per channel affine quantization. Got: -1Expected: [0, 2)", Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x, scales, from_vector<int64_t>({0, 200}, {2}), 0, kQInt8),
                       "quantize_tensor_per_channel_affine zero_point 200 is above upper bound.", Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x, from_vector<double>({0.1, 0.0}, {2}), zps, 0, kQInt8),
                       doctest::Contains("scale must be positive and finite"), Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x.to(kDouble), scales, zps, 0, kQInt8),
                       "quantize_tensor_per_channel_affine expects a Float Tensor, got Double", Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x, from_vector<int64_t>({1, 2}, {2}), zps, 0, kQInt8),
                       "scale tensor must be floating point", Error);
  CHECK_THROWS_WITH_AS(quantize_per_channel(x, scales.view({1, 2}), zps, 0, kQInt8), "scale tensor must have dimension 1",
                       Error);

  const Tensor u = from_vector<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK_THROWS_WITH_AS(_make_per_tensor_quantized_tensor(u, 0.1, 3),
                       doctest::Contains("Creation of quantized tensor requires quantized dtype like torch.quint8"), Error);
  CHECK_THROWS_WITH_AS(_make_per_tensor_quantized_tensor(x, 0.1, 3),
                       doctest::Contains("Creation of quantized tensor requires quantized dtype like torch.quint8"), Error);
  CHECK_THROWS_WITH_AS(_make_per_tensor_quantized_tensor(u.to(kUInt8), 0.1, 300),
                       "quantize_tensor_per_tensor_affine zero_point 300 is above upper bound.", Error);
  CHECK_THROWS_WITH_AS(_make_per_channel_quantized_tensor(u.to(kInt8), from_vector<double>({0.1, 0.2, 0.3}, {3}),
                                                          from_vector<int64_t>({0, 1, 2}, {3}), 0),
                       doctest::Contains("length of scales must equal to channel"), Error);
  CHECK(_make_per_tensor_quantized_tensor(u.to(kInt32), 0.5, 1).dtype() == kQInt32);
  CHECK_THROWS_WITH_AS(Tensor::allocate({2}, kQUInt8), doctest::Contains("a quantized dtype needs a quantizer"), Error);
}

TEST_CASE("quantized tensors are not differentiable, as PyTorch's") {
  Tensor x = from_vector<float>({0.5f, -1.0f, 2.0f}, {3}).requires_grad_();
  const Tensor q = quantize_per_tensor(x, 0.1, 0, kQInt8);
  CHECK_FALSE(q.requires_grad());
  CHECK_FALSE(q.dequantize().requires_grad());
  Tensor p = per_tensor_example();
  CHECK_THROWS_WITH_AS(p.requires_grad_(), doctest::Contains("floating point"), Error);
  CHECK_FALSE(p.requires_grad());
}

}  // namespace
}  // namespace tl
