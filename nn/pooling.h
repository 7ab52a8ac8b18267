// nn/pooling.h — MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, AdaptiveMaxPool2d (torch.nn's): no parameters, input and
// output (N, C, H, W) or (C, H, W); and their 1-d forms over (N, C, L) or (C, L). Each throws tl::Error for
// input of another rank.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "nn/functional.h"
#include "nn/module.h"

namespace tl::nn {

/// nn.MaxPool2d's arguments; stride = nullopt (None) means stride = kernel_size.
struct MaxPool2dOptions {
  IntPair kernel_size = 1;
  std::optional<IntPair> stride = std::nullopt;
  IntPair padding = 0;
  IntPair dilation = 1;
  bool ceil_mode = false;
};

class MaxPool2d : public Module {
 public:
  explicit MaxPool2d(const MaxPool2dOptions& options);
  /// nn.MaxPool2d(kernel_size).
  explicit MaxPool2d(IntPair kernel_size) : MaxPool2d(MaxPool2dOptions{.kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "MaxPool2d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<MaxPool2d>(); }

  /// The options with stride resolved (never nullopt).
  const MaxPool2dOptions& options() const { return options_; }

 private:
  MaxPool2dOptions options_;
};

/// nn.AvgPool2d's arguments; stride = nullopt (None) means stride = kernel_size.
struct AvgPool2dOptions {
  IntPair kernel_size = 1;
  std::optional<IntPair> stride = std::nullopt;
  IntPair padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
  /// Divides every window's sum by this instead of its size; must not be 0.
  std::optional<int64_t> divisor_override = std::nullopt;
};

class AvgPool2d : public Module {
 public:
  explicit AvgPool2d(const AvgPool2dOptions& options);
  /// nn.AvgPool2d(kernel_size).
  explicit AvgPool2d(IntPair kernel_size) : AvgPool2d(AvgPool2dOptions{.kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "AvgPool2d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<AvgPool2d>(); }

  /// The options with stride resolved (never nullopt).
  const AvgPool2dOptions& options() const { return options_; }

 private:
  AvgPool2dOptions options_;
};

/// Output (N, C, output_size.h, output_size.w) whatever the input's H and W.
class AdaptiveAvgPool2d : public Module {
 public:
  explicit AdaptiveAvgPool2d(IntPair output_size);

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "AdaptiveAvgPool2d"; }
  std::string extra_repr() const override { return "output_size=" + output_size_.repr(); }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<AdaptiveAvgPool2d>(); }

  IntPair output_size() const { return output_size_; }

 private:
  IntPair output_size_;
};

/// nn.AdaptiveMaxPool2d(output_size): output (N, C, output_size.h, output_size.w) whatever the input's H
/// and W. PyTorch's return_indices=True is forward_with_indices(), as in LibTorch.
class AdaptiveMaxPool2d : public Module {
 public:
  explicit AdaptiveMaxPool2d(IntPair output_size);

  Tensor forward(const Tensor& input) override;
  /// The maxima and their flat h * W + w within each input plane (int64).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override { return "output_size=" + output_size_.repr(); }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<AdaptiveMaxPool2d>(); }

  IntPair output_size() const { return output_size_; }

 private:
  IntPair output_size_;
};

/// nn.MaxPool1d's arguments; stride = nullopt (None) means stride = kernel_size.
struct MaxPool1dOptions {
  int64_t kernel_size = 1;
  std::optional<int64_t> stride = std::nullopt;
  int64_t padding = 0;
  int64_t dilation = 1;
  bool ceil_mode = false;
};

/// nn.MaxPool1d; PyTorch's return_indices=True is forward_with_indices(), as in LibTorch.
class MaxPool1d : public Module {
 public:
  explicit MaxPool1d(const MaxPool1dOptions& options);
  /// nn.MaxPool1d(kernel_size).
  explicit MaxPool1d(int64_t kernel_size) : MaxPool1d(MaxPool1dOptions{.kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  /// The maxima and their positions along L (int64).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string type_name() const override { return "MaxPool1d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<MaxPool1d>(); }

  /// The options with stride resolved (never nullopt).
  const MaxPool1dOptions& options() const { return options_; }

 private:
  MaxPool1dOptions options_;
};

/// nn.AvgPool1d's arguments; stride = nullopt (None) means stride = kernel_size.
struct AvgPool1dOptions {
  int64_t kernel_size = 1;
  std::optional<int64_t> stride = std::nullopt;
  int64_t padding = 0;
  bool ceil_mode = false;
  bool count_include_pad = true;
};

class AvgPool1d : public Module {
 public:
  explicit AvgPool1d(const AvgPool1dOptions& options);
  /// nn.AvgPool1d(kernel_size).
  explicit AvgPool1d(int64_t kernel_size) : AvgPool1d(AvgPool1dOptions{.kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "AvgPool1d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<AvgPool1d>(); }

  /// The options with stride resolved (never nullopt).
  const AvgPool1dOptions& options() const { return options_; }

 private:
  AvgPool1dOptions options_;
};

/// nn.AdaptiveAvgPool1d(output_size): output (N, C, output_size) whatever the input's L.
class AdaptiveAvgPool1d : public Module {
 public:
  explicit AdaptiveAvgPool1d(int64_t output_size);

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "AdaptiveAvgPool1d"; }
  std::string extra_repr() const override { return "output_size=" + std::to_string(output_size_); }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<AdaptiveAvgPool1d>(); }

  int64_t output_size() const { return output_size_; }

 private:
  int64_t output_size_;
};

/// nn.AdaptiveMaxPool1d(output_size): output (N, C, output_size) whatever the input's L; PyTorch's
/// return_indices=True is forward_with_indices(), as in LibTorch.
class AdaptiveMaxPool1d : public Module {
 public:
  explicit AdaptiveMaxPool1d(int64_t output_size);

  Tensor forward(const Tensor& input) override;
  /// The maxima and their positions along L (int64).
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string type_name() const override { return "AdaptiveMaxPool1d"; }
  std::string extra_repr() const override { return "output_size=" + std::to_string(output_size_); }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<AdaptiveMaxPool1d>(); }

  int64_t output_size() const { return output_size_; }

 private:
  int64_t output_size_;
};

}  // namespace tl::nn
