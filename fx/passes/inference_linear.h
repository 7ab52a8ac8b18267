// fx/passes/inference_linear.h — MkldnnLinear, the Linear optimize_for_inference puts in a graph (as torch.fx's
// optimize_for_inference swaps in torch.utils.mkldnn's MkldnnLinear): one mkldnn_linear with the bias and an
// optional GELU folded in, its weight packed once per input shape. It reads and writes dense tensors.
#pragma once

#include <memory>
#include <string>

#include "fx/passes/inference_modules.h"
#include "nn/linear.h"

namespace tl::fx {

/// Linear [-> GELU(approximate='none')] as one mkldnn_linear. forward(x): x is (..., in_features) float32; the
/// result (..., out_features) is contiguous. The weight is reordered into the primitive's layout once per input
/// shape and thread count and kept (the kMaxPackedShapes most recently used) until the weight changes (an in-place write, or
/// another tensor registered as "weight"): the next call packs it again.
class MkldnnLinear : public InferenceModule {
 public:
  static constexpr size_t kMaxPackedShapes = PackedWeightCache::kMaxEntries;
  /// `linear` must be in eval mode with a float32 weight of non-empty sizes; its weight and bias are shared, not
  /// copied. `gelu` applies GELU (the erf form) to the result.
  MkldnnLinear(const nn::Linear& linear, bool gelu);
  /// F.linear(x, weight, bias) [-> GELU] as a module: `weight` a 2-D float32 tensor of non-empty sizes, `bias`
  /// undefined or 1-D of its rows; both shared, not copied (a Linear's, or attention's projection weights).
  MkldnnLinear(const Tensor& weight, const Tensor& bias, bool gelu);
  MkldnnLinear(const MkldnnLinear& other);

  Tensor run(std::span<const Tensor> inputs, const Tensor& out) override;
  bool takes_inference_layout() const override { return false; }
  std::string type_name() const override { return "MkldnnLinear"; }
  /// "in_features=768, out_features=3072, bias=True, post_ops=[gelu]".
  std::string extra_repr() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MkldnnLinear>(); }

  const nn::LinearOptions& options() const { return options_; }
  bool gelu() const { return gelu_; }

 private:
  /// The weight prepacked for `x`'s shape (packed on first use): a 1-D tensor carrying the packed weight.
  Tensor packed_weight(const Tensor& x);

  nn::LinearOptions options_;
  bool gelu_;
  std::shared_ptr<PackedWeightCache> packed_ = std::make_shared<PackedWeightCache>();
};

}  // namespace tl::fx
