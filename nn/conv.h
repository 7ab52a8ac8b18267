// nn/conv.h — Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d (torch.nn's): weight (out, in / groups, k...)
// or, transposed, (in, out / groups, k...), and optional bias (out), initialised like PyTorch
// (kaiming_uniform_(a=sqrt(5)), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in from the weight as laid out).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "nn/functional.h"
#include "nn/module.h"

namespace tl::nn {

/// nn.Conv2d's arguments, with its defaults. padding: zeros on each side (`1`, `{1, 2}`), "valid" or "same"
/// (stride 1 only); padding_mode "zeros", "reflect", "replicate" or "circular": any but zeros pads the input
/// with F.pad in that mode and convolves it unpadded, as PyTorch does.
struct Conv2dOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  IntPair kernel_size = 1;
  IntPair stride = 1;
  functional::Padding2d padding = 0;
  IntPair dilation = 1;
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";
};

/// The zeros a Conv2d's convolution itself adds on each side of (h, w) when nothing pads its input first:
/// its padding numbers, (0, 0) for "valid", the half of "same"'s even totals. nullopt when the input is
/// padded first (padding_mode other than "zeros", or "same" with an odd total), as the inference passes ask.
std::optional<IntPair> symmetric_zero_padding(const Conv2dOptions& options);

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

/// nn.Conv1d's arguments, with its defaults. padding: zeros on both sides, "valid" or "same" (stride 1
/// only); padding_mode "zeros", "reflect", "replicate" or "circular": any but zeros pads the input with
/// F.pad in that mode and convolves it unpadded, as PyTorch does.
struct Conv1dOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t kernel_size = 1;
  int64_t stride = 1;
  functional::Padding1d padding = int64_t{0};
  int64_t dilation = 1;
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";
};

/// Parameters "weight" (out, in / groups, k) and "bias". Input (N, C_in, L) or (C_in, L). Throws tl::Error
/// for inconsistent options (PyTorch's checks) and, from the kernel, for other input.
class Conv1d : public Module {
 public:
  explicit Conv1d(const Conv1dOptions& options);
  /// nn.Conv1d(in_channels, out_channels, kernel_size).
  Conv1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : Conv1d(Conv1dOptions{.in_channels = in_channels, .out_channels = out_channels, .kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Conv1d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Conv1d>(); }

  const Conv1dOptions& options() const { return options_; }
  void reset_parameters();

 private:
  Conv1dOptions options_;
};

/// nn.ConvTranspose1d's arguments (its positional order), with its defaults.
struct ConvTranspose1dOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  int64_t kernel_size = 1;
  int64_t stride = 1;
  int64_t padding = 0;
  int64_t output_padding = 0;
  int64_t groups = 1;
  bool bias = true;
  int64_t dilation = 1;
};

/// nn.ConvTranspose2d's arguments (its positional order), with its defaults.
struct ConvTranspose2dOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  IntPair kernel_size = 1;
  IntPair stride = 1;
  IntPair padding = 0;
  IntPair output_padding = 0;
  int64_t groups = 1;
  bool bias = true;
  IntPair dilation = 1;
};

/// Parameters "weight" (in, out / groups, k) and "bias" (out). Input (N, C_in, L) or (C_in, L), output
/// L_out = (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
class ConvTranspose1d : public Module {
 public:
  explicit ConvTranspose1d(const ConvTranspose1dOptions& options);
  /// nn.ConvTranspose1d(in_channels, out_channels, kernel_size).
  ConvTranspose1d(int64_t in_channels, int64_t out_channels, int64_t kernel_size)
      : ConvTranspose1d(ConvTranspose1dOptions{.in_channels = in_channels, .out_channels = out_channels,
                                               .kernel_size = kernel_size}) {}

  using Module::forward;
  Tensor forward(const Tensor& input) override;
  /// forward(input, output_size) as PyTorch's: the output_padding that gives output_size ((L_out) or
  /// (N, C, L_out)); throws when it lies outside [L_min, L_min + stride - 1].
  Tensor forward(const Tensor& input, const Shape& output_size);
  std::string type_name() const override { return "ConvTranspose1d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<ConvTranspose1d>(); }

  const ConvTranspose1dOptions& options() const { return options_; }
  void reset_parameters();

 private:
  ConvTranspose1dOptions options_;
};

/// Parameters "weight" (in, out / groups, kH, kW) and "bias" (out). Input (N, C_in, H, W) or (C_in, H, W).
class ConvTranspose2d : public Module {
 public:
  explicit ConvTranspose2d(const ConvTranspose2dOptions& options);
  /// nn.ConvTranspose2d(in_channels, out_channels, kernel_size).
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, IntPair kernel_size)
      : ConvTranspose2d(ConvTranspose2dOptions{.in_channels = in_channels, .out_channels = out_channels,
                                               .kernel_size = kernel_size}) {}

  using Module::forward;
  Tensor forward(const Tensor& input) override;
  /// forward(input, output_size) as PyTorch's: output_size is (H_out, W_out) or (N, C, H_out, W_out).
  Tensor forward(const Tensor& input, const Shape& output_size);
  std::string type_name() const override { return "ConvTranspose2d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<ConvTranspose2d>(); }

  const ConvTranspose2dOptions& options() const { return options_; }
  void reset_parameters();

 private:
  ConvTranspose2dOptions options_;
};

}  // namespace tl::nn
