// models/googlenet.h — torchvision's GoogLeNet (Inception v1): BasicConv2d, Inception and InceptionAux blocks
// with torchvision's module tree, parameter names, trunc_normal_ initialisation, repr and forward, including
// the auxiliary classifiers of training mode and transform_input.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "nn/conv.h"
#include "nn/module.h"

namespace tl::models {

/// torchvision's BasicConv2d (googlenet.py and inception.py define the same class): Conv2d without bias,
/// BatchNorm2d(eps=0.001), then F.relu(inplace=True). Children: conv, bn.
class BasicConv2d : public nn::Module {
 public:
  /// nn.Conv2d(in_channels, out_channels, bias=False, kernel_size=..., stride=..., padding=...).
  BasicConv2d(int64_t in_channels, int64_t out_channels, nn::IntPair kernel_size, nn::IntPair stride = 1,
              nn::IntPair padding = 0);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "BasicConv2d"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<BasicConv2d>(); }
};

namespace googlenet_blocks {

/// torchvision.models.googlenet.Inception: four branches over the same input, concatenated on channels
/// (ch1x1 + ch3x3 + ch5x5 + pool_proj). Children: branch1 (BasicConv2d 1x1), branch2 (1x1 -> 3x3), branch3
/// (1x1 -> 3x3, as torchvision's "5x5" branch), branch4 (MaxPool2d(3, 1, 1, ceil_mode) -> 1x1).
class Inception : public nn::Module {
 public:
  Inception(int64_t in_channels, int64_t ch1x1, int64_t ch3x3red, int64_t ch3x3, int64_t ch5x5red, int64_t ch5x5,
            int64_t pool_proj);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Inception"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Inception>(); }
};

/// torchvision.models.googlenet.InceptionAux: F.adaptive_avg_pool2d to 4x4, conv (BasicConv2d 1x1, 128
/// channels), flatten, F.relu(fc1), dropout, fc2. Children: conv, fc1, fc2, dropout.
class InceptionAux : public nn::Module {
 public:
  InceptionAux(int64_t in_channels, int64_t num_classes, double dropout = 0.7);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "InceptionAux"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<InceptionAux>(); }
};

}  // namespace googlenet_blocks

/// torchvision's GoogLeNetOutputs namedtuple, what a GoogLeNet in training mode with aux_logits returns.
/// As in torchvision 0.14, aux_logits2 holds aux1's output (the head after inception4a) and aux_logits1
/// aux2's (after inception4d): GoogLeNet.forward unpacks _forward's (x, aux2, aux1) as (x, aux1, aux2).
/// The aux fields are undefined tensors (None) in eval mode or without aux_logits.
struct GoogLeNetOutputs {
  Tensor logits;
  Tensor aux_logits2;
  Tensor aux_logits1;
};

/// GoogLeNet's keyword arguments, with its defaults (googlenet() passes them on unchanged).
struct GoogLeNetOptions {
  int64_t num_classes = 1000;
  /// Build aux1 and aux2 (InceptionAux after inception4a and inception4d), run in training mode only.
  bool aux_logits = true;
  /// Re-normalise an ImageNet-normalised input to the (x - 0.5) / 0.5 the original weights expect.
  bool transform_input = false;
  /// nullopt: true, with torchvision's FutureWarning. true: trunc_normal_(std=0.01, a=-2, b=2) for every
  /// Conv2d and Linear weight, BatchNorm2d weight 1 and bias 0; false: the layers' own initialisation.
  std::optional<bool> init_weights;
  double dropout = 0.2;
  double dropout_aux = 0.7;
};

/// Input (N, 3, H, W), H and W >= 15 (torchvision's min_size); logits (N, num_classes). Children: conv1,
/// maxpool1, conv2, conv3, maxpool2, inception3a, inception3b, maxpool3, inception4a ... inception4e, maxpool4,
/// inception5a, inception5b, aux1, aux2 (with aux_logits), avgpool, dropout, fc.
class GoogLeNet : public nn::Module {
 public:
  explicit GoogLeNet(const GoogLeNetOptions& options = {});

  /// torchvision's forward: {logits} in eval mode or without aux_logits; in training mode with aux_logits
  /// the GoogLeNetOutputs tuple, {logits, aux_logits2, aux_logits1}. model(TensorList{x}) reaches it.
  TensorList forward(nn::Inputs inputs) override;
  /// The logits when forward returns one tensor; throws tl::Error in training mode with aux_logits (use
  /// forward_outputs or model(TensorList{x})).
  Tensor forward(const Tensor& x) override;
  /// Calls the model (module hooks run) and names the outputs; aux fields undefined when not computed.
  GoogLeNetOutputs forward_outputs(const Tensor& x);
  std::string type_name() const override { return "GoogLeNet"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<GoogLeNet>(); }

  const GoogLeNetOptions& options() const { return options_; }

 private:
  GoogLeNetOptions options_;
};

/// torchvision.models.googlenet(weights=None, **kwargs): 13,004,888 parameters with the default options
/// (6,624,904 with aux_logits=false).
std::shared_ptr<GoogLeNet> googlenet(const GoogLeNetOptions& options = {});

}  // namespace tl::models
