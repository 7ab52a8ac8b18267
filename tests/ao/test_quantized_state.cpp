// tests/ao/test_quantized_state.cpp — a converted model's state_dict against PyTorch 1.13's
// (tests/ao/gen_state_dict_cases.py): resnet18's keys, the small model's values; PyTorch's state loaded into a freshly
// converted model computes PyTorch's integers; safetensors save / load; misuse refused by key, the model unchanged.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ao/quantization/convert.h"
#include "core/generator.h"
#include "models/resnet.h"
#include "nn/quantized_entries.h"
#include "nn/serialize.h"
#include "tests/ao/convert_cases.h"
#include "tests/support/file_testing.h"
#include "tests/support/tensor_check.h"

namespace tl::ao::quantization {
namespace {

using testing::Json;

Json state_dict_cases() { return testing::cases("state_dict_cases", "gen_state_dict_cases.py"); }

// The generator's description of one entry: dtype, shape, qscheme and axis.
Json describe(const Tensor& t) {
  Json d{{"dtype", dtype_name(t.dtype())}, {"shape", std::vector<int64_t>(t.shape().begin(), t.shape().end())}};
  if (t.is_quantized()) {
    d["qscheme"] = qscheme_name(t.qscheme());
    if (!is_per_tensor(t.qscheme())) d["axis"] = t.q_per_channel_axis();
  }
  return d;
}

// An entry the generator wrote with its values, as a tensor.
Tensor entry_of(const Json& e) {
  const Shape shape(e.at("shape").get<std::vector<int64_t>>());
  const std::string dtype = e.at("dtype").get<std::string>();
  if (dtype == "torch.float32") return testing::tensor_of(e);
  const Tensor ints = from_vector(e.at("values").get<std::vector<int64_t>>(), shape);
  if (dtype == "torch.int64") return ints;
  REQUIRE(dtype == "torch.qint8");
  REQUIRE(e.at("qscheme") == "torch.per_channel_affine");
  return _make_per_channel_quantized_tensor(ints.to(kChar), from_vector(e.at("scales").get<std::vector<double>>(),
                                                                        {shape[0]}),
                                            from_vector(e.at("zero_points").get<std::vector<int64_t>>(), {shape[0]}),
                                            e.at("axis").get<int64_t>());
}

tl::nn::StateDict state_of(const Json& entries) {
  tl::nn::StateDict state;
  for (const Json& entry : entries) state.emplace_back(entry.at(0).get<std::string>(), entry_of(entry.at(1)));
  return state;
}

// The small model of gen_convert_cases.py converted with PyTorch's observer statistics.
std::shared_ptr<fx::GraphModule> small_converted() {
  const Json data = testing::convert_cases().at("small");
  return convert_fx(testing::calibrated(testing::small_case(data), data));
}

// The small model with other weights, converted after a calibration of its own: other qparams everywhere.
std::shared_ptr<fx::GraphModule> other_converted() {
  manual_seed(7);
  auto model = std::make_shared<testing::Small>();
  model->eval();
  auto prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), {randn({2, 3, 8, 8})});
  NoGradGuard no_grad;
  (*prepared)(randn({2, 3, 8, 8}) * 3.0);
  return convert_fx(prepared);
}

void check_same_state(const tl::nn::StateDict& a, const tl::nn::StateDict& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(a[i].first);
    CHECK(a[i].first == b[i].first);
    CHECK(tl::testing::same_tensor(a[i].second, b[i].second));
  }
}

TEST_CASE("quantized state_dict: resnet18's keys, dtypes, shapes and axes are PyTorch 1.13's") {
  manual_seed(33);
  auto model = models::resnet18();
  model->eval();
  auto prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), {randn({1, 3, 32, 32})});
  {
    NoGradGuard no_grad;
    (*prepared)(randn({1, 3, 32, 32}));
  }
  const Json expected = state_dict_cases().at("resnet18");
  const tl::nn::StateDict state = convert_fx(prepared)->state_dict();
  REQUIRE(state.size() == expected.size());
  for (size_t i = 0; i < state.size(); ++i) {
    CAPTURE(i);
    CHECK(state[i].first == expected[i].at(0).get<std::string>());
    CHECK(describe(state[i].second) == expected[i].at(1));
  }
}

TEST_CASE("quantized state_dict: the small model's entries and values are PyTorch 1.13's") {
  const tl::nn::StateDict expected = state_of(state_dict_cases().at("small"));
  const tl::nn::StateDict state = small_converted()->state_dict();
  REQUIRE(state.size() == expected.size());
  for (size_t i = 0; i < state.size(); ++i) {
    const std::string& key = state[i].first;  // not a structured binding: CAPTURE's lambda cannot take one (clang 14)
    const Tensor& t = state[i].second;
    const Tensor& e = expected[i].second;
    CAPTURE(key);
    CHECK(key == expected[i].first);
    if (key != "conv1.weight" && key != "conv1.bias") {
      CHECK(tl::testing::same_tensor(t, e));
      continue;
    }
    // conv1 has bn1 folded into it, which our float kernels round differently from PyTorch's (test_prepare.cpp):
    // the folded values agree to float rounding, the weight's integers within one.
    if (key == "conv1.bias") {
      CHECK_TENSOR_CLOSE(t, e, 1e-6, 1e-7);
      continue;
    }
    REQUIRE(describe(t) == describe(e));
    CHECK_TENSOR_CLOSE(t.q_per_channel_scales(), e.q_per_channel_scales(), 1e-6, 0.0);
    CHECK_TENSOR_CLOSE(t.int_repr().to(kLong), e.int_repr().to(kLong), 0.0, 1.0);
  }
}

TEST_CASE("quantized load_state_dict: PyTorch's state in a freshly converted model computes PyTorch's integers") {
  const Json data = testing::convert_cases().at("small");
  auto converted = other_converted();
  converted->load_state_dict(state_of(state_dict_cases().at("small")));
  testing::check_integers(converted, testing::tensor_of(data.at("input")), data);
}

TEST_CASE("quantized safetensors: save, then load into a freshly converted model: the same state and integers") {
  tl::testing::ScratchDir tmp;
  const std::string path = tmp.file("small_int8.safetensors");
  const auto source = small_converted();
  tl::nn::save(*source, path);
  auto loaded = other_converted();
  tl::nn::load(*loaded, path);
  check_same_state(loaded->state_dict(), source->state_dict());
  const Tensor x = randn({2, 3, 8, 8});
  NoGradGuard no_grad;
  CHECK(equal((*loaded)(x), (*source)(x)));
}

TEST_CASE("quantized load_state_dict: a missing scale, a wrong dtype or shape is refused by key, nothing changes") {
  auto model = small_converted();
  const tl::nn::StateDict before = model->state_dict();
  const tl::nn::StateDict good = other_converted()->state_dict();
  const auto without = [&](const std::string& key) {
    tl::nn::StateDict d;
    for (const auto& entry : good)
      if (entry.first != key) d.push_back(entry);
    return d;
  };
  const auto with = [&](const std::string& key, const Tensor& t) {
    tl::nn::StateDict d = good;
    for (auto& entry : d)
      if (entry.first == key) entry.second = t;
    return d;
  };
  const Tensor weight = model->get_submodule("conv2")->state_dict().at(0).second;
  CHECK_THROWS_WITH_AS(model->load_state_dict(without("conv2.scale")),
                       "Error(s) in loading state_dict for GraphModule:\n\tMissing key(s) in state_dict: "
                       "\"conv2.scale\". ",
                       Error);
  CHECK_THROWS_WITH_AS(model->load_state_dict(with("conv2.weight", weight.dequantize())),
                       doctest::Contains("QuantizedConv2d: 'conv2.weight' is torch.float32, expected a torch.qint8 "
                                         "quantized tensor"),
                       Error);
  CHECK_THROWS_WITH_AS(model->load_state_dict(with("fc1.weight", weight)),
                       doctest::Contains("size mismatch for fc1.weight: copying a param with shape [8, 8, 3, 3] from "
                                         "checkpoint, the shape in current model is [32, 256]."),
                       Error);
  CHECK_THROWS_WITH_AS(model->load_state_dict(with("fc2.zero_point", full({}, 300, kLong))),
                       doctest::Contains("QuantizedLinear: 'fc2.zero_point' is 300, outside torch.quint8's [0, 255]"),
                       Error);
  const Tensor asymmetric = quantize_per_tensor(weight.dequantize(), 0.01, 3, kQInt8);
  CHECK_THROWS_WITH_AS(model->load_state_dict(with("conv2.weight", asymmetric)),
                       doctest::Contains("'conv2.weight': "), Error);
  check_same_state(model->state_dict(), before);

  // A file whose per-channel weight lacks its zero points: refused naming the entry, the model unchanged.
  tl::testing::ScratchDir tmp;
  const std::string path = tmp.file("bad.safetensors");
  tl::nn::StateDict plain;
  for (const auto& entry : tl::nn::split_quantized(good))
    if (entry.first != "conv1.weight.q_per_channel_zero_points") plain.push_back(entry);
  tl::nn::save_safetensors(path, plain);
  CHECK_THROWS_WITH_AS(tl::nn::load(*model, path),
                       doctest::Contains("quantized tensor 'conv1.weight' has no "
                                         "'conv1.weight.q_per_channel_zero_points'"),
                       Error);
  check_same_state(model->state_dict(), before);
}

}  // namespace
}  // namespace tl::ao::quantization
