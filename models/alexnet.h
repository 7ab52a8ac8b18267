// models/alexnet.h — torchvision's AlexNet (the "one weird trick" variant): its module tree, parameter
// names, default initialisation (no init loop of its own), repr and forward.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::models {

/// torchvision.models.alexnet's keyword arguments.
struct AlexNetOptions {
  int64_t num_classes = 1000;
  /// Probability of both classifier Dropout layers.
  double dropout = 0.5;
};

/// Input (N, 3, H, W) with H, W >= 63 (three 3x3 stride-2 max pools after a stride-4 conv); output logits
/// (N, num_classes). Children: features (Sequential of 5 conv + ReLU, 3 MaxPool2d), avgpool
/// (AdaptiveAvgPool2d (6, 6)), classifier (Sequential: Dropout, Linear, ReLU, Dropout, Linear, ReLU, Linear).
class AlexNet : public nn::Module {
 public:
  explicit AlexNet(const AlexNetOptions& options = {});

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "AlexNet"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<AlexNet>(); }
};

/// 61,100,840 parameters with the default 1000 classes.
std::shared_ptr<AlexNet> alexnet(const AlexNetOptions& options = {});

}  // namespace tl::models
