// ao/nn/quantized.cpp — the quantized conv and linear modules: prepack once, run the int8 kernels, print as
// PyTorch 1.13's (torch/ao/nn/quantized/modules/conv.py and linear.py extra_repr).
#include "ao/nn/quantized.h"

#include "core/py_repr.h"
#include "nn/repr.h"
#include "ops/ops.h"

namespace tl::ao::nn::quantized {
namespace {

tl::nn::IntPair zero_padding_of(const tl::nn::Conv2dOptions& options) {
  const std::optional<tl::nn::IntPair> padding = tl::nn::symmetric_zero_padding(options);
  TL_CHECK(padding.has_value(), "QuantizedConv2d: the convolution must add its own zero padding, got padding_mode '",
           options.padding_mode, "' (quantized::conv2d pads with zeros on both sides)");
  return *padding;
}

// The (weight, bias) an unpack returns, the bias undefined when there is none.
Tensor unpacked(const TensorList& weight_and_bias, size_t i) {
  return i < weight_and_bias.size() ? weight_and_bias[i] : Tensor();
}

}  // namespace

Conv2d::Conv2d(const tl::nn::Conv2dOptions& options, const Tensor& weight, const Tensor& bias, double scale,
               int64_t zero_point)
    : options_(options), scale_(scale), zero_point_(zero_point) {
  const tl::nn::IntPair padding = zero_padding_of(options_);
  options_.padding = padding;
  packed_ = quantized_conv2d_prepack(weight, bias, options_.stride.shape(), padding.shape(), options_.dilation.shape(),
                                     options_.groups);
}

std::shared_ptr<Conv2d> Conv2d::from_float(const tl::nn::Conv2d& conv, const Tensor& qweight, double scale,
                                           int64_t zero_point) {
  return std::make_shared<Conv2d>(conv.options(), qweight, conv.parameter("bias"), scale, zero_point);
}

// x: quint8 (N, C_in, H, W) -> quint8 (N, C_out, H_out, W_out), channels-last.
Tensor Conv2d::forward(const Tensor& x) {
  return relu() ? quantized_conv2d_relu(x, packed_, scale_, zero_point_)
                : quantized_conv2d(x, packed_, scale_, zero_point_);
}

std::string Conv2d::extra_repr() const {
  const tl::nn::Conv2dOptions& o = options_;
  std::string s = std::to_string(o.in_channels) + ", " + std::to_string(o.out_channels) +
                  ", kernel_size=" + o.kernel_size.tuple_repr() + ", stride=" + o.stride.tuple_repr() +
                  ", scale=" + py_float(scale_) + ", zero_point=" + std::to_string(zero_point_);
  const tl::nn::IntPair* padding = o.padding.zeros();
  if (padding != nullptr && !padding->all_equal(0)) s += ", padding=" + padding->tuple_repr();
  if (!o.dilation.all_equal(1)) s += ", dilation=" + o.dilation.tuple_repr();
  if (o.groups != 1) s += ", groups=" + std::to_string(o.groups);
  if (!bias().defined()) s += ", bias=False";
  return s;
}

Tensor Conv2d::weight() const { return unpacked(quantized_conv2d_unpack(packed_), 0); }
Tensor Conv2d::bias() const { return unpacked(quantized_conv2d_unpack(packed_), 1); }

Linear::Linear(const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point)
    : packed_(quantized_linear_prepack(weight, bias)), scale_(scale), zero_point_(zero_point) {}

std::shared_ptr<Linear> Linear::from_float(const tl::nn::Linear& linear, const Tensor& qweight, double scale,
                                           int64_t zero_point) {
  return std::make_shared<Linear>(qweight, linear.parameter("bias"), scale, zero_point);
}

// x: quint8 (*, in_features) -> quint8 (*, out_features).
Tensor Linear::forward(const Tensor& x) {
  return relu() ? quantized_linear_relu(x, packed_, scale_, zero_point_)
                : quantized_linear(x, packed_, scale_, zero_point_);
}

std::string Linear::extra_repr() const {
  const Tensor w = weight();
  return "in_features=" + std::to_string(w.size(1)) + ", out_features=" + std::to_string(w.size(0)) +
         ", scale=" + py_float(scale_) + ", zero_point=" + std::to_string(zero_point_) +
         ", qscheme=" + qscheme_name(w.qscheme());
}

Tensor Linear::weight() const { return unpacked(quantized_linear_unpack(packed_), 0); }
Tensor Linear::bias() const { return unpacked(quantized_linear_unpack(packed_), 1); }

}  // namespace tl::ao::nn::quantized
