// tests/ao/test_observer.cpp — the observers against PyTorch 1.13 (tests/ao/gen_ao_cases.py): after the same
// batches, every buffer, the state_dict keys, the repr and calculate_qparams() bit for bit; and misuse.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "ao/quantization/observer.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/ao/ao_cases.h"
#include "tests/support/captured_warnings.h"

namespace tl::ao::quantization {
namespace {

using testing::Json;
using testing::number;

std::vector<double> numbers(const Json& values) {
  std::vector<double> out;
  for (const Json& v : values) out.push_back(number(v));
  return out;
}

QDType qdtype_of(const std::string& name) { return name == "qint8" ? QDType::QInt8 : QDType::QUInt8; }

QScheme qscheme_of(const std::string& name) {
  if (name == "per_tensor_symmetric") return QScheme::PerTensorSymmetric;
  if (name == "per_channel_affine") return QScheme::PerChannelAffine;
  if (name == "per_channel_symmetric") return QScheme::PerChannelSymmetric;
  return QScheme::PerTensorAffine;
}

QuantRange range_of(const Json& args, QScheme default_qscheme) {
  QuantRange r{.qscheme = default_qscheme};
  if (args.contains("dtype")) r.dtype = qdtype_of(args.at("dtype"));
  if (args.contains("qscheme")) r.qscheme = qscheme_of(args.at("qscheme"));
  if (args.contains("reduce_range")) r.reduce_range = args.at("reduce_range");
  if (args.contains("quant_min")) r.quant_min = args.at("quant_min").get<int64_t>();
  if (args.contains("quant_max")) r.quant_max = args.at("quant_max").get<int64_t>();
  if (args.contains("eps")) r.eps = args.at("eps");
  return r;
}

std::shared_ptr<ObserverBase> build(const std::string& kind, const Json& args) {
  if (kind == "MinMaxObserver") return std::make_shared<MinMaxObserver>(range_of(args, QScheme::PerTensorAffine));
  if (kind == "MovingAverageMinMaxObserver")
    return std::make_shared<MovingAverageMinMaxObserver>(MovingAverageMinMaxObserverOptions{
        .averaging_constant = args.value("averaging_constant", 0.01), .range = range_of(args, QScheme::PerTensorAffine)});
  if (kind == "PerChannelMinMaxObserver")
    return std::make_shared<PerChannelMinMaxObserver>(PerChannelMinMaxObserverOptions{
        .ch_axis = args.value("ch_axis", int64_t{0}), .range = range_of(args, QScheme::PerChannelAffine)});
  REQUIRE(kind == "HistogramObserver");
  return std::make_shared<HistogramObserver>(HistogramObserverOptions{.bins = args.value("bins", int64_t{2048}),
                                                                      .upsample_rate = args.value("upsample_rate", int64_t{128}),
                                                                      .range = range_of(args, QScheme::PerTensorAffine)});
}

// Exact equality of float32 values (NaN equal to NaN, -0.0 apart from 0.0 as their bits).
void check_exact(const Tensor& t, const Json& expected, const std::string& what) {
  CAPTURE(what);
  REQUIRE(t.shape() == Shape(expected.at("shape").get<std::vector<int64_t>>()));
  const std::vector<double> values = numbers(expected.at("values"));
  const Tensor f = t.to(kFloat).contiguous();
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < f.numel(); ++i) {
    const auto want = static_cast<float>(values[static_cast<size_t>(i)]);
    const float got = f.data<float>()[i];
    if (std::memcmp(&want, &got, sizeof(float)) != 0 && !(std::isnan(want) && std::isnan(got))) {
      if (first < 0) first = i;
      ++mismatches;
    }
  }
  if (mismatches > 0) {
    const auto i = static_cast<size_t>(first);
    FAIL_CHECK(mismatches, " elements differ; first at ", first, ": got ", f.data<float>()[first], ", PyTorch has ",
               values[i]);
  }
}

std::vector<std::string> keys_of(const nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& [key, value] : m.state_dict()) out.push_back(key);
  return out;
}

TEST_CASE("observers: buffers, state_dict keys, repr and calculate_qparams equal PyTorch's bit for bit") {
  const Json data = testing::ao_cases();
  int index = 0;
  for (const Json& c : data.at("observers")) {
    const std::string kind = c.at("kind"), args = c.at("args").dump();
    const int case_index = index++;
    CAPTURE(case_index);
    CAPTURE(kind);
    CAPTURE(args);
    std::shared_ptr<ObserverBase> o = build(kind, c.at("args"));
    CHECK(nn::repr(*o) == c.at("repr_before").get<std::string>());
    const auto& uniform = dynamic_cast<const UniformQuantizationObserverBase&>(*o);
    CHECK(uniform.quant_min() == c.at("quant_min").get<int64_t>());
    CHECK(uniform.quant_max() == c.at("quant_max").get<int64_t>());
    for (const Json& b : c.at("batches")) {
      const Tensor x = from_vector(numbers(b.at("values")), Shape(b.at("shape").get<std::vector<int64_t>>())).to(kFloat);
      const Tensor y = (*o)(x);
      CHECK(y.is_same(x));
    }
    CHECK(keys_of(*o) == c.at("state_dict_keys").get<std::vector<std::string>>());
    for (const auto& [key, value] : o->state_dict()) check_exact(value, c.at("buffers").at(key), key);
    CHECK(nn::repr(*o) == c.at("repr_after").get<std::string>());
    const QParams q = o->calculate_qparams();
    check_exact(q.scale, c.at("scale"), "scale");
    const std::string zp_dtype = c.at("zero_point").at("dtype");
    CHECK(q.zero_point.dtype() == (zp_dtype == "torch.int32" ? kInt : kLong));
    CHECK(q.zero_point.shape() == Shape(c.at("zero_point").at("shape").get<std::vector<int64_t>>()));
    const Tensor zp = q.zero_point.to(kLong);
    CHECK(std::vector<int64_t>(zp.data<int64_t>(), zp.data<int64_t>() + zp.numel()) ==
          c.at("zero_point").at("values").get<std::vector<int64_t>>());
  }
}

TEST_CASE("observers: an observer that saw nothing warns and gives scale 1, zero_point 0, as PyTorch's") {
  for (const std::shared_ptr<ObserverBase>& o :
       std::vector<std::shared_ptr<ObserverBase>>{std::make_shared<MinMaxObserver>(),
                                                  std::make_shared<PerChannelMinMaxObserver>(),
                                                  std::make_shared<HistogramObserver>()}) {
    const std::string type = o->type_name();
    CAPTURE(type);
    tl::testing::CapturedWarnings warnings;
    (*o)(empty({0, 3}));  // an empty batch is not recorded
    const QParams q = o->calculate_qparams();
    REQUIRE(warnings.messages.size() == 1);
    CHECK(warnings.messages[0].find("must run observer before calling calculate_qparams") == 0);
    CHECK(q.scale.shape() == Shape{1});
    CHECK(q.scale.item<float>() == 1.0f);
    CHECK(q.zero_point.dtype() == kLong);
    CHECK(q.zero_point.item<int64_t>() == 0);
  }
  CHECK_FALSE(MinMaxObserver().observed());
}

TEST_CASE("observers: NaN and infinite batches are refused clearly, naming the observer") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  MinMaxObserver minmax;
  minmax(tensor({1.0, 2.0}));
  minmax(from_vector(std::vector<float>{0.5f, nan}, {2}));
  // PyTorch records the NaN and its calculate_qparams asserts min <= max.
  CHECK_THROWS_WITH_AS(minmax.calculate_qparams(), "MinMaxObserver: calculate_qparams: min nan should be less than max nan",
                       Error);
  MinMaxObserver infinite;
  infinite(from_vector(std::vector<float>{-inf, 1.0f}, {2}));
  // PyTorch returns an infinite scale here; a graph quantized with it would compute garbage.
  CHECK_THROWS_WITH_AS(infinite.calculate_qparams(),
                       "MinMaxObserver: calculate_qparams: the observed range [-inf, 1.0] is not finite (PyTorch would "
                       "return an infinite scale)",
                       Error);

  HistogramObserver histogram;
  histogram(tensor({-1.0, 3.0}));
  const Tensor before = histogram.buffer("histogram").clone();
  CHECK_THROWS_WITH_AS(histogram(from_vector(std::vector<float>{0.5f, nan}, {2})),
                       "HistogramObserver: cannot observe a tensor holding NaN (its range is [nan, nan])", Error);
  CHECK_THROWS_WITH_AS(histogram(from_vector(std::vector<float>{inf, 0.0f}, {2})),
                       "HistogramObserver: cannot observe a tensor holding an infinite value (its range is [0.0, inf])",
                       Error);
  CHECK(histogram.buffer("min_val").item<float>() == -1.0f);  // nothing recorded
  CHECK(histogram.buffer("max_val").item<float>() == 3.0f);
  CHECK(equal(histogram.buffer("histogram"), before));

  PerChannelMinMaxObserver per_channel;
  per_channel(ones({3, 2}));
  CHECK_THROWS_WITH_AS(per_channel(ones({4, 2})),
                       "PerChannelMinMaxObserver: expected an input with 3 channels along ch_axis 0 as observed before, "
                       "got shape [4, 2]",
                       Error);
  CHECK(per_channel.buffer("min_val").numel() == 3);
}

TEST_CASE("observers: constructor arguments PyTorch refuses are refused with its words") {
  CHECK_THROWS_WITH_AS(MinMaxObserver(QuantRange{.qscheme = QScheme::PerChannelAffine}),
                       "MinMaxObserver: qscheme only supports torch.per_tensor_symmetric and torch.per_tensor_affine, "
                       "got torch.per_channel_affine",
                       Error);
  CHECK_THROWS_WITH_AS(PerChannelMinMaxObserver(PerChannelMinMaxObserverOptions{.range = {}}),
                       "PerChannelMinMaxObserver: qscheme only supports torch.per_channel_symmetric and "
                       "torch.per_channel_affine, got torch.per_tensor_affine",
                       Error);
  CHECK_THROWS_WITH_AS(MinMaxObserver(QuantRange{.qscheme = QScheme::PerTensorSymmetric, .reduce_range = true}),
                       "MinMaxObserver: cannot reduce range for symmetric quantization for quint8", Error);
  CHECK_THROWS_WITH_AS(HistogramObserver(HistogramObserverOptions{.range = {.dtype = QDType::Float16}}),
                       "observer: only works for the torch.qint8, torch.quint8 and torch.qint32 dtypes, got torch.float16",
                       Error);
  CHECK_THROWS_WITH_AS(MinMaxObserver(QuantRange{.quant_min = 1, .quant_max = 255}),
                       "observer: user-specified quantization range must include 0, got [1, 255]", Error);
  CHECK_THROWS_WITH_AS(MinMaxObserver(QuantRange{.dtype = QDType::QInt8, .quant_min = -200, .quant_max = 100}),
                       "observer: quantization range should be positive and not exceed the maximum bit range (=256), got "
                       "[-200, 100]",
                       Error);
  CHECK_THROWS_WITH_AS(PlaceholderObserver().calculate_qparams(),
                       "calculate_qparams should not be called for PlaceholderObserver", Error);
}

TEST_CASE("observers: FixedQParamsObserver returns its buffers; the pass-through observers return their input") {
  FixedQParamsObserver fixed(FixedQParamsObserverOptions{.scale = 2.0 / 256.0, .zero_point = 128});
  const QParams q = fixed.calculate_qparams();
  CHECK(q.scale.item<float>() == 2.0f / 256.0f);
  CHECK(q.zero_point.dtype() == kInt);
  CHECK(q.zero_point.item<int64_t>() == 128);
  CHECK(keys_of(fixed) == std::vector<std::string>{"scale", "zero_point"});
  const Tensor x = tensor({1.0, -2.0});
  CHECK(fixed(x).is_same(x));
  CHECK(ReuseInputObserver()(x).is_same(x));
  CHECK(PlaceholderObserver()(x).is_same(x));
  CHECK(MinMaxObserver().is_leaf());
}

}  // namespace
}  // namespace tl::ao::quantization
