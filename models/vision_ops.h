// models/vision_ops.h — the building blocks torchvision's models share (torchvision.ops.misc and
// torchvision.ops.stochastic_depth, models/_utils.py), with torchvision's names, module trees and reprs,
// so every family that uses them prints, saves and traces as torchvision's does.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "nn/activation.h"
#include "nn/container.h"
#include "nn/module.h"

namespace tl::models::ops {

/// torchvision's _make_divisible: `v` rounded to the nearest multiple of `divisor` (at least min_value,
/// default divisor), one divisor more when rounding lost more than 10% of v; with Python's floor division, so a
/// negative divisor gives torchvision's value. Throws tl::Error for a divisor of 0 (Python's ZeroDivisionError).
int64_t make_divisible(double v, int64_t divisor, std::optional<int64_t> min_value = std::nullopt);

/// A norm layer as torchvision passes it (nn.BatchNorm2d, partial(nn.BatchNorm2d, eps=0.001, ...)):
/// called with the channel count.
using NormLayer = std::function<std::shared_ptr<nn::Module>(int64_t num_features)>;
/// An activation as Conv2dNormActivation calls it: with `inplace`.
using ActivationLayer = std::function<std::shared_ptr<nn::Module>(bool inplace)>;
/// A layer made without arguments (SqueezeExcitation's activation and scale_activation).
using LayerFactory = std::function<std::shared_ptr<nn::Module>()>;

/// nn.BatchNorm2d, or partial(nn.BatchNorm2d, eps=..., momentum=...).
NormLayer batch_norm2d(double eps = 1e-5, double momentum = 0.1);
/// An activation class as Conv2dNormActivation takes it (nn.ReLU, nn.ReLU6, nn.Hardswish, nn.SiLU):
/// M(inplace).
template <class M>
ActivationLayer activation() {
  return [](bool inplace) -> std::shared_ptr<nn::Module> { return std::make_shared<M>(inplace); };
}
/// A class called without arguments (nn.Sigmoid), or partial(M, inplace=inplace).
template <class M>
LayerFactory layer(std::optional<bool> inplace = std::nullopt) {
  return [inplace]() -> std::shared_ptr<nn::Module> {
    if constexpr (std::is_constructible_v<M, bool>) {
      if (inplace) return std::make_shared<M>(*inplace);
    }
    return std::make_shared<M>();
  };
}

/// Conv2dNormActivation's arguments, with torchvision's defaults (BatchNorm2d, ReLU, inplace).
struct Conv2dNormActivationOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t kernel_size = 3;
  int64_t stride = 1;
  /// None: (kernel_size - 1) / 2 * dilation.
  std::optional<int64_t> padding;
  int64_t groups = 1;
  /// nullptr: no norm layer (the conv then has a bias unless `bias` says otherwise).
  NormLayer norm_layer = batch_norm2d();
  /// nullptr: no activation.
  ActivationLayer activation_layer = activation<nn::ReLU>();
  int64_t dilation = 1;
  bool inplace = true;
  /// None: a bias exactly when there is no norm layer.
  std::optional<bool> bias;
};

/// torchvision.ops.misc.Conv2dNormActivation: a Sequential of Conv2d, then the norm layer and the
/// activation when given (children "0", "1", "2"); prints as "Conv2dNormActivation(...)".
class Conv2dNormActivation : public nn::Sequential {
 public:
  explicit Conv2dNormActivation(const Conv2dNormActivationOptions& options);
  std::string type_name() const override { return "Conv2dNormActivation"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Conv2dNormActivation>(); }
};

/// torchvision.ops.misc.SqueezeExcitation: input * scale_activation(fc2(activation(fc1(avgpool(input))))).
/// Children avgpool, fc1, fc2, activation, scale_activation. Input and output (N, C, H, W).
class SqueezeExcitation : public nn::Module {
 public:
  /// Defaults as torchvision's: activation nn.ReLU, scale_activation nn.Sigmoid.
  SqueezeExcitation(int64_t input_channels, int64_t squeeze_channels, LayerFactory activation = layer<nn::ReLU>(),
                    LayerFactory scale_activation = nullptr);
  Tensor forward(const Tensor& input) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SqueezeExcitation>(); }
};

/// torchvision.ops.stochastic_depth: in training and for p > 0, each row ("row": a draw per sample, as
/// bernoulli_ on an (N, 1, ..., 1) tensor) or the whole input ("batch": one draw) is zeroed with
/// probability p and the rest scaled by 1 / (1 - p); otherwise the input itself. Draws as PyTorch does,
/// so a seed gives PyTorch's mask. Throws tl::Error unless 0 <= p <= 1 and mode is "row" or "batch".
Tensor stochastic_depth(const Tensor& input, double p, const std::string& mode, bool training = true);

/// torchvision.ops.StochasticDepth(p, mode): stochastic_depth with the module's training flag.
class StochasticDepth : public nn::Module {
 public:
  /// Throws tl::Error for a p outside [0, 1] or a mode other than "row" and "batch".
  StochasticDepth(double p, std::string mode);
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<StochasticDepth>(); }

  double p() const { return p_; }
  const std::string& mode() const { return mode_; }

 private:
  double p_;
  std::string mode_;
};

/// The init loop of torchvision's mobile families, over model.modules() in order (so the draws come in
/// PyTorch's order): Conv2d weight kaiming_normal_(mode="fan_out") and bias zeroed, BatchNorm2d weight
/// ones and bias zeros, Linear by `linear_init` (weight, bias).
void init_weights_(nn::Module& model, const std::function<void(const Tensor& weight, const Tensor& bias)>& linear_init);

/// torchvision's channel_shuffle (shufflenetv2.py): (N, C, H, W) -> the same shape, channel
/// g * (C / groups) + i moved to i * groups + g. Throws tl::Error for a non-4-D input or C not divisible
/// by groups.
Tensor channel_shuffle(const Tensor& x, int64_t groups);

/// torchvision.ops.misc.Permute: torch.permute(x, dims), a view (as FX records it: a torch.permute call).
/// Prints as "Permute()". The op throws for dims that are not a permutation of x's dims.
class Permute : public nn::Module {
 public:
  explicit Permute(Shape dims) : dims_(std::move(dims)) {}
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "Permute"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Permute>(); }

  const Shape& dims() const { return dims_; }

 private:
  Shape dims_;
};

/// googlenet's and inception_v3's _transform_input: an input normalised with ImageNet's mean and std,
/// channel by channel re-normalised to (x - 0.5) / 0.5 (torch.unsqueeze(x[:, c], 1) * (std_c / 0.5) +
/// (mean_c - 0.5) / 0.5, concatenated), as the weights ported from TensorFlow expect. Input (N, 3, H, W).
Tensor transform_input(const Tensor& x);

/// The init loop googlenet and inception_v3 share, over model.modules() in order: Conv2d and Linear weights
/// trunc_normal_(mean 0, std `stddev(module)`, a=-2, b=2), BatchNorm2d weight 1 and bias 0.
void trunc_normal_init_(nn::Module& model, const std::function<double(const nn::Module& layer)>& stddev);

/// torchvision.ops.misc.MLP's arguments, with its defaults.
struct MLPOptions {
  int64_t in_channels = 0;
  /// Each Linear's output features; the last is the MLP's output.
  std::vector<int64_t> hidden_channels;
  /// nullptr: no norm layer after the hidden Linears.
  NormLayer norm_layer;
  /// The activation class: made with inplace=`inplace`, or without arguments when inplace is None (as
  /// torchvision passes **params). nullptr: nn.ReLU.
  std::function<std::shared_ptr<nn::Module>(std::optional<bool> inplace)> activation_layer;
  /// None: neither the activation nor the Dropouts get an inplace argument (Dropout's default, false).
  std::optional<bool> inplace = true;
  bool bias = true;
  double dropout = 0.0;
};

/// torchvision.ops.misc.MLP (a Sequential): for each hidden size but the last, Linear, [norm], activation,
/// Dropout; then Linear to the last size and Dropout. Children "0", "1", ...; prints as "MLP(...)".
class MLP : public nn::Sequential {
 public:
  explicit MLP(const MLPOptions& options);
  std::string type_name() const override { return "MLP"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MLP>(); }
};

/// The re-initialisation vit's MLPBlock and swin's SwinTransformerBlock give their MLP, over its modules in
/// order: each Linear's weight xavier_uniform_, its bias (when present) normal_(std=1e-6).
void xavier_linear_init_(nn::Module& mlp);

/// The relative position index swin and maxvit keep as a buffer: for tokens p, q of a (height, width) window
/// (row-major), (dh + height - 1) (2 width - 1) + (dw + width - 1) with (dh, dw) = coords(p) - coords(q).
/// (N, N) int64, N = height * width.
Tensor relative_position_index(int64_t height, int64_t width);

/// A relative position bias as swin and maxvit look it up: table[index] ((2 height - 1)(2 width - 1), heads)
/// rows for `index` (n * n) int64, viewed (n, n, heads), permuted to (1, heads, n, n), contiguous.
Tensor relative_position_bias(const Tensor& table, const Tensor& index, int64_t n);

}  // namespace tl::models::ops
