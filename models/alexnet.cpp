// models/alexnet.cpp — torchvision/models/alexnet.py in C++: the same registration order (it fixes repr,
// state_dict order, the order of the default initialisation's draws and FX node order) and forward.
#include "models/alexnet.h"

#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

std::shared_ptr<nn::Conv2d> conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding) {
  return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
      .in_channels = in, .out_channels = out, .kernel_size = kernel, .stride = stride, .padding = padding});
}

std::shared_ptr<nn::ReLU> relu() { return std::make_shared<nn::ReLU>(/*inplace=*/true); }

std::shared_ptr<nn::MaxPool2d> pool() {
  return std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2});
}

}  // namespace

AlexNet::AlexNet(const AlexNetOptions& options) {
  check_num_classes("AlexNet", options.num_classes);
  register_module("features", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                  conv(3, 64, 11, 4, 2), relu(), pool(), conv(64, 192, 5, 1, 2), relu(), pool(),
                                  conv(192, 384, 3, 1, 1), relu(), conv(384, 256, 3, 1, 1), relu(),
                                  conv(256, 256, 3, 1, 1), relu(), pool()}));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(6, 6)));
  register_module("classifier", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                    std::make_shared<nn::Dropout>(options.dropout),
                                    std::make_shared<nn::Linear>(256 * 6 * 6, 4096), relu(),
                                    std::make_shared<nn::Dropout>(options.dropout),
                                    std::make_shared<nn::Linear>(4096, 4096), relu(),
                                    std::make_shared<nn::Linear>(4096, options.num_classes)}));
}

nn::ForwardSignature AlexNet::forward_signature() const { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

Tensor AlexNet::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("features")(input);
  x = submodule("avgpool")(x);
  x = tl::flatten(x, 1);
  return submodule("classifier")(x);
}

std::shared_ptr<AlexNet> alexnet(const AlexNetOptions& options) { return std::make_shared<AlexNet>(options); }

}  // namespace tl::models
