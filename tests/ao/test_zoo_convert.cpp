// tests/ao/test_zoo_convert.cpp — prepare_fx / convert_fx on torchvision's conv nets against PyTorch 1.13 on its
// onednn engine (tests/ao/gen_zoo_convert_cases.py, 64 x 64 inputs, wide_resnet50_2 32 x 32, inception_v3 79 x 79):
// print(converted) and .code byte for byte, every quantized value the converted model computes with PyTorch's shape
// and qparams and its integers on #33's line (>= 99% equal, the rest within one quantum) on a sample of 128 evenly
// spaced, and the logits within two quanta. The weights are our builders' after manual_seed(0) (PyTorch's draws, bit for bit) with the zoo's
// BN rule, so folding matters: it must round as PyTorch's does. The sanitizer run leaves out alexnet and
// wide_resnet50_2 (61M and 69M weights, about 1 GB each), and mobilenet_v3_large, resnext50_32x4d and inception_v3
// (27M weights), whose layers the other cases already run.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "ao/quantization/convert.h"
#include "ao/quantization/prepare.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/registry.h"
#include "ops/ops.h"
#include "tests/ao/convert_cases.h"
#include "tests/support/zoo_references.h"

namespace tl::ao::quantization {
namespace {

using testing::Json;
using testing::number;

const Json& zoo_cases() {
  static const Json data = testing::cases("zoo_convert_cases", "gen_zoo_convert_cases.py");
  return data;
}

// The generator's steps: seed 0, the builder, the BN rule, prepare_fx and one calibration batch; then each observer
// replaced by a fixed one of PyTorch's qparams, and convert_fx.
std::shared_ptr<fx::GraphModule> converted(const std::string& name, const Json& data) {
  manual_seed(0);
  const std::shared_ptr<tl::nn::Module> model = models::get_model(name);
  tl::testing::apply_bn_rule(*model);
  model->eval();
  const Tensor batch = tl::testing::zoo_input(2, data.at("size").get<int64_t>());
  auto prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), {batch});
  {
    NoGradGuard no_grad;
    (*prepared)(batch);
  }
  for (const auto& item : data.at("qparams").items()) {
    REQUIRE_MESSAGE(prepared->has_child(item.key()), "no observer ", item.key());
    prepared->set_submodule(item.key(), std::make_shared<FixedQParamsObserver>(FixedQParamsObserverOptions{
                                            .scale = number(item.value()[0]), .zero_point = item.value()[1].get<int64_t>()}));
  }
  return convert_fx(prepared);
}

void check_model(const std::string& name) {
  const Json& data = zoo_cases().at(name);
  const auto gm = converted(name, data);
  CHECK(gm->code() == data.at("code").get<std::string>());
  CHECK(gm->str() == data.at("str").get<std::string>());
  testing::check_integers(gm, tl::testing::zoo_input(3, data.at("size").get<int64_t>()).narrow(0, 2, 1), data);
}

}  // namespace

TEST_CASE("convert_fx: mobilenet_v2 (ReLU6, adaptive_avg_pool2d, adds) prints, codes and computes as PyTorch's") {
  check_model("mobilenet_v2");
}

TEST_CASE("convert_fx: mobilenet_v3_small (hardswish, hardsigmoid, squeeze-excitation's mul) prints, codes and computes as PyTorch's") {
  check_model("mobilenet_v3_small");
}

TEST_CASE("convert_fx: efficientnet_b0 (SiLU in float, sigmoid, mul, stochastic depth) prints, codes and computes as PyTorch's") {
  check_model("efficientnet_b0");
}

TEST_CASE("convert_fx: regnet_y_400mf (grouped convs, squeeze-excitation, add_relu) prints, codes and computes as PyTorch's") {
  check_model("regnet_y_400mf");
}

TEST_CASE("convert_fx: mobilenet_v3_large (hardswish, squeeze-excitation in five stages) prints, codes and computes as PyTorch's") {
  if (tl::testing::reduced_for_sanitizer()) return;
  check_model("mobilenet_v3_large");
}

TEST_CASE("convert_fx: resnext50_32x4d (32-group bottlenecks, a ReLU module called three times) prints, codes and computes as PyTorch's") {
  if (tl::testing::reduced_for_sanitizer()) return;
  check_model("resnext50_32x4d");
}

TEST_CASE("convert_fx: wide_resnet50_2 (bottlenecks twice as wide) prints, codes and computes as PyTorch's") {
  if (tl::testing::reduced_for_sanitizer()) return;
  check_model("wide_resnet50_2");
}

TEST_CASE("convert_fx: squeezenet1_0 (Fire's cat of two ConvReLU2d, ceil-mode max pooling, a conv head) prints, codes and computes as PyTorch's") {
  check_model("squeezenet1_0");
}

// googlenet's and inception_v3's weights come from nn::init::trunc_normal_, PyTorch's draws to the bit only with
// erfinv's Horner steps fused as ATen's AVX2 / AVX-512 kernel fuses them (one ulp off in 13% of draws otherwise).
TEST_CASE("convert_fx: googlenet (four-branch cats, functional ReLU fused, a namedtuple return annotation) prints, codes and computes as PyTorch's") {
  check_model("googlenet");
}

TEST_CASE("convert_fx: mnasnet0_5 (x.mean([2, 3]) on the quint8 tensor) prints, codes and computes as PyTorch's") {
  check_model("mnasnet0_5");
}

TEST_CASE("convert_fx: densenet121 (QuantizedBNReLU2d after each cat, AvgPool2d on quint8) prints, codes and computes as PyTorch's") {
  check_model("densenet121");
}

TEST_CASE("convert_fx: inception_v3 (F.avg_pool2d on quint8 in every block, 79 x 79) prints, codes and computes as PyTorch's") {
  if (tl::testing::reduced_for_sanitizer()) return;
  check_model("inception_v3");
}

TEST_CASE("convert_fx: alexnet (LinearReLU, adaptive average pooling to 6 x 6) prints, codes and computes as PyTorch's") {
  if (tl::testing::reduced_for_sanitizer()) return;
  check_model("alexnet");
}

}  // namespace tl::ao::quantization
