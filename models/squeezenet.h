// models/squeezenet.h — torchvision's SqueezeNet 1.0 and 1.1: Fire modules (a 1x1 squeeze, then 1x1 and
// 3x3 expands concatenated along channels), ceil-mode max pools, a convolutional classifier; torchvision's
// module tree, parameter names, initialisation, repr and forward.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::models {

/// torchvision.models.squeezenet1_*'s keyword arguments.
struct SqueezeNetOptions {
  int64_t num_classes = 1000;
  /// Probability of the classifier's Dropout.
  double dropout = 0.5;
};

/// squeeze (1x1 conv) -> ReLU, then cat([ReLU(expand1x1(x)), ReLU(expand3x3(x))], 1): output channels
/// expand1x1_planes + expand3x3_planes. Children: squeeze, squeeze_activation, expand1x1,
/// expand1x1_activation, expand3x3, expand3x3_activation.
class Fire : public nn::Module {
 public:
  Fire(int64_t inplanes, int64_t squeeze_planes, int64_t expand1x1_planes, int64_t expand3x3_planes);

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Fire"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Fire>(); }
};

/// Input (N, 3, H, W), at least torchvision's min_size (21x21 for 1_0, 17x17 for 1_1); output logits
/// (N, num_classes), the ReLU'd output of a 1x1 conv averaged over space. Children: features (Sequential),
/// classifier (Sequential: Dropout, final 1x1 Conv2d, ReLU, AdaptiveAvgPool2d (1, 1)).
class SqueezeNet : public nn::Module {
 public:
  /// `version`: "1_0" or "1_1"; throws tl::Error (torchvision's ValueError text) otherwise, and for a num_classes
  /// below 1 (the classifier is a convolution, which PyTorch refuses with 0 output channels at every forward).
  explicit SqueezeNet(const std::string& version = "1_0", const SqueezeNetOptions& options = {});

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "SqueezeNet"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SqueezeNet>(); }
};

/// 1,248,424 parameters with the default 1000 classes.
std::shared_ptr<SqueezeNet> squeezenet1_0(const SqueezeNetOptions& options = {});
/// 1,235,496 parameters.
std::shared_ptr<SqueezeNet> squeezenet1_1(const SqueezeNetOptions& options = {});

}  // namespace tl::models
