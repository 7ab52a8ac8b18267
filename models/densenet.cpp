// models/densenet.cpp — torchvision/models/densenet.py in C++: the same registration order (it fixes
// repr, state_dict order and the order of the initialisation's draws), init loop and forward.
#include "models/densenet.h"

#include <vector>

#include "core/py_repr.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/functional.h"
#include "nn/init.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

std::shared_ptr<nn::Conv2d> conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding) {
  return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = kernel,
                                                        .stride = stride, .padding = padding, .bias = false});
}

std::shared_ptr<nn::ReLU> relu() { return std::make_shared<nn::ReLU>(/*inplace=*/true); }

nn::ForwardSignature tensor_to_tensor(const std::string& arg) { return {{arg}, {"torch.Tensor"}, "torch.Tensor"}; }

}  // namespace

DenseLayer::DenseLayer(int64_t num_input_features, int64_t growth_rate, int64_t bn_size, double drop_rate)
    : drop_rate_(drop_rate) {
  register_module("norm1", std::make_shared<nn::BatchNorm2d>(num_input_features));
  register_module("relu1", relu());
  register_module("conv1", conv(num_input_features, bn_size * growth_rate, 1, 1, 0));
  register_module("norm2", std::make_shared<nn::BatchNorm2d>(bn_size * growth_rate));
  register_module("relu2", relu());
  register_module("conv2", conv(bn_size * growth_rate, growth_rate, 3, 1, 1));
}

nn::ForwardSignature DenseLayer::forward_signature() const { return tensor_to_tensor("input"); }

Tensor DenseLayer::forward(const Tensor& input) { return forward_list({input}); }

Tensor DenseLayer::forward_list(const TensorList& prev_features) {
  // torchvision's bn_function, then the 3x3 conv.
  const Tensor concated_features = tl::cat(prev_features, 1);
  const Tensor bottleneck_output = submodule("conv1")(submodule("relu1")(submodule("norm1")(concated_features)));
  Tensor new_features = submodule("conv2")(submodule("relu2")(submodule("norm2")(bottleneck_output)));
  if (drop_rate_ > 0) new_features = nn::functional::dropout(new_features, drop_rate_, is_training());
  return new_features;
}

DenseBlock::DenseBlock(int64_t num_layers, int64_t num_input_features, int64_t bn_size, int64_t growth_rate,
                       double drop_rate) {
  for (int64_t i = 0; i < num_layers; ++i) {
    const int64_t in = num_input_features + i * growth_rate;
    register_module("denselayer" + std::to_string(i + 1), std::make_shared<DenseLayer>(in, growth_rate, bn_size, drop_rate));
  }
}

nn::ForwardSignature DenseBlock::forward_signature() const { return tensor_to_tensor("init_features"); }

Tensor DenseBlock::forward(const Tensor& init_features) {
  TensorList features{init_features};
  for (const auto& [name, child] : named_children()) {
    auto* layer = dynamic_cast<DenseLayer*>(child.get());
    TL_CHECK(layer != nullptr, "_DenseBlock: child '", name, "' is a ", child->type_name(), ", expected a _DenseLayer");
    features.push_back(layer->forward_list(features));
  }
  return tl::cat(features, 1);
}

Transition::Transition(int64_t num_input_features, int64_t num_output_features)
    : nn::Sequential(std::vector<NamedModule>{
          {"norm", std::make_shared<nn::BatchNorm2d>(num_input_features)},
          {"relu", relu()},
          {"conv", conv(num_input_features, num_output_features, 1, 1, 0)},
          {"pool", std::make_shared<nn::AvgPool2d>(nn::AvgPool2dOptions{.kernel_size = 2, .stride = 2})}}) {}

DenseNet::DenseNet(int64_t growth_rate, const std::array<int64_t, 4>& block_config, int64_t num_init_features,
                   const DenseNetOptions& options) {
  check_num_classes("DenseNet", options.num_classes);
  // torchvision builds it, and F.dropout raises at each forward, eval mode included (a drop_rate <= 0 is never used)
  TL_CHECK(options.drop_rate <= 1.0, "DenseNet: drop_rate=", py_float(options.drop_rate),
           "; dropout probability has to be between 0 and 1");
  TL_CHECK(!options.memory_efficient,
           "DenseNet: memory_efficient=True (gradient checkpointing) is not supported; use memory_efficient=False");
  auto features = std::make_shared<nn::Sequential>(std::vector<NamedModule>{
      {"conv0", conv(3, num_init_features, 7, 2, 3)},
      {"norm0", std::make_shared<nn::BatchNorm2d>(num_init_features)},
      {"relu0", relu()},
      {"pool0", std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1})}});
  int64_t num_features = num_init_features;
  for (size_t i = 0; i < block_config.size(); ++i) {
    const int64_t num_layers = block_config[i];
    features->register_module("denseblock" + std::to_string(i + 1),
                              std::make_shared<DenseBlock>(num_layers, num_features, options.bn_size, growth_rate,
                                                           options.drop_rate));
    num_features += num_layers * growth_rate;
    if (i + 1 != block_config.size()) {
      features->register_module("transition" + std::to_string(i + 1),
                                std::make_shared<Transition>(num_features, num_features / 2));
      num_features /= 2;
    }
  }
  features->register_module("norm5", std::make_shared<nn::BatchNorm2d>(num_features));
  register_module("features", features);
  register_module("classifier", std::make_shared<nn::Linear>(num_features, options.num_classes));

  // torchvision's "official init from torch repo".
  for (const auto& m : modules()) {
    if (auto* c = dynamic_cast<nn::Conv2d*>(m.get())) {
      nn::init::kaiming_normal_(c->parameter("weight"));
    } else if (auto* norm = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      nn::init::constant_(norm->parameter("weight"), 1.0);
      nn::init::constant_(norm->parameter("bias"), 0.0);
    } else if (auto* linear = dynamic_cast<nn::Linear*>(m.get())) {
      nn::init::constant_(linear->parameter("bias"), 0.0);
    }
  }
}

nn::ForwardSignature DenseNet::forward_signature() const { return tensor_to_tensor("x"); }

Tensor DenseNet::forward(const Tensor& x) {
  const BuffersKeptOnError kept(*this);
  const Tensor features = submodule("features")(x);
  Tensor out = nn::functional::relu(features, /*inplace=*/true);
  out = nn::functional::adaptive_avg_pool2d(out, nn::IntPair(1, 1));
  out = tl::flatten(out, 1);
  return submodule("classifier")(out);
}

std::shared_ptr<DenseNet> densenet121(const DenseNetOptions& options) {
  return std::make_shared<DenseNet>(32, std::array<int64_t, 4>{6, 12, 24, 16}, 64, options);
}

std::shared_ptr<DenseNet> densenet161(const DenseNetOptions& options) {
  return std::make_shared<DenseNet>(48, std::array<int64_t, 4>{6, 12, 36, 24}, 96, options);
}

std::shared_ptr<DenseNet> densenet169(const DenseNetOptions& options) {
  return std::make_shared<DenseNet>(32, std::array<int64_t, 4>{6, 12, 32, 32}, 64, options);
}

std::shared_ptr<DenseNet> densenet201(const DenseNetOptions& options) {
  return std::make_shared<DenseNet>(32, std::array<int64_t, 4>{6, 12, 48, 32}, 64, options);
}

}  // namespace tl::models
