// models/mobilenet.cpp — torchvision/models/mobilenetv2.py and mobilenetv3.py in C++: the same
// registration order (repr, state_dict and FX node order), forward order and initialisation.
#include "models/mobilenet.h"

#include <cmath>

#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/init.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

nn::ForwardSignature tensor_to_tensor() { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

void normal_linear(const Tensor& weight, const Tensor& bias) {
  nn::init::normal_(weight, 0.0, 0.01);
  nn::init::zeros_(bias);
}

}  // namespace

namespace mobilenetv2 {

InvertedResidual::InvertedResidual(int64_t inp, int64_t oup, int64_t stride, int64_t expand_ratio,
                                   const ops::NormLayer& norm_layer)
    : use_res_connect_(stride == 1 && inp == oup) {
  TL_CHECK(stride == 1 || stride == 2, "stride should be 1 or 2 insted of ", stride);
  const auto hidden_dim = static_cast<int64_t>(std::round(static_cast<double>(inp * expand_ratio)));
  std::vector<std::shared_ptr<nn::Module>> layers;
  if (expand_ratio != 1)
    layers.push_back(std::make_shared<ops::Conv2dNormActivation>(
        ops::Conv2dNormActivationOptions{.in_channels = inp, .out_channels = hidden_dim, .kernel_size = 1,
                                         .norm_layer = norm_layer, .activation_layer = ops::activation<nn::ReLU6>()}));
  layers.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
      .in_channels = hidden_dim, .out_channels = hidden_dim, .stride = stride, .groups = hidden_dim,
      .norm_layer = norm_layer, .activation_layer = ops::activation<nn::ReLU6>()}));
  layers.push_back(std::make_shared<nn::Conv2d>(
      nn::Conv2dOptions{.in_channels = hidden_dim, .out_channels = oup, .kernel_size = 1, .bias = false}));
  layers.push_back(norm_layer(oup));
  register_module("conv", std::make_shared<nn::Sequential>(std::move(layers)));
}

Tensor InvertedResidual::forward(const Tensor& x) {
  if (use_res_connect_) return x + submodule("conv")(x);
  return submodule("conv")(x);
}

}  // namespace mobilenetv2

MobileNetV2::MobileNetV2(const MobileNetV2Options& options) {
  check_num_classes("MobileNetV2", options.num_classes);
  TL_CHECK(options.round_nearest != 0, "MobileNetV2: round_nearest=0 divides by zero in _make_divisible (Python's ",
           "ZeroDivisionError: integer division or modulo by zero)");
  const ops::NormLayer norm_layer = options.norm_layer ? options.norm_layer : ops::batch_norm2d();
  std::vector<std::array<int64_t, 4>> setting = options.inverted_residual_setting;
  if (setting.empty())
    setting = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  const double width_mult = options.width_mult;
  int64_t input_channel = ops::make_divisible(32 * width_mult, options.round_nearest);
  const int64_t last_channel = ops::make_divisible(1280 * std::max(1.0, width_mult), options.round_nearest);
  std::vector<std::shared_ptr<nn::Module>> features{
      std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
          .in_channels = 3, .out_channels = input_channel, .stride = 2, .norm_layer = norm_layer,
          .activation_layer = ops::activation<nn::ReLU6>()})};
  for (const auto& [t, c, n, s] : setting) {
    const int64_t output_channel = ops::make_divisible(static_cast<double>(c) * width_mult, options.round_nearest);
    for (int64_t i = 0; i < n; ++i) {
      features.push_back(std::make_shared<mobilenetv2::InvertedResidual>(input_channel, output_channel,
                                                                         i == 0 ? s : 1, t, norm_layer));
      input_channel = output_channel;
    }
  }
  features.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
      .in_channels = input_channel, .out_channels = last_channel, .kernel_size = 1, .norm_layer = norm_layer,
      .activation_layer = ops::activation<nn::ReLU6>()}));
  register_module("features", std::make_shared<nn::Sequential>(std::move(features)));
  register_module("classifier",
                  std::make_shared<nn::Sequential>(std::make_shared<nn::Dropout>(options.dropout),
                                                   std::make_shared<nn::Linear>(last_channel, options.num_classes)));
  ops::init_weights_(*this, normal_linear);
}

nn::ForwardSignature MobileNetV2::forward_signature() const { return tensor_to_tensor(); }

Tensor MobileNetV2::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = nn::functional::adaptive_avg_pool2d(x, {1, 1});
  x = tl::flatten(x, 1);
  return submodule("classifier")(x);
}

namespace mobilenetv3 {

InvertedResidual::InvertedResidual(const InvertedResidualConfig& cnf, const ops::NormLayer& norm_layer)
    : use_res_connect_(cnf.stride == 1 && cnf.input_channels == cnf.out_channels) {
  TL_CHECK(cnf.stride >= 1 && cnf.stride <= 2, "illegal stride value");
  const ops::ActivationLayer activation_layer =
      cnf.use_hs ? ops::activation<nn::Hardswish>() : ops::activation<nn::ReLU>();
  std::vector<std::shared_ptr<nn::Module>> layers;
  if (cnf.expanded_channels != cnf.input_channels)
    layers.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
        .in_channels = cnf.input_channels, .out_channels = cnf.expanded_channels, .kernel_size = 1,
        .norm_layer = norm_layer, .activation_layer = activation_layer}));
  layers.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
      .in_channels = cnf.expanded_channels, .out_channels = cnf.expanded_channels, .kernel_size = cnf.kernel,
      .stride = cnf.dilation > 1 ? 1 : cnf.stride, .groups = cnf.expanded_channels, .norm_layer = norm_layer,
      .activation_layer = activation_layer, .dilation = cnf.dilation}));
  if (cnf.use_se) {
    const int64_t squeeze_channels = ops::make_divisible(static_cast<double>(cnf.expanded_channels / 4), 8);
    layers.push_back(std::make_shared<ops::SqueezeExcitation>(cnf.expanded_channels, squeeze_channels,
                                                              ops::layer<nn::ReLU>(), ops::layer<nn::Hardsigmoid>()));
  }
  layers.push_back(std::make_shared<ops::Conv2dNormActivation>(
      ops::Conv2dNormActivationOptions{.in_channels = cnf.expanded_channels, .out_channels = cnf.out_channels,
                                       .kernel_size = 1, .norm_layer = norm_layer, .activation_layer = nullptr}));
  register_module("block", std::make_shared<nn::Sequential>(std::move(layers)));
}

Tensor InvertedResidual::forward(const Tensor& input) {
  Tensor result = submodule("block")(input);
  if (use_res_connect_) result += input;
  return result;
}

}  // namespace mobilenetv3

MobileNetV3::MobileNetV3(const std::vector<mobilenetv3::InvertedResidualConfig>& setting, int64_t last_channel,
                         const MobileNetV3Options& options) {
  TL_CHECK(!setting.empty(), "The inverted_residual_setting should not be empty");
  check_num_classes("MobileNetV3", options.num_classes);
  const ops::NormLayer norm_layer = options.norm_layer ? options.norm_layer : ops::batch_norm2d(0.001, 0.01);
  std::vector<std::shared_ptr<nn::Module>> layers{
      std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
          .in_channels = 3, .out_channels = setting.front().input_channels, .stride = 2, .norm_layer = norm_layer,
          .activation_layer = ops::activation<nn::Hardswish>()})};
  for (const auto& cnf : setting) layers.push_back(std::make_shared<mobilenetv3::InvertedResidual>(cnf, norm_layer));
  const int64_t lastconv_input_channels = setting.back().out_channels;
  const int64_t lastconv_output_channels = 6 * lastconv_input_channels;
  layers.push_back(std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
      .in_channels = lastconv_input_channels, .out_channels = lastconv_output_channels, .kernel_size = 1,
      .norm_layer = norm_layer, .activation_layer = ops::activation<nn::Hardswish>()}));
  register_module("features", std::make_shared<nn::Sequential>(std::move(layers)));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1)));
  // A braced list: its elements are made left to right, so the two Linears draw in PyTorch's order.
  register_module("classifier", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                    std::make_shared<nn::Linear>(lastconv_output_channels, last_channel),
                                    std::make_shared<nn::Hardswish>(true),
                                    std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = options.dropout, .inplace = true}),
                                    std::make_shared<nn::Linear>(last_channel, options.num_classes)}));
  ops::init_weights_(*this, normal_linear);
}

nn::ForwardSignature MobileNetV3::forward_signature() const { return tensor_to_tensor(); }

Tensor MobileNetV3::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = submodule("avgpool")(x);
  x = tl::flatten(x, 1);
  return submodule("classifier")(x);
}

std::shared_ptr<MobileNetV2> mobilenet_v2(const MobileNetV2Options& options) {
  return std::make_shared<MobileNetV2>(options);
}

namespace {

// torchvision's _mobilenet_v3_conf: (input, kernel, expanded, out, use_se, "HS", stride, dilation) rows
// with every channel count through adjust_channels, and the last channel.
std::pair<std::vector<mobilenetv3::InvertedResidualConfig>, int64_t> mobilenet_v3_conf(bool large,
                                                                                        const MobileNetV3Options& o) {
  const int64_t r = o.reduced_tail ? 2 : 1, d = o.dilated ? 2 : 1;
  auto adjust = [&](int64_t channels) { return ops::make_divisible(static_cast<double>(channels) * o.width_mult, 8); };
  auto conf = [&](int64_t in, int64_t kernel, int64_t expanded, int64_t out, bool se, bool hs, int64_t stride,
                  int64_t dilation) {
    return mobilenetv3::InvertedResidualConfig{adjust(in), kernel, adjust(expanded), adjust(out), se, hs, stride, dilation};
  };
  if (large)
    return {{conf(16, 3, 16, 16, false, false, 1, 1), conf(16, 3, 64, 24, false, false, 2, 1),
             conf(24, 3, 72, 24, false, false, 1, 1), conf(24, 5, 72, 40, true, false, 2, 1),
             conf(40, 5, 120, 40, true, false, 1, 1), conf(40, 5, 120, 40, true, false, 1, 1),
             conf(40, 3, 240, 80, false, true, 2, 1), conf(80, 3, 200, 80, false, true, 1, 1),
             conf(80, 3, 184, 80, false, true, 1, 1), conf(80, 3, 184, 80, false, true, 1, 1),
             conf(80, 3, 480, 112, true, true, 1, 1), conf(112, 3, 672, 112, true, true, 1, 1),
             conf(112, 5, 672, 160 / r, true, true, 2, d), conf(160 / r, 5, 960 / r, 160 / r, true, true, 1, d),
             conf(160 / r, 5, 960 / r, 160 / r, true, true, 1, d)},
            adjust(1280 / r)};
  return {{conf(16, 3, 16, 16, true, false, 2, 1), conf(16, 3, 72, 24, false, false, 2, 1),
           conf(24, 3, 88, 24, false, false, 1, 1), conf(24, 5, 96, 40, true, true, 2, 1),
           conf(40, 5, 240, 40, true, true, 1, 1), conf(40, 5, 240, 40, true, true, 1, 1),
           conf(40, 5, 120, 48, true, true, 1, 1), conf(48, 5, 144, 48, true, true, 1, 1),
           conf(48, 5, 288, 96 / r, true, true, 2, d), conf(96 / r, 5, 576 / r, 96 / r, true, true, 1, d),
           conf(96 / r, 5, 576 / r, 96 / r, true, true, 1, d)},
          adjust(1024 / r)};
}

}  // namespace

std::shared_ptr<MobileNetV3> mobilenet_v3_small(const MobileNetV3Options& options) {
  const auto [setting, last_channel] = mobilenet_v3_conf(false, options);
  return std::make_shared<MobileNetV3>(setting, last_channel, options);
}

std::shared_ptr<MobileNetV3> mobilenet_v3_large(const MobileNetV3Options& options) {
  const auto [setting, last_channel] = mobilenet_v3_conf(true, options);
  return std::make_shared<MobileNetV3>(setting, last_channel, options);
}

}  // namespace tl::models
