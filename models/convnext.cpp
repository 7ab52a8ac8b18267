// models/convnext.cpp — torchvision/models/convnext.py in C++: the same configs, registration order, drop
// probabilities, forward and initialisation.
#include "models/convnext.h"

#include "fx/wrap.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/functional.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models {

Tensor LayerNorm2d::forward(const Tensor& input) {
  Tensor x = input.permute({0, 2, 3, 1});
  x = nn::functional::layer_norm(x, options().normalized_shape, parameter("weight"), parameter("bias"), options().eps);
  return x.permute({0, 3, 1, 2});
}

namespace convnext {

CNBlock::CNBlock(int64_t dim, double layer_scale, double stochastic_depth_prob) {
  register_module("block", std::make_shared<nn::Sequential>(
                               std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = dim, .out_channels = dim,
                                                                              .kernel_size = 7, .padding = 3,
                                                                              .groups = dim, .bias = true}),
                               std::make_shared<ops::Permute>(Shape{0, 2, 3, 1}),
                               std::make_shared<nn::LayerNorm>(nn::LayerNormOptions{.normalized_shape = {dim}, .eps = 1e-6}),
                               std::make_shared<nn::Linear>(dim, 4 * dim), std::make_shared<nn::GELU>(),
                               std::make_shared<nn::Linear>(4 * dim, dim),
                               std::make_shared<ops::Permute>(Shape{0, 3, 1, 2})));
  register_parameter("layer_scale", full({dim, 1, 1}, layer_scale));
  register_module("stochastic_depth", std::make_shared<ops::StochasticDepth>(stochastic_depth_prob, "row"));
}

Tensor CNBlock::forward(const Tensor& input) {
  // Python's `self.layer_scale * self.block(input)` reads the parameter first: a trace fetches it there.
  const Tensor layer_scale = fx::getattr(parameter("layer_scale"));
  Tensor result = layer_scale * submodule("block")(input);
  result = submodule("stochastic_depth")(result);
  result += input;
  return result;
}

}  // namespace convnext

ConvNeXt::ConvNeXt(const std::vector<convnext::CNBlockConfig>& block_setting, double stochastic_depth_prob,
                   double layer_scale, int64_t num_classes) {
  TL_CHECK(!block_setting.empty(), "The block_setting should not be empty");
  check_num_classes("ConvNeXt", num_classes);
  int64_t total_stage_blocks = 0;
  for (const auto& cnf : block_setting) total_stage_blocks += cnf.num_layers;
  check_stochastic_depth_prob("ConvNeXt", stochastic_depth_prob, total_stage_blocks, total_stage_blocks - 1);
  auto norm_layer = [](int64_t channels) {
    return std::make_shared<LayerNorm2d>(nn::LayerNormOptions{.normalized_shape = {channels}, .eps = 1e-6});
  };
  std::vector<std::shared_ptr<nn::Module>> layers{std::make_shared<ops::Conv2dNormActivation>(
      ops::Conv2dNormActivationOptions{.in_channels = 3, .out_channels = block_setting.front().input_channels,
                                       .kernel_size = 4, .stride = 4, .padding = 0, .norm_layer = norm_layer,
                                       .activation_layer = nullptr, .bias = true})};
  int64_t stage_block_id = 0;
  for (const auto& cnf : block_setting) {
    auto stage = std::make_shared<nn::Sequential>();
    for (int64_t i = 0; i < cnf.num_layers; ++i) {
      const double sd_prob =
          stochastic_depth_prob * static_cast<double>(stage_block_id) / (static_cast<double>(total_stage_blocks) - 1.0);
      stage->append(std::make_shared<convnext::CNBlock>(cnf.input_channels, layer_scale, sd_prob));
      ++stage_block_id;
    }
    layers.push_back(stage);
    if (cnf.out_channels)
      layers.push_back(std::make_shared<nn::Sequential>(
          norm_layer(cnf.input_channels),
          std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = cnf.input_channels,
                                                         .out_channels = *cnf.out_channels, .kernel_size = 2,
                                                         .stride = 2})));
  }
  register_module("features", std::make_shared<nn::Sequential>(std::move(layers)));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1)));
  const int64_t last_channels = block_setting.back().out_channels.value_or(block_setting.back().input_channels);
  register_module("classifier",
                  std::make_shared<nn::Sequential>(norm_layer(last_channels), std::make_shared<nn::Flatten>(1, -1),
                                                   std::make_shared<nn::Linear>(last_channels, num_classes)));
  for (const auto& m : modules()) {
    const bool conv = dynamic_cast<nn::Conv2d*>(m.get()) != nullptr, linear = dynamic_cast<nn::Linear*>(m.get()) != nullptr;
    if (!conv && !linear) continue;
    nn::init::trunc_normal_(m->parameter("weight"), 0.0, 0.02);
    if (m->parameter("bias").defined()) nn::init::zeros_(m->parameter("bias"));
  }
}

nn::ForwardSignature ConvNeXt::forward_signature() const { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

Tensor ConvNeXt::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = submodule("avgpool")(x);
  return submodule("classifier")(x);
}

namespace {

std::shared_ptr<ConvNeXt> build_convnext(const std::vector<convnext::CNBlockConfig>& setting, double stochastic_depth_prob,
                                         const ConvNeXtOptions& o) {
  return std::make_shared<ConvNeXt>(setting, o.stochastic_depth_prob.value_or(stochastic_depth_prob), o.layer_scale,
                                    o.num_classes);
}

}  // namespace

std::shared_ptr<ConvNeXt> convnext_tiny(const ConvNeXtOptions& o) {
  return build_convnext({{96, 192, 3}, {192, 384, 3}, {384, 768, 9}, {768, std::nullopt, 3}}, 0.1, o);
}
std::shared_ptr<ConvNeXt> convnext_small(const ConvNeXtOptions& o) {
  return build_convnext({{96, 192, 3}, {192, 384, 3}, {384, 768, 27}, {768, std::nullopt, 3}}, 0.4, o);
}
std::shared_ptr<ConvNeXt> convnext_base(const ConvNeXtOptions& o) {
  return build_convnext({{128, 256, 3}, {256, 512, 3}, {512, 1024, 27}, {1024, std::nullopt, 3}}, 0.5, o);
}
std::shared_ptr<ConvNeXt> convnext_large(const ConvNeXtOptions& o) {
  return build_convnext({{192, 384, 3}, {384, 768, 3}, {768, 1536, 27}, {1536, std::nullopt, 3}}, 0.5, o);
}

}  // namespace tl::models
