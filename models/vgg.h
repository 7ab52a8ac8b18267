// models/vgg.h — torchvision's VGG family (configurations A, B, D, E, each with and without
// BatchNorm2d): its module tree, parameter names, initialisation, repr and forward.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::models {

/// torchvision.models.vgg*'s keyword arguments (VGG's constructor's).
struct VGGOptions {
  int64_t num_classes = 1000;
  /// torchvision's init loop: kaiming_normal_(fan_out, relu) convs, N(0, 0.01) linears, zero biases.
  bool init_weights = true;
  /// Probability of both classifier Dropout layers.
  double dropout = 0.5;
};

/// Input (N, 3, H, W) with H, W >= 32 (five 2x2 max pools); output logits (N, num_classes).
/// Children: features (the given Sequential), avgpool (AdaptiveAvgPool2d (7, 7)), classifier (Sequential:
/// Linear, ReLU, Dropout, Linear, ReLU, Dropout, Linear).
class VGG : public nn::Module {
 public:
  /// `features` must map 3 channels to 512, as vgg_features() makes it.
  explicit VGG(std::shared_ptr<nn::Module> features, const VGGOptions& options = {});

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "VGG"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<VGG>(); }
};

/// torchvision's make_layers: `config` is 'A', 'B', 'D' or 'E' (11, 13, 16, 19 weight layers); each
/// 3x3 conv (padding 1) is followed by BatchNorm2d when `batch_norm`, then ReLU(inplace=True); "M" entries
/// are MaxPool2d(2, 2). Throws tl::Error for another config.
std::shared_ptr<nn::Module> vgg_features(char config, bool batch_norm);

/// 132,863,336 parameters with the default 1000 classes.
std::shared_ptr<VGG> vgg11(const VGGOptions& options = {});
/// 132,868,840 parameters.
std::shared_ptr<VGG> vgg11_bn(const VGGOptions& options = {});
/// 133,047,848 parameters.
std::shared_ptr<VGG> vgg13(const VGGOptions& options = {});
/// 133,053,736 parameters.
std::shared_ptr<VGG> vgg13_bn(const VGGOptions& options = {});
/// 138,357,544 parameters.
std::shared_ptr<VGG> vgg16(const VGGOptions& options = {});
/// 138,365,992 parameters.
std::shared_ptr<VGG> vgg16_bn(const VGGOptions& options = {});
/// 143,667,240 parameters.
std::shared_ptr<VGG> vgg19(const VGGOptions& options = {});
/// 143,678,248 parameters.
std::shared_ptr<VGG> vgg19_bn(const VGGOptions& options = {});

}  // namespace tl::models
