// nn/upsampling.h — Upsample, torch.nn.Upsample: no parameters, forward is F.interpolate with the layer's
// size or scale_factor and mode.
#pragma once

#include <memory>
#include <string>

#include "nn/functional.h"
#include "nn/module.h"

namespace tl::nn {

/// nn.Upsample's arguments: F.interpolate's (exactly one of size and scale_factor).
using UpsampleOptions = functional::InterpolateFuncOptions;

/// Input (N, C, H, W), output (N, C, H_out, W_out). Throws tl::Error for options F.interpolate refuses
/// (when constructed) and for other input (when called).
class Upsample : public Module {
 public:
  explicit Upsample(const UpsampleOptions& options);

  Tensor forward(const Tensor& input) override;
  /// "scale_factor=2.0, mode=nearest" or "size=(3, 4), mode=bilinear", as PyTorch prints it.
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Upsample>(); }

  const UpsampleOptions& options() const { return options_; }

 private:
  UpsampleOptions options_;
};

}  // namespace tl::nn
