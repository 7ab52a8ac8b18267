// models/shufflenet.h — torchvision's ShuffleNetV2 (x0.5 ... x2.0) with torchvision's module tree,
// parameter names, (PyTorch's default) initialisation, repr and forward.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::models {

namespace shufflenetv2 {

/// torchvision.models.shufflenetv2.InvertedResidual: stride 1 splits the channels in two halves and
/// runs branch2 on the second; stride > 1 runs branch1 and branch2 on the whole input; the halves are
/// concatenated and channel_shuffle(out, 2)d. Children: branch1 (empty Sequential for stride 1), branch2.
class InvertedResidual : public nn::Module {
 public:
  /// Throws tl::Error for a stride outside 1..3, or stride 1 with inp != 2 * (oup / 2).
  InvertedResidual(int64_t inp, int64_t oup, int64_t stride);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InvertedResidual"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InvertedResidual>(); }

 private:
  int64_t stride_;
};

}  // namespace shufflenetv2

/// ShuffleNetV2's keyword arguments.
struct ShuffleNetV2Options {
  int64_t num_classes = 1000;
};

/// Input (N, 3, H, W), any H, W >= 1; output logits (N, num_classes). Children: conv1, maxpool,
/// stage2..stage4, conv5, fc. torch.fx cannot trace it (channel_shuffle unpacks x.size()); neither can
/// fx::symbolic_trace: the shape of a proxy is unknown, and reading it throws tl::Error.
class ShuffleNetV2 : public nn::Module {
 public:
  ShuffleNetV2(const std::array<int64_t, 3>& stages_repeats, const std::array<int64_t, 5>& stages_out_channels,
               const ShuffleNetV2Options& options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ShuffleNetV2"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ShuffleNetV2>(); }
};

/// 1,366,792 parameters with the default 1000 classes.
std::shared_ptr<ShuffleNetV2> shufflenet_v2_x0_5(const ShuffleNetV2Options& options = {});
/// 2,278,604 parameters.
std::shared_ptr<ShuffleNetV2> shufflenet_v2_x1_0(const ShuffleNetV2Options& options = {});
/// 3,503,624 parameters.
std::shared_ptr<ShuffleNetV2> shufflenet_v2_x1_5(const ShuffleNetV2Options& options = {});
/// 7,393,996 parameters.
std::shared_ptr<ShuffleNetV2> shufflenet_v2_x2_0(const ShuffleNetV2Options& options = {});

}  // namespace tl::models
