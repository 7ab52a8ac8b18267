// tests/fx/test_special_values.cpp — optimize_for_inference keeps eager's NaN / inf semantics: NaN,
// +inf, -inf, -0.0 and denormals planted in the input give, element for element, the same NaN and
// infinity pattern as the eager module (finite values within rounding) on every optimized path.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "core/generator.h"
#include "fx/passes/optimize_for_inference.h"
#include "models/resnet.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/bn_calibration.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

/// conv-bn-relu, max pool, then a residual block: conv-bn-relu, conv-bn, add, relu. Five channels, so
/// the blocked layout carries zero-padded channels that a NaN must not leak into.
class SpecialBlock : public nn::Module {
 public:
  SpecialBlock() {
    auto conv = [](int64_t in) {
      return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = in, .out_channels = 5, .kernel_size = 3,
                                                            .padding = 1});
    };
    register_module("conv1", conv(3));
    register_module("bn1", std::make_shared<nn::BatchNorm2d>(5));
    register_module("relu1", std::make_shared<nn::ReLU>());
    register_module("pool", std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1}));
    register_module("conv2", conv(5));
    register_module("bn2", std::make_shared<nn::BatchNorm2d>(5));
    register_module("relu2", std::make_shared<nn::ReLU>());
    register_module("conv3", conv(5));
    register_module("bn3", std::make_shared<nn::BatchNorm2d>(5));
    register_module("relu3", std::make_shared<nn::ReLU>());
  }
  Tensor forward(const Tensor& input) override {
    const Tensor y = submodule("pool")(submodule("relu1")(submodule("bn1")(submodule("conv1")(input))));
    const Tensor z = submodule("bn3")(submodule("conv3")(submodule("relu2")(submodule("bn2")(submodule("conv2")(y)))));
    return submodule("relu3")(z + y);
  }
  std::string type_name() const override { return "SpecialBlock"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SpecialBlock>(); }
};

struct Path {
  const char* name;
  InferenceOptions options;
};

std::vector<Path> paths(const Shape& input) {
  std::vector<Path> p;
  for (auto precision : {InferencePrecision::Float32, InferencePrecision::BFloat16})
    for (bool winograd : {true, false}) {
      const bool fp32 = precision == InferencePrecision::Float32;
      p.push_back({fp32 ? (winograd ? "fp32 winograd" : "fp32 direct") : (winograd ? "bf16 winograd=true" : "bf16 winograd=false"),
                   {.precision = precision, .winograd = winograd, .example_input_shape = input}});
    }
  return p;
}

/// Where the special value goes: one pixel, a 3x3 patch of one channel, or the whole image.
enum class Pattern { Pixel, Patch, Image };
const char* pattern_name(Pattern p) { return p == Pattern::Pixel ? "pixel" : p == Pattern::Patch ? "patch" : "image"; }

Tensor planted(const Tensor& base, float special, Pattern pattern) {
  Tensor x = base.clone();
  float* p = x.data<float>();
  const int64_t h = x.size(2), w = x.size(3);
  if (pattern == Pattern::Image) {
    for (int64_t i = 0; i < x.numel(); ++i) p[i] = special;
  } else if (pattern == Pattern::Pixel) {
    p[5 * w + 6] = special;
  } else {
    for (int64_t r = 3; r < 6; ++r)
      for (int64_t c = 4; c < 7; ++c) p[h * w + r * w + c] = special;  // channel 1
  }
  return x;
}

/// Empty when NaN and infinities sit at the same places with the same signs and finite values agree
/// within rtol plus rtol times the largest finite magnitude; else the first difference.
std::string mismatch(const Tensor& actual, const Tensor& expected, double rtol) {
  if (actual.shape() != expected.shape()) return "shape differs";
  double scale = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double e = testing::element_at(expected, i);
    if (std::isfinite(e)) scale = std::max(scale, std::abs(e));
  }
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double a = testing::element_at(actual, i), e = testing::element_at(expected, i);
    const bool ok = std::isnan(e) || std::isnan(a) ? std::isnan(e) && std::isnan(a)
                    : std::isinf(e) || std::isinf(a) ? a == e
                                                     : std::abs(a - e) <= rtol * (std::abs(e) + scale);
    if (!ok) {
      std::ostringstream why;
      why << "element " << i << ": optimized " << a << ", eager " << e;
      return why.str();
    }
  }
  return "";
}

/// Runs every path x special value x pattern on `model`; returns the number of comparisons.
int sweep(const std::shared_ptr<nn::Module>& model, const Shape& input) {
  const float specials[] = {NAN, INFINITY, -INFINITY, -0.0f, 1e-40f};
  const Tensor base = randn(input);
  int compared = 0;
  for (const Path& path : paths(input)) {
    const std::string path_name = path.name;
    CAPTURE(path_name);
    auto optimized = optimize_for_inference(model, path.options);
    const double rtol = path.options.precision == InferencePrecision::BFloat16 ? 5e-2 : 1e-4;
    for (float special : specials)
      for (Pattern pattern : {Pattern::Pixel, Pattern::Patch, Pattern::Image}) {
        const std::string where = pattern_name(pattern);
        CAPTURE(special);
        CAPTURE(where);
        const Tensor x = planted(base, special, pattern);
        const Tensor expected = (*model)(x);
        const std::string why = mismatch((*optimized)(x), expected, rtol);
        CHECK_MESSAGE(why.empty(), why);
        ++compared;
      }
  }
  return compared;
}

TEST_CASE("special values: optimize_for_inference keeps eager's NaN and inf on every path") {
  manual_seed(31);
  auto block = std::make_shared<SpecialBlock>();
  testing::calibrate_batch_norms(*block, {2, 3, 12, 12});
  block->eval();
  const int features = sweep(block, {1, 3, 12, 12});
  manual_seed(32);
  auto resnet = models::resnet18();
  testing::calibrate_batch_norms(*resnet, {2, 3, 32, 32});
  resnet->eval();
  const int logits = sweep(resnet, {1, 3, 32, 32});
  MESSAGE("special-value comparisons: ", features, " (residual block, feature map) + ", logits, " (ResNet18 logits)");
}

}  // namespace
}  // namespace tl::fx
