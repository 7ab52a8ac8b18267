// models/densenet.h — torchvision's DenseNet-BC family (densenet121/161/169/201): dense blocks whose
// layers read the concatenation of every earlier output, transitions that halve channels and size;
// torchvision's module tree, parameter names, initialisation, repr and forward (memory_efficient=False).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "nn/container.h"
#include "nn/module.h"

namespace tl::models {

/// torchvision.models.densenet*'s keyword arguments (DenseNet's, beyond the per-builder architecture).
struct DenseNetOptions {
  int64_t num_classes = 1000;
  /// Bottleneck width multiplier: each layer's 1x1 conv gives bn_size * growth_rate channels.
  int64_t bn_size = 4;
  /// Dropout probability after each dense layer (F.dropout: active in training only).
  double drop_rate = 0;
  /// torchvision's gradient checkpointing of the bottleneck; only false is supported (throws otherwise).
  bool memory_efficient = false;
};

// The C++ names drop torchvision's leading underscore (reserved in C++); type_name() and repr keep it.

/// torchvision's _DenseLayer: norm1 -> relu1 -> conv1 (1x1, bn_size * growth_rate) -> norm2 -> relu2 ->
/// conv2 (3x3, growth_rate) over cat(prev_features, 1). Children: norm1, relu1, conv1, norm2, relu2, conv2.
class DenseLayer : public nn::Module {
 public:
  DenseLayer(int64_t num_input_features, int64_t growth_rate, int64_t bn_size, double drop_rate);

  /// torchvision's forward on a single tensor (its `isinstance(input, Tensor)` branch).
  Tensor forward(const Tensor& input) override;
  /// torchvision's forward on List[Tensor]: every earlier output of the block, (N, C_i, H, W) each.
  /// DenseBlock calls it directly (a module call takes a fixed number of tensors), so module hooks on
  /// a DenseLayer do not run; its children are called through operator() as usual.
  Tensor forward_list(const TensorList& prev_features);
  std::string type_name() const override { return "_DenseLayer"; }
  /// `forward(self, input : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<DenseLayer>(); }

 private:
  double drop_rate_;
};

/// torchvision's _DenseBlock: `num_layers` DenseLayers named denselayer1, denselayer2, ...; output
/// cat(input, every layer's output): num_input_features + num_layers * growth_rate channels.
class DenseBlock : public nn::Module {
 public:
  DenseBlock(int64_t num_layers, int64_t num_input_features, int64_t bn_size, int64_t growth_rate, double drop_rate);

  Tensor forward(const Tensor& init_features) override;
  std::string type_name() const override { return "_DenseBlock"; }
  /// `forward(self, init_features : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<DenseBlock>(); }
};

/// torchvision's _Transition(nn.Sequential): norm, relu, conv (1x1), pool (AvgPool2d(2, 2)).
class Transition : public nn::Sequential {
 public:
  Transition(int64_t num_input_features, int64_t num_output_features);

  std::string type_name() const override { return "_Transition"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Transition>(); }
};

/// Input (N, 3, H, W) with H, W >= 29 (torchvision's min_size); output logits (N, num_classes).
/// Children: features (Sequential: conv0, norm0, relu0, pool0, denseblock1, transition1, ..., denseblock4,
/// norm5), classifier (Linear).
class DenseNet : public nn::Module {
 public:
  /// `block_config`: layers per dense block; `num_init_features`: conv0's output channels.
  DenseNet(int64_t growth_rate = 32, const std::array<int64_t, 4>& block_config = {6, 12, 24, 16},
           int64_t num_init_features = 64, const DenseNetOptions& options = {});

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "DenseNet"; }
  /// `forward(self, x : torch.Tensor) -> torch.Tensor`, annotated as in torchvision.
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<DenseNet>(); }
};

/// 7,978,856 parameters with the default 1000 classes.
std::shared_ptr<DenseNet> densenet121(const DenseNetOptions& options = {});
/// 28,681,000 parameters.
std::shared_ptr<DenseNet> densenet161(const DenseNetOptions& options = {});
/// 14,149,480 parameters.
std::shared_ptr<DenseNet> densenet169(const DenseNetOptions& options = {});
/// 20,013,928 parameters.
std::shared_ptr<DenseNet> densenet201(const DenseNetOptions& options = {});

}  // namespace tl::models
