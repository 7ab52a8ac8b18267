// tests/ops/test_special_values.cpp — every sample of every op (tests/ops/op_db.h) fed NaN, +inf, -inf,
// -0.0 and a denormal, compared with PyTorch 1.13 eager (tests/ops/data/special_values.json, written by
// gen_special_values.py, whose SAMPLES mirror op_db.cpp's).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/op_kind.h"
#include "core/schema.h"
#include "ops/ops.h"
#include "tests/ops/op_db.h"
#include "tests/ops/vector_isa.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using Json = nlohmann::json;
using testing::Sample;

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

std::string torch_dtype_name(DType d) {
  switch (d) {
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::BFloat16: return "bfloat16";
    case DType::Bool: return "bool";
    case DType::Int64: return "int64";
    case DType::Int32: return "int32";
    case DType::UInt8: return "uint8";
    case DType::Int8: return "int8";
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

// Checks every sample of the ops `wanted` accepts (their names as native_functions.yaml keys them: pow.Scalar)
// against PyTorch; returns the number of cases checked.
template <typename Wanted>
int check_against_pytorch(const Wanted& wanted) {
  const Json& ref = reference();
  const Tensor y = tensor_of(ref["y"], {1, 2, 4, 4});
  int checked = 0;
  for (int k = 0; k < kNumOps; ++k) {
    const Schema& schema = schema_of(static_cast<OpKind>(k));
    const std::string op = schema.overload_name.empty() ? schema.name : schema.name + "." + schema.overload_name;
    if (!wanted(op)) continue;
    CAPTURE(op);
    REQUIRE_MESSAGE(ref["results"].contains(op), "op ", op, " has no PyTorch reference: add its samples to "
                                                           "gen_special_values.py and rerun it");
    for (const Sample& sample : testing::samples_of(static_cast<OpKind>(k))) {
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
  return checked;
}

// On every ISA build the CPU runs: ops/vector_kernels.h's blocks and the dense elementwise loops (ops/elementwise.h)
// follow the same switch.
TEST_CASE("special values: every op matches PyTorch on NaN, +inf, -inf, -0.0 and denormals, on every ISA build") {
  testing::for_each_vector_isa([&](const char* isa) {
    const int checked = check_against_pytorch([](const std::string&) { return true; });
    MESSAGE(std::string(isa), ": special-value cases checked: ", checked, " (", kNumOps, " ops)");
  });
}

TEST_CASE("special values: Winograd refuses data it would answer wrongly") {
  using testing::conv_bias, testing::conv_weight, testing::to_mkldnn;
  const auto pack = testing::pack_conv_weight;
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
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::MkldnnConvolution, {to_mkldnn(bad), packed, conv_bias(), Tensor(), Tensor()}, attrs),
                       "mkldnn_convolution: input [1, 1, 4, 4, 16] or its residual holds NaN or inf, which Winograd "
                       "turns into NaN; pass a weight packed with winograd=False",
                       Error);
}

}  // namespace
}  // namespace tl
