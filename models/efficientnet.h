// models/efficientnet.h — torchvision's EfficientNet B0 ... B7 and V2-S/M/L with torchvision's module tree,
// parameter names, initialisation, repr and forward (StochasticDepth on every residual branch).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/vision_ops.h"
#include "nn/module.h"

namespace tl::models {

namespace efficientnet {

/// torchvision.models.efficientnet.MBConvConfig, its channels and depth already scaled; with `fused`,
/// a FusedMBConvConfig (its blocks are FusedMBConv).
struct MBConvConfig {
  double expand_ratio;
  int64_t kernel, stride, input_channels, out_channels, num_layers;
  bool fused = false;
};

/// torchvision.models.efficientnet.MBConv: [1x1 expand conv-bn-silu], depthwise kxk conv-bn-silu,
/// SqueezeExcitation (SiLU), 1x1 project conv-bn; when stride 1 and in == out, the branch goes through
/// stochastic_depth and the input is added. Children: block, stochastic_depth.
class MBConv : public nn::Module {
 public:
  /// Throws tl::Error for a stride other than 1 or 2.
  MBConv(const MBConvConfig& cnf, double stochastic_depth_prob, const ops::NormLayer& norm_layer);
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "MBConv"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MBConv>(); }

 private:
  bool use_res_connect_;
};

/// torchvision.models.efficientnet.FusedMBConv (EfficientNetV2): a kxk conv-bn-silu expanding to
/// input_channels * expand_ratio, then a 1x1 project conv-bn; without expansion one kxk conv-bn-silu. The
/// residual as MBConv's. Children: block, stochastic_depth.
class FusedMBConv : public nn::Module {
 public:
  /// Throws tl::Error for a stride other than 1 or 2.
  FusedMBConv(const MBConvConfig& cnf, double stochastic_depth_prob, const ops::NormLayer& norm_layer);
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "FusedMBConv"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<FusedMBConv>(); }

 private:
  bool use_res_connect_;
};

}  // namespace efficientnet

/// The keyword arguments an efficientnet_b* builder passes on to EfficientNet.
struct EfficientNetOptions {
  int64_t num_classes = 1000;
  /// The maximum drop probability; block i of n draws with stochastic_depth_prob * i / n.
  double stochastic_depth_prob = 0.2;
  /// nullptr: each builder's (nn.BatchNorm2d; partial(nn.BatchNorm2d, eps=0.001, momentum=0.01) for b5-b7;
  /// partial(nn.BatchNorm2d, eps=0.001) for v2_s, v2_m, v2_l). b5-b7 and the V2 builders refuse another, as
  /// torchvision's do (they pass their own).
  ops::NormLayer norm_layer;
  /// Must stay nullopt: every builder passes its own (0.2 for b0, b1; 0.3 for b2, b3; 0.4 for b4, b5; 0.5 for b6,
  /// b7; 0.2, 0.3 and 0.4 for v2_s, v2_m and v2_l) and refuses another, as torchvision's raise TypeError. The
  /// EfficientNet class takes any dropout.
  std::optional<double> dropout;
};

/// Input (N, 3, H, W), any H, W >= 1; output logits (N, num_classes). Children: features, avgpool,
/// classifier. A setting of MBConvConfig and fused (FusedMBConvConfig) stages, as torchvision's V1 and V2.
class EfficientNet : public nn::Module {
 public:
  /// Throws tl::Error for an empty setting, a num_classes below 1 (torchvision's init divides by its square root) or
  /// a stochastic_depth_prob that gives a block a drop probability outside [0, 1], before drawing any weight.
  EfficientNet(const std::vector<efficientnet::MBConvConfig>& inverted_residual_setting, double dropout,
               double stochastic_depth_prob = 0.2, int64_t num_classes = 1000, ops::NormLayer norm_layer = nullptr,
               std::optional<int64_t> last_channel = std::nullopt);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "EfficientNet"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<EfficientNet>(); }
};

// Every builder throws tl::Error, as torchvision's raise TypeError, for options that set dropout (b5-b7 and the V2
// builders also for norm_layer): they pass their own.
/// 5,288,548 parameters with the default 1000 classes.
std::shared_ptr<EfficientNet> efficientnet_b0(const EfficientNetOptions& options = {});
/// 7,794,184 parameters.
std::shared_ptr<EfficientNet> efficientnet_b1(const EfficientNetOptions& options = {});
/// 9,109,994 parameters.
std::shared_ptr<EfficientNet> efficientnet_b2(const EfficientNetOptions& options = {});
/// 12,233,232 parameters.
std::shared_ptr<EfficientNet> efficientnet_b3(const EfficientNetOptions& options = {});
/// 19,341,616 parameters.
std::shared_ptr<EfficientNet> efficientnet_b4(const EfficientNetOptions& options = {});
/// 30,389,784 parameters.
std::shared_ptr<EfficientNet> efficientnet_b5(const EfficientNetOptions& options = {});
/// 43,040,704 parameters.
std::shared_ptr<EfficientNet> efficientnet_b6(const EfficientNetOptions& options = {});
/// 66,347,960 parameters.
std::shared_ptr<EfficientNet> efficientnet_b7(const EfficientNetOptions& options = {});
/// 21,458,488 parameters.
std::shared_ptr<EfficientNet> efficientnet_v2_s(const EfficientNetOptions& options = {});
/// 54,139,356 parameters.
std::shared_ptr<EfficientNet> efficientnet_v2_m(const EfficientNetOptions& options = {});
/// 118,515,272 parameters.
std::shared_ptr<EfficientNet> efficientnet_v2_l(const EfficientNetOptions& options = {});

}  // namespace tl::models
