// nn/conv.h — Conv2d, torch.nn.Conv2d: weight (out, in / groups, kH, kW) and optional bias (out),
// initialised like PyTorch (kaiming_uniform_(a=sqrt(5)), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/functional.h"
#include "nn/module.h"

namespace tl::nn {

/// nn.Conv2d's arguments, with its defaults.
struct Conv2dOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  IntPair kernel_size = 1;
  IntPair stride = 1;
  IntPair padding = 0;
  IntPair dilation = 1;
  int64_t groups = 1;
  bool bias = true;
};

/// Parameters "weight" and "bias" (None when options.bias is false). Input (N, C_in, H, W), output
/// (N, C_out, H_out, W_out). Throws tl::Error for inconsistent options, for input that is not 4-D,
/// and (from the kernel) for a channel count other than in_channels.
class Conv2d : public Module {
 public:
  explicit Conv2d(const Conv2dOptions& options);
  /// nn.Conv2d(in_channels, out_channels, kernel_size).
  Conv2d(int64_t in_channels, int64_t out_channels, IntPair kernel_size)
      : Conv2d(Conv2dOptions{.in_channels = in_channels, .out_channels = out_channels, .kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Conv2d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Conv2d>(); }

  const Conv2dOptions& options() const { return options_; }
  /// Re-draws weight and bias with PyTorch's default initialisation.
  void reset_parameters();

 private:
  Conv2dOptions options_;
};

/// PyTorch's Conv2d repr arguments ("3, 64, kernel_size=(7, 7), stride=(2, 2), padding=(3, 3), bias=False"),
/// shared by every module that stands for a Conv2d.
std::string conv2d_extra_repr(const Conv2dOptions& options, bool has_bias);

}  // namespace tl::nn
