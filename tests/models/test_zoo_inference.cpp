// tests/models/test_zoo_inference.cpp — the inference passes on every family's cheapest builder (#34):
// fuse_conv_bn and optimize_for_inference (fp32) compute what eager computes, bf16 costs no more than PyTorch's
// autocast does on the same weights (tests/reference/make_zoo_inference_references.py), and a NaN in one image of a
// batch makes that image's logits NaN through eager and optimized paths alike, leaving the other image's.
// BatchNorm statistics are calibrated (tests/support/bn_calibration.h) so activations neither vanish nor grow.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/passes/optimize_for_inference.h"
#include "models/alexnet.h"
#include "models/densenet.h"
#include "models/efficientnet.h"
#include "models/googlenet.h"
#include "models/inception.h"
#include "models/mnasnet.h"
#include "models/mobilenet.h"
#include "models/regnet.h"
#include "models/shufflenet.h"
#include "models/squeezenet.h"
#include "models/vgg.h"
#include "models/vision_transformer.h"
#include "ops/ops.h"
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
};

std::vector<Family> traceable_families() {
  return {
      {"alexnet", [] { return alexnet(); }, 64},
      {"vgg11_bn", [] { return vgg11_bn(); }, 64},
      {"squeezenet1_1", [] { return squeezenet1_1(); }, 64},
      {"densenet121", [] { return densenet121(); }, 64},
      {"googlenet", [] { return googlenet(); }, 64},
      {"inception_v3", [] { return inception_v3(); }, 79},
      {"mobilenet_v2", [] { return mobilenet_v2(); }, 64},
      {"mobilenet_v3_small", [] { return mobilenet_v3_small(); }, 64},
      {"mnasnet0_5", [] { return mnasnet0_5(); }, 64},
      {"efficientnet_b0", [] { return efficientnet_b0(); }, 64},
      {"efficientnet_v2_s", [] { return efficientnet_v2_s(); }, 64},
      {"regnet_x_400mf", [] { return regnet_x_400mf(); }, 64},
      {"regnet_y_400mf", [] { return regnet_y_400mf(); }, 64},
  };
}

// PyTorch's line for a builder: its fp32 logits' sum and sum of squares, and its autocast bf16 error.
struct PyTorchRun {
  double sum, sum_of_squares, bf16_error;
};

std::map<std::string, PyTorchRun> pytorch_runs() {
  std::istringstream in(testing::read_reference("zoo_inference.txt"));
  std::map<std::string, PyTorchRun> runs;
  std::string builder;
  PyTorchRun run{};
  while (in >> builder >> run.sum >> run.sum_of_squares >> run.bf16_error) runs[builder] = run;
  return runs;
}

TEST_CASE("zoo: fuse_conv_bn and optimize_for_inference compute eager's logits, bf16 as PyTorch's; a NaN image stays NaN") {
  for (const Family& f : traceable_families()) {
    CAPTURE(f.builder);
    manual_seed(0);
    std::shared_ptr<nn::Module> model = f.make();
    testing::calibrate_batch_norms(*model, {8, 3, f.size, f.size});  // late stages are 2x2: 32 values a channel
    model->eval();
    Tensor x = randn({2, 3, f.size, f.size});
    const Tensor expected = (*model)(x);
    const PyTorchRun pytorch = pytorch_runs().at(f.builder);  // the same model on the same input as PyTorch's
    // |sum of differences| <= sqrt(n) |differences| <= sqrt(n) 1e-4 |logits| for logits within 1e-4 of PyTorch's.
    const double bound = std::sqrt(static_cast<double>(expected.numel()) * pytorch.sum_of_squares);
    CHECK(expected.sum().item<double>() == doctest::Approx(pytorch.sum).epsilon(1e-4).scale(bound));
    CHECK(expected.pow(2.0).sum().item<double>() == doctest::Approx(pytorch.sum_of_squares).epsilon(1e-4));
    CHECK_LOGITS_CLOSE((*fx::fuse_conv_bn(model))(x), expected);
    auto fp32 = fx::optimize_for_inference(model, {.example_input_shape = x.shape()});
    CHECK_LOGITS_CLOSE((*fp32)(x), expected);
    auto bf16 = fx::optimize_for_inference(
        model, {.precision = fx::InferencePrecision::BFloat16, .example_input_shape = x.shape()});
    // bf16 rounds every conv's input: the error is the architecture's (3-31% for PyTorch here), not a tolerance of ours.
    CHECK(testing::relative_error((*bf16)(x), expected) <= std::max(0.02, 1.25 * pytorch.bf16_error));

    x.index_put_({0, 1, f.size / 2, f.size / 3}, std::numeric_limits<float>::quiet_NaN());
    const Tensor eager_nan = (*model)(x), optimized_nan = (*fp32)(x);
    CHECK(eager_nan[0].isnan().all().item<bool>());
    CHECK(optimized_nan[0].isnan().all().item<bool>());
    CHECK_LOGITS_CLOSE(optimized_nan[1], expected[1]);
  }
}

TEST_CASE("zoo: optimize_for_inference refuses the models torch.fx cannot trace, naming what read the proxy") {
  std::shared_ptr<nn::Module> shufflenet = shufflenet_v2_x0_5(), vit = vit_b_32();
  shufflenet->eval();
  vit->eval();
  CHECK_THROWS_WITH_AS(fx::optimize_for_inference(shufflenet, {.example_input_shape = {1, 3, 33, 33}}),
                       doctest::Contains("shape is unknown"), Error);
  CHECK_THROWS_WITH_AS(fx::optimize_for_inference(vit, {.example_input_shape = {1, 3, 224, 224}}),
                       doctest::Contains("VisionTransformer.forward"), Error);
}

}  // namespace
}  // namespace tl::models
