// models/maxvit.h — torchvision's MaxVit (maxvit_t): a convolutional stem, then blocks of MaxVitLayers (MBConv,
// window attention, grid attention with relative position bias); torchvision's module tree, parameter and buffer
// names, initialisation, repr and forward.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/vision_ops.h"
#include "nn/module.h"

namespace tl::models {

namespace maxvit {

/// torchvision's MBConv: proj(x) + stochastic_depth(layers(x)). proj is Sequential([AvgPool2d(3, stride 2, padding
/// 1),] Conv2d 1x1) when the stride or the channels change, else Identity; stochastic_depth is StochasticDepth(p,
/// "row") for p > 0, else Identity; layers: pre_norm, conv_a (1x1 to out * expansion_ratio), conv_b (3x3
/// depthwise, `stride`), squeeze_excitation (to int(out * squeeze_ratio), SiLU), conv_c (1x1 to out).
class MBConv : public nn::Module {
 public:
  MBConv(int64_t in_channels, int64_t out_channels, double expansion_ratio, double squeeze_ratio, int64_t stride,
         const ops::NormLayer& norm_layer, const ops::ActivationLayer& activation_layer,
         double p_stochastic_dropout = 0.0);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MBConv>(); }
};

/// torchvision's RelativePositionalMultiHeadAttention(feat_dim, head_dim, max_seq_len): children to_qkv
/// (Linear(feat_dim, 3 feat_dim)), merge (Linear(feat_dim, feat_dim)); parameter relative_position_bias_table
/// ((2 size - 1)^2, heads), trunc_normal_(std=0.02), size = int(sqrt(max_seq_len)); buffer relative_position_index
/// (max_seq_len, max_seq_len) int64. Input and output (B, G, P, D); keys scaled by feat_dim^-0.5, as torchvision's.
class RelativePositionalMultiHeadAttention : public nn::Module {
 public:
  /// Throws tl::Error "feat_dim: 64 must be divisible by head_dim: 24" as torchvision's ValueError.
  RelativePositionalMultiHeadAttention(int64_t feat_dim, int64_t head_dim, int64_t max_seq_len);
  /// Throws tl::Error for an input that is not (B, G, max_seq_len, feat_dim).
  Tensor forward(const Tensor& x) override;
  /// (1, heads, max_seq_len, max_seq_len).
  Tensor get_relative_positional_bias() const;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<RelativePositionalMultiHeadAttention>(); }

 private:
  int64_t n_heads_, head_dim_, max_seq_len_, feat_dim_;
};

/// torchvision's SwapAxes(a, b): torch.swapaxes(x, a, b), a view. Prints as "SwapAxes()".
class SwapAxes : public nn::Module {
 public:
  SwapAxes(int64_t a, int64_t b) : a_(a), b_(b) {}
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SwapAxes>(); }

 private:
  int64_t a_, b_;
};

/// torchvision's WindowPartition: (B, C, H, W) -> (B, (H / p)(W / p), p * p, C). Called through its typed
/// forward (torchvision's forward(x, p) takes an int), so module hooks do not run for it.
class WindowPartition : public nn::Module {
 public:
  using nn::Module::forward;
  /// Throws tl::Error (the reshape's) unless p divides H and W.
  Tensor forward(const Tensor& x, int64_t p);
  std::shared_ptr<nn::Module> clone() const override { return clone_as<WindowPartition>(); }
};

/// torchvision's WindowDepartition: (B, HP * WP, p * p, C) -> (B, C, HP * p, WP * p); typed forward as
/// WindowPartition's.
class WindowDepartition : public nn::Module {
 public:
  using nn::Module::forward;
  Tensor forward(const Tensor& x, int64_t p, int64_t h_partitions, int64_t w_partitions);
  std::shared_ptr<nn::Module> clone() const override { return clone_as<WindowDepartition>(); }
};

/// PartitionAttentionLayer's arguments (torchvision's names).
struct PartitionAttentionOptions {
  int64_t in_channels = 0;
  int64_t head_dim = 0;
  int64_t partition_size = 0;
  /// "window" or "grid".
  std::string partition_type;
  std::pair<int64_t, int64_t> grid_size;
  int64_t mlp_ratio = 4;
  double attention_dropout = 0.0;
  double mlp_dropout = 0.0;
  double p_stochastic_dropout = 0.0;
};

/// torchvision's PartitionAttentionLayer (norm_layer nn.LayerNorm, activation GELU, as MaxVitLayer passes them):
/// x partitioned into windows of partition_size ("window") or a partition_size grid ("grid", SwapAxes(-2, -3)
/// around the attention), x + stochastic_dropout(attn_layer(x)), x + stochastic_dropout(mlp_layer(x)), departitioned.
/// Children partition_op, departition_op, partition_swap, departition_swap, attn_layer, mlp_layer,
/// stochastic_dropout. Input and output (B, C, grid_size).
class PartitionAttentionLayer : public nn::Module {
 public:
  /// Throws tl::Error "partition_type must be either 'grid' or 'window'" as torchvision's ValueError.
  explicit PartitionAttentionLayer(const PartitionAttentionOptions& options);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<PartitionAttentionLayer>(); }

 private:
  int64_t p_;
  std::pair<int64_t, int64_t> grid_size_;
};

/// MaxVitLayer's arguments (torchvision's names; the norm and activation layers are MaxVit's).
struct MaxVitLayerOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  double squeeze_ratio = 0.25;
  double expansion_ratio = 4;
  int64_t stride = 1;
  int64_t head_dim = 32;
  int64_t mlp_ratio = 4;
  double mlp_dropout = 0.0;
  double attention_dropout = 0.0;
  double p_stochastic_dropout = 0.0;
  int64_t partition_size = 7;
  std::pair<int64_t, int64_t> grid_size;
};

/// torchvision's MaxVitLayer: layers = Sequential(MBconv, window_attention, grid_attention).
class MaxVitLayer : public nn::Module {
 public:
  MaxVitLayer(const MaxVitLayerOptions& options, const ops::NormLayer& norm_layer,
              const ops::ActivationLayer& activation_layer);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MaxVitLayer>(); }
};

/// torchvision's MaxVitBlock: layers, a ModuleList of one MaxVitLayer per p_stochastic entry (the first with
/// stride 2 from in_channels), each on the grid the stride leaves of input_grid_size.
class MaxVitBlock : public nn::Module {
 public:
  /// `layer` holds the arguments every layer shares (its in_channels, stride, p_stochastic_dropout and grid_size
  /// are set per layer). Throws tl::Error for an empty p_stochastic.
  MaxVitBlock(const MaxVitLayerOptions& layer, const ops::NormLayer& norm_layer,
              const ops::ActivationLayer& activation_layer, std::pair<int64_t, int64_t> input_grid_size,
              const std::vector<double>& p_stochastic);
  Tensor forward(const Tensor& x) override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MaxVitBlock>(); }

  /// The grid its layers run on.
  std::pair<int64_t, int64_t> grid_size() const { return grid_size_; }

 private:
  std::pair<int64_t, int64_t> grid_size_;
};

}  // namespace maxvit

/// The keyword arguments maxvit_t passes on to MaxVit (norm_layer is BatchNorm2d(eps=1e-3, momentum=0.99) and
/// activation_layer GELU, torchvision's defaults). maxvit_t passes stochastic_depth_prob (0.2) itself, so it is
/// MaxVit's argument, not an option.
struct MaxVitOptions {
  /// The one input size the model takes, fixed at construction (each block's grid must divide by
  /// partition_size).
  std::pair<int64_t, int64_t> input_size{224, 224};
  double squeeze_ratio = 0.25;
  double expansion_ratio = 4;
  int64_t mlp_ratio = 4;
  double mlp_dropout = 0.0;
  double attention_dropout = 0.0;
  int64_t num_classes = 1000;
};

/// Input (N, 3, H, W) whose stem output equals that of input_size (224 and 223 both give 112x112); logits
/// (N, num_classes). Children stem, blocks (a ModuleList of MaxVitBlocks, each a ModuleList `layers` of
/// MaxVitLayers), classifier.
class MaxVit : public nn::Module {
 public:
  /// Throws tl::Error with torchvision's text when a block's input size is not divisible by partition_size, and for
  /// a negative num_classes or a stochastic_depth_prob outside [0, 1], before drawing any weight.
  MaxVit(int64_t stem_channels, int64_t partition_size, const Shape& block_channels, const Shape& block_layers,
         int64_t head_dim, double stochastic_depth_prob, const MaxVitOptions& options = {});
  /// Throws tl::Error before any kernel runs for a non-4-D input or one of another size than input_size's.
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "MaxVit"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MaxVit>(); }

 private:
  std::pair<int64_t, int64_t> input_size_;
};

/// 30,919,624 parameters with the default 1000 classes.
std::shared_ptr<MaxVit> maxvit_t(const MaxVitOptions& options = {});

}  // namespace tl::models
