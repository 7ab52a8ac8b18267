// nn/dropout.h — Dropout, torch.nn.Dropout: in training zeroes each element with probability p and
// scales the rest by 1 / (1 - p); in eval it returns its input.
#pragma once

#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::nn {

struct DropoutOptions {
  double p = 0.5;
  bool inplace = false;
};

/// Throws tl::Error at construction unless 0 <= p <= 1.
class Dropout : public Module {
 public:
  explicit Dropout(const DropoutOptions& options = {});
  /// nn.Dropout(p).
  explicit Dropout(double p) : Dropout(DropoutOptions{.p = p}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Dropout"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Dropout>(); }

  const DropoutOptions& options() const { return options_; }

 private:
  DropoutOptions options_;
};

}  // namespace tl::nn
