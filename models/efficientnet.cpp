// models/efficientnet.cpp — torchvision/models/efficientnet.py (B0 ... B7, V2-S/M/L) in C++: the same configs,
// registration order, drop probabilities, forward and initialisation.
#include "models/efficientnet.h"

#include <algorithm>
#include <cmath>

#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/init.h"
#include "nn/layers.h"

namespace tl::models {

namespace efficientnet {

MBConv::MBConv(const MBConvConfig& cnf, double stochastic_depth_prob, const ops::NormLayer& norm_layer)
    : use_res_connect_(cnf.stride == 1 && cnf.input_channels == cnf.out_channels) {
  TL_CHECK(cnf.stride >= 1 && cnf.stride <= 2, "illegal stride value");
  const ops::ActivationLayer silu = ops::activation<nn::SiLU>();
  const int64_t expanded_channels =
      ops::make_divisible(static_cast<double>(cnf.input_channels) * cnf.expand_ratio, 8);
  std::vector<std::shared_ptr<nn::Module>> layers;
  if (expanded_channels != cnf.input_channels)
    layers.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
        .in_channels = cnf.input_channels, .out_channels = expanded_channels, .kernel_size = 1,
        .norm_layer = norm_layer, .activation_layer = silu}));
  layers.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
      .in_channels = expanded_channels, .out_channels = expanded_channels, .kernel_size = cnf.kernel,
      .stride = cnf.stride, .groups = expanded_channels, .norm_layer = norm_layer, .activation_layer = silu}));
  const int64_t squeeze_channels = std::max<int64_t>(1, cnf.input_channels / 4);
  layers.push_back(std::make_shared<ops::SqueezeExcitation>(expanded_channels, squeeze_channels,
                                                            ops::layer<nn::SiLU>(true)));
  layers.push_back(std::make_shared<ops::Conv2dNormActivation>(
      ops::Conv2dNormActivationOptions{.in_channels = expanded_channels, .out_channels = cnf.out_channels,
                                       .kernel_size = 1, .norm_layer = norm_layer, .activation_layer = nullptr}));
  register_module("block", std::make_shared<nn::Sequential>(std::move(layers)));
  register_module("stochastic_depth", std::make_shared<ops::StochasticDepth>(stochastic_depth_prob, "row"));
}

namespace {

// MBConv's and FusedMBConv's forward: the block, and the residual through stochastic_depth.
Tensor residual_forward(nn::Module& m, const Tensor& input, bool use_res_connect) {
  Tensor result = (*m.get_submodule("block"))(input);
  if (use_res_connect) {
    result = (*m.get_submodule("stochastic_depth"))(result);
    result += input;
  }
  return result;
}

}  // namespace

Tensor MBConv::forward(const Tensor& input) { return residual_forward(*this, input, use_res_connect_); }

FusedMBConv::FusedMBConv(const MBConvConfig& cnf, double stochastic_depth_prob, const ops::NormLayer& norm_layer)
    : use_res_connect_(cnf.stride == 1 && cnf.input_channels == cnf.out_channels) {
  TL_CHECK(cnf.stride >= 1 && cnf.stride <= 2, "illegal stride value");
  const ops::ActivationLayer silu = ops::activation<nn::SiLU>();
  const int64_t expanded_channels =
      ops::make_divisible(static_cast<double>(cnf.input_channels) * cnf.expand_ratio, 8);
  const bool expands = expanded_channels != cnf.input_channels;
  std::vector<std::shared_ptr<nn::Module>> layers{std::make_shared<ops::Conv2dNormActivation>(
      ops::Conv2dNormActivationOptions{.in_channels = cnf.input_channels,
                                       .out_channels = expands ? expanded_channels : cnf.out_channels,
                                       .kernel_size = cnf.kernel, .stride = cnf.stride, .norm_layer = norm_layer,
                                       .activation_layer = silu})};
  if (expands)
    layers.push_back(std::make_shared<ops::Conv2dNormActivation>(
        ops::Conv2dNormActivationOptions{.in_channels = expanded_channels, .out_channels = cnf.out_channels,
                                         .kernel_size = 1, .norm_layer = norm_layer, .activation_layer = nullptr}));
  register_module("block", std::make_shared<nn::Sequential>(std::move(layers)));
  register_module("stochastic_depth", std::make_shared<ops::StochasticDepth>(stochastic_depth_prob, "row"));
}

Tensor FusedMBConv::forward(const Tensor& input) { return residual_forward(*this, input, use_res_connect_); }

}  // namespace efficientnet

EfficientNet::EfficientNet(const std::vector<efficientnet::MBConvConfig>& setting, double dropout,
                           double stochastic_depth_prob, int64_t num_classes, ops::NormLayer norm_layer,
                           std::optional<int64_t> last_channel) {
  TL_CHECK(!setting.empty(), "The inverted_residual_setting should not be empty");
  check_num_classes("EfficientNet", num_classes);
  // torchvision's init draws the head from U(-1/sqrt(out_features), ...): ZeroDivisionError for 0 classes
  TL_CHECK(num_classes != 0, "EfficientNet: num_classes=0 gives the head's init range 1 / sqrt(0) (Python's ",
           "ZeroDivisionError: float division by zero)");
  int64_t total_stage_blocks = 0;
  for (const auto& cnf : setting) total_stage_blocks += cnf.num_layers;
  check_stochastic_depth_prob("EfficientNet", stochastic_depth_prob, total_stage_blocks, total_stage_blocks);
  if (!norm_layer) norm_layer = ops::batch_norm2d();
  const ops::ActivationLayer silu = ops::activation<nn::SiLU>();
  std::vector<std::shared_ptr<nn::Module>> layers{std::make_shared<ops::Conv2dNormActivation>(
      ops::Conv2dNormActivationOptions{.in_channels = 3, .out_channels = setting.front().input_channels, .stride = 2,
                                       .norm_layer = norm_layer, .activation_layer = silu})};
  int64_t stage_block_id = 0;
  for (const auto& cnf : setting) {
    auto stage = std::make_shared<nn::Sequential>();
    for (int64_t i = 0; i < cnf.num_layers; ++i) {
      efficientnet::MBConvConfig block_cnf = cnf;
      if (i > 0) {
        block_cnf.input_channels = block_cnf.out_channels;
        block_cnf.stride = 1;
      }
      const double sd_prob =
          stochastic_depth_prob * static_cast<double>(stage_block_id) / static_cast<double>(total_stage_blocks);
      if (cnf.fused)
        stage->append(std::make_shared<efficientnet::FusedMBConv>(block_cnf, sd_prob, norm_layer));
      else
        stage->append(std::make_shared<efficientnet::MBConv>(block_cnf, sd_prob, norm_layer));
      ++stage_block_id;
    }
    layers.push_back(stage);
  }
  const int64_t lastconv_input_channels = setting.back().out_channels;
  const int64_t lastconv_output_channels = last_channel.value_or(4 * lastconv_input_channels);
  layers.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
      .in_channels = lastconv_input_channels, .out_channels = lastconv_output_channels, .kernel_size = 1,
      .norm_layer = norm_layer, .activation_layer = silu}));
  register_module("features", std::make_shared<nn::Sequential>(std::move(layers)));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1)));
  register_module("classifier", std::make_shared<nn::Sequential>(
                                    std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = dropout, .inplace = true}),
                                    std::make_shared<nn::Linear>(lastconv_output_channels, num_classes)));
  ops::init_weights_(*this, [](const Tensor& weight, const Tensor& bias) {
    const double init_range = 1.0 / std::sqrt(static_cast<double>(weight.size(0)));
    nn::init::uniform_(weight, -init_range, init_range);
    nn::init::zeros_(bias);
  });
}

nn::ForwardSignature EfficientNet::forward_signature() const { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

Tensor EfficientNet::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = submodule("avgpool")(x);
  x = tl::flatten(x, 1);
  return submodule("classifier")(x);
}

namespace {

// torchvision's efficientnet_b* builders: _efficientnet_conf's seven stages scaled by width and depth,
// the builder's dropout and norm layer. They pass dropout themselves (b5-b7 norm_layer too), so torchvision
// refuses those keywords (TypeError), as these do.
std::shared_ptr<EfficientNet> efficientnet_b(double width_mult, double depth_mult, double dropout, bool small_bn_eps,
                                             const EfficientNetOptions& o) {
  refuse_passed_argument(o.dropout.has_value(), "_efficientnet", "dropout", /*positional=*/true);
  refuse_passed_argument(small_bn_eps && o.norm_layer, "torchvision.models.efficientnet._efficientnet", "norm_layer");
  auto conf = [&](double expand_ratio, int64_t kernel, int64_t stride, int64_t in, int64_t out, int64_t layers) {
    return efficientnet::MBConvConfig{
        expand_ratio,
        kernel,
        stride,
        ops::make_divisible(static_cast<double>(in) * width_mult, 8),
        ops::make_divisible(static_cast<double>(out) * width_mult, 8),
        static_cast<int64_t>(std::ceil(static_cast<double>(layers) * depth_mult))};
  };
  const std::vector<efficientnet::MBConvConfig> setting{conf(1, 3, 1, 32, 16, 1),    conf(6, 3, 2, 16, 24, 2),
                                                        conf(6, 5, 2, 24, 40, 2),    conf(6, 3, 2, 40, 80, 3),
                                                        conf(6, 5, 1, 80, 112, 3),   conf(6, 5, 2, 112, 192, 4),
                                                        conf(6, 3, 1, 192, 320, 1)};
  const ops::NormLayer norm_layer = small_bn_eps ? ops::batch_norm2d(0.001, 0.01) : o.norm_layer;
  return std::make_shared<EfficientNet>(setting, dropout, o.stochastic_depth_prob, o.num_classes, norm_layer);
}

// torchvision's efficientnet_v2_* builders: _efficientnet_conf's stages (expand_ratio, kernel, stride, in, out,
// layers; the fused ones first), last_channel 1280, BatchNorm2d(eps=0.001). They pass dropout and norm_layer
// themselves, so torchvision refuses those keywords (TypeError), as these do.
std::shared_ptr<EfficientNet> efficientnet_v2(const std::vector<efficientnet::MBConvConfig>& setting, double dropout,
                                              const EfficientNetOptions& o) {
  refuse_passed_argument(o.dropout.has_value(), "_efficientnet", "dropout", /*positional=*/true);
  refuse_passed_argument(static_cast<bool>(o.norm_layer), "torchvision.models.efficientnet._efficientnet", "norm_layer");
  return std::make_shared<EfficientNet>(setting, dropout, o.stochastic_depth_prob, o.num_classes,
                                        ops::batch_norm2d(0.001), 1280);
}

efficientnet::MBConvConfig fused(double expand_ratio, int64_t kernel, int64_t stride, int64_t in, int64_t out,
                                 int64_t layers) {
  return {expand_ratio, kernel, stride, in, out, layers, true};
}

}  // namespace

std::shared_ptr<EfficientNet> efficientnet_b0(const EfficientNetOptions& o) { return efficientnet_b(1.0, 1.0, 0.2, false, o); }
std::shared_ptr<EfficientNet> efficientnet_b1(const EfficientNetOptions& o) { return efficientnet_b(1.0, 1.1, 0.2, false, o); }
std::shared_ptr<EfficientNet> efficientnet_b2(const EfficientNetOptions& o) { return efficientnet_b(1.1, 1.2, 0.3, false, o); }
std::shared_ptr<EfficientNet> efficientnet_b3(const EfficientNetOptions& o) { return efficientnet_b(1.2, 1.4, 0.3, false, o); }
std::shared_ptr<EfficientNet> efficientnet_b4(const EfficientNetOptions& o) { return efficientnet_b(1.4, 1.8, 0.4, false, o); }
std::shared_ptr<EfficientNet> efficientnet_b5(const EfficientNetOptions& o) { return efficientnet_b(1.6, 2.2, 0.4, true, o); }
std::shared_ptr<EfficientNet> efficientnet_b6(const EfficientNetOptions& o) { return efficientnet_b(1.8, 2.6, 0.5, true, o); }
std::shared_ptr<EfficientNet> efficientnet_b7(const EfficientNetOptions& o) { return efficientnet_b(2.0, 3.1, 0.5, true, o); }


std::shared_ptr<EfficientNet> efficientnet_v2_s(const EfficientNetOptions& o) {
  return efficientnet_v2({fused(1, 3, 1, 24, 24, 2), fused(4, 3, 2, 24, 48, 4), fused(4, 3, 2, 48, 64, 4),
                          {4, 3, 2, 64, 128, 6}, {6, 3, 1, 128, 160, 9}, {6, 3, 2, 160, 256, 15}},
                         0.2, o);
}

std::shared_ptr<EfficientNet> efficientnet_v2_m(const EfficientNetOptions& o) {
  return efficientnet_v2({fused(1, 3, 1, 24, 24, 3), fused(4, 3, 2, 24, 48, 5), fused(4, 3, 2, 48, 80, 5),
                          {4, 3, 2, 80, 160, 7}, {6, 3, 1, 160, 176, 14}, {6, 3, 2, 176, 304, 18},
                          {6, 3, 1, 304, 512, 5}},
                         0.3, o);
}

std::shared_ptr<EfficientNet> efficientnet_v2_l(const EfficientNetOptions& o) {
  return efficientnet_v2({fused(1, 3, 1, 32, 32, 4), fused(4, 3, 2, 32, 64, 7), fused(4, 3, 2, 64, 96, 7),
                          {4, 3, 2, 96, 192, 10}, {6, 3, 1, 192, 224, 19}, {6, 3, 2, 224, 384, 25},
                          {6, 3, 1, 384, 640, 7}},
                         0.4, o);
}

}  // namespace tl::models
