// nn/batch_norm.h — BatchNorm2d, torch.nn.BatchNorm2d: per-channel affine parameters and running
// statistics; training mode normalises with batch statistics and updates the running ones.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "nn/module.h"

namespace tl::nn {

/// nn.BatchNorm2d's arguments, with its defaults. momentum = nullopt (None) makes the running
/// statistics a cumulative average (factor 1 / num_batches_tracked).
struct BatchNorm2dOptions {
  int64_t num_features = 0;
  double eps = 1e-5;
  std::optional<double> momentum = 0.1;
  bool affine = true;
  bool track_running_stats = true;
};

/// Parameters "weight" (ones) and "bias" (zeros), None unless affine; buffers "running_mean" (zeros),
/// "running_var" (ones) and "num_batches_tracked" (int64 scalar 0), None unless track_running_stats.
/// Input and output (N, C, H, W). Throws tl::Error for input that is not 4-D; the kernel throws for
/// a channel count other than num_features.
class BatchNorm2d : public Module {
 public:
  explicit BatchNorm2d(const BatchNorm2dOptions& options);
  /// nn.BatchNorm2d(num_features).
  explicit BatchNorm2d(int64_t num_features) : BatchNorm2d(BatchNorm2dOptions{.num_features = num_features}) {}

  /// In training mode with running stats: num_batches_tracked += 1, batch statistics normalise and
  /// update running_mean / running_var in place. In eval mode the running statistics normalise
  /// (batch statistics when the module tracks none).
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "BatchNorm2d"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<BatchNorm2d>(); }

  const BatchNorm2dOptions& options() const { return options_; }
  /// running_mean = 0, running_var = 1, num_batches_tracked = 0.
  void reset_running_stats();
  /// reset_running_stats(), then weight = 1, bias = 0.
  void reset_parameters();

 private:
  BatchNorm2dOptions options_;
};

}  // namespace tl::nn
