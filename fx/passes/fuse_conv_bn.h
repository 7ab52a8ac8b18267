// fx/passes/fuse_conv_bn.h — folds each eval-mode BatchNorm2d into the Conv2d that feeds it, as the
// fx_conv_bn_fuser seed does, with the legality checks its tutorial pass lacks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fx/graph_module.h"
#include "nn/batch_norm.h"
#include "nn/conv.h"

namespace tl::fx {

/// What fuse_conv_bn did: every pair folded and every Conv2d->BatchNorm2d pair left alone, with why.
struct FuseReport {
  struct Pair {
    std::string conv;   ///< module path of the conv
    std::string bn;     ///< module path of the batch norm
    std::string reason; ///< empty when folded
  };
  std::vector<Pair> fused;
  std::vector<Pair> skipped;
  /// "fused 20 conv-bn pairs, skipped 0" followed by one line per skipped pair.
  std::string str() const;
};

/// A new GraphModule computing the same function with every legal Conv2d->BatchNorm2d pair folded
/// (w' = w * gamma / sqrt(var + eps) per output channel, b' = (b - mean) * gamma / sqrt(var + eps) + beta,
/// an absent conv bias counting as zero), the BatchNorm nodes erased, the graph linted and recompiled.
/// `module` is traced first unless it is a GraphModule already; it is never modified.
/// Left alone (reported): a conv whose output has other users, a conv module called at more than one
/// call site, a BatchNorm without running statistics. Throws tl::Error if a conv or BatchNorm of a
/// candidate pair is in training mode (fusion is for inference).
std::shared_ptr<GraphModule> fuse_conv_bn(const std::shared_ptr<nn::Module>& module, FuseReport* report = nullptr);

/// A copy of `conv` with `bn` (eval mode, with running statistics) folded into its weight and bias, rounded as
/// PyTorch 1.13's fuse_conv_bn_weights rounds them (in the conv's dtype, one rounding per tensor op, its order).
std::shared_ptr<nn::Conv2d> fuse_conv_bn_eval(const nn::Conv2d& conv, const nn::BatchNorm2d& bn);

}  // namespace tl::fx
