// tests/models/test_zoo_inference.cpp — the inference passes on every family's cheapest builder (#34):
// fuse_conv_bn and optimize_for_inference (fp32) compute what eager computes, bf16 costs no more than PyTorch's
// autocast does on the same weights (tests/reference/make_zoo_inference_references.py), and a NaN in one image of a
// batch makes that image's logits NaN through eager and optimized paths alike, leaving the other image's.
// BatchNorm statistics are calibrated (tests/support/bn_calibration.h) so activations neither vanish nor grow.
// shufflenet, vit and maxvit read their input's shape, which torch.fx's tracer refuses: the passes trace them on
// the example's shape (fx::trace_for_shape), and the result refuses another shape, naming both.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/traced_shape.h"
#include "fx/tracer.h"
#include "models/alexnet.h"
#include "models/densenet.h"
#include "models/efficientnet.h"
#include "models/googlenet.h"
#include "models/inception.h"
#include "models/maxvit.h"
#include "models/mnasnet.h"
#include "models/mobilenet.h"
#include "models/regnet.h"
#include "models/shufflenet.h"
#include "models/squeezenet.h"
#include "models/vgg.h"
#include "models/vision_transformer.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/bn_calibration.h"
#include "tests/support/logits_check.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::models {
namespace {

struct Family {
  std::string builder;
  std::function<std::shared_ptr<nn::Module>()> make;
  int64_t size;  // a small input the model accepts
  bool reads_shape = false;  // its forward reads the input's shape: torch.fx cannot trace it
  std::function<void(nn::Module&)> after_calibration = [](nn::Module&) {};
  // The BatchNorm statistics calibrated on a float64 forward, then rounded to float32 (the generator does the same):
  // inception_v3's 94 calibrated BatchNorms carry each one's float32 rounding into the next one's statistics, which
  // moves PyTorch's own logits 1.3e-4 (L2, relative) between a float32 and a float64 calibration of the same draws,
  // past the 1e-4 the check asks of the model: with float32 calibrations the two sides would not run the same model.
  bool float64_calibration = false;
};

std::vector<Family> families() {
  return {
      {"alexnet", [] { return alexnet(); }, 64},
      {"vgg11_bn", [] { return vgg11_bn(); }, 64},
      {"squeezenet1_1", [] { return squeezenet1_1(); }, 64},
      {"densenet121", [] { return densenet121(); }, 64},
      {"googlenet", [] { return googlenet(); }, 64},
      {"inception_v3", [] { return inception_v3(); }, 79, false, [](nn::Module&) {}, true},
      {"mobilenet_v2", [] { return mobilenet_v2(); }, 64},
      {"mobilenet_v3_small", [] { return mobilenet_v3_small(); }, 64},
      {"mnasnet0_5", [] { return mnasnet0_5(); }, 64},
      {"efficientnet_b0", [] { return efficientnet_b0(); }, 64},
      {"efficientnet_v2_s", [] { return efficientnet_v2_s(); }, 64},
      {"regnet_x_400mf", [] { return regnet_x_400mf(); }, 64},
      {"regnet_y_400mf", [] { return regnet_y_400mf(); }, 64},
      {"shufflenet_v2_x0_5", [] { return shufflenet_v2_x0_5(); }, 64, true},
      // The smallest ViT and MaxViT builders draw 88M and 31M initial weights: the generator's small ones.
      {"vit_tiny", [] { return std::make_shared<VisionTransformer>(8, 2, 2, 16, 32, VisionTransformerOptions{.image_size = 32}); },
       32, true, testing::apply_vit_head_rule},
      {"maxvit_small",
       [] {
         return std::make_shared<MaxVit>(8, 2, Shape{8, 16}, Shape{1, 2}, 4, 0.1,
                                         MaxVitOptions{.input_size = {32, 32}, .num_classes = 10});
       },
       32, true},
  };
}

// PyTorch's line for a builder: its fp32 logits' sum and sum of squares, and its autocast bf16 error.
struct PyTorchRun {
  double sum, sum_of_squares, bf16_error;
};

// bf16_error is NaN where PyTorch 1.13's autocast cannot run the model (maxvit's LayerNorm): no reference there.
std::map<std::string, PyTorchRun> pytorch_runs() {
  std::istringstream in(testing::read_reference("zoo_inference.txt"));
  std::map<std::string, PyTorchRun> runs;
  std::string builder, sum, sum_of_squares, bf16_error;
  while (in >> builder >> sum >> sum_of_squares >> bf16_error)
    runs[builder] = {std::stod(sum), std::stod(sum_of_squares), std::stod(bf16_error)};
  return runs;
}

TEST_CASE("zoo: fuse_conv_bn and optimize_for_inference compute eager's logits, bf16 as PyTorch's; a NaN image stays NaN") {
  // Under the sanitizers: depthwise convs with squeeze-excitation and hardswish, a concatenating dense net,
  // a shape-reading channel shuffle, and attention.
  const std::set<std::string> sanitized{"mobilenet_v3_small", "densenet121", "shufflenet_v2_x0_5", "vit_tiny"};
  for (const Family& f : families()) {
    if (testing::reduced_for_sanitizer() && !sanitized.contains(f.builder)) continue;
    CAPTURE(f.builder);
    manual_seed(0);
    std::shared_ptr<nn::Module> model = f.make();
    if (f.float64_calibration) model->to(DType::Float64);
    testing::calibrate_batch_norms(*model, {8, 3, f.size, f.size});  // late stages are 2x2: 32 values a channel
    if (f.float64_calibration) model->to(DType::Float32);
    f.after_calibration(*model);
    model->eval();
    Tensor x = randn({2, 3, f.size, f.size});
    const Tensor expected = (*model)(x);
    const PyTorchRun pytorch = pytorch_runs().at(f.builder);  // the same model on the same input as PyTorch's
    // |sum of differences| <= sqrt(n) |differences| <= sqrt(n) 1e-4 |logits| for logits within 1e-4 of PyTorch's.
    const double bound = std::sqrt(static_cast<double>(expected.numel()) * pytorch.sum_of_squares);
    CHECK(expected.sum().item<double>() == doctest::Approx(pytorch.sum).epsilon(1e-4).scale(bound));
    CHECK(expected.pow(2.0).sum().item<double>() == doctest::Approx(pytorch.sum_of_squares).epsilon(1e-4));
    // A model torch.fx cannot trace reaches fuse_conv_bn traced on its example's shape.
    CHECK_LOGITS_CLOSE((*fx::fuse_conv_bn(f.reads_shape ? fx::trace_for_shape(model, x.shape()) : model))(x), expected);
    // The rewrites are exact up to rounding: on direct convolutions the optimized model is within 1e-4 of eager.
    auto direct = fx::optimize_for_inference(model, {.winograd = false, .example_input_shape = x.shape()});
    CHECK_LOGITS_CLOSE((*direct)(x), expected);
    // Winograd's transforms round more. Measured (max |optimized - eager| over the logits' scale): inception_v3 at
    // one thread 1.16e-4 against 6.3e-5 direct (6.6e-5 at two threads), googlenet 2.4e-5 against 2.1e-5, every
    // other family within 1.3x of direct; 2e-4 of the scale bounds it.
    auto fp32 = fx::optimize_for_inference(model, {.example_input_shape = x.shape()});
    CHECK_TENSOR_CLOSE((*fp32)(x), expected, 1e-4, 2e-4 * testing::logits_scale(expected));
    if (!std::isnan(pytorch.bf16_error)) {
      auto bf16 = fx::optimize_for_inference(
          model, {.precision = fx::InferencePrecision::BFloat16, .example_input_shape = x.shape()});
      // bf16 rounds every conv's input: the error is the architecture's (1-31% for PyTorch here), not a tolerance of ours.
      CHECK(testing::relative_error((*bf16)(x), expected) <= std::max(0.02, 1.25 * pytorch.bf16_error));
    }

    x.index_put_({0, 1, f.size / 2, f.size / 3}, std::numeric_limits<float>::quiet_NaN());
    const Tensor eager_nan = (*model)(x), optimized_nan = (*fp32)(x);
    CHECK(eager_nan[0].isnan().all().item<bool>());
    CHECK(optimized_nan[0].isnan().all().item<bool>());
    CHECK_LOGITS_CLOSE(optimized_nan[1], expected[1]);
  }
}

TEST_CASE("zoo: a model that reads its input's shape is traced on the example's, and refuses another naming both") {
  manual_seed(0);
  std::shared_ptr<nn::Module> shufflenet = shufflenet_v2_x0_5();
  shufflenet->eval();
  // symbolic_trace refuses it as torch.fx's tracer does (channel_shuffle reads x.size()) ...
  CHECK_THROWS_WITH_AS(fx::symbolic_trace(shufflenet), doctest::Contains("shape is unknown"), Error);
  // ... and so does optimize_for_inference without an example shape to trace it on.
  CHECK_THROWS_WITH_AS(fx::optimize_for_inference(shufflenet, {.example_input_shape = {}}),
                       doctest::Contains("shape is unknown"), Error);
  const Tensor x = randn({2, 3, 33, 33});
  const Tensor expected = (*shufflenet)(x);
  auto optimized = fx::optimize_for_inference(shufflenet, {.example_input_shape = x.shape()});
  const char* message = "ShuffleNetV2.forward: input 'x' has shape [1, 3, 33, 33], but the graph was traced on an "
                        "example of shape [2, 3, 33, 33], whose sizes it holds as constants (the traced forward reads "
                        "its input's shape); trace again with an example of shape [1, 3, 33, 33]";
  CHECK_THROWS_WITH_AS((*optimized)(randn({1, 3, 33, 33})), message, Error);
  CHECK_LOGITS_CLOSE((*optimized)(x), expected);  // the refused call left the module working
  auto traced = fx::trace_for_shape(shufflenet, x.shape());
  CHECK_THROWS_WITH_AS((*traced)(randn({1, 3, 33, 33})), message, Error);
  // fuse_conv_bn's copy of the traced module keeps the fixed shape.
  auto fused = fx::fuse_conv_bn(traced);
  CHECK_THROWS_WITH_AS((*fused)(randn({2, 3, 35, 35})), doctest::Contains("has shape [2, 3, 35, 35]"), Error);
  CHECK_LOGITS_CLOSE((*fused)(x), expected);

  // A model whose forward reads no shape stays general: the same graph serves every shape.
  std::shared_ptr<nn::Module> squeezenet = squeezenet1_1();
  squeezenet->eval();
  auto general = fx::optimize_for_inference(squeezenet, {.example_input_shape = {2, 3, 64, 64}});
  const Tensor y = randn({1, 3, 67, 67});
  CHECK_LOGITS_CLOSE((*general)(y), (*squeezenet)(y));
}
}  // namespace
}  // namespace tl::models
