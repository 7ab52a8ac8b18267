// models/inception.cpp — torchvision/models/inception.py in C++: the same registration order (it fixes repr,
// state_dict order and the order of the initialisation's draws), init loop and forward.
#include "models/inception.h"

#include "core/warning.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "models/vision_ops.h"
#include "nn/functional.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models {
namespace {

namespace F = nn::functional;

nn::ForwardSignature tensor_to_tensor() { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

// conv_block(in, out, kernel_size=..., stride=..., padding=...).
std::shared_ptr<BasicConv2d> conv(int64_t in, int64_t out, nn::IntPair kernel, nn::IntPair stride = 1,
                                  nn::IntPair padding = 0) {
  return std::make_shared<BasicConv2d>(in, out, kernel, stride, padding);
}

}  // namespace

namespace inception_blocks {

InceptionA::InceptionA(int64_t in_channels, int64_t pool_features) {
  register_module("branch1x1", conv(in_channels, 64, 1));
  register_module("branch5x5_1", conv(in_channels, 48, 1));
  register_module("branch5x5_2", conv(48, 64, 5, 1, 2));
  register_module("branch3x3dbl_1", conv(in_channels, 64, 1));
  register_module("branch3x3dbl_2", conv(64, 96, 3, 1, 1));
  register_module("branch3x3dbl_3", conv(96, 96, 3, 1, 1));
  register_module("branch_pool", conv(in_channels, pool_features, 1));
}

nn::ForwardSignature InceptionA::forward_signature() const { return tensor_to_tensor(); }

Tensor InceptionA::forward(const Tensor& x) {
  const Tensor branch1x1 = submodule("branch1x1")(x);
  const Tensor branch5x5 = submodule("branch5x5_2")(submodule("branch5x5_1")(x));
  const Tensor branch3x3dbl = submodule("branch3x3dbl_3")(submodule("branch3x3dbl_2")(submodule("branch3x3dbl_1")(x)));
  const Tensor branch_pool = submodule("branch_pool")(F::avg_pool2d(x, {.kernel_size = 3, .stride = 1, .padding = 1}));
  return tl::cat({branch1x1, branch5x5, branch3x3dbl, branch_pool}, 1);
}

InceptionB::InceptionB(int64_t in_channels) {
  register_module("branch3x3", conv(in_channels, 384, 3, 2));
  register_module("branch3x3dbl_1", conv(in_channels, 64, 1));
  register_module("branch3x3dbl_2", conv(64, 96, 3, 1, 1));
  register_module("branch3x3dbl_3", conv(96, 96, 3, 2));
}

nn::ForwardSignature InceptionB::forward_signature() const { return tensor_to_tensor(); }

Tensor InceptionB::forward(const Tensor& x) {
  const Tensor branch3x3 = submodule("branch3x3")(x);
  const Tensor branch3x3dbl = submodule("branch3x3dbl_3")(submodule("branch3x3dbl_2")(submodule("branch3x3dbl_1")(x)));
  const Tensor branch_pool = F::max_pool2d(x, 3, 2);
  return tl::cat({branch3x3, branch3x3dbl, branch_pool}, 1);
}

InceptionC::InceptionC(int64_t in_channels, int64_t channels_7x7) {
  const int64_t c7 = channels_7x7;
  register_module("branch1x1", conv(in_channels, 192, 1));
  register_module("branch7x7_1", conv(in_channels, c7, 1));
  register_module("branch7x7_2", conv(c7, c7, {1, 7}, 1, {0, 3}));
  register_module("branch7x7_3", conv(c7, 192, {7, 1}, 1, {3, 0}));
  register_module("branch7x7dbl_1", conv(in_channels, c7, 1));
  register_module("branch7x7dbl_2", conv(c7, c7, {7, 1}, 1, {3, 0}));
  register_module("branch7x7dbl_3", conv(c7, c7, {1, 7}, 1, {0, 3}));
  register_module("branch7x7dbl_4", conv(c7, c7, {7, 1}, 1, {3, 0}));
  register_module("branch7x7dbl_5", conv(c7, 192, {1, 7}, 1, {0, 3}));
  register_module("branch_pool", conv(in_channels, 192, 1));
}

nn::ForwardSignature InceptionC::forward_signature() const { return tensor_to_tensor(); }

Tensor InceptionC::forward(const Tensor& x) {
  const Tensor branch1x1 = submodule("branch1x1")(x);
  Tensor branch7x7 = x;
  for (const char* name : {"branch7x7_1", "branch7x7_2", "branch7x7_3"}) branch7x7 = submodule(name)(branch7x7);
  Tensor branch7x7dbl = x;
  for (const char* name : {"branch7x7dbl_1", "branch7x7dbl_2", "branch7x7dbl_3", "branch7x7dbl_4", "branch7x7dbl_5"})
    branch7x7dbl = submodule(name)(branch7x7dbl);
  const Tensor branch_pool = submodule("branch_pool")(F::avg_pool2d(x, {.kernel_size = 3, .stride = 1, .padding = 1}));
  return tl::cat({branch1x1, branch7x7, branch7x7dbl, branch_pool}, 1);
}

InceptionD::InceptionD(int64_t in_channels) {
  register_module("branch3x3_1", conv(in_channels, 192, 1));
  register_module("branch3x3_2", conv(192, 320, 3, 2));
  register_module("branch7x7x3_1", conv(in_channels, 192, 1));
  register_module("branch7x7x3_2", conv(192, 192, {1, 7}, 1, {0, 3}));
  register_module("branch7x7x3_3", conv(192, 192, {7, 1}, 1, {3, 0}));
  register_module("branch7x7x3_4", conv(192, 192, 3, 2));
}

nn::ForwardSignature InceptionD::forward_signature() const { return tensor_to_tensor(); }

Tensor InceptionD::forward(const Tensor& x) {
  const Tensor branch3x3 = submodule("branch3x3_2")(submodule("branch3x3_1")(x));
  Tensor branch7x7x3 = x;
  for (const char* name : {"branch7x7x3_1", "branch7x7x3_2", "branch7x7x3_3", "branch7x7x3_4"})
    branch7x7x3 = submodule(name)(branch7x7x3);
  const Tensor branch_pool = F::max_pool2d(x, 3, 2);
  return tl::cat({branch3x3, branch7x7x3, branch_pool}, 1);
}

InceptionE::InceptionE(int64_t in_channels) {
  register_module("branch1x1", conv(in_channels, 320, 1));
  register_module("branch3x3_1", conv(in_channels, 384, 1));
  register_module("branch3x3_2a", conv(384, 384, {1, 3}, 1, {0, 1}));
  register_module("branch3x3_2b", conv(384, 384, {3, 1}, 1, {1, 0}));
  register_module("branch3x3dbl_1", conv(in_channels, 448, 1));
  register_module("branch3x3dbl_2", conv(448, 384, 3, 1, 1));
  register_module("branch3x3dbl_3a", conv(384, 384, {1, 3}, 1, {0, 1}));
  register_module("branch3x3dbl_3b", conv(384, 384, {3, 1}, 1, {1, 0}));
  register_module("branch_pool", conv(in_channels, 192, 1));
}

nn::ForwardSignature InceptionE::forward_signature() const { return tensor_to_tensor(); }

Tensor InceptionE::forward(const Tensor& x) {
  const Tensor branch1x1 = submodule("branch1x1")(x);
  const Tensor branch3x3_1 = submodule("branch3x3_1")(x);
  const Tensor branch3x3 = tl::cat({submodule("branch3x3_2a")(branch3x3_1), submodule("branch3x3_2b")(branch3x3_1)}, 1);
  const Tensor branch3x3dbl_2 = submodule("branch3x3dbl_2")(submodule("branch3x3dbl_1")(x));
  const Tensor branch3x3dbl =
      tl::cat({submodule("branch3x3dbl_3a")(branch3x3dbl_2), submodule("branch3x3dbl_3b")(branch3x3dbl_2)}, 1);
  const Tensor branch_pool = submodule("branch_pool")(F::avg_pool2d(x, {.kernel_size = 3, .stride = 1, .padding = 1}));
  return tl::cat({branch1x1, branch3x3, branch3x3dbl, branch_pool}, 1);
}

InceptionAux::InceptionAux(int64_t in_channels, int64_t num_classes) {
  register_module("conv0", conv(in_channels, 128, 1));
  register_module("conv1", conv(128, 768, 5));
  register_module("fc", std::make_shared<nn::Linear>(768, num_classes));
}

nn::ForwardSignature InceptionAux::forward_signature() const { return tensor_to_tensor(); }

Tensor InceptionAux::forward(const Tensor& x) {
  Tensor out = F::avg_pool2d(x, {.kernel_size = 5, .stride = 3});
  out = submodule("conv1")(submodule("conv0")(out));
  out = tl::flatten(F::adaptive_avg_pool2d(out, nn::IntPair(1, 1)), 1);
  return submodule("fc")(out);
}

}  // namespace inception_blocks

Inception3::Inception3(const Inception3Options& options) : options_(options) {
  check_num_classes("Inception3", options.num_classes);
  if (!options.init_weights)
    tl::warn("The default weight initialization of inception_v3 will be changed in future releases of torchvision. "
             "If you wish to keep the old behavior (which leads to long initialization times due to "
             "scipy/scipy#11299), please set init_weights=True.");
  using namespace inception_blocks;
  register_module("Conv2d_1a_3x3", conv(3, 32, 3, 2));
  register_module("Conv2d_2a_3x3", conv(32, 32, 3));
  register_module("Conv2d_2b_3x3", conv(32, 64, 3, 1, 1));
  register_module("maxpool1", std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2}));
  register_module("Conv2d_3b_1x1", conv(64, 80, 1));
  register_module("Conv2d_4a_3x3", conv(80, 192, 3));
  register_module("maxpool2", std::make_shared<nn::MaxPool2d>(nn::MaxPool2dOptions{.kernel_size = 3, .stride = 2}));
  register_module("Mixed_5b", std::make_shared<InceptionA>(192, 32));
  register_module("Mixed_5c", std::make_shared<InceptionA>(256, 64));
  register_module("Mixed_5d", std::make_shared<InceptionA>(288, 64));
  register_module("Mixed_6a", std::make_shared<InceptionB>(288));
  register_module("Mixed_6b", std::make_shared<InceptionC>(768, 128));
  register_module("Mixed_6c", std::make_shared<InceptionC>(768, 160));
  register_module("Mixed_6d", std::make_shared<InceptionC>(768, 160));
  register_module("Mixed_6e", std::make_shared<InceptionC>(768, 192));
  if (options.aux_logits) register_module("AuxLogits", std::make_shared<InceptionAux>(768, options.num_classes));
  register_module("Mixed_7a", std::make_shared<InceptionD>(768));
  register_module("Mixed_7b", std::make_shared<InceptionE>(1280));
  register_module("Mixed_7c", std::make_shared<InceptionE>(2048));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1, 1)));
  register_module("dropout", std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = options.dropout}));
  register_module("fc", std::make_shared<nn::Linear>(2048, options.num_classes));

  if (options.init_weights.value_or(true)) {
    // torchvision's `m.stddev if hasattr(m, "stddev") else 0.1`: only AuxLogits.fc carries one that the loop reads.
    const nn::Module* aux_fc = options.aux_logits ? get_submodule("AuxLogits.fc").get() : nullptr;
    ops::trunc_normal_init_(*this, [aux_fc](const nn::Module& m) { return &m == aux_fc ? 0.001 : 0.1; });
  }
}

// torch.fx annotates the code with forward's return type, the InceptionOutputs namedtuple, in every mode.
nn::ForwardSignature Inception3::forward_signature() const {
  return {{"x"}, {"torch.Tensor"}, "torchvision_models_inception_InceptionOutputs"};
}

TensorList Inception3::forward(nn::Inputs inputs) {
  const BuffersKeptOnError kept(*this);
  Tensor x = options_.transform_input ? ops::transform_input(inputs[0]) : inputs[0];
  for (const char* name : {"Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3", "maxpool1", "Conv2d_3b_1x1",
                           "Conv2d_4a_3x3", "maxpool2", "Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b",
                           "Mixed_6c", "Mixed_6d", "Mixed_6e"})
    x = submodule(name)(x);
  // torchvision's _forward: the aux head runs in training mode only.
  const bool aux = options_.aux_logits && is_training();
  Tensor aux_logits;
  if (aux) aux_logits = submodule("AuxLogits")(x);
  for (const char* name : {"Mixed_7a", "Mixed_7b", "Mixed_7c", "avgpool", "dropout"}) x = submodule(name)(x);
  x = submodule("fc")(tl::flatten(x, 1));
  if (aux) return {x, aux_logits};
  return {x};
}

Tensor Inception3::forward(const Tensor& x) {
  TL_CHECK(!(options_.aux_logits && is_training()),
           "Inception3: in training mode with aux_logits=True forward returns InceptionOutputs (logits, aux_logits); "
           "call forward_outputs(x) or model(TensorList{x})");
  return forward(nn::Inputs(*this, std::span<const Tensor>(&x, 1))).at(0);
}

InceptionOutputs Inception3::forward_outputs(const Tensor& x) {
  const TensorList out = (*this)(TensorList{x});
  if (out.size() == 2) return {out[0], out[1]};
  return {out.at(0), Tensor()};
}

std::shared_ptr<Inception3> inception_v3(const Inception3Options& options) {
  return std::make_shared<Inception3>(options);
}

}  // namespace tl::models
