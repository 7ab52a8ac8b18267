// models/mnasnet.cpp — torchvision/models/mnasnet.py in C++: the same registration order, forward
// (x.mean([2, 3]) before the classifier) and initialisation.
#include "models/mnasnet.h"

#include <algorithm>
#include <array>
#include <vector>

#include "core/py_repr.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/init.h"
#include "nn/layers.h"

namespace tl::models {
namespace {

// torchvision's _BN_MOMENTUM: 1 - 0.9997, which Python prints as 0.00029999999999996696.
constexpr double kBnMomentum = 1.0 - 0.9997;

std::shared_ptr<nn::Conv2d> conv(int64_t in, int64_t out, int64_t kernel, int64_t stride = 1, int64_t groups = 1) {
  return std::make_shared<nn::Conv2d>(nn::Conv2dOptions{.in_channels = in, .out_channels = out, .kernel_size = kernel,
                                                        .stride = stride, .padding = kernel / 2, .groups = groups,
                                                        .bias = false});
}

std::shared_ptr<nn::BatchNorm2d> bn(int64_t channels, double momentum) {
  return std::make_shared<nn::BatchNorm2d>(nn::BatchNormOptions{.num_features = channels, .momentum = momentum});
}

std::shared_ptr<nn::ReLU> relu() { return std::make_shared<nn::ReLU>(true); }

// torchvision's _stack: the first block strides and changes channels, the other repeats - 1 keep them.
std::shared_ptr<nn::Sequential> stack(int64_t in_ch, int64_t out_ch, int64_t kernel_size, int64_t stride,
                                      int64_t exp_factor, int64_t repeats) {
  auto seq = std::make_shared<nn::Sequential>();
  seq->append(std::make_shared<mnasnet::InvertedResidual>(in_ch, out_ch, kernel_size, stride, exp_factor, kBnMomentum));
  for (int64_t i = 1; i < repeats; ++i)
    seq->append(std::make_shared<mnasnet::InvertedResidual>(out_ch, out_ch, kernel_size, 1, exp_factor, kBnMomentum));
  return seq;
}

// torchvision's _round_to_multiple_of with round_up_bias 0.9.
int64_t round_to_multiple_of(double val, int64_t divisor) {
  const int64_t new_val =
      std::max(divisor, static_cast<int64_t>(val + static_cast<double>(divisor) / 2) / divisor * divisor);
  return static_cast<double>(new_val) >= 0.9 * val ? new_val : new_val + divisor;
}

}  // namespace

namespace mnasnet {

InvertedResidual::InvertedResidual(int64_t in_ch, int64_t out_ch, int64_t kernel_size, int64_t stride,
                                   int64_t expansion_factor, double bn_momentum)
    : apply_residual_(in_ch == out_ch && stride == 1) {
  TL_CHECK(stride == 1 || stride == 2, "stride should be 1 or 2 instead of ", stride);
  TL_CHECK(kernel_size == 3 || kernel_size == 5, "kernel_size should be 3 or 5 instead of ", kernel_size);
  const int64_t mid_ch = in_ch * expansion_factor;
  // A braced list: its elements are made left to right, so the convolutions draw in PyTorch's order.
  register_module("layers", std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                                conv(in_ch, mid_ch, 1), bn(mid_ch, bn_momentum), relu(),
                                conv(mid_ch, mid_ch, kernel_size, stride, mid_ch), bn(mid_ch, bn_momentum), relu(),
                                conv(mid_ch, out_ch, 1), bn(out_ch, bn_momentum)}));
}

Tensor InvertedResidual::forward(const Tensor& input) {
  if (apply_residual_) return submodule("layers")(input) + input;
  return submodule("layers")(input);
}

}  // namespace mnasnet

MNASNet::MNASNet(double alpha, const MNASNetOptions& options) {
  check_num_classes("MNASNet", options.num_classes);
  TL_CHECK(alpha > 0.0, "alpha should be greater than 0.0 instead of ", py_float(alpha));
  std::array<int64_t, 8> depths{32, 16, 24, 40, 80, 96, 192, 320};
  for (int64_t& d : depths) d = round_to_multiple_of(static_cast<double>(d) * alpha, 8);
  register_module("layers",
                  std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
                      conv(3, depths[0], 3, 2),
                      bn(depths[0], kBnMomentum), relu(), conv(depths[0], depths[0], 3, 1, depths[0]),
                      bn(depths[0], kBnMomentum), relu(), conv(depths[0], depths[1], 1), bn(depths[1], kBnMomentum),
                      stack(depths[1], depths[2], 3, 2, 3, 3), stack(depths[2], depths[3], 5, 2, 3, 3),
                      stack(depths[3], depths[4], 5, 2, 6, 3), stack(depths[4], depths[5], 3, 1, 6, 2),
                      stack(depths[5], depths[6], 5, 2, 6, 4), stack(depths[6], depths[7], 3, 1, 6, 1),
                      conv(depths[7], 1280, 1), bn(1280, kBnMomentum), relu()}));
  register_module("classifier", std::make_shared<nn::Sequential>(
                                    std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = options.dropout, .inplace = true}),
                                    std::make_shared<nn::Linear>(1280, options.num_classes)));
  for (const auto& m : modules()) {
    if (auto* c = dynamic_cast<nn::Conv2d*>(m.get())) {
      nn::init::kaiming_normal_(c->parameter("weight"), 0.0, "fan_out", "relu");
    } else if (auto* norm = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      nn::init::ones_(norm->parameter("weight"));
      nn::init::zeros_(norm->parameter("bias"));
    } else if (auto* linear = dynamic_cast<nn::Linear*>(m.get())) {
      nn::init::kaiming_uniform_(linear->parameter("weight"), 0.0, "fan_out", "sigmoid");
      nn::init::zeros_(linear->parameter("bias"));
    }
  }
}

nn::ForwardSignature MNASNet::forward_signature() const { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

Tensor MNASNet::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("layers")(input);
  x = x.mean({2, 3});
  return submodule("classifier")(x);
}

std::shared_ptr<MNASNet> mnasnet0_5(const MNASNetOptions& options) { return std::make_shared<MNASNet>(0.5, options); }
std::shared_ptr<MNASNet> mnasnet0_75(const MNASNetOptions& options) { return std::make_shared<MNASNet>(0.75, options); }
std::shared_ptr<MNASNet> mnasnet1_0(const MNASNetOptions& options) { return std::make_shared<MNASNet>(1.0, options); }
std::shared_ptr<MNASNet> mnasnet1_3(const MNASNetOptions& options) { return std::make_shared<MNASNet>(1.3, options); }

}  // namespace tl::models
