// ao/quantization/backend_config.cpp — PyTorch 1.13's native BackendConfig (backend_config/native.py and
// _common_operator_config_utils.py) as rows, in its order.
#include "ao/quantization/backend_config.h"

#include <algorithm>

namespace tl::ao::quantization {
namespace {

constexpr auto kShare = ObservationType::OutputShareObserverWithInput;
constexpr auto kOwn = ObservationType::OutputUseDifferentObserverAsInput;

void conv_configs(std::vector<BackendPatternConfig>& out) {
  for (const std::string d : {"1d", "2d", "3d"}) {
    const std::string conv = "torch.nn.Conv" + d, func = "torch.nn.functional.conv" + d;
    const std::string relu_fused = "torch.ao.nn.intrinsic.ConvReLU" + d, bn = "torch.nn.BatchNorm" + d;
    out.push_back({.pattern = {conv}});
    out.push_back({.pattern = {func}, .weight_index = 1, .bias_index = 2});
    out.push_back({.pattern = {"torch.nn.ReLU", conv}, .fused_module = relu_fused});
    out.push_back({.pattern = {"torch.nn.functional.relu", conv}, .fused_module = relu_fused});
    out.push_back({.pattern = {relu_fused}});
    out.push_back({.pattern = {"torch.nn.ReLU", func}});
    out.push_back({.pattern = {"torch.nn.functional.relu", func}});
    out.push_back({.pattern = {bn, conv}, .fused_module = conv});
    out.push_back({.pattern = {"torch.nn.ReLU", bn, conv}, .fused_module = relu_fused});
    out.push_back({.pattern = {"torch.nn.functional.relu", bn, conv}, .fused_module = relu_fused});
    out.push_back({.pattern = {"torch.nn.ConvTranspose" + d}});
  }
}

void linear_configs(std::vector<BackendPatternConfig>& out) {
  const std::string fused = "torch.ao.nn.intrinsic.LinearReLU";
  out.push_back({.pattern = {"torch.nn.Linear"}});
  out.push_back({.pattern = {"torch.nn.functional.linear"}, .weight_index = 1, .bias_index = 2});
  out.push_back({.pattern = {"torch.nn.ReLU", "torch.nn.Linear"}, .fused_module = fused});
  out.push_back({.pattern = {"torch.nn.functional.relu", "torch.nn.Linear"}, .fused_module = fused});
  out.push_back({.pattern = {fused}});
  out.push_back({.pattern = {"torch.nn.ReLU", "torch.nn.functional.linear"}});
  out.push_back({.pattern = {"torch.nn.functional.relu", "torch.nn.functional.linear"}});
}

void binary_op_configs(std::vector<BackendPatternConfig>& out) {
  for (const char* op : {"operator.add", "torch.add", "operator.mul", "torch.mul"}) {
    for (const char* relu : {"torch.nn.ReLU", "torch.nn.functional.relu", "torch.relu"})
      out.push_back({.pattern = {relu, op}, .binary = true});
    out.push_back({.pattern = {op}, .binary = true});
  }
  out.push_back({.pattern = {"torch.matmul"}});
}

void default_op_configs(std::vector<BackendPatternConfig>& out) {
  for (const char* op : {"torch.nn.ELU", "torch.nn.LeakyReLU", "torch.nn.Hardswish", "torch.nn.InstanceNorm1d",
                         "torch.nn.InstanceNorm2d", "torch.nn.InstanceNorm3d", "torch.nn.Dropout", "torch.nn.PReLU",
                         "torch.nn.functional.elu", "torch.nn.functional.hardswish", "torch.nn.functional.leaky_relu",
                         "torch.nn.functional.dropout"})
    out.push_back({.pattern = {op}});
  out.push_back({.pattern = {"torch.nn.functional.group_norm"}, .weight_index = 2, .bias_index = 3});
  out.push_back({.pattern = {"torch.nn.functional.instance_norm"}, .weight_index = 3, .bias_index = 4});
}

void fixed_qparams_op_configs(std::vector<BackendPatternConfig>& out) {
  for (const char* op : {"torch.nn.Hardsigmoid", "torch.nn.functional.hardsigmoid", "hardsigmoid", "hardsigmoid_",
                         "torch.nn.Sigmoid", "torch.sigmoid", "sigmoid", "sigmoid_", "torch.nn.Softmax",
                         "torch.nn.Tanh", "torch.tanh", "tanh", "tanh_"})
    out.push_back({.pattern = {op}});
}

void share_qparams_op_configs(std::vector<BackendPatternConfig>& out) {
  for (const char* op :
       {"torch.nn.AdaptiveAvgPool1d", "torch.nn.AdaptiveAvgPool2d", "torch.nn.AdaptiveAvgPool3d", "torch.nn.AvgPool1d",
        "torch.nn.AvgPool2d", "torch.nn.AvgPool3d", "torch.nn.Hardtanh", "torch.nn.Identity", "torch.nn.MaxPool1d",
        "torch.nn.MaxPool2d", "torch.nn.MaxPool3d", "torch.nn.ReLU", "torch.nn.ReLU6", "torch.adaptive_avg_pool1d",
        "torch.nn.functional.adaptive_avg_pool2d", "torch.nn.functional.adaptive_avg_pool3d",
        "torch.nn.functional.hardtanh", "torch.nn.functional.hardtanh_", "torch.nn.functional.interpolate",
        "torch.nn.functional.max_pool1d", "torch.nn.functional.max_pool2d", "torch.nn.functional.max_pool3d",
        "torch.nn.functional.relu", "torch.nn.functional.relu6", "torch.avg_pool1d", "torch._C._nn.avg_pool2d",
        "torch._C._nn.avg_pool3d", "torch.clamp", "torch.flatten", "torch.mean", "torch.repeat_interleave",
        "torch.transpose", "torch.squeeze", "torch.stack", "torch.unsqueeze", "operator.floordiv", "contiguous",
        "clamp", "detach", "detach_", "mean", "permute", "repeat", "repeat_interleave", "reshape", "resize_", "relu",
        "relu_", "shape", "size", "squeeze", "squeeze_", "transpose", "unsqueeze", "unsqueeze_", "view"})
    out.push_back({.pattern = {op}, .observation_type = kShare});
}

void bn_configs(std::vector<BackendPatternConfig>& out) {
  const std::string fused = "torch.ao.nn.intrinsic.BNReLU2d";
  out.push_back({.pattern = {"torch.nn.ReLU", "torch.nn.BatchNorm2d"}, .fused_module = fused});
  out.push_back({.pattern = {"torch.nn.functional.relu", "torch.nn.BatchNorm2d"}, .fused_module = fused});
  out.push_back({.pattern = {"torch.nn.BatchNorm2d"}});
  out.push_back({.pattern = {"torch.nn.BatchNorm3d"}});
  out.push_back({.pattern = {fused}});
}

}  // namespace

BackendConfig get_native_backend_config() {
  BackendConfig config{.name = "native", .configs = {}};
  std::vector<BackendPatternConfig>& c = config.configs;
  conv_configs(c);
  linear_configs(c);
  binary_op_configs(c);
  c.push_back({.pattern = {"torch.cat"}, .observation_type = kShare});
  default_op_configs(c);
  fixed_qparams_op_configs(c);
  share_qparams_op_configs(c);
  bn_configs(c);
  c.push_back({.pattern = {"torch.nn.LayerNorm"}, .observation_type = kOwn});
  c.push_back({.pattern = {"torch.nn.functional.layer_norm"}, .weight_index = 2, .bias_index = 3});
  return config;
}

std::vector<const BackendPatternConfig*> sorted_patterns(const BackendConfig& config) {
  std::vector<const BackendPatternConfig*> out;
  for (const BackendPatternConfig& c : config.configs) out.push_back(&c);
  const auto key = [](const BackendPatternConfig* c) {
    return c->pattern.size() > 1 ? -static_cast<int64_t>(c->pattern.size()) : int64_t{1};
  };
  std::stable_sort(out.begin(), out.end(), [&](const auto* a, const auto* b) { return key(a) < key(b); });
  return out;
}

}  // namespace tl::ao::quantization
