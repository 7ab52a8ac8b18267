// tests/fx/test_optimize_for_inference.cpp — the inference pass: optimized vs eager ResNet18/50 (fp32
// within 1e-4, bf16 within 2%), several input shapes, concurrent callers, the printed graph, the
// interpreters, the arena plan, and errors for bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

#include "core/generator.h"
#include "core/op_kind.h"
#include "core/parallel.h"
#include "core/warning.h"
#include "fx/interpreter.h"
#include "fx/passes/inference_modules.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/profiling_interpreter.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "nn/layers.h"
#include "nn/module_hook.h"
#include "ops/ops.h"
#include "tests/support/bn_calibration.h"
#include "tests/support/logits_check.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

std::shared_ptr<nn::Module> calibrated(std::shared_ptr<nn::Module> model) {
  testing::calibrate_batch_norms(*model, {4, 3, 64, 64});
  model->eval();
  return model;
}

std::shared_ptr<nn::Module> resnet18_model() {
  static std::shared_ptr<nn::Module> model = [] {
    manual_seed(10);
    return calibrated(models::resnet18());
  }();
  return model;
}


InferenceOptions small_example() { return {.example_input_shape = {1, 3, 64, 64}}; }

TEST_CASE("optimize_for_inference: ResNet18 fp32 matches eager at 224 and at an odd size") {
  auto model = resnet18_model();
  auto optimized = optimize_for_inference(model, {});  // prepared for [1, 3, 224, 224]
  Tensor x = randn({1, 3, 224, 224});
  const Tensor expected = (*model)(x);
  CHECK_LOGITS_CLOSE((*optimized)(x), expected);
  CHECK_LOGITS_CLOSE((*optimized)(x), expected);  // the arena plan, second run
  // A new shape: new primitives, weights packed again, a new plan.
  Tensor odd = randn({3, 3, 97, 131});
  const Tensor odd_expected = (*model)(odd);
  CHECK_LOGITS_CLOSE((*optimized)(odd), odd_expected);
  CHECK_LOGITS_CLOSE((*optimized)(odd), odd_expected);
  CHECK_LOGITS_CLOSE((*optimized)(x), expected);  // the first shape's plan still works
  // Direct convolution everywhere matches too.
  auto direct = optimize_for_inference(model, {.winograd = false, .example_input_shape = {}});
  CHECK(direct->get_submodule("layer1.0.conv1")->extra_repr().find("winograd") == std::string::npos);
  CHECK_LOGITS_CLOSE((*direct)(odd), odd_expected);
}

TEST_CASE("optimize_for_inference: ResNet50 fp32 matches eager") {
  manual_seed(11);
  auto model = calibrated(models::resnet50());
  auto optimized = optimize_for_inference(model, small_example());
  for (const Shape& shape : {Shape{1, 3, 64, 64}, Shape{3, 3, 97, 131}}) {
    CAPTURE(shape);
    Tensor x = randn(shape);
    const Tensor expected = (*model)(x);
    CHECK_LOGITS_CLOSE((*optimized)(x), expected);
    CHECK_LOGITS_CLOSE((*optimized)(x), expected);
  }
}

TEST_CASE("optimize_for_inference: bf16 logits stay within 2% of fp32") {
  auto model = resnet18_model();
  InferenceOptions options = small_example();
  options.precision = InferencePrecision::BFloat16;
  auto optimized = optimize_for_inference(model, options);
  for (const Shape& shape : {Shape{1, 3, 224, 224}, Shape{3, 3, 97, 131}}) {
    CAPTURE(shape);
    Tensor x = randn(shape);
    const Tensor expected = (*model)(x);
    const Tensor actual = (*optimized)(x);
    CHECK(actual.dtype() == DType::Float32);
    const double error = testing::relative_error(actual, expected);
    MESSAGE("bf16 relative error of the logits: ", error);
    CHECK(error < 0.02);
    CHECK(testing::relative_error((*optimized)(x), expected) == doctest::Approx(error));
  }
}

TEST_CASE("optimize_for_inference: the graph has fused, readable nodes and runs in the interpreters") {
  auto model = resnet18_model();
  auto optimized = optimize_for_inference(model, small_example());
  const std::string graph = optimized->graph().str();
  const std::string code = optimized->code();
  INFO(code);
  CHECK(optimized->graph().find_nodes(Opcode::CallFunction, "torch.to_dense").size() == 1);
  CHECK(code.find("to_dense = torch.to_dense(avgpool, 512") != std::string::npos);
  CHECK(code.find("operator.add") == std::string::npos);
  CHECK(code.find("bn1") == std::string::npos);
  size_t convs = 0, sums = 0;
  for (Node* n : optimized->graph().find_nodes(Opcode::CallModule)) {
    auto conv = std::dynamic_pointer_cast<MkldnnConv2d>(optimized->get_submodule(n->target()));
    if (!conv) continue;
    ++convs;
    sums += conv->sum();
    CHECK(n->args().size() == (conv->sum() ? 2u : 1u));
  }
  CHECK(convs == 20);
  CHECK(sums == 8);
  CHECK(optimized->get_submodule("layer1.0.conv2")->extra_repr() ==
        "64, 64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), post_ops=[sum, relu], algorithm=winograd");
  CHECK(optimized->get_submodule("layer1.0.conv1")->extra_repr() ==
        "64, 64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), post_ops=[relu], algorithm=winograd");
  // Winograd only for 3x3 stride-1 convs.
  CHECK(optimized->get_submodule("layer2.0.conv1")->extra_repr() ==
        "64, 128, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), post_ops=[relu]");
  CHECK(optimized->get_submodule("maxpool")->type_name() == "MkldnnMaxPool2d");
  CHECK(optimized->get_submodule("fc")->extra_repr() == "in_features=512, out_features=1000, bias=True");
  CHECK(optimized->get_submodule("fc")->type_name() == "MkldnnLinear");

  Tensor x = randn({2, 3, 64, 64});
  const Tensor expected = (*model)(x);
  CHECK_LOGITS_CLOSE(Interpreter(optimized).run(x), expected);
  ProfilingInterpreter profiler(optimized);
  CHECK_LOGITS_CLOSE(profiler.run(TensorList{x}).at(0), expected);
  CHECK(profiler.summary(true).find("layer1_0_conv2") != std::string::npos);
  // Tracing the optimized module gives its own graph back.
  CHECK(symbolic_trace(optimized)->graph().str() == graph);
  CHECK_LOGITS_CLOSE((*optimized->clone())(x), expected);
}

TEST_CASE("optimize_for_inference: an add is matched by what it calls, so alpha=1 spelled out fuses and alpha=2 does not") {
  // The residual adds are read off their resolved calls, not their spelling: a keyword alpha=1 is the
  // plain add (a sum post-op), alpha=2 is not a sum and stays an add.
  for (const int64_t alpha : {1, 2}) {
    CAPTURE(alpha);
    auto traced = symbolic_trace(resnet18_model());
    for (Node* n : traced->graph().find_nodes(Opcode::CallFunction, "operator.add")) n->update_kwarg("alpha", Argument(alpha));
    traced->recompile();
    auto optimized = optimize_for_inference(traced, small_example());
    size_t sums = 0;
    for (Node* n : optimized->graph().find_nodes(Opcode::CallModule))
      if (auto conv = std::dynamic_pointer_cast<MkldnnConv2d>(optimized->get_submodule(n->target()))) sums += conv->sum();
    CHECK(sums == (alpha == 1 ? 8u : 0u));
    Tensor x = randn({1, 3, 64, 64});
    CHECK_LOGITS_CLOSE((*optimized)(x), (*traced)(x));
  }
}

TEST_CASE("optimize_for_inference: a conv after an op without an inference version gets blocked input") {
  // Hardswish has no blocked version, so the second conv's 16 channels arrive dense: converted to the
  // blocked layout, not run by oneDNN's reference kernel (which would warn that it is slow).
  manual_seed(3);
  auto model = std::make_shared<nn::Sequential>(
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 3, .out_channels = 16, .kernel_size = 3, .padding = 1}),
      std::make_shared<nn::Hardswish>(),
      std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 16, .out_channels = 8, .kernel_size = 3, .padding = 1}));
  model->eval();
  std::vector<std::string> warnings;
  const WarningHandler previous = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
  auto optimized = optimize_for_inference(model, {.example_input_shape = {1, 3, 32, 32}});
  const Tensor x = randn({2, 3, 32, 32});
  const Tensor got = (*optimized)(x);
  set_warning_handler(previous);
  for (const std::string& w : warnings) CHECK_MESSAGE(w.find("slow") == std::string::npos, w);
  const std::string code = optimized->code();
  INFO(code);
  CHECK(code.find("to_mkldnn = torch.to_mkldnn(_1)") != std::string::npos);
  CHECK(code.find("torch.to_mkldnn(x") == std::string::npos);  // the image itself stays dense
  CHECK_TENSOR_CLOSE(got, (*model)(x), 1e-4, 1e-4);
}

// conv -> bn -> F::relu(inplace) -> conv, as torchvision's BasicConv2d (googlenet, inception_v3): the in-place
// relu is what the second conv reads.
class InplaceReluBlock : public nn::Module {
 public:
  InplaceReluBlock() {
    register_module("conv1", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 3, .out_channels = 16, .kernel_size = 3}));
    register_module("bn", std::make_shared<nn::BatchNorm2d>(16));
    register_module("conv2", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = 16, .out_channels = 8, .kernel_size = 3}));
  }
  std::string type_name() const override { return "InplaceReluBlock"; }
  using nn::Module::forward;
  Tensor forward(const Tensor& x) override {
    const Tensor y = submodule("bn")(submodule("conv1")(x));
    return submodule("conv2")(nn::functional::relu(y, /*inplace=*/true));
  }
};

TEST_CASE("optimize_for_inference: an in-place relu between convs is kept (it was lost to a layout copy)") {
  // Before, the second conv read the first conv's blocked output and relu_ updated a dense copy nobody read:
  // inception_v3's optimized logits were 6.5e4 times their size off.
  manual_seed(4);
  auto model = calibrated(std::make_shared<InplaceReluBlock>());
  const Tensor x = randn({2, 3, 16, 16});
  const Tensor expected = (*model)(x);
  for (const InferencePrecision precision : {InferencePrecision::Float32, InferencePrecision::BFloat16}) {
    auto optimized = optimize_for_inference(model, {.precision = precision, .example_input_shape = x.shape()});
    INFO(optimized->code());
    if (precision == InferencePrecision::Float32) CHECK_LOGITS_CLOSE((*optimized)(x), expected);
    else CHECK(testing::relative_error((*optimized)(x), expected) < 0.02);
  }
}

TEST_CASE("optimize_for_inference: a conv that pads its input first stays a Conv2d, the others fold") {
  // "same" with a 3x3 kernel pads (1, 1) in the convolution itself and folds; a 2x2 "same" pads its
  // input's right and bottom first, and a reflect padding_mode pads the input: both stay eager convs.
  manual_seed(4);
  auto conv = [](int64_t in, int64_t out, nn::IntPair k, nn::functional::Padding2d padding, std::string mode) {
    return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = k,
                                                          .padding = std::move(padding), .padding_mode = std::move(mode)});
  };
  auto model = std::make_shared<nn::Sequential>(conv(3, 16, 3, "same", "zeros"), std::make_shared<nn::ReLU>(),
                                                conv(16, 16, 2, "same", "zeros"), conv(16, 8, 3, 1, "reflect"));
  model->eval();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {1, 3, 16, 16}});
  std::vector<std::string> kinds;
  for (Node* n : optimized->graph().find_nodes(Opcode::CallModule))
    kinds.push_back(optimized->get_submodule(n->target())->type_name());
  CHECK(std::count(kinds.begin(), kinds.end(), "MkldnnConv2d") == 1);
  CHECK(std::count(kinds.begin(), kinds.end(), "Conv2d") == 2);
  const Tensor x = randn({2, 3, 15, 16});
  CHECK_TENSOR_CLOSE((*optimized)(x), (*model)(x), 1e-4, 1e-4);
  CHECK_THROWS_WITH_AS(MkldnnConv2d(*conv(16, 8, 3, 1, "reflect"), false, false, DType::Float32, false),
                       "MkldnnConv2d: the conv pads its input first (padding=(1, 1), padding_mode=reflect); only a conv "
                       "padding symmetrically with zeros folds", Error);
}

TEST_CASE("optimize_for_inference: each rewrite can be turned off and the result still matches eager") {
  auto model = resnet18_model();
  manual_seed(12);
  Tensor x = randn({2, 3, 64, 64});
  const Tensor expected = (*model)(x);
  struct Switch {
    std::string name;
    bool InferenceOptions::*flag;
  };
  for (const Switch& sw : {Switch{"fold_conv_bn", &InferenceOptions::fold_conv_bn},
                          Switch{"inference_layouts", &InferenceOptions::inference_layouts},
                          Switch{"fuse_relu", &InferenceOptions::fuse_relu}, Switch{"fuse_add", &InferenceOptions::fuse_add},
                          Switch{"inference_pools", &InferenceOptions::inference_pools},
                          Switch{"inference_linear", &InferenceOptions::inference_linear}}) {
    CAPTURE(sw.name);
    InferenceOptions options{.example_input_shape = {}};
    options.*sw.flag = false;
    auto optimized = optimize_for_inference(model, options);
    const std::string code = optimized->code();
    INFO(code);
    const std::string conv1 = optimized->get_submodule("layer1.0.conv1")->type_name();
    const std::string conv2 = optimized->get_submodule("layer1.0.conv2")->extra_repr();
    const std::string maxpool = optimized->get_submodule("maxpool")->type_name();
    const std::string fc = optimized->get_submodule("fc")->type_name();
    const std::vector<Node*> nodes = optimized->graph().node_list();
    const bool has_bn = code.find("bn1") != std::string::npos;
    const bool has_add = std::any_of(nodes.begin(), nodes.end(), [](const Node* n) { return n->op_kind() == OpKind::Add; });
    const std::string flag = sw.name;
    CHECK(has_bn == (flag == "fold_conv_bn"));
    CHECK((conv1 == "Conv2d") == (flag == "inference_layouts"));
    CHECK((fc == "Linear") == (flag == "inference_layouts" || flag == "inference_linear"));
    // Unfolded, each conv feeds a BatchNorm: nothing after it folds, and the pool reads a dense ReLU.
    const bool unfused = flag == "inference_layouts" || flag == "fold_conv_bn";
    CHECK(has_add == (unfused || flag == "fuse_add"));
    // The stem's pool takes the inference layout only after a conv with its ReLU folded in.
    CHECK((maxpool == "MaxPool2d") == (unfused || flag == "fuse_relu" || flag == "inference_pools"));
    if (flag == "fuse_relu") CHECK(conv2.find("post_ops=[sum]") != std::string::npos);
    if (flag == "fuse_add") CHECK(conv2.find("post_ops") == std::string::npos);  // its user is the add
    if (flag == "inference_layouts")
      CHECK(optimized->graph().find_nodes(Opcode::CallFunction, "torch.to_mkldnn").empty());
    CHECK_LOGITS_CLOSE((*optimized)(x), expected);
  }
}

TEST_CASE("optimize_for_inference: the arena reuses buffers and callers on two threads agree") {
  auto model = resnet18_model();
  auto optimized = optimize_for_inference(model, small_example());
  const ArenaStats stats = optimized->arena_stats({2, 3, 64, 64});
  MESSAGE("arena ", stats.planned_bytes, " bytes for ", stats.activations, " activations of ", stats.total_bytes, " bytes");
  CHECK(stats.activations > 20);
  CHECK(stats.planned_bytes > 0);
  CHECK(stats.planned_bytes * 2 < stats.total_bytes);

  // Every call on a pinned thread count: unpinned, a call takes the cores other processes leave, and another
  // count may round differently (core/adaptive_threads.h), which is not what this test is about.
  const int threads = get_num_threads();
  const Tensor a = randn({2, 3, 64, 64}), b = randn({2, 3, 64, 64});
  Tensor expected_a, expected_b, kept;
  const auto pinned = [&](const std::function<void()>& f) {
    std::thread([&] {
      set_num_threads(threads);
      f();
    }).join();
  };
  pinned([&] {
    expected_a = (*optimized)(a).clone();
    expected_b = (*optimized)(b).clone();
  });
  std::vector<Tensor> results(8);
  auto worker = [&](size_t first) {
    set_num_threads(threads);
    for (size_t i = first; i < results.size(); i += 2) results[i] = (*optimized)(i % 4 < 2 ? a : b);
  };
  std::thread t0(worker, 0), t1(worker, 1);
  t0.join();
  t1.join();
  for (size_t i = 0; i < results.size(); ++i) {
    CAPTURE(i);
    CHECK(equal(results[i], i % 4 < 2 ? expected_a : expected_b));
  }
  // A result never lives in the arena: later calls leave it alone.
  pinned([&] {
    kept = (*optimized)(a);
    (*optimized)(b);
  });
  CHECK(equal(kept, expected_a));
}

TEST_CASE("optimize_for_inference: bad input names the expected shape") {
  auto model = resnet18_model();
  auto optimized = optimize_for_inference(model, {.example_input_shape = {}});
  const std::string expected = "ResNet.forward: expected a float32 input of shape (N, 3, H, W), got ";
  CHECK_THROWS_WITH_AS((*optimized)(randn({1, 4, 32, 32})), (expected + "[1, 4, 32, 32] torch.float32").c_str(), Error);
  CHECK_THROWS_WITH_AS((*optimized)(randn({3, 32, 32})), (expected + "[3, 32, 32] torch.float32").c_str(), Error);
  CHECK_THROWS_WITH_AS((*optimized)(randn({1, 3, 32, 32}, DType::Float64)),
                       (expected + "[1, 3, 32, 32] torch.float64").c_str(), Error);
  CHECK_THROWS_WITH_AS((*optimized)(TensorList{}),
                       "ResNet.forward takes 1 input(s) (x), got 0; a module taking other inputs declares them by "
                       "overriding forward_signature()",
                       Error);
  auto training = models::resnet18();
  CHECK_THROWS_WITH_AS(optimize_for_inference(training), doctest::Contains("is in training mode; call eval() first"), Error);
}

}  // namespace
}  // namespace tl::fx
