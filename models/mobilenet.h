// models/mobilenet.h — torchvision's MobileNetV2 and MobileNetV3 (small, large) with torchvision's
// module trees, parameter names, initialisation, repr and forward, so print(model), state_dict and FX
// traces are torchvision's.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/vision_ops.h"
#include "nn/module.h"

namespace tl::models {

namespace mobilenetv2 {

/// torchvision.models.mobilenetv2.InvertedResidual: [1x1 expand conv-bn-relu6 unless expand_ratio is 1],
/// depthwise 3x3 conv-bn-relu6 (stride), 1x1 conv, bn; + x when stride 1 and inp == oup. Child: conv.
class InvertedResidual : public nn::Module {
 public:
  /// Throws tl::Error for a stride other than 1 or 2.
  InvertedResidual(int64_t inp, int64_t oup, int64_t stride, int64_t expand_ratio, const ops::NormLayer& norm_layer);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InvertedResidual"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InvertedResidual>(); }

 private:
  bool use_res_connect_;
};

}  // namespace mobilenetv2

/// MobileNetV2's keyword arguments, with torchvision's defaults.
struct MobileNetV2Options {
  int64_t num_classes = 1000;
  double width_mult = 1.0;
  /// (t, c, n, s) per stage: expand ratio, channels, repeats, first stride; empty: torchvision's seven.
  std::vector<std::array<int64_t, 4>> inverted_residual_setting;
  int64_t round_nearest = 8;
  /// nullptr: nn.BatchNorm2d.
  ops::NormLayer norm_layer;
  double dropout = 0.2;
};

/// Input (N, 3, H, W), any H, W >= 1; output logits (N, num_classes). Children: features, classifier.
class MobileNetV2 : public nn::Module {
 public:
  /// An empty options.inverted_residual_setting means torchvision's.
  explicit MobileNetV2(const MobileNetV2Options& options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MobileNetV2"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MobileNetV2>(); }
};

namespace mobilenetv3 {

/// torchvision.models.mobilenetv3.InvertedResidualConfig: channels already scaled by width_mult.
struct InvertedResidualConfig {
  int64_t input_channels, kernel, expanded_channels, out_channels;
  bool use_se;
  bool use_hs;  ///< Hardswish ("HS") rather than ReLU ("RE")
  int64_t stride, dilation;
};

/// torchvision.models.mobilenetv3.InvertedResidual: [1x1 expand], depthwise kxk, [SqueezeExcitation
/// with Hardsigmoid], 1x1 project (no activation); result += input when stride 1 and in == out.
/// Child: block.
class InvertedResidual : public nn::Module {
 public:
  /// Throws tl::Error for a stride other than 1 or 2.
  InvertedResidual(const InvertedResidualConfig& cnf, const ops::NormLayer& norm_layer);
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "InvertedResidual"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InvertedResidual>(); }

 private:
  bool use_res_connect_;
};

}  // namespace mobilenetv3

/// mobilenet_v3_small / _large's keyword arguments, with torchvision's defaults.
struct MobileNetV3Options {
  int64_t num_classes = 1000;
  double width_mult = 1.0;
  /// Halves the channels of the last blocks (torchvision's reduced_tail).
  bool reduced_tail = false;
  /// Dilation 2 instead of stride 2 in the last stage.
  bool dilated = false;
  /// nullptr: partial(nn.BatchNorm2d, eps=0.001, momentum=0.01).
  ops::NormLayer norm_layer;
  double dropout = 0.2;
};

/// Input (N, 3, H, W), any H, W >= 1; output logits (N, num_classes). Children: features, avgpool,
/// classifier.
class MobileNetV3 : public nn::Module {
 public:
  /// Throws tl::Error for an empty setting.
  MobileNetV3(const std::vector<mobilenetv3::InvertedResidualConfig>& inverted_residual_setting, int64_t last_channel,
              const MobileNetV3Options& options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MobileNetV3"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MobileNetV3>(); }
};

/// 3,504,872 parameters with the default 1000 classes.
std::shared_ptr<MobileNetV2> mobilenet_v2(const MobileNetV2Options& options = {});
/// 2,542,856 parameters.
std::shared_ptr<MobileNetV3> mobilenet_v3_small(const MobileNetV3Options& options = {});
/// 5,483,032 parameters.
std::shared_ptr<MobileNetV3> mobilenet_v3_large(const MobileNetV3Options& options = {});

}  // namespace tl::models
