// models/swin_transformer.h — torchvision's SwinTransformer (swin_t, swin_s, swin_b; swin_v2_t, swin_v2_s,
// swin_v2_b): patch embedding, stages of shifted-window attention blocks, patch merging; torchvision's module
// tree, parameter and buffer names, initialisation, repr, forward and torch.fx.wrap'ped functions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "models/vision_ops.h"
#include "nn/module.h"

namespace tl::models {

namespace swin {

/// torchvision's _patch_merging_pad (torch.fx.wrap'ped: one call_function node when traced): x (..., H, W, C)
/// padded to even H and W, then its four interleaved quarters x[..., 0::2, 0::2, :], [1::2, 0::2],
/// [0::2, 1::2], [1::2, 1::2] concatenated on the last dim: (..., ceil(H/2), ceil(W/2), 4C).
/// Throws tl::Error for an input of fewer than 3 dims.
Tensor patch_merging_pad(const Tensor& x);

/// torchvision's _get_relative_position_bias (wrapped): table[index] viewed (N, N, heads) with
/// N = window_size[0] * window_size[1], permuted to (1, heads, N, N), contiguous.
Tensor get_relative_position_bias(const Tensor& relative_position_bias_table, const Tensor& relative_position_index,
                                  const Shape& window_size);

/// The arguments of shifted_window_attention besides its tensors (torchvision's names and defaults).
struct WindowAttentionArgs {
  Shape window_size;
  int64_t num_heads = 0;
  Shape shift_size;
  double attention_dropout = 0.0;
  double dropout = 0.0;
};

/// torchvision's shifted_window_attention (wrapped): input (B, H, W, C) padded to whole windows, rolled by
/// -shift_size (no shift along a dim the window covers), split into windows, multi-head attention in each
/// (scaled dot product, or with `logit_scale` defined V2's cosine attention with qkv_bias's key third zeroed)
/// plus relative_position_bias (1, heads, N, N) and, when shifted, the -100 mask between tokens of different
/// regions; F.dropout (always training, as torchvision calls it) on the weights and the output; windows
/// merged, rolled back, unpadded. Output (B, H, W, C). Throws tl::Error for a non-4-D input or C not
/// divisible by num_heads.
Tensor shifted_window_attention(const Tensor& input, const Tensor& qkv_weight, const Tensor& proj_weight,
                                const Tensor& relative_position_bias, const WindowAttentionArgs& args,
                                const Tensor& qkv_bias = {}, const Tensor& proj_bias = {},
                                const Tensor& logit_scale = {});

/// torchvision's PatchMerging(dim): x = norm(_patch_merging_pad(x)), then reduction (Linear(4 dim, 2 dim,
/// bias=False)); children reduction, norm (LayerNorm(4 dim)). Input (..., H, W, dim).
class PatchMerging : public nn::Module {
 public:
  explicit PatchMerging(int64_t dim);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<PatchMerging>(); }
};

/// torchvision's PatchMergingV2(dim): reduction first, then norm (LayerNorm(2 dim)).
class PatchMergingV2 : public nn::Module {
 public:
  explicit PatchMergingV2(int64_t dim);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<PatchMergingV2>(); }
};

/// ShiftedWindowAttention's arguments, with torchvision's defaults.
struct ShiftedWindowAttentionOptions {
  int64_t dim = 0;
  Shape window_size;
  Shape shift_size;
  int64_t num_heads = 0;
  bool qkv_bias = true;
  bool proj_bias = true;
  double attention_dropout = 0.0;
  double dropout = 0.0;
};

/// torchvision's ShiftedWindowAttention: children qkv (Linear(dim, 3 dim)), proj (Linear(dim, dim));
/// parameter relative_position_bias_table ((2 Wh - 1)(2 Ww - 1), heads), trunc_normal_(std=0.02); buffer
/// relative_position_index (Wh Ww Wh Ww, int64). Input and output (B, H, W, dim).
class ShiftedWindowAttention : public nn::Module {
 public:
  /// Throws tl::Error "window_size and shift_size must be of length 2" as torchvision's ValueError.
  explicit ShiftedWindowAttention(const ShiftedWindowAttentionOptions& options);
  Tensor forward(const Tensor& x) override;
  /// (1, heads, N, N), through the wrapped get_relative_position_bias.
  virtual Tensor relative_position_bias();
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ShiftedWindowAttention>(); }

  const ShiftedWindowAttentionOptions& options() const { return options_; }

 protected:
  /// V2's construction: the coordinates table buffer instead of the bias table parameter.
  ShiftedWindowAttention(const ShiftedWindowAttentionOptions& options, bool continuous_position_bias);
  WindowAttentionArgs attention_args() const;

 private:
  ShiftedWindowAttentionOptions options_;
};

/// torchvision's ShiftedWindowAttentionV2: no bias table; buffer relative_coords_table (1, 2 Wh - 1, 2 Ww - 1, 2)
/// of log-spaced coordinates, parameter logit_scale (heads, 1, 1) = log 10, child cpb_mlp (Linear(2, 512),
/// ReLU(inplace), Linear(512, heads, bias=False)) giving the bias 16 sigmoid(...); cosine attention.
class ShiftedWindowAttentionV2 : public ShiftedWindowAttention {
 public:
  explicit ShiftedWindowAttentionV2(const ShiftedWindowAttentionOptions& options);
  Tensor forward(const Tensor& x) override;
  Tensor relative_position_bias() override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ShiftedWindowAttentionV2>(); }
};

/// SwinTransformerBlock's arguments, with torchvision's defaults (norm_layer nn.LayerNorm).
struct SwinTransformerBlockOptions {
  int64_t dim = 0;
  int64_t num_heads = 0;
  Shape window_size;
  Shape shift_size;
  double mlp_ratio = 4.0;
  double dropout = 0.0;
  double attention_dropout = 0.0;
  double stochastic_depth_prob = 0.0;
};

/// torchvision's SwinTransformerBlock: x + stochastic_depth(attn(norm1(x))), then the same with mlp(norm2(.)).
/// Children norm1, attn, stochastic_depth ("row"), norm2, mlp (MLP(dim, [int(dim * mlp_ratio), dim], GELU),
/// its Linears re-drawn xavier_uniform_ with biases normal_(std=1e-6)). Input and output (B, H, W, dim).
class SwinTransformerBlock : public nn::Module {
 public:
  explicit SwinTransformerBlock(const SwinTransformerBlockOptions& options);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SwinTransformerBlock>(); }

 protected:
  /// V2's construction: attn is a ShiftedWindowAttentionV2.
  SwinTransformerBlock(const SwinTransformerBlockOptions& options, bool v2);
};

/// torchvision's SwinTransformerBlockV2: post-norm, x + stochastic_depth(norm1(attn(x))), then norm2(mlp(.)).
class SwinTransformerBlockV2 : public SwinTransformerBlock {
 public:
  explicit SwinTransformerBlockV2(const SwinTransformerBlockOptions& options);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SwinTransformerBlockV2>(); }
};

}  // namespace swin

/// The keyword arguments a swin_* builder passes on to SwinTransformer (norm_layer is always
/// partial(nn.LayerNorm, eps=1e-5); block and downsample_layer are the builder's).
struct SwinTransformerOptions {
  double mlp_ratio = 4.0;
  double dropout = 0.0;
  double attention_dropout = 0.0;
  /// The last block's drop probability; block i of n draws with stochastic_depth_prob * i / (n - 1).
  /// nullopt: SwinTransformer's own 0.1. The builders pass their own (0.2 for *_t, 0.3 for *_s, 0.5 for *_b) and
  /// refuse another, as torchvision's raise TypeError.
  std::optional<double> stochastic_depth_prob;
  int64_t num_classes = 1000;
};

/// Input (N, 3, H, W) of any size (each stage pads to whole windows; the builders' weights are for 224 or 256);
/// logits (N, num_classes). Children features (patch embedding Sequential(Conv2d, Permute, LayerNorm), stages
/// of blocks and patch mergings), norm, permute, avgpool, flatten, head; every Linear trunc_normal_(std=0.02)
/// with zero bias.
class SwinTransformer : public nn::Module {
 public:
  /// `v2`: block=SwinTransformerBlockV2 and downsample_layer=PatchMergingV2, as swin_v2_* pass them.
  /// Throws tl::Error for patch_size or window_size not of length 2, depths and num_heads of other lengths, a
  /// negative num_classes or a stochastic_depth_prob that gives a block a drop probability outside [0, 1].
  SwinTransformer(const Shape& patch_size, int64_t embed_dim, const Shape& depths, const Shape& num_heads,
                  const Shape& window_size, const SwinTransformerOptions& options = {}, bool v2 = false);
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "SwinTransformer"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SwinTransformer>(); }
};

// The builders throw tl::Error for options that set stochastic_depth_prob (torchvision's pass their own).
/// 28,288,354 parameters with the default 1000 classes.
std::shared_ptr<SwinTransformer> swin_t(const SwinTransformerOptions& options = {});
/// 49,606,258 parameters.
std::shared_ptr<SwinTransformer> swin_s(const SwinTransformerOptions& options = {});
/// 87,768,224 parameters.
std::shared_ptr<SwinTransformer> swin_b(const SwinTransformerOptions& options = {});
/// 28,351,570 parameters.
std::shared_ptr<SwinTransformer> swin_v2_t(const SwinTransformerOptions& options = {});
/// 49,737,442 parameters.
std::shared_ptr<SwinTransformer> swin_v2_s(const SwinTransformerOptions& options = {});
/// 87,930,848 parameters.
std::shared_ptr<SwinTransformer> swin_v2_b(const SwinTransformerOptions& options = {});

}  // namespace tl::models
