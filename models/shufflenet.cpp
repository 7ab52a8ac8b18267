// models/shufflenet.cpp — torchvision/models/shufflenetv2.py in C++: the same registration order and
// forward; no init loop (torchvision keeps PyTorch's default initialisation).
#include "models/shufflenet.h"

#include <vector>

#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "models/vision_ops.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

std::shared_ptr<nn::Conv2d> conv(int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t padding,
                                 int64_t groups = 1) {
  return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = kernel,
                                                        .stride = stride, .padding = padding, .groups = groups,
                                                        .bias = false});
}

std::shared_ptr<nn::BatchNorm2d> bn(int64_t channels) { return std::make_shared<nn::BatchNorm2d>(channels); }
std::shared_ptr<nn::ReLU> relu() { return std::make_shared<nn::ReLU>(true); }

// Braced lists below: their elements are made left to right, so the convolutions draw in PyTorch's order.
using Layers = std::vector<std::shared_ptr<nn::Module>>;

}  // namespace

namespace shufflenetv2 {

InvertedResidual::InvertedResidual(int64_t inp, int64_t oup, int64_t stride) : stride_(stride) {
  TL_CHECK(stride >= 1 && stride <= 3, "illegal stride value");
  const int64_t branch_features = oup / 2;
  TL_CHECK(stride != 1 || inp == branch_features << 1, "Invalid combination of stride ", stride, ", inp ", inp,
           " and oup ", oup, " values. If stride == 1 then inp should be equal to oup // 2 << 1.");
  if (stride > 1)
    register_module("branch1", std::make_shared<nn::Sequential>(Layers{
                                   conv(inp, inp, 3, stride, 1, inp), bn(inp), conv(inp, branch_features, 1, 1, 0),
                                   bn(branch_features), relu()}));
  else
    register_module("branch1", std::make_shared<nn::Sequential>());
  register_module("branch2",
                  std::make_shared<nn::Sequential>(Layers{
                      conv(stride > 1 ? inp : branch_features, branch_features, 1, 1, 0), bn(branch_features), relu(),
                      conv(branch_features, branch_features, 3, stride, 1, branch_features), bn(branch_features),
                      conv(branch_features, branch_features, 1, 1, 0), bn(branch_features), relu()}));
}

Tensor InvertedResidual::forward(const Tensor& x) {
  Tensor out;
  if (stride_ == 1) {
    const std::vector<Tensor> halves = x.chunk(2, 1);
    out = tl::cat({halves[0], submodule("branch2")(halves[1])}, 1);
  } else {
    out = tl::cat({submodule("branch1")(x), submodule("branch2")(x)}, 1);
  }
  return ops::channel_shuffle(out, 2);
}

}  // namespace shufflenetv2

ShuffleNetV2::ShuffleNetV2(const std::array<int64_t, 3>& stages_repeats,
                           const std::array<int64_t, 5>& stages_out_channels, const ShuffleNetV2Options& options) {
  check_num_classes("ShuffleNetV2", options.num_classes);
  int64_t input_channels = 3, output_channels = stages_out_channels[0];
  register_module("conv1", std::make_shared<nn::Sequential>(
                               Layers{conv(input_channels, output_channels, 3, 2, 1), bn(output_channels), relu()}));
  input_channels = output_channels;
  register_module("maxpool",
                  std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1}));
  for (size_t s = 0; s < 3; ++s) {
    output_channels = stages_out_channels[s + 1];
    auto seq = std::make_shared<nn::Sequential>();
    seq->append(std::make_shared<shufflenetv2::InvertedResidual>(input_channels, output_channels, 2));
    for (int64_t i = 0; i < stages_repeats[s] - 1; ++i)
      seq->append(std::make_shared<shufflenetv2::InvertedResidual>(output_channels, output_channels, 1));
    register_module("stage" + std::to_string(s + 2), seq);
    input_channels = output_channels;
  }
  output_channels = stages_out_channels[4];
  register_module("conv5", std::make_shared<nn::Sequential>(
                               Layers{conv(input_channels, output_channels, 1, 1, 0), bn(output_channels), relu()}));
  register_module("fc", std::make_shared<nn::Linear>(output_channels, options.num_classes));
}

nn::ForwardSignature ShuffleNetV2::forward_signature() const { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

Tensor ShuffleNetV2::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("conv1")(input);
  x = submodule("maxpool")(x);
  x = submodule("stage2")(x);
  x = submodule("stage3")(x);
  x = submodule("stage4")(x);
  x = submodule("conv5")(x);
  x = x.mean({2, 3});
  return submodule("fc")(x);
}

std::shared_ptr<ShuffleNetV2> shufflenet_v2_x0_5(const ShuffleNetV2Options& options) {
  return std::make_shared<ShuffleNetV2>(std::array<int64_t, 3>{4, 8, 4}, std::array<int64_t, 5>{24, 48, 96, 192, 1024},
                                        options);
}
std::shared_ptr<ShuffleNetV2> shufflenet_v2_x1_0(const ShuffleNetV2Options& options) {
  return std::make_shared<ShuffleNetV2>(std::array<int64_t, 3>{4, 8, 4},
                                        std::array<int64_t, 5>{24, 116, 232, 464, 1024}, options);
}
std::shared_ptr<ShuffleNetV2> shufflenet_v2_x1_5(const ShuffleNetV2Options& options) {
  return std::make_shared<ShuffleNetV2>(std::array<int64_t, 3>{4, 8, 4},
                                        std::array<int64_t, 5>{24, 176, 352, 704, 1024}, options);
}
std::shared_ptr<ShuffleNetV2> shufflenet_v2_x2_0(const ShuffleNetV2Options& options) {
  return std::make_shared<ShuffleNetV2>(std::array<int64_t, 3>{4, 8, 4},
                                        std::array<int64_t, 5>{24, 244, 488, 976, 2048}, options);
}

}  // namespace tl::models
