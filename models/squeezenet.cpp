// models/squeezenet.cpp — torchvision/models/squeezenet.py in C++: the same registration order (it fixes
// repr, state_dict order and the order of the initialisation's draws), init loop and forward.
#include "models/squeezenet.h"

#include <vector>

#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/init.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

std::shared_ptr<nn::Conv2d> conv(int64_t in, int64_t out, int64_t kernel, int64_t stride = 1, int64_t padding = 0) {
  return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
      .in_channels = in, .out_channels = out, .kernel_size = kernel, .stride = stride, .padding = padding});
}

std::shared_ptr<nn::ReLU> relu() { return std::make_shared<nn::ReLU>(/*inplace=*/true); }

std::shared_ptr<nn::MaxPool2d> pool() {
  return std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2, .ceil_mode = true});
}

std::shared_ptr<Fire> fire(int64_t inplanes, int64_t squeeze, int64_t expand) {
  return std::make_shared<Fire>(inplanes, squeeze, expand, expand);
}

nn::ForwardSignature tensor_to_tensor() { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

}  // namespace

Fire::Fire(int64_t inplanes, int64_t squeeze_planes, int64_t expand1x1_planes, int64_t expand3x3_planes) {
  register_module("squeeze", conv(inplanes, squeeze_planes, 1));
  register_module("squeeze_activation", relu());
  register_module("expand1x1", conv(squeeze_planes, expand1x1_planes, 1));
  register_module("expand1x1_activation", relu());
  register_module("expand3x3", conv(squeeze_planes, expand3x3_planes, 3, 1, 1));
  register_module("expand3x3_activation", relu());
}

nn::ForwardSignature Fire::forward_signature() const { return tensor_to_tensor(); }

Tensor Fire::forward(const Tensor& input) {
  const Tensor x = submodule("squeeze_activation")(submodule("squeeze")(input));
  return tl::cat({submodule("expand1x1_activation")(submodule("expand1x1")(x)),
                  submodule("expand3x3_activation")(submodule("expand3x3")(x))},
                 1);
}

SqueezeNet::SqueezeNet(const std::string& version, const SqueezeNetOptions& options) {
  check_num_classes("SqueezeNet", options.num_classes);
  // torchvision builds it, and each forward raises in final_conv ("expected weight to be at least 1 at dimension 0")
  TL_CHECK(options.num_classes != 0, "SqueezeNet: num_classes=0 gives final_conv a weight of 0 output channels, which ",
           "PyTorch's convolution refuses at every forward");
  std::vector<std::shared_ptr<nn::Module>> features;
  if (version == "1_0") {
    features = {conv(3, 96, 7, 2),  relu(),           pool(),           fire(96, 16, 64),  fire(128, 16, 64),
                fire(128, 32, 128), pool(),           fire(256, 32, 128), fire(256, 48, 192), fire(384, 48, 192),
                fire(384, 64, 256), pool(),           fire(512, 64, 256)};
  } else {
    TL_CHECK(version == "1_1", "Unsupported SqueezeNet version ", version, ": 1_0 or 1_1 expected");
    features = {conv(3, 64, 3, 2),  relu(),            pool(),             fire(64, 16, 64),   fire(128, 16, 64),
                pool(),             fire(128, 32, 128), fire(256, 32, 128), pool(),             fire(256, 48, 192),
                fire(384, 48, 192), fire(384, 64, 256), fire(512, 64, 256)};
  }
  register_module("features", std::make_shared<nn::Sequential>(std::move(features)));
  // The final convolution is initialised differently from the rest.
  const std::shared_ptr<nn::Conv2d> final_conv = conv(512, options.num_classes, 1);
  register_module("classifier", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                    std::make_shared<nn::Dropout>(options.dropout), final_conv, relu(),
                                    std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1, 1))}));
  for (const auto& m : modules()) {
    auto* c = dynamic_cast<nn::Conv2d*>(m.get());
    if (!c) continue;
    if (c == final_conv.get())
      nn::init::normal_(c->parameter("weight"), 0.0, 0.01);
    else
      nn::init::kaiming_uniform_(c->parameter("weight"));
    nn::init::constant_(c->parameter("bias"), 0.0);
  }
}

nn::ForwardSignature SqueezeNet::forward_signature() const { return tensor_to_tensor(); }

Tensor SqueezeNet::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = submodule("classifier")(x);
  return tl::flatten(x, 1);
}

std::shared_ptr<SqueezeNet> squeezenet1_0(const SqueezeNetOptions& options) {
  return std::make_shared<SqueezeNet>("1_0", options);
}

std::shared_ptr<SqueezeNet> squeezenet1_1(const SqueezeNetOptions& options) {
  return std::make_shared<SqueezeNet>("1_1", options);
}

}  // namespace tl::models
