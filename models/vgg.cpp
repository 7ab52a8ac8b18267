// models/vgg.cpp — torchvision/models/vgg.py in C++: the same registration order (it fixes repr,
// state_dict order and the order of the initialisation's draws), init loop and forward.
#include "models/vgg.h"

#include <vector>

#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/init.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

constexpr int64_t kPool = 0;  // "M" in torchvision's cfgs

std::vector<int64_t> config_layers(char config) {
  switch (config) {
    case 'A': return {64, kPool, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool};
    case 'B': return {64, 64, kPool, 128, 128, kPool, 256, 256, kPool, 512, 512, kPool, 512, 512, kPool};
    case 'D':
      return {64, 64, kPool, 128, 128, kPool, 256, 256, 256, kPool, 512, 512, 512, kPool, 512, 512, 512, kPool};
    case 'E':
      return {64,  64,  kPool, 128, 128, kPool, 256, 256, 256, 256,  kPool,
              512, 512, 512,   512, kPool, 512, 512, 512, 512, kPool};
    default: TL_CHECK(false, "vgg: unknown configuration '", config, "', expected 'A', 'B', 'D' or 'E'");
  }
  return {};
}

std::shared_ptr<VGG> make_vgg(char config, bool batch_norm, const VGGOptions& options) {
  check_num_classes("VGG", options.num_classes);  // before the features draw their weights
  return std::make_shared<VGG>(vgg_features(config, batch_norm), options);
}

}  // namespace

std::shared_ptr<nn::Module> vgg_features(char config, bool batch_norm) {
  std::vector<std::shared_ptr<nn::Module>> layers;
  int64_t in_channels = 3;
  for (const int64_t v : config_layers(config)) {
    if (v == kPool) {
      layers.push_back(std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 2, .stride = 2}));
      continue;
    }
    layers.push_back(std::make_shared<nn::Conv2d>(
        nn::Conv2dOptions{.in_channels = in_channels, .out_channels = v, .kernel_size = 3, .padding = 1}));
    if (batch_norm) layers.push_back(std::make_shared<nn::BatchNorm2d>(v));
    layers.push_back(std::make_shared<nn::ReLU>(/*inplace=*/true));
    in_channels = v;
  }
  return std::make_shared<nn::Sequential>(std::move(layers));
}

VGG::VGG(std::shared_ptr<nn::Module> features, const VGGOptions& options) {
  check_num_classes("VGG", options.num_classes);
  register_module("features", std::move(features));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(7, 7)));
  register_module("classifier", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                    std::make_shared<nn::Linear>(512 * 7 * 7, 4096),
                                    std::make_shared<nn::ReLU>(/*inplace=*/true),
                                    std::make_shared<nn::Dropout>(options.dropout),
                                    std::make_shared<nn::Linear>(4096, 4096),
                                    std::make_shared<nn::ReLU>(/*inplace=*/true),
                                    std::make_shared<nn::Dropout>(options.dropout),
                                    std::make_shared<nn::Linear>(4096, options.num_classes)}));
  if (!options.init_weights) return;
  for (const auto& m : modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2d*>(m.get())) {
      nn::init::kaiming_normal_(conv->parameter("weight"), 0.0, "fan_out", "relu");
      if (conv->parameter("bias").defined()) nn::init::constant_(conv->parameter("bias"), 0.0);
    } else if (auto* norm = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      nn::init::constant_(norm->parameter("weight"), 1.0);
      nn::init::constant_(norm->parameter("bias"), 0.0);
    } else if (auto* linear = dynamic_cast<nn::Linear*>(m.get())) {
      nn::init::normal_(linear->parameter("weight"), 0.0, 0.01);
      nn::init::constant_(linear->parameter("bias"), 0.0);
    }
  }
}

nn::ForwardSignature VGG::forward_signature() const { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

Tensor VGG::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = submodule("avgpool")(x);
  x = tl::flatten(x, 1);
  return submodule("classifier")(x);
}

std::shared_ptr<VGG> vgg11(const VGGOptions& options) { return make_vgg('A', false, options); }
std::shared_ptr<VGG> vgg11_bn(const VGGOptions& options) { return make_vgg('A', true, options); }
std::shared_ptr<VGG> vgg13(const VGGOptions& options) { return make_vgg('B', false, options); }
std::shared_ptr<VGG> vgg13_bn(const VGGOptions& options) { return make_vgg('B', true, options); }
std::shared_ptr<VGG> vgg16(const VGGOptions& options) { return make_vgg('D', false, options); }
std::shared_ptr<VGG> vgg16_bn(const VGGOptions& options) { return make_vgg('D', true, options); }
std::shared_ptr<VGG> vgg19(const VGGOptions& options) { return make_vgg('E', false, options); }
std::shared_ptr<VGG> vgg19_bn(const VGGOptions& options) { return make_vgg('E', true, options); }

}  // namespace tl::models
