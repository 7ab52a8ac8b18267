// models/mnasnet.h — torchvision's MNASNet (the B1 variant, _version 2) with torchvision's module tree,
// parameter names, initialisation, repr and forward.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::models {

namespace mnasnet {

/// torchvision.models.mnasnet._InvertedResidual: 1x1 conv-bn-relu, depthwise kxk conv-bn-relu (stride),
/// 1x1 conv-bn; + input when in_ch == out_ch and stride 1. Child: layers.
class InvertedResidual : public nn::Module {
 public:
  /// Throws tl::Error for a stride other than 1 or 2 or a kernel_size other than 3 or 5.
  InvertedResidual(int64_t in_ch, int64_t out_ch, int64_t kernel_size, int64_t stride, int64_t expansion_factor,
                   double bn_momentum = 0.1);
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "_InvertedResidual"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InvertedResidual>(); }

 private:
  bool apply_residual_;
};

}  // namespace mnasnet

/// MNASNet's keyword arguments, with torchvision's defaults.
struct MNASNetOptions {
  int64_t num_classes = 1000;
  double dropout = 0.2;
};

/// Input (N, 3, H, W), any H, W >= 1; output logits (N, num_classes). Children: layers, classifier.
class MNASNet : public nn::Module {
 public:
  /// `alpha` scales the depths; throws tl::Error unless alpha > 0.
  explicit MNASNet(double alpha, const MNASNetOptions& options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MNASNet"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MNASNet>(); }
};

/// 2,218,512 parameters with the default 1000 classes.
std::shared_ptr<MNASNet> mnasnet0_5(const MNASNetOptions& options = {});
/// 3,170,208 parameters.
std::shared_ptr<MNASNet> mnasnet0_75(const MNASNetOptions& options = {});
/// 4,383,312 parameters.
std::shared_ptr<MNASNet> mnasnet1_0(const MNASNetOptions& options = {});
/// 6,282,256 parameters.
std::shared_ptr<MNASNet> mnasnet1_3(const MNASNetOptions& options = {});

}  // namespace tl::models
