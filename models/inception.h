// models/inception.h — torchvision's Inception3 (inception_v3): the stem, InceptionA ... InceptionE blocks
// and InceptionAux, with torchvision's module tree, parameter names, trunc_normal_ initialisation, repr
// and forward (the aux head in training mode, transform_input). BasicConv2d is googlenet.h's.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "models/googlenet.h"
#include "nn/module.h"

namespace tl::models {

namespace inception_blocks {

/// InceptionA(in_channels, pool_features): 1x1 (64) | 1x1 -> 5x5 (64) | 1x1 -> 3x3 -> 3x3 (96) |
/// F.avg_pool2d(3, 1, 1) -> 1x1 (pool_features), concatenated: 224 + pool_features channels.
class InceptionA : public nn::Module {
 public:
  InceptionA(int64_t in_channels, int64_t pool_features);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InceptionA"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InceptionA>(); }
};

/// InceptionB(in_channels): 3x3 stride 2 (384) | 1x1 -> 3x3 -> 3x3 stride 2 (96) | F.max_pool2d(3, 2):
/// in_channels + 480 channels at half the size.
class InceptionB : public nn::Module {
 public:
  explicit InceptionB(int64_t in_channels);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InceptionB"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InceptionB>(); }
};

/// InceptionC(in_channels, channels_7x7): 1x1 | factorised 7x7 (1x7, 7x1) | doubled factorised 7x7 |
/// F.avg_pool2d(3, 1, 1) -> 1x1; 192 channels each, 768 in all.
class InceptionC : public nn::Module {
 public:
  InceptionC(int64_t in_channels, int64_t channels_7x7);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InceptionC"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InceptionC>(); }
};

/// InceptionD(in_channels): 1x1 -> 3x3 stride 2 (320) | 1x1 -> 1x7 -> 7x1 -> 3x3 stride 2 (192) |
/// F.max_pool2d(3, 2): in_channels + 512 channels at half the size.
class InceptionD : public nn::Module {
 public:
  explicit InceptionD(int64_t in_channels);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InceptionD"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InceptionD>(); }
};

/// InceptionE(in_channels): 1x1 (320) | 1x1 -> (1x3 | 3x1) (768) | 1x1 -> 3x3 -> (1x3 | 3x1) (768) |
/// F.avg_pool2d(3, 1, 1) -> 1x1 (192): 2048 channels.
class InceptionE : public nn::Module {
 public:
  explicit InceptionE(int64_t in_channels);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InceptionE"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InceptionE>(); }
};

/// inception.InceptionAux: F.avg_pool2d(5, 3), conv0 (1x1, 128), conv1 (5x5, 768),
/// F.adaptive_avg_pool2d(1), flatten, fc. Needs a 17x17 input (Mixed_6e's at 299x299) or any of at least 17.
class InceptionAux : public nn::Module {
 public:
  InceptionAux(int64_t in_channels, int64_t num_classes);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InceptionAux"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InceptionAux>(); }
};

}  // namespace inception_blocks

/// torchvision's InceptionOutputs namedtuple, what an Inception3 in training mode with aux_logits returns;
/// aux_logits is an undefined tensor (None) when the head did not run.
struct InceptionOutputs {
  Tensor logits;
  Tensor aux_logits;
};

/// Inception3's keyword arguments, with its defaults (inception_v3() passes them on unchanged).
struct Inception3Options {
  int64_t num_classes = 1000;
  /// Build AuxLogits (after Mixed_6e), run in training mode only.
  bool aux_logits = true;
  /// Re-normalise an ImageNet-normalised input to the (x - 0.5) / 0.5 the original weights expect.
  bool transform_input = false;
  /// nullopt: true, with torchvision's FutureWarning. true: trunc_normal_(std=0.1, a=-2, b=2) for every
  /// Conv2d and Linear weight but AuxLogits.fc's (std=0.001), BatchNorm2d weight 1 and bias 0 (torchvision
  /// sets stddev=0.01 on AuxLogits.conv1, a BasicConv2d, which its loop never reads); false: the layers' own.
  std::optional<bool> init_weights;
  double dropout = 0.5;
};

/// Input (N, 3, H, W), H and W >= 75 (torchvision's min_size; 299 is the trained size); logits
/// (N, num_classes). Children: Conv2d_1a_3x3, Conv2d_2a_3x3, Conv2d_2b_3x3, maxpool1, Conv2d_3b_1x1,
/// Conv2d_4a_3x3, maxpool2, Mixed_5b ... Mixed_6e, AuxLogits (with aux_logits), Mixed_7a ... Mixed_7c, avgpool,
/// dropout, fc.
class Inception3 : public nn::Module {
 public:
  explicit Inception3(const Inception3Options& options = {});

  /// torchvision's forward: {logits} in eval mode or without aux_logits; in training mode with aux_logits
  /// the InceptionOutputs tuple, {logits, aux_logits}. model(TensorList{x}) reaches it.
  TensorList forward(nn::Inputs inputs) override;
  /// The logits when forward returns one tensor; throws tl::Error in training mode with aux_logits (use
  /// forward_outputs or model(TensorList{x})).
  Tensor forward(const Tensor& x) override;
  /// Calls the model (module hooks run) and names the outputs; aux_logits undefined when not computed.
  InceptionOutputs forward_outputs(const Tensor& x);
  std::string type_name() const override { return "Inception3"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Inception3>(); }

  const Inception3Options& options() const { return options_; }

 private:
  Inception3Options options_;
};

/// torchvision.models.inception_v3(weights=None, **kwargs): 27,161,264 parameters with the default options
/// (23,834,568 with aux_logits=false).
std::shared_ptr<Inception3> inception_v3(const Inception3Options& options = {});

}  // namespace tl::models
