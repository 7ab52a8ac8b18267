// models/resnet.cpp — torchvision/models/resnet.py in C++: the same registration order (it fixes
// repr, state_dict order and FX node order), the same forward order, the same initialisation.
#include "models/resnet.h"

#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/init.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

std::shared_ptr<nn::Conv2d> conv3x3(int64_t in_planes, int64_t out_planes, int64_t stride = 1, int64_t groups = 1) {
  return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
      .in_channels = in_planes, .out_channels = out_planes, .kernel_size = 3, .stride = stride, .padding = 1,
      .groups = groups, .bias = false});
}

std::shared_ptr<nn::Conv2d> conv1x1(int64_t in_planes, int64_t out_planes, int64_t stride = 1) {
  return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
      .in_channels = in_planes, .out_channels = out_planes, .kernel_size = 1, .stride = stride, .bias = false});
}

std::shared_ptr<nn::BatchNorm2d> bn(int64_t planes) { return std::make_shared<nn::BatchNorm2d>(planes); }

nn::ForwardSignature tensor_to_tensor() { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

}  // namespace

BasicBlock::BasicBlock(int64_t inplanes, int64_t planes, int64_t stride, std::shared_ptr<nn::Module> downsample,
                       int64_t groups, int64_t base_width) {
  TL_CHECK(groups == 1 && base_width == 64, "BasicBlock only supports groups=1 and base_width=64");
  register_module("conv1", conv3x3(inplanes, planes, stride));
  register_module("bn1", bn(planes));
  register_module("relu", std::make_shared<nn::ReLU>(/*inplace=*/true));
  register_module("conv2", conv3x3(planes, planes));
  register_module("bn2", bn(planes));
  if (downsample) register_module("downsample", std::move(downsample));
}

nn::ForwardSignature BasicBlock::forward_signature() const { return tensor_to_tensor(); }

Tensor BasicBlock::forward(const Tensor& x) {
  nn::Module& relu = submodule("relu");
  Tensor out = relu(submodule("bn1")(submodule("conv1")(x)));
  out = submodule("bn2")(submodule("conv2")(out));
  const Tensor identity = has_child("downsample") ? submodule("downsample")(x) : x;
  out += identity;  // torchvision's: aten::add_ in eager, operator.add when traced (fx/tracer.cpp)
  return relu(out);
}

Bottleneck::Bottleneck(int64_t inplanes, int64_t planes, int64_t stride, std::shared_ptr<nn::Module> downsample,
                       int64_t groups, int64_t base_width) {
  // torchvision's int(planes * (base_width / 64.0)) * groups
  const double scale = static_cast<double>(base_width) / 64.0;
  const int64_t width = static_cast<int64_t>(static_cast<double>(planes) * scale) * groups;
  register_module("conv1", conv1x1(inplanes, width));
  register_module("bn1", bn(width));
  register_module("conv2", conv3x3(width, width, stride, groups));
  register_module("bn2", bn(width));
  register_module("conv3", conv1x1(width, planes * kExpansion));
  register_module("bn3", bn(planes * kExpansion));
  register_module("relu", std::make_shared<nn::ReLU>(/*inplace=*/true));
  if (downsample) register_module("downsample", std::move(downsample));
}

nn::ForwardSignature Bottleneck::forward_signature() const { return tensor_to_tensor(); }

Tensor Bottleneck::forward(const Tensor& x) {
  nn::Module& relu = submodule("relu");
  Tensor out = relu(submodule("bn1")(submodule("conv1")(x)));
  out = relu(submodule("bn2")(submodule("conv2")(out)));
  out = submodule("bn3")(submodule("conv3")(out));
  const Tensor identity = has_child("downsample") ? submodule("downsample")(x) : x;
  out += identity;  // torchvision's: aten::add_ in eager, operator.add when traced (fx/tracer.cpp)
  return relu(out);
}

ResNet::ResNet(Block block, const std::array<int64_t, 4>& layers, const ResNetOptions& options)
    : groups_(options.groups), base_width_(options.width_per_group) {
  check_num_classes("ResNet", options.num_classes);
  register_module("conv1", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
                               .in_channels = 3, .out_channels = inplanes_, .kernel_size = 7, .stride = 2,
                               .padding = 3, .bias = false}));
  register_module("bn1", bn(inplanes_));
  register_module("relu", std::make_shared<nn::ReLU>(/*inplace=*/true));
  register_module("maxpool",
                  std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1}));
  register_module("layer1", make_layer(block, 64, layers[0], 1));
  register_module("layer2", make_layer(block, 128, layers[1], 2));
  register_module("layer3", make_layer(block, 256, layers[2], 2));
  register_module("layer4", make_layer(block, 512, layers[3], 2));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1, 1)));
  const int64_t expansion = block == Block::Basic ? BasicBlock::kExpansion : Bottleneck::kExpansion;
  register_module("fc", std::make_shared<nn::Linear>(512 * expansion, options.num_classes));

  for (const auto& m : modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2d*>(m.get())) {
      nn::init::kaiming_normal_(conv->parameter("weight"), 0.0, "fan_out", "relu");
    } else if (auto* norm = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      nn::init::constant_(norm->parameter("weight"), 1.0);
      nn::init::constant_(norm->parameter("bias"), 0.0);
    }
  }
  if (options.zero_init_residual) {
    for (const auto& m : modules()) {
      if (dynamic_cast<Bottleneck*>(m.get())) nn::init::zeros_(m->get_parameter("bn3.weight"));
      if (dynamic_cast<BasicBlock*>(m.get())) nn::init::zeros_(m->get_parameter("bn2.weight"));
    }
  }
}

std::shared_ptr<nn::Module> ResNet::make_layer(Block block, int64_t planes, int64_t blocks, int64_t stride) {
  const int64_t expansion = block == Block::Basic ? BasicBlock::kExpansion : Bottleneck::kExpansion;
  std::shared_ptr<nn::Module> downsample;
  if (stride != 1 || inplanes_ != planes * expansion)
    downsample =
        std::make_shared<nn::Sequential>(conv1x1(inplanes_, planes * expansion, stride), bn(planes * expansion));
  auto make_block = [&](int64_t inplanes, int64_t block_stride,
                        std::shared_ptr<nn::Module> ds) -> std::shared_ptr<nn::Module> {
    if (block == Block::Basic)
      return std::make_shared<BasicBlock>(inplanes, planes, block_stride, std::move(ds), groups_, base_width_);
    return std::make_shared<Bottleneck>(inplanes, planes, block_stride, std::move(ds), groups_, base_width_);
  };
  auto layer = std::make_shared<nn::Sequential>();
  layer->append(make_block(inplanes_, stride, std::move(downsample)));
  inplanes_ = planes * expansion;
  for (int64_t i = 1; i < blocks; ++i) layer->append(make_block(inplanes_, 1, nullptr));
  return layer;
}

nn::ForwardSignature ResNet::forward_signature() const { return tensor_to_tensor(); }

Tensor ResNet::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("conv1")(input);
  x = submodule("bn1")(x);
  x = submodule("relu")(x);
  x = submodule("maxpool")(x);
  x = submodule("layer1")(x);
  x = submodule("layer2")(x);
  x = submodule("layer3")(x);
  x = submodule("layer4")(x);
  x = submodule("avgpool")(x);
  x = tl::flatten(x, 1);
  return submodule("fc")(x);
}

std::shared_ptr<ResNet> resnet18(const ResNetOptions& options) {
  return std::make_shared<ResNet>(ResNet::Block::Basic, std::array<int64_t, 4>{2, 2, 2, 2}, options);
}

std::shared_ptr<ResNet> resnet34(const ResNetOptions& options) {
  return std::make_shared<ResNet>(ResNet::Block::Basic, std::array<int64_t, 4>{3, 4, 6, 3}, options);
}

std::shared_ptr<ResNet> resnet50(const ResNetOptions& options) {
  return std::make_shared<ResNet>(ResNet::Block::Bottleneck, std::array<int64_t, 4>{3, 4, 6, 3}, options);
}

std::shared_ptr<ResNet> resnet101(const ResNetOptions& options) {
  return std::make_shared<ResNet>(ResNet::Block::Bottleneck, std::array<int64_t, 4>{3, 4, 23, 3}, options);
}

std::shared_ptr<ResNet> resnet152(const ResNetOptions& options) {
  return std::make_shared<ResNet>(ResNet::Block::Bottleneck, std::array<int64_t, 4>{3, 8, 36, 3}, options);
}

namespace {

/// torchvision's _ovewrite_named_param for groups and width_per_group: a value the caller left at its
/// default is replaced, another one refused.
ResNetOptions overwrite(ResNetOptions options, int64_t groups, int64_t width_per_group) {
  const ResNetOptions defaults;
  TL_CHECK(options.groups == defaults.groups || options.groups == groups, "The parameter 'groups' expected value ",
           groups, " but got ", options.groups, " instead.");
  TL_CHECK(options.width_per_group == defaults.width_per_group || options.width_per_group == width_per_group,
           "The parameter 'width_per_group' expected value ", width_per_group, " but got ", options.width_per_group,
           " instead.");
  options.groups = groups;
  options.width_per_group = width_per_group;
  return options;
}

std::shared_ptr<ResNet> bottleneck_resnet(const std::array<int64_t, 4>& layers, const ResNetOptions& options) {
  return std::make_shared<ResNet>(ResNet::Block::Bottleneck, layers, options);
}

}  // namespace

std::shared_ptr<ResNet> resnext50_32x4d(const ResNetOptions& options) {
  return bottleneck_resnet({3, 4, 6, 3}, overwrite(options, 32, 4));
}

std::shared_ptr<ResNet> resnext101_32x8d(const ResNetOptions& options) {
  return bottleneck_resnet({3, 4, 23, 3}, overwrite(options, 32, 8));
}

std::shared_ptr<ResNet> resnext101_64x4d(const ResNetOptions& options) {
  return bottleneck_resnet({3, 4, 23, 3}, overwrite(options, 64, 4));
}

std::shared_ptr<ResNet> wide_resnet50_2(const ResNetOptions& options) {
  return bottleneck_resnet({3, 4, 6, 3}, overwrite(options, 1, 64 * 2));
}

std::shared_ptr<ResNet> wide_resnet101_2(const ResNetOptions& options) {
  return bottleneck_resnet({3, 4, 23, 3}, overwrite(options, 1, 64 * 2));
}

}  // namespace tl::models
