// nn/linear.h — Linear (y = x W^T + b, torch.nn.Linear), Bilinear (y = x1^T A x2 + b, torch.nn.Bilinear) and
// Identity (torch.nn.Identity), the modules of torch/nn/modules/linear.py.
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

struct BilinearOptions {
  int64_t in1_features = 0;
  int64_t in2_features = 0;
  int64_t out_features = 0;
  bool bias = true;
};

/// Parameters "weight" (out_features, in1_features, in2_features) and "bias" (out_features) or None, both
/// drawn from U(-1/sqrt(in1_features), 1/sqrt(in1_features)) as PyTorch draws them. forward(input1, input2):
/// (*, in1_features) and (*, in2_features) with the same leading dims -> (*, out_features).
class Bilinear : public Module {
 public:
  explicit Bilinear(const BilinearOptions& options);
  /// nn.Bilinear(in1_features, in2_features, out_features, bias).
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true)
      : Bilinear(BilinearOptions{.in1_features = in1_features, .in2_features = in2_features,
                                 .out_features = out_features, .bias = bias}) {}

  using Module::operator();
  using Module::forward;
  /// bilinear(input1, input2), through Module's one call path (hooks see it).
  Tensor operator()(const Tensor& input1, const Tensor& input2);
  TensorList forward(Inputs inputs) override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  ForwardSignature forward_signature() const override { return {.arg_names = {"input1", "input2"}}; }
  std::string type_name() const override { return "Bilinear"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Bilinear>(); }

  const BilinearOptions& options() const { return options_; }
  /// Re-draws weight and bias with PyTorch's default initialisation.
  void reset_parameters();

 private:
  BilinearOptions options_;
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
