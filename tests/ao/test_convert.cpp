// tests/ao/test_convert.cpp — convert_fx against PyTorch 1.13 on its onednn engine (tests/ao/gen_convert_cases.py):
// print(converted), .code and print(graph) of resnet18, a small model and the digits CNN, byte for byte, and the
// integers of every quantized value they compute (#33's line: 99% equal, the rest within one quantum, logits within
// two); the profiler's names; and misuse, each refused with the observed model unchanged.
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ao/quantization/convert.h"
#include "ao/quantization/prepare.h"
#include "core/generator.h"
#include "core/grad_mode.h"
#include "fx/interpreter.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "tests/ao/convert_cases.h"

namespace tl::ao::quantization {
namespace {

using testing::calibrated;
using testing::Case;
using testing::check_integers;
using testing::convert_cases;
using testing::Json;
using testing::small_case;
using testing::tensor_of;

// A Sequential whose forward's argument is named as torch.nn.Sequential's, `input` (torch.fx's placeholder; a
// tl::nn::Sequential traces as `x`).
class DigitsCNN : public tl::nn::Sequential {
 public:
  tl::nn::ForwardSignature forward_signature() const override { return {.arg_names = {"input"}}; }
};

// examples/digits_mlp_cnn_pt.py's digits_mlp_cnn: (N, 1, 8, 8) -> (N, 10).
std::shared_ptr<tl::nn::Module> digits_cnn() {
  auto s = std::make_shared<DigitsCNN>();
  using tl::nn::Conv2dOptions;
  s->register_module("conv1", std::make_shared<tl::nn::Conv2d>(
                                  Conv2dOptions{.in_channels = 1, .out_channels = 16, .kernel_size = 3, .padding = 1}));
  s->register_module("relu1", std::make_shared<tl::nn::ReLU>());
  s->register_module("pool", std::make_shared<tl::nn::MaxPool2d>(tl::nn::IntPair(2)));
  s->register_module("conv2", std::make_shared<tl::nn::Conv2d>(
                                  Conv2dOptions{.in_channels = 16, .out_channels = 32, .kernel_size = 3, .padding = 1}));
  s->register_module("relu2", std::make_shared<tl::nn::ReLU>());
  s->register_module("flatten", std::make_shared<tl::nn::Flatten>());
  s->register_module("fc1", std::make_shared<tl::nn::Linear>(32 * 4 * 4, 64));
  s->register_module("relu3", std::make_shared<tl::nn::ReLU>());
  s->register_module("dropout", std::make_shared<tl::nn::Dropout>(0.25));
  s->register_module("fc2", std::make_shared<tl::nn::Linear>(64, 10));
  return s;
}

Case resnet18_case() {
  manual_seed(33);
  Case c{models::resnet18(), {}, {}};
  c.batches = {randn({2, 3, 64, 64}), randn({2, 3, 64, 64})};
  c.input = randn({1, 3, 32, 32});
  c.model->eval();
  return c;
}

Case digits_case() {
  manual_seed(35);
  Case c{digits_cnn(), {}, {}};
  c.batches.push_back(randn({4, 1, 8, 8}).abs() * 4.0);
  c.batches.push_back(randn({4, 1, 8, 8}).abs() * 4.0);
  c.input = randn({2, 1, 8, 8}).abs() * 4.0;
  c.model->eval();
  return c;
}

std::shared_ptr<fx::GraphModule> check_converted(const Case& c, const Json& data) {
  const auto prepared = calibrated(c, data);
  const std::string prepared_text = prepared->str();
  const auto converted = convert_fx(prepared);
  CHECK(converted->code() == data.at("code").get<std::string>());
  CHECK(converted->str() == data.at("str").get<std::string>());
  CHECK(converted->graph().str() == data.at("graph").get<std::string>());
  check_integers(converted, c.input, data);
  CHECK(prepared->str() == prepared_text);  // the observed model is left as it was
  return converted;
}

TEST_CASE("convert_fx: resnet18 prints, codes and computes as PyTorch's converted model") {
  const Json data = convert_cases().at("resnet18");
  check_converted(resnet18_case(), data);
}

TEST_CASE("convert_fx: a small model (add, cat, flatten, linear-relu) and the digits CNN as PyTorch's") {
  const Json data = convert_cases();
  const auto small = check_converted(small_case(data.at("small")), data.at("small"));
  // print_tabular's target column: str(torch.ops.quantized.add) is "quantized.add".
  CHECK(small->graph().tabular().find("  quantized.add  ") != std::string::npos);
  // Profiled, the converted model's ops carry PyTorch's names.
  profiler::Profile prof;
  {
    auto running = prof.start();
    NoGradGuard no_grad;
    (*small)(tensor_of(data.at("small").at("input")));
  }
  const std::string table = prof.key_averages().table();
  for (const char* name : {"aten::quantize_per_tensor", "quantized::conv2d_relu", "quantized::conv2d",
                           "quantized::add", "quantized::cat", "aten::quantized_max_pool2d", "quantized::linear_relu",
                           "quantized::linear", "aten::dequantize"}) {
    CAPTURE(name);
    CHECK(table.find(std::string(name) + " ") != std::string::npos);
  }
  check_converted(digits_case(), data.at("digits"));
}

TEST_CASE("convert_fx: misuse is refused naming the node, and the observed model is unchanged") {
  auto model = std::make_shared<testing::Small>();
  model->eval();
  const Tensor x = randn({2, 3, 8, 8});
  auto prepared = prepare_fx(model, get_default_qconfig_mapping("onednn"), {x});
  const std::string text = prepared->str();
  CHECK_THROWS_WITH_AS(convert_fx(prepared),
                       "convert_fx: observer 'activation_post_process_0' (of node 'x') was never calibrated: run the "
                       "prepared model on calibration data before convert_fx",
                       Error);
  CHECK(prepared->str() == text);
  CHECK_THROWS_WITH_AS(convert_fx(fx::symbolic_trace(model)),
                       "convert_fx: expected the GraphModule prepare_fx returned, got Small", Error);

  // A NaN in a calibration batch: the histogram observer refuses it, naming its node, and keeps its statistics.
  Tensor bad = x.clone();
  bad.index_put_({0, 0, 0, 0}, std::nan(""));
  {
    NoGradGuard no_grad;
    (*prepared)(x);
    const Tensor histogram = prepared->get_buffer("activation_post_process_0.histogram").clone();
    CHECK_THROWS_WITH_AS((*prepared)(bad), doctest::Contains("activation_post_process_0"), Error);
    CHECK_THROWS_WITH_AS((*prepared)(bad), doctest::Contains("HistogramObserver: cannot observe a tensor holding NaN"),
                         Error);
    CHECK(equal(prepared->get_buffer("activation_post_process_0.histogram"), histogram));
  }
  CHECK(convert_fx(prepared)->code().find("torch.ops.quantized.add") != std::string::npos);

  // MinMaxObserver records the NaN, as PyTorch's does; convert_fx then refuses its range, naming the node.
  QConfigMapping minmax;
  minmax.set_global(default_qconfig());
  auto observed = prepare_fx(model, minmax, {x});
  {
    NoGradGuard no_grad;
    (*observed)(bad);
  }
  const std::string observed_text = observed->str();
  CHECK_THROWS_WITH_AS(convert_fx(observed),
                       doctest::Contains("convert_fx: observer 'activation_post_process_0' (of node 'x'): "), Error);
  CHECK_THROWS_WITH_AS(convert_fx(observed), doctest::Contains("min nan should be less than max nan"), Error);
  CHECK(observed->str() == observed_text);

  // An observer of another dtype than the backend's activations (prepare_fx refuses such a qconfig; an observer put
  // in by hand reaches convert_fx).
  auto edited = prepare_fx(model, get_default_qconfig_mapping("onednn"), {x});
  {
    NoGradGuard no_grad;
    (*edited)(x);
  }
  auto int8_observer = std::make_shared<MinMaxObserver>(QuantRange{.dtype = QDType::QInt8});
  (*int8_observer)(x);
  edited->set_submodule("activation_post_process_0", int8_observer);
  CHECK_THROWS_WITH_AS(convert_fx(edited),
                       "convert_fx: observer 'activation_post_process_0' (of node 'x') quantizes to torch.qint8; the "
                       "backend's quantized ops take torch.quint8 activations",
                       Error);
  CHECK(edited->get_submodule("activation_post_process_0") == int8_observer);
}

}  // namespace
}  // namespace tl::ao::quantization
