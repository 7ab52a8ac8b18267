// models/convnext.h — torchvision's ConvNeXt (convnext_tiny, _small, _base, _large) with torchvision's module
// tree (CNBlocks with a per-channel layer_scale, LayerNorm2d downsampling), parameter names, initialisation,
// repr and forward.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/vision_ops.h"
#include "nn/module.h"
#include "nn/normalization.h"

namespace tl::models {

/// torchvision.models.convnext.LayerNorm2d: nn.LayerNorm over the channels of (N, C, H, W), computed as
/// x.permute(0, 2, 3, 1), F.layer_norm, permute(0, 3, 1, 2). Prints and saves as LayerNorm; unlike
/// nn.LayerNorm it is traced through (torchvision's class, not a leaf of torch.fx). The ops throw tl::Error
/// for an input that is not 4-D (permute) or whose channels are not normalized_shape (layer_norm).
class LayerNorm2d : public nn::LayerNorm {
 public:
  using nn::LayerNorm::LayerNorm;
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "LayerNorm2d"; }
  bool is_leaf() const override { return false; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<LayerNorm2d>(); }
};

namespace convnext {

/// torchvision.models.convnext.CNBlockConfig: a stage of num_layers CNBlocks of input_channels, then (when
/// out_channels is set) a LayerNorm2d and a 2x2 stride-2 conv to out_channels.
struct CNBlockConfig {
  int64_t input_channels;
  std::optional<int64_t> out_channels;
  int64_t num_layers;
};

/// torchvision.models.convnext.CNBlock: input + stochastic_depth(layer_scale * block(input)), block a 7x7
/// depthwise conv, Permute to (N, H, W, C), LayerNorm(eps=1e-6), Linear(dim, 4 dim), GELU, Linear(4 dim, dim),
/// Permute back. Children: block, stochastic_depth; parameter layer_scale (dim, 1, 1) = layer_scale.
class CNBlock : public nn::Module {
 public:
  CNBlock(int64_t dim, double layer_scale, double stochastic_depth_prob);
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "CNBlock"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<CNBlock>(); }
};

}  // namespace convnext

/// The keyword arguments a convnext_* builder passes on to ConvNeXt (block and norm_layer are torchvision's
/// defaults, CNBlock and partial(LayerNorm2d, eps=1e-6); no others are offered).
struct ConvNeXtOptions {
  int64_t num_classes = 1000;
  /// The maximum drop probability; block i of n draws with stochastic_depth_prob * i / (n - 1). nullopt: each
  /// builder's (0.1 tiny, 0.4 small, 0.5 base and large).
  std::optional<double> stochastic_depth_prob;
  /// Each CNBlock's layer_scale starts at this value.
  double layer_scale = 1e-6;
};

/// Input (N, 3, H, W), H, W >= 32 (the stem and three downsamplings divide by 32); output logits
/// (N, num_classes). Children: features, avgpool, classifier.
class ConvNeXt : public nn::Module {
 public:
  /// Throws tl::Error for an empty setting, a negative num_classes or a stochastic_depth_prob that gives a block a
  /// drop probability outside [0, 1], before drawing any weight.
  ConvNeXt(const std::vector<convnext::CNBlockConfig>& block_setting, double stochastic_depth_prob = 0.0,
           double layer_scale = 1e-6, int64_t num_classes = 1000);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ConvNeXt"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ConvNeXt>(); }
};

/// 28,589,128 parameters with the default 1000 classes.
std::shared_ptr<ConvNeXt> convnext_tiny(const ConvNeXtOptions& options = {});
/// 50,223,688 parameters.
std::shared_ptr<ConvNeXt> convnext_small(const ConvNeXtOptions& options = {});
/// 88,591,464 parameters.
std::shared_ptr<ConvNeXt> convnext_base(const ConvNeXtOptions& options = {});
/// 197,767,336 parameters.
std::shared_ptr<ConvNeXt> convnext_large(const ConvNeXtOptions& options = {});

}  // namespace tl::models
