// models/resnet.h — torchvision's ResNet family (v1.5: a Bottleneck strides in its 3x3 conv), with
// torchvision's module tree, parameter names, initialisation, repr and forward (so FX traces name
// nodes like layer1_0_relu_1 and add_7, exactly as in the tutorials).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::models {

/// torchvision.models.resnet*'s keyword arguments.
struct ResNetOptions {
  int64_t num_classes = 1000;
  /// Zero the last BN weight of each residual branch, so every block starts as the identity.
  bool zero_init_residual = false;
  /// Groups of each Bottleneck's 3x3 conv (ResNeXt's cardinality); a BasicBlock needs 1.
  int64_t groups = 1;
  /// Channels per group of a Bottleneck's 3x3 conv at 64 planes (its width is planes * width_per_group /
  /// 64 * groups); a BasicBlock needs 64.
  int64_t width_per_group = 64;
};

/// conv3x3 -> bn -> relu -> conv3x3 -> bn, + identity (or downsample(x)), -> relu; expansion 1.
/// Children: conv1, bn1, relu, conv2, bn2, downsample (only when given).
class BasicBlock : public nn::Module {
 public:
  static constexpr int64_t kExpansion = 1;
  /// `downsample` (may be null) maps the block input to the output's shape when they differ. Throws
  /// tl::Error (torchvision's ValueError text) unless groups = 1 and base_width = 64.
  BasicBlock(int64_t inplanes, int64_t planes, int64_t stride = 1, std::shared_ptr<nn::Module> downsample = nullptr,
             int64_t groups = 1, int64_t base_width = 64);

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "BasicBlock"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<BasicBlock>(); }
};

/// conv1x1 -> bn -> relu -> conv3x3 (stride, groups) -> bn -> relu -> conv1x1 (x4) -> bn, + identity, -> relu;
/// the inner width is planes * base_width / 64 * groups. Children: conv1, bn1, conv2, bn2, conv3, bn3, relu,
/// downsample (only when given).
class Bottleneck : public nn::Module {
 public:
  static constexpr int64_t kExpansion = 4;
  Bottleneck(int64_t inplanes, int64_t planes, int64_t stride = 1, std::shared_ptr<nn::Module> downsample = nullptr,
             int64_t groups = 1, int64_t base_width = 64);

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Bottleneck"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Bottleneck>(); }
};

/// Input (N, 3, H, W), any H, W >= 1 (downsampled 32x before the global average pool); output
/// logits (N, num_classes).
/// Children: conv1, bn1, relu, maxpool, layer1..layer4 (Sequential of blocks), avgpool, fc.
class ResNet : public nn::Module {
 public:
  enum class Block { Basic, Bottleneck };
  /// `layers`: blocks per stage, e.g. {2, 2, 2, 2} for ResNet-18.
  ResNet(Block block, const std::array<int64_t, 4>& layers, const ResNetOptions& options = {});

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ResNet"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ResNet>(); }

 private:
  std::shared_ptr<nn::Module> make_layer(Block block, int64_t planes, int64_t blocks, int64_t stride);

  int64_t inplanes_ = 64;
  int64_t groups_ = 1;
  int64_t base_width_ = 64;
};

/// 11,689,512 parameters with the default 1000 classes.
std::shared_ptr<ResNet> resnet18(const ResNetOptions& options = {});
/// 21,797,672 parameters.
std::shared_ptr<ResNet> resnet34(const ResNetOptions& options = {});
/// 25,557,032 parameters.
std::shared_ptr<ResNet> resnet50(const ResNetOptions& options = {});
/// 44,549,160 parameters.
std::shared_ptr<ResNet> resnet101(const ResNetOptions& options = {});
/// 60,192,808 parameters.
std::shared_ptr<ResNet> resnet152(const ResNetOptions& options = {});

// ResNeXt and Wide ResNet: ResNet-50/101 whose builders set groups and width_per_group. As torchvision's
// _ovewrite_named_param, they throw tl::Error when `options` asks for another value of either.
/// 25,028,904 parameters (groups 32, width_per_group 4).
std::shared_ptr<ResNet> resnext50_32x4d(const ResNetOptions& options = {});
/// 88,791,336 parameters (groups 32, width_per_group 8).
std::shared_ptr<ResNet> resnext101_32x8d(const ResNetOptions& options = {});
/// 83,455,272 parameters (groups 64, width_per_group 4).
std::shared_ptr<ResNet> resnext101_64x4d(const ResNetOptions& options = {});
/// 68,883,240 parameters (width_per_group 128: twice the channels inside each Bottleneck).
std::shared_ptr<ResNet> wide_resnet50_2(const ResNetOptions& options = {});
/// 126,886,696 parameters (width_per_group 128).
std::shared_ptr<ResNet> wide_resnet101_2(const ResNetOptions& options = {});

}  // namespace tl::models
