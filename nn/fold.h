// nn/fold.h — Unfold and Fold, torch.nn's sliding-block layers: no parameters, forward is F.unfold /
// F.fold (im2col / col2im) with the layer's window.
#pragma once

#include <memory>
#include <string>

#include "nn/functional.h"
#include "nn/module.h"

namespace tl::nn {

/// nn.Unfold's arguments, with its defaults.
struct UnfoldOptions {
  IntPair kernel_size = 1;
  IntPair dilation = 1;
  IntPair padding = 0;
  IntPair stride = 1;
};

/// Input (N, C, H, W), output (N, C * kH * kW, L): each column one block.
class Unfold : public Module {
 public:
  explicit Unfold(const UnfoldOptions& options);
  /// nn.Unfold(kernel_size).
  explicit Unfold(IntPair kernel_size) : Unfold(UnfoldOptions{.kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Unfold>(); }

  const UnfoldOptions& options() const { return options_; }

 private:
  UnfoldOptions options_;
};

/// nn.Fold's arguments, with its defaults.
struct FoldOptions {
  IntPair output_size = 1;
  IntPair kernel_size = 1;
  IntPair dilation = 1;
  IntPair padding = 0;
  IntPair stride = 1;
};

/// Input (N, C * kH * kW, L), output (N, C, output_size): overlapping blocks summed.
class Fold : public Module {
 public:
  explicit Fold(const FoldOptions& options);
  /// nn.Fold(output_size, kernel_size).
  Fold(IntPair output_size, IntPair kernel_size)
      : Fold(FoldOptions{.output_size = output_size, .kernel_size = kernel_size}) {}

  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Fold>(); }

  const FoldOptions& options() const { return options_; }

 private:
  FoldOptions options_;
};

}  // namespace tl::nn
