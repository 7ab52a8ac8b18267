// nn/linear.h — Linear (y = x W^T + b, torch.nn.Linear) and Identity (torch.nn.Identity), the two
// modules of torch/nn/modules/linear.py.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::nn {

struct LinearOptions {
  int64_t in_features = 0;
  int64_t out_features = 0;
  bool bias = true;
};

/// Parameters "weight" (out_features, in_features) and "bias" (out_features) or None, initialised
/// like PyTorch: kaiming_uniform_(a=sqrt(5)) and U(-1/sqrt(in_features), 1/sqrt(in_features)).
/// Input (*, in_features), output (*, out_features); the kernel throws for another last dimension.
class Linear : public Module {
 public:
  explicit Linear(const LinearOptions& options);
  /// nn.Linear(in_features, out_features, bias).
  Linear(int64_t in_features, int64_t out_features, bool bias = true)
      : Linear(LinearOptions{.in_features = in_features, .out_features = out_features, .bias = bias}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Linear"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Linear>(); }

  const LinearOptions& options() const { return options_; }
  /// Re-draws weight and bias with PyTorch's default initialisation.
  void reset_parameters();

 private:
  LinearOptions options_;
};

/// Returns its input unchanged (the same tensor).
class Identity : public Module {
 public:
  Tensor forward(const Tensor& input) override { return input; }
  std::string type_name() const override { return "Identity"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Identity>(); }
};

}  // namespace tl::nn
