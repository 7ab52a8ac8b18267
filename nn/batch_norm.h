// nn/batch_norm.h — BatchNorm1d / BatchNorm2d (torch.nn.BatchNorm1d / 2d) and InstanceNorm2d: per-channel affine
// parameters and running statistics on one base (PyTorch's _NormBase); batch norm in training mode normalises
// with batch statistics and updates the running ones, instance norm normalises each (sample, channel) alone.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "nn/module.h"

namespace tl::nn {

/// nn.BatchNorm1d / nn.BatchNorm2d's arguments, with their defaults. momentum = nullopt (None) makes the
/// running statistics a cumulative average (factor 1 / num_batches_tracked).
struct BatchNormOptions {
  int64_t num_features = 0;
  double eps = 1e-5;
  std::optional<double> momentum = 0.1;
  bool affine = true;
  bool track_running_stats = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;

/// nn.InstanceNorm2d's arguments: BatchNormOptions' fields with InstanceNorm's defaults (no affine, no running
/// statistics).
struct InstanceNormOptions {
  int64_t num_features = 0;
  double eps = 1e-5;
  double momentum = 0.1;
  bool affine = false;
  bool track_running_stats = false;
};
using InstanceNorm2dOptions = InstanceNormOptions;

/// The state both norms share (PyTorch's _NormBase): parameters "weight" (ones) and "bias" (zeros), None unless
/// affine; buffers "running_mean" (zeros), "running_var" (ones) and "num_batches_tracked" (int64 scalar 0), None
/// unless track_running_stats.
class NormBase : public Module {
 public:
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }

  const BatchNormOptions& options() const { return options_; }
  /// running_mean = 0, running_var = 1, num_batches_tracked = 0.
  void reset_running_stats();
  /// reset_running_stats(), then weight = 1, bias = 0.
  void reset_parameters();
  /// num_batches_tracked loads as 0 when a state dict lacks it, as PyTorch's _NormBase does for a dict
  /// without version metadata (a plain dict, as torchless's state dicts and safetensors files are).
  Tensor missing_state(const std::string& name) const override;

 protected:
  /// `who` names the module in errors.
  NormBase(const BatchNormOptions& options, const char* who);
  /// In training mode with running stats: num_batches_tracked += 1. The factor the running statistics move by.
  double momentum_factor();

 private:
  BatchNormOptions options_;
};

/// Batch norm over (N, C, *) input; BatchNorm1d and BatchNorm2d differ only in the input rank they accept.
/// In training mode with running stats: num_batches_tracked += 1, batch statistics normalise and update
/// running_mean / running_var in place. In eval mode the running statistics normalise (batch statistics when
/// the module tracks none). The kernel throws for a channel count other than num_features.
class BatchNormBase : public NormBase {
 public:
  Tensor forward(const Tensor& input) override;

 protected:
  using NormBase::NormBase;
  /// Throws tl::Error for an input rank the layer does not take.
  virtual void check_input_dim(const Tensor& input) const = 0;
};

/// Input and output (N, C) or (N, C, L).
class BatchNorm1d : public BatchNormBase {
 public:
  explicit BatchNorm1d(const BatchNormOptions& options) : BatchNormBase(options, "BatchNorm1d") {}
  /// nn.BatchNorm1d(num_features).
  explicit BatchNorm1d(int64_t num_features) : BatchNorm1d(BatchNormOptions{.num_features = num_features}) {}
  std::string type_name() const override { return "BatchNorm1d"; }
  std::shared_ptr<Module> clone() const override { return clone_as<BatchNorm1d>(); }

 private:
  void check_input_dim(const Tensor& input) const override;
};

/// Input and output (N, C, H, W).
class BatchNorm2d : public BatchNormBase {
 public:
  explicit BatchNorm2d(const BatchNormOptions& options) : BatchNormBase(options, "BatchNorm2d") {}
  /// nn.BatchNorm2d(num_features).
  explicit BatchNorm2d(int64_t num_features) : BatchNorm2d(BatchNormOptions{.num_features = num_features}) {}
  std::string type_name() const override { return "BatchNorm2d"; }
  std::shared_ptr<Module> clone() const override { return clone_as<BatchNorm2d>(); }

 private:
  void check_input_dim(const Tensor& input) const override;
};

/// Input and output (N, C, H, W) or unbatched (C, H, W). Each (sample, channel) plane is normalised by its own
/// statistics (F.instance_norm), in training mode and, without running statistics, in eval mode too; with them,
/// training updates them by the mean of the per-sample statistics and eval normalises with them.
class InstanceNorm2d : public NormBase {
 public:
  explicit InstanceNorm2d(const InstanceNormOptions& options);
  /// nn.InstanceNorm2d(num_features).
  explicit InstanceNorm2d(int64_t num_features) : InstanceNorm2d(InstanceNormOptions{.num_features = num_features}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "InstanceNorm2d"; }
  std::shared_ptr<Module> clone() const override { return clone_as<InstanceNorm2d>(); }
};

}  // namespace tl::nn
