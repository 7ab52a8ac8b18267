// ao/nn/quantized.cpp — the quantized conv and linear modules: prepack once, run the int8 kernels, print as
// PyTorch 1.13's (torch/ao/nn/quantized/modules/conv.py and linear.py extra_repr).
#include "ao/nn/quantized.h"

#include <cmath>

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

// The entries of a quantized layer's state dict: (weight, bias) then (scale, zero_point), or (scale, zero_point)
// first (Linear), as PyTorch 1.13 orders them.
tl::nn::StateDict layer_state(const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point,
                              bool qparams_first) {
  tl::nn::StateDict weights{{"weight", weight}};
  if (bias.defined()) weights.emplace_back("bias", bias);
  tl::nn::StateDict qparams{{"scale", full({}, scale, DType::Float32)}, {"zero_point", full({}, zero_point, kLong)}};
  tl::nn::StateDict& first = qparams_first ? qparams : weights;
  tl::nn::StateDict& second = qparams_first ? weights : qparams;
  first.insert(first.end(), second.begin(), second.end());
  return first;
}

// A checkpoint's output scale `t` (at `key`), as PyTorch's float() reads it; throws unless positive and finite.
double scale_entry(const Tensor& t, const std::string& key, const std::string& layer) {
  TL_CHECK(is_floating_point(t.dtype()), layer, ": '", key, "' is ", t.dtype(), ", expected floating point");
  const double scale = t.item<double>();
  TL_CHECK(std::isfinite(scale) && scale > 0.0, layer, ": '", key, "' is ", scale, ", expected a positive finite scale");
  return scale;
}

// A checkpoint's output zero point, as int() reads it; throws unless an integer in quint8's range.
int64_t zero_point_entry(const Tensor& t, const std::string& key, const std::string& layer) {
  TL_CHECK(!is_floating_point(t.dtype()) && !t.is_quantized() && t.dtype() != DType::Bool, layer, ": '", key,
           "' is ", t.dtype(), ", expected an integer");
  const int64_t zero_point = t.item<int64_t>();
  TL_CHECK(zero_point >= 0 && zero_point <= 255, layer, ": '", key, "' is ", zero_point,
           ", outside torch.quint8's [0, 255]");
  return zero_point;
}

// A quantized layer's state as a checkpoint gives it (load_state_dict has matched every name and shape), checked.
struct LayerState {
  Tensor weight;
  Tensor bias;  // float32, undefined for none
  double scale = 0.0;
  int64_t zero_point = 0;

  LayerState(const tl::nn::StateDict& entries, const std::string& prefix, const std::string& layer) {
    for (const auto& [name, t] : entries) {
      const std::string key = prefix + name;
      if (name == "weight") {
        TL_CHECK(t.dtype() == DType::QInt8, layer, ": '", key, "' is ", t.dtype(), ", expected a torch.qint8 ",
                 "quantized tensor");
        weight = t;
      } else if (name == "bias") {
        TL_CHECK(is_floating_point(t.dtype()), layer, ": '", key, "' is ", t.dtype(), ", expected floating point");
        bias = t.to(DType::Float32);
      } else if (name == "scale") {
        scale = scale_entry(t, key, layer);
      } else if (name == "zero_point") {
        zero_point = zero_point_entry(t, key, layer);
      }
    }
  }
};

// prepack(), its error (a weight the kernel cannot take: asymmetric, ...) naming the weight's key.
template <class Prepack>
Tensor prepacked(const std::string& key, const Prepack& prepack) {
  try {
    return prepack();
  } catch (const Error& e) {
    throw Error("'" + key + "': " + e.what());
  }
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
Tensor Conv2d::forward(const Tensor& x) { return run({&x, 1}, Tensor()); }

Tensor Conv2d::run(std::span<const Tensor> inputs, const Tensor& out) {
  TL_CHECK(inputs.size() == 1, type_name(), ": expected one input, got ", inputs.size());
  return relu() ? quantized_conv2d_relu(inputs[0], packed_, scale_, zero_point_, out)
                : quantized_conv2d(inputs[0], packed_, scale_, zero_point_, out);
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

tl::nn::StateDict Conv2d::packed_state() const {
  const TensorList weight_and_bias = quantized_conv2d_unpack(packed_);
  return layer_state(unpacked(weight_and_bias, 0), unpacked(weight_and_bias, 1), scale_, zero_point_, false);
}

std::function<void()> Conv2d::prepare_packed_state(const tl::nn::StateDict& entries, const std::string& prefix) {
  const LayerState state(entries, prefix, type_name());
  const tl::nn::Conv2dOptions& o = options_;
  const Tensor packed = prepacked(prefix + "weight", [&] {
    return quantized_conv2d_prepack(state.weight, state.bias, o.stride.shape(), o.padding.zeros()->shape(),
                                    o.dilation.shape(), o.groups);
  });
  return [this, packed, scale = state.scale, zero_point = state.zero_point] {
    packed_ = packed;
    scale_ = scale;
    zero_point_ = zero_point;
  };
}

Linear::Linear(const Tensor& weight, const Tensor& bias, double scale, int64_t zero_point)
    : packed_(quantized_linear_prepack(weight, bias)), scale_(scale), zero_point_(zero_point) {}

std::shared_ptr<Linear> Linear::from_float(const tl::nn::Linear& linear, const Tensor& qweight, double scale,
                                           int64_t zero_point) {
  return std::make_shared<Linear>(qweight, linear.parameter("bias"), scale, zero_point);
}

// x: quint8 (*, in_features) -> quint8 (*, out_features).
Tensor Linear::forward(const Tensor& x) { return run({&x, 1}, Tensor()); }

Tensor Linear::run(std::span<const Tensor> inputs, const Tensor& out) {
  TL_CHECK(inputs.size() == 1, type_name(), ": expected one input, got ", inputs.size());
  return relu() ? quantized_linear_relu(inputs[0], packed_, scale_, zero_point_, out)
                : quantized_linear(inputs[0], packed_, scale_, zero_point_, out);
}

std::string Linear::extra_repr() const {
  const Tensor w = weight();
  return "in_features=" + std::to_string(w.size(1)) + ", out_features=" + std::to_string(w.size(0)) +
         ", scale=" + py_float(scale_) + ", zero_point=" + std::to_string(zero_point_) +
         ", qscheme=" + qscheme_name(w.qscheme());
}

std::shared_ptr<tl::nn::Module> Conv2d::with_quantized_add(bool relu_after, double scale, int64_t zero_point) const {
  namespace qi = tl::ao::nn::intrinsic::quantized;
  if (relu()) return nullptr;
  if (relu_after) return std::make_shared<qi::ConvAddReLU2d>(*this, scale, zero_point);
  return std::make_shared<qi::ConvAdd2d>(*this, scale, zero_point);
}

Tensor Linear::weight() const { return unpacked(quantized_linear_unpack(packed_), 0); }
Tensor Linear::bias() const { return unpacked(quantized_linear_unpack(packed_), 1); }

tl::nn::StateDict Linear::packed_state() const {
  const TensorList weight_and_bias = quantized_linear_unpack(packed_);
  return layer_state(unpacked(weight_and_bias, 0), unpacked(weight_and_bias, 1), scale_, zero_point_, true);
}

std::function<void()> Linear::prepare_packed_state(const tl::nn::StateDict& entries, const std::string& prefix) {
  const LayerState state(entries, prefix, type_name());
  const Tensor packed =
      prepacked(prefix + "weight", [&] { return quantized_linear_prepack(state.weight, state.bias); });
  return [this, packed, scale = state.scale, zero_point = state.zero_point] {
    packed_ = packed;
    scale_ = scale;
    zero_point_ = zero_point;
  };
}

BatchNorm2d::BatchNorm2d(const tl::nn::BatchNorm2d& bn, double scale, int64_t zero_point)
    : tl::nn::BatchNorm2d(tl::nn::BatchNormOptions{.num_features = bn.options().num_features, .eps = bn.options().eps,
                                                   .momentum = bn.options().momentum}) {
  for (const char* name : {"weight", "bias"}) parameter(name) = bn.parameter(name);
  for (const char* name : {"running_mean", "running_var"}) buffer(name) = bn.buffer(name);
  register_buffer("scale", full({}, scale, DType::Float32));
  register_buffer("zero_point", full({}, zero_point, kLong));
}

// x: quint8 (N, C, H, W) -> quint8 (N, C, H, W), channels-last.
Tensor BatchNorm2d::forward(const Tensor& x) {
  const Tensor &weight = parameter("weight"), &bias = parameter("bias");
  const Tensor &mean = buffer("running_mean"), &var = buffer("running_var");
  const double eps = options().eps, scale = buffer("scale").item<double>();
  const int64_t zero_point = buffer("zero_point").item<int64_t>();
  return relu() ? quantized_batch_norm2d_relu(x, weight, bias, mean, var, eps, scale, zero_point)
                : quantized_batch_norm2d(x, weight, bias, mean, var, eps, scale, zero_point);
}

Tensor Hardswish::forward(const Tensor& x) { return tl::quantized_hardswish(x, scale_, zero_point_); }

}  // namespace tl::ao::nn::quantized

namespace tl::ao::nn::intrinsic::quantized {

ConvAdd2d::ConvAdd2d(const tl::ao::nn::quantized::Conv2d& conv, double scale, int64_t zero_point)
    : Conv2d(conv.options(), conv.weight(), conv.bias(), scale, zero_point),
      conv_scale_(conv.scale()),
      conv_zero_point_(conv.zero_point()) {}

// (input, extra_input): quint8 (N, C_in, H, W) and quint8 (N, C_out, H_out, W_out) -> quint8, channels-last.
Tensor ConvAdd2d::run(std::span<const Tensor> inputs, const Tensor& out) {
  TL_CHECK(inputs.size() == 2, type_name(), ": expected (input, extra_input), got ", inputs.size(), " inputs");
  const Tensor& x = inputs[0];
  const Tensor& other = inputs[1];
  return relu() ? quantized_conv2d_add_relu(x, packed(), other, conv_scale_, conv_zero_point_, scale(), zero_point(), out)
                : quantized_conv2d_add(x, packed(), other, conv_scale_, conv_zero_point_, scale(), zero_point(), out);
}

tl::nn::StateDict ConvAdd2d::packed_state() const {
  tl::nn::StateDict state = Conv2d::packed_state();
  state.emplace_back("conv_scale", full({}, conv_scale_, DType::Float32));
  state.emplace_back("conv_zero_point", full({}, conv_zero_point_, kLong));
  return state;
}

std::function<void()> ConvAdd2d::prepare_packed_state(const tl::nn::StateDict& entries, const std::string& prefix) {
  double conv_scale = conv_scale_;
  int64_t conv_zero_point = conv_zero_point_;
  for (const auto& [name, t] : entries) {
    if (name == "conv_scale") conv_scale = tl::ao::nn::quantized::scale_entry(t, prefix + name, type_name());
    if (name == "conv_zero_point") conv_zero_point = tl::ao::nn::quantized::zero_point_entry(t, prefix + name, type_name());
  }
  std::function<void()> install_conv = Conv2d::prepare_packed_state(entries, prefix);
  return [this, install_conv, conv_scale, conv_zero_point] {
    install_conv();
    conv_scale_ = conv_scale;
    conv_zero_point_ = conv_zero_point;
  };
}

}  // namespace tl::ao::nn::intrinsic::quantized
