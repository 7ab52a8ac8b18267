// models/regnet.h — torchvision's RegNet (regnet_x_400mf ... regnet_x_32gf, regnet_y_400mf ... regnet_y_128gf)
// with torchvision's module tree (SimpleStemIN, AnyStage of ResBottleneckBlocks), parameter names,
// initialisation, repr and forward; BlockParams derives the stages from the builders' w_0, w_a, w_m.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/vision_ops.h"
#include "nn/container.h"
#include "nn/module.h"

namespace tl::models {

namespace regnet {

/// torchvision.models.regnet.BlockParams: per stage its depth, width, group width, bottleneck multiplier
/// and stride, and the blocks' squeeze-excitation ratio (none for the X models).
struct BlockParams {
  std::vector<int64_t> depths, widths, group_widths;
  std::vector<double> bottleneck_multipliers;
  std::vector<int64_t> strides;
  std::optional<double> se_ratio;

  /// BlockParams.from_init_params: `depth` block widths w_0 + i * w_a quantized to multiples of 8 in log
  /// space (base w_m), in float32 as torchvision computes them with torch tensors, grouped into stages of
  /// equal width, each adjusted so its group width divides it. Throws tl::Error ("Invalid RegNet settings")
  /// unless w_a >= 0, w_0 > 0, w_m > 1 and w_0 % 8 == 0, and for a group width of 0 (group_width 0, or a
  /// bottleneck width of 0: Python's ZeroDivisionError).
  static BlockParams from_init_params(int64_t depth, int64_t w_0, double w_a, double w_m, int64_t group_width,
                                      double bottleneck_multiplier = 1.0, std::optional<double> se_ratio = std::nullopt);
};

/// torchvision's SimpleStemIN: Conv2dNormActivation(width_in, width_out, kernel_size=3, stride=2).
class SimpleStemIN : public ops::Conv2dNormActivation {
 public:
  SimpleStemIN(int64_t width_in, int64_t width_out, const ops::NormLayer& norm_layer,
               const ops::ActivationLayer& activation_layer);
  std::string type_name() const override { return "SimpleStemIN"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SimpleStemIN>(); }
};

/// What a block is built from: torchvision's positional arguments of ResBottleneckBlock.
struct BlockArgs {
  int64_t width_in, width_out, stride;
  ops::NormLayer norm_layer;
  ops::ActivationLayer activation_layer;
  int64_t group_width;
  double bottleneck_multiplier;
  std::optional<double> se_ratio;
};

/// torchvision's BottleneckTransform: a Sequential of "a" (1x1), "b" (3x3 grouped, stride), "se"
/// (SqueezeExcitation, when se_ratio is set) and "c" (1x1, no activation).
class BottleneckTransform : public nn::Sequential {
 public:
  explicit BottleneckTransform(const BlockArgs& args);
  std::string type_name() const override { return "BottleneckTransform"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<BottleneckTransform>(); }
};

/// torchvision's ResBottleneckBlock: activation(proj(x) + f(x)), proj (a 1x1 conv-bn) only when the width
/// or the resolution changes, else activation(x + f(x)). Children: [proj], f, activation.
class ResBottleneckBlock : public nn::Module {
 public:
  explicit ResBottleneckBlock(const BlockArgs& args);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "ResBottleneckBlock"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ResBottleneckBlock>(); }
};

/// torchvision's AnyStage: a Sequential of `depth` ResBottleneckBlocks named "block<stage_index>-<i>", the
/// first taking width_in and the stride.
class AnyStage : public nn::Sequential {
 public:
  AnyStage(const BlockArgs& first, int64_t depth, int64_t stage_index);
  std::string type_name() const override { return "AnyStage"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<AnyStage>(); }
};

}  // namespace regnet

/// The keyword arguments a regnet_* builder passes on to RegNet (stem_type and block_type are
/// torchvision's SimpleStemIN and ResBottleneckBlock; no others are offered).
struct RegNetOptions {
  int64_t num_classes = 1000;
  int64_t stem_width = 32;
  /// nullptr: partial(nn.BatchNorm2d, eps=1e-05, momentum=0.1).
  ops::NormLayer norm_layer;
  /// nullptr: nn.ReLU.
  ops::ActivationLayer activation;
};

/// Input (N, 3, H, W), H, W >= 1; output logits (N, num_classes). Children: stem, trunk_output (stages
/// "block1", "block2", ...), avgpool, fc.
class RegNet : public nn::Module {
 public:
  /// As torchvision zips block_params' per-stage lists, the shortest one decides the stage count. Throws tl::Error,
  /// before drawing any weight, for a negative num_classes or a stage's group width of 0.
  explicit RegNet(const regnet::BlockParams& block_params, const RegNetOptions& options = {});
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "RegNet"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<RegNet>(); }
};

/// 5,495,976 parameters with the default 1000 classes.
std::shared_ptr<RegNet> regnet_x_400mf(const RegNetOptions& options = {});
/// 7,259,656 parameters.
std::shared_ptr<RegNet> regnet_x_800mf(const RegNetOptions& options = {});
/// 9,190,136 parameters.
std::shared_ptr<RegNet> regnet_x_1_6gf(const RegNetOptions& options = {});
/// 15,296,552 parameters.
std::shared_ptr<RegNet> regnet_x_3_2gf(const RegNetOptions& options = {});
/// 39,572,648 parameters.
std::shared_ptr<RegNet> regnet_x_8gf(const RegNetOptions& options = {});
/// 54,278,536 parameters.
std::shared_ptr<RegNet> regnet_x_16gf(const RegNetOptions& options = {});
/// 107,811,560 parameters.
std::shared_ptr<RegNet> regnet_x_32gf(const RegNetOptions& options = {});
/// 4,344,144 parameters.
std::shared_ptr<RegNet> regnet_y_400mf(const RegNetOptions& options = {});
/// 6,432,512 parameters.
std::shared_ptr<RegNet> regnet_y_800mf(const RegNetOptions& options = {});
/// 11,202,430 parameters.
std::shared_ptr<RegNet> regnet_y_1_6gf(const RegNetOptions& options = {});
/// 19,436,338 parameters.
std::shared_ptr<RegNet> regnet_y_3_2gf(const RegNetOptions& options = {});
/// 39,381,472 parameters.
std::shared_ptr<RegNet> regnet_y_8gf(const RegNetOptions& options = {});
/// 83,590,140 parameters.
std::shared_ptr<RegNet> regnet_y_16gf(const RegNetOptions& options = {});
/// 145,046,770 parameters.
std::shared_ptr<RegNet> regnet_y_32gf(const RegNetOptions& options = {});
/// 644,812,894 parameters.
std::shared_ptr<RegNet> regnet_y_128gf(const RegNetOptions& options = {});

}  // namespace tl::models
