// tests/ao/test_prepare.cpp — fuse_fx and prepare_fx against PyTorch 1.13 (tests/ao/gen_prepare_cases.py):
// print(prepared), .code and state_dict keys of resnet18 and of a small model, every observer's qparams after
// calibrating with the same weights and batches; and misuse.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "ao/nn/intrinsic.h"
#include "ao/quantization/fuse.h"
#include "ao/quantization/prepare.h"
#include "core/grad_mode.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/ao/ao_cases.h"

namespace tl::ao::quantization {
namespace {

using testing::Json;
using testing::number;
using testing::Small;
using testing::tensor_of;

Json prepare_cases() { return testing::cases("prepare_cases", "gen_prepare_cases.py"); }

std::vector<std::string> keys_of(const tl::nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& [key, value] : m.state_dict()) out.push_back(key);
  return out;
}

void check_texts(const fx::GraphModule& prepared, const Json& expected) {
  CHECK(prepared.str() == expected.at("str").get<std::string>());
  CHECK(prepared.code() == expected.at("code").get<std::string>());
  CHECK(keys_of(prepared) == expected.at("state_dict_keys").get<std::vector<std::string>>());
}

TEST_CASE("prepare_fx: resnet18 prints, codes and names its state as PyTorch's prepared model") {
  const Json data = prepare_cases();
  auto model = models::resnet18();
  model->eval();
  const auto prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), {randn({1, 3, 224, 224})});
  check_texts(*prepared, data.at("resnet18"));
  // The observed model is a GraphModule like any other: it traces again, and clones with its shared observers.
  // (Retracing names a shared module by its first path, as torch.fx's tracer does, so the code differs.)
  const Tensor x = randn({1, 3, 64, 64});
  CHECK(allclose((*fx::symbolic_trace(prepared))(x), (*prepared)(x), 1e-5, 1e-6));
  const auto copy = std::static_pointer_cast<fx::GraphModule>(prepared->clone());
  CHECK(copy->get_submodule("activation_post_process_2") == copy->get_submodule("activation_post_process_1"));
  CHECK(prepared->get_submodule("activation_post_process_2") == prepared->get_submodule("activation_post_process_1"));
  // The original model is left as it was: no observer, conv and batch norm apart.
  CHECK_FALSE(model->has_child("activation_post_process_0"));
  CHECK(model->get_submodule("conv1")->type_name() == "Conv2d");
  CHECK(model->has_child("bn1"));
}

TEST_CASE("prepare_fx: a small model's observers after calibration give PyTorch's qparams") {
  const Json data = prepare_cases().at("small");
  auto model = std::make_shared<Small>();
  {
    NoGradGuard no_grad;
    for (const auto& [key, value] : model->state_dict()) {
      Tensor target = value;  // the model's own tensor
      if (data.at("weights").contains(key)) target.copy_(tensor_of(data.at("weights").at(key)));
    }
  }
  model->eval();
  std::vector<Tensor> batches;
  for (const Json& b : data.at("batches")) batches.push_back(tensor_of(b));
  const auto prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), {batches[0]});
  check_texts(*prepared, data);
  const Tensor expected_out = (*model)(batches[0]);
  for (const Tensor& x : batches) {
    NoGradGuard no_grad;
    const Tensor y = (*prepared)(x);
    if (&x == &batches[0]) CHECK(allclose(y, expected_out, 1e-4, 1e-5));  // observers pass values through
  }
  for (const auto& item : data.at("observers").items()) {
    const std::string name = item.key();
    const Json& expected = item.value();
    CAPTURE(name);
    const auto obs = std::dynamic_pointer_cast<UniformQuantizationObserverBase>(prepared->get_submodule(name));
    REQUIRE(obs != nullptr);
    // Our conv and linear kernels round differently from PyTorch's, so the statistics agree to float
    // rounding, and the qparams to it (a zero point may move by one quantum at a rounding tie).
    CHECK(obs->buffer("min_val").item<double>() == doctest::Approx(number(expected.at("min_val"))).epsilon(1e-5));
    CHECK(obs->buffer("max_val").item<double>() == doctest::Approx(number(expected.at("max_val"))).epsilon(1e-5));
    const QParams q = obs->calculate_qparams();
    CHECK(q.scale.item<double>() == doctest::Approx(number(expected.at("scale")[0])).epsilon(1e-4));
    CHECK(std::abs(q.zero_point.item<int64_t>() - expected.at("zero_point")[0].get<int64_t>()) <= 1);
  }
}

TEST_CASE("fuse_fx: conv-bn-relu becomes ConvReLU2d with the batch norm folded, linear-relu LinearReLU") {
  auto model = std::make_shared<Small>();
  model->eval();
  const auto fused = fuse_fx(model);
  CHECK(fused->get_submodule("conv1")->type_name() == "ConvReLU2d");
  CHECK(fused->get_submodule("fc1")->type_name() == "LinearReLU");
  CHECK_FALSE(fused->has_child("bn1"));
  const Tensor x = randn({2, 3, 8, 8});
  CHECK(allclose((*fused)(x), (*model)(x), 1e-4, 1e-5));
}

TEST_CASE("prepare_fx: misuse is refused, naming what was wrong, and the model is unchanged") {
  auto model = std::make_shared<Small>();
  CHECK_THROWS_WITH_AS(prepare_fx(model, get_default_qconfig_mapping("onednn"), {randn({1, 3, 8, 8})}),
                       "prepare_fx: post-training quantization needs a model in eval mode, got Small in training "
                       "mode (call model.eval() first; PyTorch fails with \"Fusion only for eval!\")",
                       Error);
  model->eval();
  CHECK_THROWS_WITH_AS(prepare_fx(model, get_default_qconfig_mapping("onednn"), {randn({1, 3, 8, 8}), randn({1})}),
                       doctest::Contains("Small.forward takes 1 input(s) (x), got 2"), Error);
  QConfigMapping int32_activations;
  int32_activations.set_global(QConfig{
      with_args<MinMaxObserver>(QuantRange{.dtype = QDType::QInt32}), default_per_channel_weight_observer()});
  CHECK_THROWS_WITH_AS(prepare_fx(model, int32_activations, {randn({1, 3, 8, 8})}),
                       "prepare_fx: node 'fc2' (torch.nn.Linear): its qconfig observes activations as torch.qint32; "
                       "the backend quantizes activations as torch.quint8",
                       Error);
  CHECK(model->get_submodule("conv1")->type_name() == "Conv2d");
  CHECK(keys_of(*model).size() == 13);
  // A None qconfig leaves everything in float: no observer at all.
  const auto untouched = prepare_fx(model, QConfigMapping(), {randn({1, 3, 8, 8})});
  for (const auto& [name, m] : untouched->named_modules()) CHECK(name.find("activation_post_process") == std::string::npos);
}

}  // namespace
}  // namespace tl::ao::quantization
