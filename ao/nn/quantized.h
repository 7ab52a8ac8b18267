// ao/nn/quantized.h — PyTorch 1.13's quantized modules, what convert_fx swaps in: torch.ao.nn.quantized's Conv2d
// Linear and Dropout, and torch.ao.nn.intrinsic.quantized's ConvReLU2d and LinearReLU. Each holds its weight prepacked
// once (quantized::conv2d_prepack / linear_prepack) and its output's scale and zero point; quint8 in, quint8 out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/conv.h"
#include "nn/dropout.h"
#include "nn/linear.h"

namespace tl::ao::nn::quantized {

/// torch.ao.nn.quantized.Conv2d: quantized::conv2d of a quint8 (N, C_in, H, W) input with the prepacked qint8
/// weight, rounded to (scale, zero_point). Prints as PyTorch's: "QuantizedConv2d(3, 64, kernel_size=(7, 7),
/// stride=(2, 2), scale=0.0057, zero_point=0, padding=(3, 3))".
class Conv2d : public tl::nn::Module {
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

 protected:
  /// Whether forward runs quantized::conv2d_relu.
  virtual bool relu() const { return false; }

 private:
  tl::nn::Conv2dOptions options_;
  Tensor packed_;
  double scale_;
  int64_t zero_point_;
};

/// torch.ao.nn.quantized.Linear: quantized::linear of a quint8 (*, in_features) input. Prints as
/// "QuantizedLinear(in_features=512, out_features=1000, scale=0.042, zero_point=117,
/// qscheme=torch.per_channel_affine)" (the weight's qscheme).
class Linear : public tl::nn::Module {
 public:
  /// `weight`: qint8 (out_features, in_features), symmetric; `bias`: float32 (out_features) or undefined.
  /// Throws tl::Error as quantized::linear_prepack does.
  Linear(const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point);
  static std::shared_ptr<Linear> from_float(const tl::nn::Linear& linear, const Tensor& qweight, double scale,
                                            int64_t zero_point);

  using tl::nn::Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "QuantizedLinear"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<Linear>(); }

  Tensor weight() const;
  Tensor bias() const;
  double scale() const { return scale_; }
  int64_t zero_point() const { return zero_point_; }

 protected:
  virtual bool relu() const { return false; }

 private:
  Tensor packed_;
  double scale_;
  int64_t zero_point_;
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
