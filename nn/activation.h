// nn/activation.h — ReLU (torch.nn.ReLU: max(x, 0)), Hardswish (torch.nn.Hardswish: x * relu6(x + 3) / 6)
// and SiLU (torch.nn.SiLU: x * sigmoid(x)), elementwise, any shape.
#pragma once

#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::nn {

struct ReLUOptions {
  bool inplace = false;
};

/// With inplace the input tensor is overwritten and returned (torchvision's ResNet uses it).
class ReLU : public Module {
 public:
  explicit ReLU(const ReLUOptions& options = {}) : options_(options) {}
  /// nn.ReLU(inplace).
  explicit ReLU(bool inplace) : options_{.inplace = inplace} {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "ReLU"; }
  std::string extra_repr() const override { return options_.inplace ? "inplace=True" : ""; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<ReLU>(); }

  const ReLUOptions& options() const { return options_; }

 private:
  ReLUOptions options_;
};

/// nn.Hardswish() (without PyTorch's inplace option).
class Hardswish : public Module {
 public:
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Hardswish"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Hardswish>(); }
};

/// nn.SiLU() (without PyTorch's inplace option).
class SiLU : public Module {
 public:
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "SiLU"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<SiLU>(); }
};

}  // namespace tl::nn
