// nn/dropout.h — Dropout and Dropout2d, torch.nn.Dropout / Dropout2d: in training zero each element (Dropout) or
// each whole channel (Dropout2d) with probability p and scale the rest by 1 / (1 - p); in eval return the input.
#pragma once

#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::nn {

struct DropoutOptions {
  double p = 0.5;
  bool inplace = false;
};
using Dropout2dOptions = DropoutOptions;

/// What every dropout layer shares (PyTorch's _DropoutNd): p and inplace, checked and printed once.
class DropoutBase : public Module {
 public:
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  const DropoutOptions& options() const { return options_; }

 protected:
  /// Throws tl::Error, naming `who`, unless 0 <= p <= 1.
  DropoutBase(const DropoutOptions& options, const char* who);

 private:
  DropoutOptions options_;
};

class Dropout : public DropoutBase {
 public:
  explicit Dropout(const DropoutOptions& options = {}) : DropoutBase(options, "Dropout") {}
  /// nn.Dropout(p).
  explicit Dropout(double p) : Dropout(DropoutOptions{.p = p}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Dropout"; }
  std::shared_ptr<Module> clone() const override { return clone_as<Dropout>(); }
};

/// Input (N, C, H, W) or (N, C, L) as PyTorch 1.13 reads a 3-D input: one draw per (sample, channel), as
/// PyTorch draws it (bernoulli_ on an (N, C, 1, 1) tensor), so a seed gives PyTorch's masks.
class Dropout2d : public DropoutBase {
 public:
  explicit Dropout2d(const DropoutOptions& options = {}) : DropoutBase(options, "Dropout2d") {}
  /// nn.Dropout2d(p).
  explicit Dropout2d(double p) : Dropout2d(DropoutOptions{.p = p}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Dropout2d"; }
  std::shared_ptr<Module> clone() const override { return clone_as<Dropout2d>(); }
};

}  // namespace tl::nn
