// models/googlenet.cpp — torchvision/models/googlenet.py in C++: the same registration order (it fixes repr,
// state_dict order and the order of the initialisation's draws), init loop and forward.
#include "models/googlenet.h"

#include "core/warning.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "models/vision_ops.h"
#include "nn/functional.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models {
namespace {

nn::ForwardSignature tensor_to_tensor() { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

std::shared_ptr<BasicConv2d> basic(int64_t in, int64_t out, nn::IntPair kernel, nn::IntPair stride = 1,
                                   nn::IntPair padding = 0) {
  return std::make_shared<BasicConv2d>(in, out, kernel, stride, padding);
}

std::shared_ptr<nn::MaxPool2d> ceil_max_pool(int64_t kernel, int64_t stride, int64_t padding = 0) {
  return std::make_shared<nn::MaxPool2d>(
      nn::MaxPool2dOptions{.kernel_size = kernel, .stride = stride, .padding = padding, .ceil_mode = true});
}

}  // namespace

BasicConv2d::BasicConv2d(int64_t in_channels, int64_t out_channels, nn::IntPair kernel_size, nn::IntPair stride,
                         nn::IntPair padding) {
  register_module("conv", std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
                              .in_channels = in_channels, .out_channels = out_channels, .kernel_size = kernel_size,
                              .stride = stride, .padding = padding, .bias = false}));
  register_module("bn", std::make_shared<nn::BatchNorm2d>(
                            nn::BatchNormOptions{.num_features = out_channels, .eps = 0.001}));
}

nn::ForwardSignature BasicConv2d::forward_signature() const { return tensor_to_tensor(); }

Tensor BasicConv2d::forward(const Tensor& x) {
  return nn::functional::relu(submodule("bn")(submodule("conv")(x)), /*inplace=*/true);
}

namespace googlenet_blocks {

Inception::Inception(int64_t in_channels, int64_t ch1x1, int64_t ch3x3red, int64_t ch3x3, int64_t ch5x5red,
                     int64_t ch5x5, int64_t pool_proj) {
  register_module("branch1", basic(in_channels, ch1x1, 1));
  register_module("branch2", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                 basic(in_channels, ch3x3red, 1), basic(ch3x3red, ch3x3, 3, 1, 1)}));
  register_module("branch3", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                 basic(in_channels, ch5x5red, 1), basic(ch5x5red, ch5x5, 3, 1, 1)}));
  register_module("branch4", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                 ceil_max_pool(3, 1, 1), basic(in_channels, pool_proj, 1)}));
}

nn::ForwardSignature Inception::forward_signature() const { return tensor_to_tensor(); }

Tensor Inception::forward(const Tensor& x) {
  return tl::cat(
      {submodule("branch1")(x), submodule("branch2")(x), submodule("branch3")(x), submodule("branch4")(x)}, 1);
}

InceptionAux::InceptionAux(int64_t in_channels, int64_t num_classes, double dropout) {
  register_module("conv", basic(in_channels, 128, 1));
  register_module("fc1", std::make_shared<nn::Linear>(2048, 1024));
  register_module("fc2", std::make_shared<nn::Linear>(1024, num_classes));
  register_module("dropout", std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = dropout}));
}

nn::ForwardSignature InceptionAux::forward_signature() const { return tensor_to_tensor(); }

Tensor InceptionAux::forward(const Tensor& x) {
  Tensor out = nn::functional::adaptive_avg_pool2d(x, nn::IntPair(4, 4));
  out = tl::flatten(submodule("conv")(out), 1);
  out = nn::functional::relu(submodule("fc1")(out), /*inplace=*/true);
  return submodule("fc2")(submodule("dropout")(out));
}

}  // namespace googlenet_blocks

GoogLeNet::GoogLeNet(const GoogLeNetOptions& options) : options_(options) {
  check_num_classes("GoogLeNet", options.num_classes);
  if (!options.init_weights)
    tl::warn("The default weight initialization of GoogleNet will be changed in future releases of torchvision. If "
            "you wish to keep the old behavior (which leads to long initialization times due to scipy/scipy#11299), "
            "please set init_weights=True.");
  using googlenet_blocks::Inception;
  register_module("conv1", basic(3, 64, 7, 2, 3));
  register_module("maxpool1", ceil_max_pool(3, 2));
  register_module("conv2", basic(64, 64, 1));
  register_module("conv3", basic(64, 192, 3, 1, 1));
  register_module("maxpool2", ceil_max_pool(3, 2));
  register_module("inception3a", std::make_shared<Inception>(192, 64, 96, 128, 16, 32, 32));
  register_module("inception3b", std::make_shared<Inception>(256, 128, 128, 192, 32, 96, 64));
  register_module("maxpool3", ceil_max_pool(3, 2));
  register_module("inception4a", std::make_shared<Inception>(480, 192, 96, 208, 16, 48, 64));
  register_module("inception4b", std::make_shared<Inception>(512, 160, 112, 224, 24, 64, 64));
  register_module("inception4c", std::make_shared<Inception>(512, 128, 128, 256, 24, 64, 64));
  register_module("inception4d", std::make_shared<Inception>(512, 112, 144, 288, 32, 64, 64));
  register_module("inception4e", std::make_shared<Inception>(528, 256, 160, 320, 32, 128, 128));
  register_module("maxpool4", ceil_max_pool(2, 2));
  register_module("inception5a", std::make_shared<Inception>(832, 256, 160, 320, 32, 128, 128));
  register_module("inception5b", std::make_shared<Inception>(832, 384, 192, 384, 48, 128, 128));
  if (options.aux_logits) {
    using googlenet_blocks::InceptionAux;
    register_module("aux1", std::make_shared<InceptionAux>(512, options.num_classes, options.dropout_aux));
    register_module("aux2", std::make_shared<InceptionAux>(528, options.num_classes, options.dropout_aux));
  }
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1, 1)));
  register_module("dropout", std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = options.dropout}));
  register_module("fc", std::make_shared<nn::Linear>(1024, options.num_classes));

  if (options.init_weights.value_or(true)) ops::trunc_normal_init_(*this, [](const nn::Module&) { return 0.01; });
}

// torch.fx annotates the code with forward's return type, the GoogLeNetOutputs namedtuple, in every mode.
nn::ForwardSignature GoogLeNet::forward_signature() const {
  return {{"x"}, {"torch.Tensor"}, "torchvision_models_googlenet_GoogLeNetOutputs"};
}

TensorList GoogLeNet::forward(nn::Inputs inputs) {
  const BuffersKeptOnError kept(*this);
  Tensor x = options_.transform_input ? ops::transform_input(inputs[0]) : inputs[0];
  // torchvision's _forward: the aux heads run in training mode only.
  const bool aux = options_.aux_logits && is_training();
  for (const char* name : {"conv1", "maxpool1", "conv2", "conv3", "maxpool2", "inception3a", "inception3b", "maxpool3",
                           "inception4a"})
    x = submodule(name)(x);
  Tensor aux1;
  if (aux) aux1 = submodule("aux1")(x);
  for (const char* name : {"inception4b", "inception4c", "inception4d"}) x = submodule(name)(x);
  Tensor aux2;
  if (aux) aux2 = submodule("aux2")(x);
  for (const char* name : {"inception4e", "maxpool4", "inception5a", "inception5b", "avgpool"}) x = submodule(name)(x);
  x = tl::flatten(x, 1);
  x = submodule("fc")(submodule("dropout")(x));
  // forward's `x, aux1, aux2 = self._forward(x)` swaps the heads; eager_outputs keeps the swap.
  if (aux) return {x, aux1, aux2};
  return {x};
}

Tensor GoogLeNet::forward(const Tensor& x) {
  TL_CHECK(!(options_.aux_logits && is_training()),
           "GoogLeNet: in training mode with aux_logits=True forward returns GoogLeNetOutputs (logits, aux_logits2, "
           "aux_logits1); call forward_outputs(x) or model(TensorList{x})");
  return forward(nn::Inputs(*this, std::span<const Tensor>(&x, 1))).at(0);
}

GoogLeNetOutputs GoogLeNet::forward_outputs(const Tensor& x) {
  const TensorList out = (*this)(TensorList{x});
  if (out.size() == 3) return {out[0], out[1], out[2]};
  return {out.at(0), Tensor(), Tensor()};
}

std::shared_ptr<GoogLeNet> googlenet(const GoogLeNetOptions& options) { return std::make_shared<GoogLeNet>(options); }

}  // namespace tl::models
