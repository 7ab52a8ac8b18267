// models/regnet.cpp — torchvision/models/regnet.py in C++: the same stage derivation (float32 where
// torchvision computes with tensors), registration order, forward and initialisation.
#include "models/regnet.h"

#include <algorithm>
#include <cmath>

#include "fx/wrap.h"
#include "models/arguments.h"
#include "models/buffers_kept.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"

namespace tl::models {

namespace regnet {

BlockParams BlockParams::from_init_params(int64_t depth, int64_t w_0, double w_a, double w_m, int64_t group_width,
                                          double bottleneck_multiplier, std::optional<double> se_ratio) {
  TL_CHECK(w_a >= 0 && w_0 > 0 && w_m > 1 && w_0 % 8 == 0, "Invalid RegNet settings");
  constexpr int64_t kQuant = 8, kStride = 2;
  // torch.arange(depth) * w_a + w_0 and the rest in float32, rounding half to even as torch.round.
  const float log_w_m = static_cast<float>(std::log(w_m));
  std::vector<int64_t> block_widths;
  for (int64_t i = 0; i < depth; ++i) {
    const float width_cont = static_cast<float>(i) * static_cast<float>(w_a) + static_cast<float>(w_0);
    const float capacity = std::nearbyint(std::log(width_cont / static_cast<float>(w_0)) / log_w_m);
    const float width = static_cast<float>(w_0) * std::pow(static_cast<float>(w_m), capacity);
    block_widths.push_back(static_cast<int64_t>(std::nearbyint(width / static_cast<float>(kQuant)) * kQuant));
  }
  // A stage starts where the width changes; its depth runs to the next start.
  BlockParams p;
  int64_t stage_start = 0;
  for (int64_t i = 1; i <= depth; ++i) {
    if (i < depth && block_widths[static_cast<size_t>(i)] == block_widths[static_cast<size_t>(i - 1)]) continue;
    p.widths.push_back(block_widths[static_cast<size_t>(stage_start)]);
    p.depths.push_back(i - stage_start);
    stage_start = i;
  }
  // The widths never decrease (w_a >= 0, w_m > 1): one stage per distinct width, as torchvision counts them.
  const size_t num_stages = p.widths.size();
  p.strides.assign(num_stages, kStride);
  p.bottleneck_multipliers.assign(num_stages, bottleneck_multiplier);
  p.se_ratio = se_ratio;
  // _adjust_widths_groups_compatibilty: group widths no wider than the bottleneck, which they divide.
  for (int64_t& w : p.widths) {
    const auto w_bot = static_cast<int64_t>(static_cast<double>(w) * bottleneck_multiplier);
    const int64_t g = std::min(group_width, w_bot);
    TL_CHECK(g != 0, "BlockParams.from_init_params: group_width=", group_width, " and a bottleneck width of ", w_bot,
             " give a group width of 0, a division by zero (Python's ZeroDivisionError: integer division or modulo ",
             "by zero)");
    w = static_cast<int64_t>(static_cast<double>(ops::make_divisible(static_cast<double>(w_bot), g)) /
                             bottleneck_multiplier);
    p.group_widths.push_back(g);
  }
  return p;
}

SimpleStemIN::SimpleStemIN(int64_t width_in, int64_t width_out, const ops::NormLayer& norm_layer,
                           const ops::ActivationLayer& activation_layer)
    : ops::Conv2dNormActivation(ops::Conv2dNormActivationOptions{.in_channels = width_in,
                                                                 .out_channels = width_out,
                                                                 .kernel_size = 3,
                                                                 .stride = 2,
                                                                 .norm_layer = norm_layer,
                                                                 .activation_layer = activation_layer}) {}

BottleneckTransform::BottleneckTransform(const BlockArgs& a) {
  const auto w_b = static_cast<int64_t>(std::nearbyint(static_cast<double>(a.width_out) * a.bottleneck_multiplier));
  const int64_t g = w_b / a.group_width;
  auto conv = [&](int64_t in, int64_t out, int64_t kernel, int64_t stride, int64_t groups, bool activation) {
    return std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
        .in_channels = in, .out_channels = out, .kernel_size = kernel, .stride = stride, .groups = groups,
        .norm_layer = a.norm_layer, .activation_layer = activation ? a.activation_layer : nullptr});
  };
  std::vector<NamedModule> layers{{"a", conv(a.width_in, w_b, 1, 1, 1, true)},
                                  {"b", conv(w_b, w_b, 3, a.stride, g, true)}};
  if (a.se_ratio && *a.se_ratio != 0.0) {
    // The SE reduction ratio is defined with respect to the beginning of the block.
    const auto width_se_out = static_cast<int64_t>(std::nearbyint(*a.se_ratio * static_cast<double>(a.width_in)));
    const ops::ActivationLayer activation = a.activation_layer;
    layers.emplace_back("se", std::make_shared<ops::SqueezeExcitation>(
                                  w_b, width_se_out, [activation] { return activation(false); }));
  }
  layers.emplace_back("c", conv(w_b, a.width_out, 1, 1, 1, false));
  register_all(std::move(layers));
}

ResBottleneckBlock::ResBottleneckBlock(const BlockArgs& a) {
  if (a.width_in != a.width_out || a.stride != 1)
    register_module("proj", std::make_shared<ops::Conv2dNormActivation>(ops::Conv2dNormActivationOptions{
                                .in_channels = a.width_in, .out_channels = a.width_out, .kernel_size = 1,
                                .stride = a.stride, .norm_layer = a.norm_layer, .activation_layer = nullptr}));
  register_module("f", std::make_shared<BottleneckTransform>(a));
  register_module("activation", a.activation_layer(true));
}

Tensor ResBottleneckBlock::forward(const Tensor& input) {
  Tensor x;
  if (has_child("proj")) {
    Tensor shortcut = submodule("proj")(input);  // before f, as Python evaluates (FX records this order)
    x = shortcut + submodule("f")(input);
  } else {
    x = input + submodule("f")(input);
  }
  return submodule("activation")(x);
}

AnyStage::AnyStage(const BlockArgs& first, int64_t depth, int64_t stage_index) {
  std::vector<NamedModule> blocks;
  for (int64_t i = 0; i < depth; ++i) {
    BlockArgs a = first;
    if (i > 0) {
      a.width_in = first.width_out;
      a.stride = 1;
    }
    blocks.emplace_back("block" + std::to_string(stage_index) + "-" + std::to_string(i),
                        std::make_shared<ResBottleneckBlock>(a));
  }
  register_all(std::move(blocks));
}

}  // namespace regnet

RegNet::RegNet(const regnet::BlockParams& p, const RegNetOptions& o) {
  check_num_classes("RegNet", o.num_classes);
  // torchvision's init draws each conv from N(0, sqrt(2 / fan_out)): ZeroDivisionError for 0 output channels
  TL_CHECK(o.stem_width != 0, "RegNet: stem_width=0 gives the stem's init std sqrt(2 / 0) (Python's ",
           "ZeroDivisionError: float division by zero)");
  // torchvision zips the per-stage lists: the shortest decides how many stages there are.
  const size_t num_stages = std::min({p.widths.size(), p.strides.size(), p.depths.size(), p.group_widths.size(),
                                      p.bottleneck_multipliers.size()});
  for (size_t i = 0; i < num_stages; ++i)
    TL_CHECK(p.group_widths[i] != 0, "RegNet: stage ", i + 1, " has group width 0, a division by zero (Python's ",
             "ZeroDivisionError: integer division or modulo by zero)");
  const ops::NormLayer norm_layer = o.norm_layer ? o.norm_layer : ops::batch_norm2d();
  const ops::ActivationLayer activation = o.activation ? o.activation : ops::activation<nn::ReLU>();
  register_module("stem", std::make_shared<regnet::SimpleStemIN>(3, o.stem_width, norm_layer, activation));
  int64_t current_width = o.stem_width;
  std::vector<nn::Module::NamedModule> stages;
  for (size_t i = 0; i < num_stages; ++i) {
    const regnet::BlockArgs first{current_width,        p.widths[i],     p.strides[i],
                                  norm_layer,           activation,      p.group_widths[i],
                                  p.bottleneck_multipliers[i], p.se_ratio};
    const auto index = static_cast<int64_t>(i) + 1;
    stages.emplace_back("block" + std::to_string(index),
                        std::make_shared<regnet::AnyStage>(first, p.depths[i], index));
    current_width = p.widths[i];
  }
  register_module("trunk_output", std::make_shared<nn::Sequential>(std::move(stages)));
  register_module("avgpool", std::make_shared<nn::AdaptiveAvgPool2d>(nn::IntPair(1, 1)));
  register_module("fc", std::make_shared<nn::Linear>(current_width, o.num_classes));
  // ResNet-style initialisation, over modules() in PyTorch's order (so the draws come in its order).
  for (const auto& m : modules()) {
    if (auto* conv = dynamic_cast<nn::Conv2d*>(m.get())) {
      const nn::Conv2dOptions& c = conv->options();
      const double fan_out = static_cast<double>(c.kernel_size.h() * c.kernel_size.w() * c.out_channels);
      nn::init::normal_(conv->parameter("weight"), 0.0, std::sqrt(2.0 / fan_out));
    } else if (auto* norm = dynamic_cast<nn::BatchNorm2d*>(m.get())) {
      nn::init::ones_(norm->parameter("weight"));
      nn::init::zeros_(norm->parameter("bias"));
    } else if (auto* linear = dynamic_cast<nn::Linear*>(m.get())) {
      nn::init::normal_(linear->parameter("weight"), 0.0, 0.01);
      nn::init::zeros_(linear->parameter("bias"));
    }
  }
}

nn::ForwardSignature RegNet::forward_signature() const { return {{"x"}, {"torch.Tensor"}, "torch.Tensor"}; }

Tensor RegNet::forward(const Tensor& input) {
  const BuffersKeptOnError kept(*this);
  Tensor x = submodule("stem")(input);
  x = submodule("trunk_output")(x);
  x = submodule("avgpool")(x);
  {
    const fx::KeywordArguments keywords({"start_dim"});  // torchvision writes x.flatten(start_dim=1)
    x = x.flatten(1);
  }
  return submodule("fc")(x);
}

namespace {

std::shared_ptr<RegNet> build_regnet(int64_t depth, int64_t w_0, double w_a, double w_m, int64_t group_width,
                               std::optional<double> se_ratio, const RegNetOptions& o) {
  return std::make_shared<RegNet>(regnet::BlockParams::from_init_params(depth, w_0, w_a, w_m, group_width, 1.0, se_ratio),
                                  o);
}

}  // namespace

std::shared_ptr<RegNet> regnet_y_400mf(const RegNetOptions& o) { return build_regnet(16, 48, 27.89, 2.09, 8, 0.25, o); }
std::shared_ptr<RegNet> regnet_y_800mf(const RegNetOptions& o) { return build_regnet(14, 56, 38.84, 2.4, 16, 0.25, o); }
std::shared_ptr<RegNet> regnet_y_1_6gf(const RegNetOptions& o) { return build_regnet(27, 48, 20.71, 2.65, 24, 0.25, o); }
std::shared_ptr<RegNet> regnet_y_3_2gf(const RegNetOptions& o) { return build_regnet(21, 80, 42.63, 2.66, 24, 0.25, o); }
std::shared_ptr<RegNet> regnet_y_8gf(const RegNetOptions& o) { return build_regnet(17, 192, 76.82, 2.19, 56, 0.25, o); }
std::shared_ptr<RegNet> regnet_y_16gf(const RegNetOptions& o) { return build_regnet(18, 200, 106.23, 2.48, 112, 0.25, o); }
std::shared_ptr<RegNet> regnet_y_32gf(const RegNetOptions& o) { return build_regnet(20, 232, 115.89, 2.53, 232, 0.25, o); }
std::shared_ptr<RegNet> regnet_y_128gf(const RegNetOptions& o) { return build_regnet(27, 456, 160.83, 2.52, 264, 0.25, o); }
std::shared_ptr<RegNet> regnet_x_400mf(const RegNetOptions& o) { return build_regnet(22, 24, 24.48, 2.54, 16, std::nullopt, o); }
std::shared_ptr<RegNet> regnet_x_800mf(const RegNetOptions& o) { return build_regnet(16, 56, 35.73, 2.28, 16, std::nullopt, o); }
std::shared_ptr<RegNet> regnet_x_1_6gf(const RegNetOptions& o) { return build_regnet(18, 80, 34.01, 2.25, 24, std::nullopt, o); }
std::shared_ptr<RegNet> regnet_x_3_2gf(const RegNetOptions& o) { return build_regnet(25, 88, 26.31, 2.25, 48, std::nullopt, o); }
std::shared_ptr<RegNet> regnet_x_8gf(const RegNetOptions& o) { return build_regnet(23, 80, 49.56, 2.88, 120, std::nullopt, o); }
std::shared_ptr<RegNet> regnet_x_16gf(const RegNetOptions& o) { return build_regnet(22, 216, 55.59, 2.1, 128, std::nullopt, o); }
std::shared_ptr<RegNet> regnet_x_32gf(const RegNetOptions& o) { return build_regnet(23, 320, 69.86, 2.0, 168, std::nullopt, o); }

}  // namespace tl::models
