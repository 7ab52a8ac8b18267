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
#include "tests/ao/ao_cases.h"

namespace tl::ao::quantization {
namespace {

using testing::Json;
using testing::number;
using testing::tensor_of;

Json convert_cases() { return testing::cases("convert_cases", "gen_convert_cases.py"); }

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

// A model as the generator builds it, eval mode, with its calibration batches and input.
struct Case {
  std::shared_ptr<tl::nn::Module> model;
  std::vector<Tensor> batches;
  Tensor input;
};

Case resnet18_case() {
  manual_seed(33);
  Case c{models::resnet18(), {}, {}};
  c.batches = {randn({2, 3, 64, 64}), randn({2, 3, 64, 64})};
  c.input = randn({1, 3, 32, 32});
  c.model->eval();
  return c;
}

Case small_case(const Json& data) {
  Case c{std::make_shared<testing::Small>(), {}, tensor_of(data.at("input"))};
  NoGradGuard no_grad;
  for (const auto& [key, value] : c.model->state_dict()) {
    Tensor target = value;  // the model's own tensor
    if (data.at("weights").contains(key)) target.copy_(tensor_of(data.at("weights").at(key)));
  }
  for (const Json& b : data.at("batches")) c.batches.push_back(tensor_of(b));
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

// prepare_fx, then calibration on the batches. Our float kernels round differently from PyTorch's, so the
// observers' statistics then agree to rounding (test_prepare.cpp checks that); they are replaced by PyTorch's, so
// the qparams, which the texts print, are PyTorch's to the bit.
std::shared_ptr<fx::GraphModule> calibrated(const Case& c, const Json& data) {
  auto prepared = prepare_fx(c.model, get_default_qconfig_mapping("onednn"), {c.batches[0]});
  NoGradGuard no_grad;
  for (const Tensor& b : c.batches) (*prepared)(b);
  for (const auto& observer : data.at("observers").items()) {
    const auto module = prepared->get_submodule(observer.key());
    for (const auto& buffer : observer.value().items()) module->buffer(buffer.key()) = tensor_of(buffer.value());
  }
  return prepared;
}

// Runs a GraphModule, keeping every quantized value by node name.
class Recorder : public fx::Interpreter {
 public:
  using fx::Interpreter::Interpreter;
  fx::NodeValue run_node(fx::Node& n) override {
    fx::NodeValue v = fx::Interpreter::run_node(n);
    if (v.is_tensor() && v.tensor().defined() && v.tensor().is_quantized()) values[n.name()] = v.tensor();
    return v;
  }
  std::map<std::string, Tensor> values;
};

// The node whose value the graph's output dequantizes: the logits, quantized.
std::string last_quantized(const fx::GraphModule& gm) {
  const fx::Node* dequantize = gm.graph().output_node()->args().at(0).node();
  return dequantize->args().at(0).node()->name();
}

// #33's numerics: every quantized value PyTorch computes is computed here with its qparams, its integers equal on
// at least 99% of elements and within one quantum elsewhere (two for the logits); the logits then within two
// quanta of PyTorch's.
void check_integers(const std::shared_ptr<fx::GraphModule>& converted, const Tensor& input, const Json& data) {
  Recorder recorder(converted);
  NoGradGuard no_grad;
  const Tensor logits = recorder.run(input).reshape({-1});
  const Json& expected = data.at("ints");
  const std::string last = last_quantized(*converted);
  CHECK(recorder.values.size() == expected.size());
  for (const auto& item : expected.items()) {
    const std::string name = item.key();
    const Json& e = item.value();
    CAPTURE(name);
    REQUIRE(recorder.values.count(name) == 1);
    const Tensor& q = recorder.values.at(name);
    CHECK(q.shape() == Shape(e.at("shape").get<std::vector<int64_t>>()));
    CHECK(q.q_scale() == e.at("scale").get<double>());
    CHECK(q.q_zero_point() == e.at("zero_point").get<int64_t>());
    const Tensor ints = q.int_repr().to(kLong).contiguous().reshape({-1});
    const auto want = e.at("values").get<std::vector<int64_t>>();
    REQUIRE(ints.numel() == static_cast<int64_t>(want.size()));
    const int64_t* got = ints.data<int64_t>();
    int64_t equal = 0, worst = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      const int64_t d = std::abs(got[i] - want[i]);
      equal += d == 0 ? 1 : 0;
      worst = std::max(worst, d);
    }
    CHECK(static_cast<double>(equal) >= 0.99 * static_cast<double>(want.size()));
    CHECK(worst <= (name == last ? 2 : 1));
  }
  const double quantum = recorder.values.at(last).q_scale();
  const auto want = data.at("logits");
  REQUIRE(logits.numel() == static_cast<int64_t>(want.size()));
  for (size_t i = 0; i < want.size(); ++i)
    CHECK(std::abs(logits[static_cast<int64_t>(i)].item<double>() - number(want[i])) <= 2 * quantum + 1e-6);
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
