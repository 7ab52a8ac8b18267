// ao/nn/quantized.h — PyTorch 1.13's quantized modules, what convert_fx swaps in: torch.ao.nn.quantized's Conv2d
// Linear, BatchNorm2d, Dropout and Hardswish, and torch.ao.nn.intrinsic.quantized's ConvReLU2d, LinearReLU and
// BNReLU2d. The conv and linear hold their weight prepacked once (quantized::conv2d_prepack / linear_prepack); each
// holds its output's scale and zero point; quint8 in, quint8 out.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "fx/passes/inference_modules.h"
#include "nn/activation.h"
#include "nn/batch_norm.h"
#include "nn/conv.h"
#include "nn/dropout.h"
#include "nn/linear.h"

namespace tl::ao::nn::quantized {

/// torch.ao.nn.quantized.Conv2d: quantized::conv2d of a quint8 (N, C_in, H, W) input with the prepacked qint8
/// weight, rounded to (scale, zero_point). Prints as PyTorch's: "QuantizedConv2d(3, 64, kernel_size=(7, 7),
/// stride=(2, 2), scale=0.0057, zero_point=0, padding=(3, 3))".
class Conv2d : public tl::fx::InferenceModule, public tl::fx::FusesQuantizedAdd {
 public:
  /// `weight`: qint8 (C_out, C_in / groups, kH, kW), symmetric; `bias`: float32 (C_out) or undefined. Throws
  /// tl::Error, as quantized::conv2d_prepack does, for a weight or bias it cannot pack, and for padding the
  /// convolution does not add itself (a padding_mode other than "zeros", "same" with an odd total).
  Conv2d(const tl::nn::Conv2dOptions& options, const Tensor& weight, const Tensor& bias, double scale,
         int64_t zero_point);
  /// from_reference: `conv`'s weight quantized as `qweight` (its own bias kept in float).
  static std::shared_ptr<Conv2d> from_float(const tl::nn::Conv2d& conv, const Tensor& qweight, double scale,
                                            int64_t zero_point);

  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override;
  /// forward, its result written into `out` when defined (a quint8 channels-last tensor of the result's shape and
  /// qparams: optimize_for_inference's arena); reads its input in any layout.
  Tensor run(std::span<const Tensor> inputs, const Tensor& out) override;
  bool reads_dense(size_t) const override { return true; }
  std::string type_name() const override { return "QuantizedConv2d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<Conv2d>(); }

  /// The qint8 weight and float bias, as quantized::conv2d_unpack returns them.
  Tensor weight() const;
  Tensor bias() const;
  double scale() const { return scale_; }
  int64_t zero_point() const { return zero_point_; }
  const tl::nn::Conv2dOptions& options() const { return options_; }

  /// PyTorch's state_dict entries: weight (qint8, per channel or per tensor), bias (float32; none without one),
  /// scale (float32, []), zero_point (int64, []).
  tl::nn::StateDict packed_state() const override;
  /// Takes them as PyTorch's _load_from_state_dict does (the weight prepacked anew); throws tl::Error naming the
  /// entry for a weight that is not a symmetric torch.qint8 tensor, a bias that is not floating point, a scale
  /// that is not positive and finite, a zero point that is not an integer in [0, 255].
  std::function<void()> prepare_packed_state(const tl::nn::StateDict& entries, const std::string& prefix) override;

  /// A ConvAdd2d (ConvAddReLU2d) of this conv; nullptr for a ConvReLU2d, whose ReLU comes before the add.
  std::shared_ptr<tl::nn::Module> with_quantized_add(bool relu, double scale, int64_t zero_point) const override;

 protected:
  /// Whether forward runs quantized::conv2d_relu.
  virtual bool relu() const { return false; }
  /// The weight prepacked by quantized::conv2d_prepack.
  const Tensor& packed() const { return packed_; }

 private:
  tl::nn::Conv2dOptions options_;
  Tensor packed_;
  double scale_;
  int64_t zero_point_;
};

/// torch.ao.nn.quantized.Linear: quantized::linear of a quint8 (*, in_features) input. Prints as
/// "QuantizedLinear(in_features=512, out_features=1000, scale=0.042, zero_point=117,
/// qscheme=torch.per_channel_affine)" (the weight's qscheme).
class Linear : public tl::fx::InferenceModule {
 public:
  /// `weight`: qint8 (out_features, in_features), symmetric; `bias`: float32 (out_features) or undefined.
  /// Throws tl::Error as quantized::linear_prepack does.
  Linear(const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point);
  static std::shared_ptr<Linear> from_float(const tl::nn::Linear& linear, const Tensor& qweight, double scale,
                                            int64_t zero_point);

  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override;
  /// forward, its result written into `out` when defined (contiguous, of the result's shape and qparams).
  Tensor run(std::span<const Tensor> inputs, const Tensor& out) override;
  bool reads_dense(size_t) const override { return true; }
  std::string type_name() const override { return "QuantizedLinear"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<Linear>(); }

  Tensor weight() const;
  Tensor bias() const;
  double scale() const { return scale_; }
  int64_t zero_point() const { return zero_point_; }

  /// PyTorch's state_dict entries: scale (float32, []), zero_point (int64, []), then weight and bias where
  /// PyTorch 1.13 lists `_packed_params.dtype` and the `_packed_params._packed_params` (weight, bias) tuple, which
  /// a dict of tensors cannot hold: "weight" and "bias" are the keys 1.13's Linear loads from a dict without
  /// version metadata (as torchless's state dicts are).
  tl::nn::StateDict packed_state() const override;
  /// As Conv2d's.
  std::function<void()> prepare_packed_state(const tl::nn::StateDict& entries, const std::string& prefix) override;

 protected:
  virtual bool relu() const { return false; }

 private:
  Tensor packed_;
  double scale_;
  int64_t zero_point_;
};

/// torch.ao.nn.quantized.BatchNorm2d: quantized::batch_norm2d of a quint8 (N, C, H, W) input with its float weight,
/// bias and running statistics, rounded to (scale, zero_point); the result is channels-last. Prints as PyTorch's,
/// "QuantizedBatchNorm2d(64, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)"; its state_dict is
/// BatchNorm2d's, then the buffers scale (float32, []) and zero_point (int64, []).
class BatchNorm2d : public tl::nn::BatchNorm2d {
 public:
  /// from_reference: `bn`'s num_features, eps and momentum, its weight, bias and running statistics (the same
  /// tensors, as PyTorch assigns them), affine and tracking its statistics.
  BatchNorm2d(const tl::nn::BatchNorm2d& bn, double scale, int64_t zero_point);

  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "QuantizedBatchNorm2d"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<BatchNorm2d>(); }

 protected:
  /// Whether forward runs quantized::batch_norm2d_relu.
  virtual bool relu() const { return false; }
};

/// torch.ao.nn.quantized.Dropout: what a Dropout in eval mode is on a quantized tensor, its input unchanged.
/// Prints as "QuantizedDropout(p=0.25, inplace=False)".
class Dropout : public tl::nn::Dropout {
 public:
  explicit Dropout(const tl::nn::DropoutOptions& options) : tl::nn::Dropout(options) {}
  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override { return x; }
  std::string type_name() const override { return "QuantizedDropout"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<Dropout>(); }
};

/// torch.ao.nn.quantized.Hardswish(scale, zero_point): quantized::hardswish of a quint8 input into (scale,
/// zero_point). Prints as "QuantizedHardswish()"; its qparams are plain attributes, not state_dict entries, as
/// PyTorch's.
class Hardswish : public tl::nn::Hardswish {
 public:
  Hardswish(double scale, int64_t zero_point) : scale_(scale), zero_point_(zero_point) {}
  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "QuantizedHardswish"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<Hardswish>(); }
  double scale() const { return scale_; }
  int64_t zero_point() const { return zero_point_; }

 private:
  double scale_;
  int64_t zero_point_;
};

}  // namespace tl::ao::nn::quantized

namespace tl::ao::nn::intrinsic::quantized {

/// torch.ao.nn.intrinsic.quantized.ConvReLU2d: quantized::conv2d_relu; prints as "QuantizedConvReLU2d(...)".
class ConvReLU2d : public tl::ao::nn::quantized::Conv2d {
 public:
  using tl::ao::nn::quantized::Conv2d::Conv2d;
  std::string type_name() const override { return "QuantizedConvReLU2d"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<ConvReLU2d>(); }

 protected:
  bool relu() const override { return true; }
};

/// torch.ao.nn.intrinsic.quantized.ConvAdd2d (PyTorch 2.0's onednn fusion; 1.13 has none): forward(input,
/// extra_input) is quantized::conv2d of input rounded to the conv's own (conv_scale, conv_zero_point), then
/// quantized::add of extra_input rounded to (scale, zero_point), exactly as the unfused graph computes them, in one
/// oneDNN primitive (quantized::conv2d_add, the add a sum post-op). optimize_for_inference makes it from a converted
/// graph's QuantizedConv2d and the add after it. Prints as "QuantizedConvAdd2d(...)", the conv's repr with the
/// output's scale and zero point.
class ConvAdd2d : public tl::ao::nn::quantized::Conv2d {
 public:
  /// `conv` followed by an add rounded to (scale, zero_point); its weight is shared, its qparams become the conv's.
  ConvAdd2d(const tl::ao::nn::quantized::Conv2d& conv, double scale, int64_t zero_point);

  using tl::nn::Module::forward;
  /// (input, extra_input): quint8 (N, C_in, H, W) and quint8 of the result's shape -> quint8, channels-last,
  /// written into `out` when defined, which may hold extra_input itself (the arena reuses a dying residual's bytes).
  Tensor run(std::span<const Tensor> inputs, const Tensor& out) override;
  int64_t reusable_input() const override { return 1; }
  tl::nn::ForwardSignature forward_signature() const override { return {.arg_names = {"input", "extra_input"}}; }
  std::string type_name() const override { return "QuantizedConvAdd2d"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<ConvAdd2d>(); }

  /// The conv's entries, then conv_scale (float32, []) and conv_zero_point (int64, []).
  tl::nn::StateDict packed_state() const override;
  std::function<void()> prepare_packed_state(const tl::nn::StateDict& entries, const std::string& prefix) override;
  /// nullptr: the add is folded already.
  std::shared_ptr<tl::nn::Module> with_quantized_add(bool, double, int64_t) const override { return nullptr; }

 private:
  double conv_scale_;
  int64_t conv_zero_point_;
};

/// torch.ao.nn.intrinsic.quantized.ConvAddReLU2d: ConvAdd2d then ReLU (quantized::conv2d_add_relu); prints as
/// "QuantizedConvAddReLU2d(...)".
class ConvAddReLU2d : public ConvAdd2d {
 public:
  using ConvAdd2d::ConvAdd2d;
  std::string type_name() const override { return "QuantizedConvAddReLU2d"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<ConvAddReLU2d>(); }

 protected:
  bool relu() const override { return true; }
};

/// torch.ao.nn.intrinsic.quantized.BNReLU2d: quantized::batch_norm2d_relu; prints as "QuantizedBNReLU2d(...)".
class BNReLU2d : public tl::ao::nn::quantized::BatchNorm2d {
 public:
  using tl::ao::nn::quantized::BatchNorm2d::BatchNorm2d;
  std::string type_name() const override { return "QuantizedBNReLU2d"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<BNReLU2d>(); }

 protected:
  bool relu() const override { return true; }
};

/// torch.ao.nn.intrinsic.quantized.LinearReLU: quantized::linear_relu; prints as "QuantizedLinearReLU(...)".
class LinearReLU : public tl::ao::nn::quantized::Linear {
 public:
  using tl::ao::nn::quantized::Linear::Linear;
  std::string type_name() const override { return "QuantizedLinearReLU"; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<LinearReLU>(); }

 protected:
  bool relu() const override { return true; }
};

}  // namespace tl::ao::nn::intrinsic::quantized
