// models/vision_ops.cpp — torchvision.ops.misc / stochastic_depth and _make_divisible in C++: the same
// children in the same order (repr, state_dict and FX node order follow it) and the same draws.
#include "models/vision_ops.h"

#include <algorithm>

#include "core/py_repr.h"
#include "fx/wrap.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models::ops {

int64_t make_divisible(double v, int64_t divisor, std::optional<int64_t> min_value) {
  TL_CHECK(divisor != 0, "_make_divisible: divisor is 0 (Python's ZeroDivisionError: integer division or modulo by zero)");
  const int64_t floor_value = min_value.value_or(divisor);
  // int() truncates, // floors: a negative divisor rounds as Python does.
  const int64_t n = static_cast<int64_t>(v + static_cast<double>(divisor) / 2);
  const int64_t quotient = n / divisor - ((n % divisor != 0 && (n < 0) != (divisor < 0)) ? 1 : 0);
  int64_t new_v = std::max(floor_value, quotient * divisor);
  if (static_cast<double>(new_v) < 0.9 * v) new_v += divisor;
  return new_v;
}

NormLayer batch_norm2d(double eps, double momentum) {
  return [eps, momentum](int64_t num_features) -> std::shared_ptr<nn::Module> {
    return std::make_shared<nn::BatchNorm2d>(
        nn::BatchNormOptions{.num_features = num_features, .eps = eps, .momentum = momentum});
  };
}

Conv2dNormActivation::Conv2dNormActivation(const Conv2dNormActivationOptions& o) {
  const int64_t padding = o.padding.value_or((o.kernel_size - 1) / 2 * o.dilation);
  std::vector<std::shared_ptr<nn::Module>> layers{std::make_shared<nn::Conv2d>(nn::Conv2dOptions{
      .in_channels = o.in_channels, .out_channels = o.out_channels, .kernel_size = o.kernel_size,
      .stride = o.stride, .padding = padding, .dilation = o.dilation, .groups = o.groups,
      .bias = o.bias.value_or(o.norm_layer == nullptr)})};
  if (o.norm_layer) layers.push_back(o.norm_layer(o.out_channels));
  if (o.activation_layer) layers.push_back(o.activation_layer(o.inplace));
  append_all(std::move(layers));
}

SqueezeExcitation::SqueezeExcitation(int64_t input_channels, int64_t squeeze_channels, LayerFactory activation,
                                     LayerFactory scale_activation) {
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1)));
  register_module("fc1", std::make_shared<nn::Conv2d>(input_channels, squeeze_channels, 1));
  register_module("fc2", std::make_shared<nn::Conv2d>(squeeze_channels, input_channels, 1));
  register_module("activation", activation());
  register_module("scale_activation",
                  scale_activation ? scale_activation() : std::make_shared<nn::Sigmoid>());
}

Tensor SqueezeExcitation::forward(const Tensor& input) {
  Tensor scale = submodule("avgpool")(input);
  scale = submodule("fc1")(scale);
  scale = submodule("activation")(scale);
  scale = submodule("fc2")(scale);
  scale = submodule("scale_activation")(scale);
  return scale * input;
}

namespace {

void check_stochastic_depth(double p, const std::string& mode) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "drop probability has to be between 0 and 1, but got ", py_float(p));
  TL_CHECK(mode == "batch" || mode == "row", "mode has to be either 'batch' or 'row', but got ", mode);
}

// torchvision's stochastic_depth body; the public function wraps it for FX.
Tensor stochastic_depth_impl(const Tensor& input, double p, const std::string& mode, bool training) {
  check_stochastic_depth(p, mode);
  if (!training || p == 0.0) return input;
  const double survival_rate = 1.0 - p;
  Shape size(static_cast<size_t>(input.dim()), 1);
  if (mode == "row") size[0] = input.size(0);
  Tensor noise = empty(size, input.dtype());
  noise.bernoulli_(survival_rate);
  if (survival_rate > 0.0) noise.div_(survival_rate);
  return input * noise;
}

}  // namespace

Tensor stochastic_depth(const Tensor& input, double p, const std::string& mode, bool training) {
  // torch.fx.wrap("stochastic_depth") in torchvision/ops/stochastic_depth.py: one call_function node when traced.
  static const fx::WrappedFunction& wrapped = fx::wrap(
      "torchvision.ops.stochastic_depth.stochastic_depth",
      [](const TensorList& tensors, const std::vector<fx::Argument>& args) {
        TL_CHECK(tensors.size() == 1 && args.size() == 4, "stochastic_depth: expected (input, p, mode, training), got ",
                 args.size(), " arguments");
        const auto* p = std::get_if<double>(&args[1].value());
        const auto* mode = std::get_if<std::string>(&args[2].value());
        const auto* training = std::get_if<bool>(&args[3].value());
        TL_CHECK(p && mode && training, "stochastic_depth: expected (input, float p, str mode, bool training)");
        return stochastic_depth_impl(tensors[0], *p, *mode, *training);
      });
  return fx::call_wrapped(wrapped, {input, fx::Argument(p), fx::Argument(mode), fx::Argument(training)});
}

StochasticDepth::StochasticDepth(double p, std::string mode) : p_(p), mode_(std::move(mode)) {
  check_stochastic_depth(p_, mode_);
}

Tensor StochasticDepth::forward(const Tensor& input) { return stochastic_depth(input, p_, mode_, is_training()); }

std::string StochasticDepth::extra_repr() const { return "p=" + py_float(p_) + ", mode=" + mode_; }

void init_weights_(nn::Module& model, const std::function<void(const Tensor&, const Tensor&)>& linear_init) {
  for (const auto& m : model.modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2d*>(m.get())) {
      nn::init::kaiming_normal_(conv->parameter("weight"), 0.0, "fan_out");
      if (conv->options().bias) nn::init::zeros_(conv->parameter("bias"));
    } else if (auto* norm = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      nn::init::ones_(norm->parameter("weight"));
      nn::init::zeros_(norm->parameter("bias"));
    } else if (auto* linear = dynamic_cast<nn::Linear*>(m.get())) {
      linear_init(linear->parameter("weight"), linear->parameter("bias"));
    }
  }
}

Tensor channel_shuffle(const Tensor& x, int64_t groups) {
  TL_CHECK(x.dim() == 4, "channel_shuffle: expected a 4-D input (N, C, H, W), got ", x.shape());
  const int64_t batchsize = x.size(0), num_channels = x.size(1), height = x.size(2), width = x.size(3);
  TL_CHECK(groups > 0 && num_channels % groups == 0, "channel_shuffle: ", num_channels,
           " channels cannot be split into ", groups, " groups");
  const int64_t channels_per_group = num_channels / groups;
  Tensor out = x.view({batchsize, groups, channels_per_group, height, width});
  out = tl::transpose(out, 1, 2).contiguous();
  return out.view({batchsize, -1, height, width});
}

Tensor Permute::forward(const Tensor& x) { return tl::permute(x, dims_); }

Tensor transform_input(const Tensor& x) {
  using indexing::Slice;
  const Tensor x_ch0 = tl::unsqueeze(x.index({Slice(), 0}), 1) * (0.229 / 0.5) + (0.485 - 0.5) / 0.5;
  const Tensor x_ch1 = tl::unsqueeze(x.index({Slice(), 1}), 1) * (0.224 / 0.5) + (0.456 - 0.5) / 0.5;
  const Tensor x_ch2 = tl::unsqueeze(x.index({Slice(), 2}), 1) * (0.225 / 0.5) + (0.406 - 0.5) / 0.5;
  return tl::cat({x_ch0, x_ch1, x_ch2}, 1);
}

void trunc_normal_init_(nn::Module& model, const std::function<double(const nn::Module&)>& stddev) {
  for (const auto& m : model.modules()) {
    if (dynamic_cast<nn::Conv2d*>(m.get()) != nullptr || dynamic_cast<nn::Linear*>(m.get()) != nullptr) {
      nn::init::trunc_normal_(m->parameter("weight"), 0.0, stddev(*m), -2, 2);
    } else if (auto* bn = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      nn::init::constant_(bn->parameter("weight"), 1.0);
      nn::init::constant_(bn->parameter("bias"), 0.0);
    }
  }
}

MLP::MLP(const MLPOptions& o) {
  TL_CHECK(!o.hidden_channels.empty(), "MLP: hidden_channels must name at least one layer");
  const auto activation = [&o]() -> std::shared_ptr<nn::Module> {
    if (o.activation_layer) return o.activation_layer(o.inplace);
    if (o.inplace) return std::make_shared<nn::ReLU>(*o.inplace);
    return std::make_shared<nn::ReLU>();
  };
  const auto dropout = [&o] {
    return std::make_shared<nn::Dropout>(nn::DropoutOptions{.p = o.dropout, .inplace = o.inplace.value_or(false)});
  };
  std::vector<std::shared_ptr<nn::Module>> layers;
  int64_t in_dim = o.in_channels;
  for (size_t i = 0; i + 1 < o.hidden_channels.size(); ++i) {
    const int64_t hidden_dim = o.hidden_channels[i];
    layers.push_back(std::make_shared<nn::Linear>(in_dim, hidden_dim, o.bias));
    if (o.norm_layer) layers.push_back(o.norm_layer(hidden_dim));
    layers.push_back(activation());
    layers.push_back(dropout());
    in_dim = hidden_dim;
  }
  layers.push_back(std::make_shared<nn::Linear>(in_dim, o.hidden_channels.back(), o.bias));
  layers.push_back(dropout());
  append_all(std::move(layers));
}

void xavier_linear_init_(nn::Module& mlp) {
  for (const auto& m : mlp.modules()) {
    if (auto* linear = dynamic_cast<nn::Linear*>(m.get())) {
      nn::init::xavier_uniform_(linear->parameter("weight"));
      if (linear->parameter("bias").defined()) nn::init::normal_(linear->parameter("bias"), 0.0, 1e-6);
    }
  }
}

Tensor relative_position_index(int64_t height, int64_t width) {
  const int64_t n = height * width;
  std::vector<int64_t> index;
  index.reserve(static_cast<size_t>(n * n));
  for (int64_t p = 0; p < n; ++p)
    for (int64_t q = 0; q < n; ++q) {
      const int64_t dh = p / width - q / width, dw = p % width - q % width;
      index.push_back((dh + height - 1) * (2 * width - 1) + dw + width - 1);
    }
  return from_vector(index, {n, n});
}

Tensor relative_position_bias(const Tensor& table, const Tensor& index, int64_t n) {
  Tensor bias = table.index({index});
  bias = bias.view({n, n, -1});
  return bias.permute({2, 0, 1}).contiguous().unsqueeze(0);
}

}  // namespace tl::models::ops
