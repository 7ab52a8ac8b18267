// nn/normalization.h — LayerNorm and GroupNorm (torch/nn/modules/normalization.py): each sample normalised over
// its last dims, or over groups of its channels, by its own statistics; no running state, so train() and eval()
// agree.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "nn/module.h"

namespace tl::nn {

/// nn.LayerNorm's arguments, with its defaults.
struct LayerNormOptions {
  Shape normalized_shape;
  double eps = 1e-5;
  bool elementwise_affine = true;
};

/// Parameters "weight" (ones) and "bias" (zeros), both of normalized_shape, None unless
/// elementwise_affine. Input (*, normalized_shape), output alike; the op throws for another shape.
class LayerNorm : public Module {
 public:
  explicit LayerNorm(const LayerNormOptions& options);
  /// nn.LayerNorm(normalized_shape): LayerNorm({3, 4}).
  explicit LayerNorm(Shape normalized_shape)
      : LayerNorm(LayerNormOptions{.normalized_shape = std::move(normalized_shape)}) {}
  /// nn.LayerNorm(4): one normalised dim.
  explicit LayerNorm(int64_t normalized_shape) : LayerNorm(Shape{normalized_shape}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "LayerNorm"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<LayerNorm>(); }

  const LayerNormOptions& options() const { return options_; }
  /// weight = 1, bias = 0.
  void reset_parameters();

 private:
  LayerNormOptions options_;
};

/// nn.GroupNorm's arguments, with its defaults.
struct GroupNormOptions {
  int64_t num_groups = 1;
  int64_t num_channels = 0;
  double eps = 1e-5;
  bool affine = true;
};

/// Parameters "weight" (ones) and "bias" (zeros), both (num_channels), None unless affine. Input (N, C, *) with
/// C = num_channels, output alike. Throws tl::Error at construction unless num_groups divides num_channels.
class GroupNorm : public Module {
 public:
  explicit GroupNorm(const GroupNormOptions& options);
  /// nn.GroupNorm(num_groups, num_channels).
  GroupNorm(int64_t num_groups, int64_t num_channels)
      : GroupNorm(GroupNormOptions{.num_groups = num_groups, .num_channels = num_channels}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "GroupNorm"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<GroupNorm>(); }

  const GroupNormOptions& options() const { return options_; }
  /// weight = 1, bias = 0.
  void reset_parameters();

 private:
  GroupNormOptions options_;
};

}  // namespace tl::nn
