// models/vision_transformer.h — torchvision's VisionTransformer (vit_b_16, vit_b_32, vit_l_16, vit_l_32,
// vit_h_14): patch conv_proj, class token, Encoder of EncoderBlocks (LayerNorm, nn.MultiheadAttention with
// batch_first, MLPBlock), heads; torchvision's module tree, parameter names, initialisation, repr and forward.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "models/vision_ops.h"
#include "nn/module.h"

namespace tl::models {

namespace vit {

/// torchvision's MLPBlock(in_dim, mlp_dim, dropout): MLP(in_dim, [mlp_dim, in_dim], activation GELU,
/// inplace None, dropout), its Linears re-initialised xavier_uniform_ with biases normal_(std=1e-6).
class MLPBlock : public ops::MLP {
 public:
  MLPBlock(int64_t in_dim, int64_t mlp_dim, double dropout);
  std::string type_name() const override { return "MLPBlock"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MLPBlock>(); }
};

/// torchvision's EncoderBlock: x = input + dropout(self_attention(ln_1(input)) (need_weights=False));
/// x + mlp(ln_2(x)). Input and output (N, L, hidden_dim). Children: ln_1, self_attention, dropout, ln_2, mlp.
/// The attention is called through its typed forward (need_weights=False), so module hooks on
/// self_attention itself do not run.
class EncoderBlock : public nn::Module {
 public:
  EncoderBlock(int64_t num_heads, int64_t hidden_dim, int64_t mlp_dim, double dropout, double attention_dropout);
  /// Throws tl::Error "Expected (batch_size, seq_length, hidden_dim) got torch.Size([...])" for a non-3-D input.
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "EncoderBlock"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<EncoderBlock>(); }
};

/// torchvision's Encoder: ln(layers(dropout(input + pos_embedding))). Parameter pos_embedding
/// (1, seq_length, hidden_dim), drawn normal_(std=0.02); children dropout, layers (encoder_layer_0, ...), ln.
class Encoder : public nn::Module {
 public:
  Encoder(int64_t seq_length, int64_t num_layers, int64_t num_heads, int64_t hidden_dim, int64_t mlp_dim,
          double dropout, double attention_dropout);
  /// Throws tl::Error as EncoderBlock for a non-3-D input.
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Encoder"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<Encoder>(); }
};

}  // namespace vit

/// The keyword arguments a vit_* builder passes on to VisionTransformer (norm_layer is always
/// LayerNorm(eps=1e-6); conv_stem_configs is not supported).
struct VisionTransformerOptions {
  /// The one input size the model takes (square); a multiple of the patch size.
  int64_t image_size = 224;
  double dropout = 0.0;
  double attention_dropout = 0.0;
  int64_t num_classes = 1000;
  /// Set: heads are pre_logits (Linear to this size, trunc_normal_ init), act (Tanh), head.
  std::optional<int64_t> representation_size;
};

/// Input (N, 3, image_size, image_size); logits (N, num_classes). Parameter class_token (1, 1, hidden_dim);
/// children conv_proj (Conv2d, patch_size stride and kernel), encoder, heads (Sequential: [pre_logits, act,]
/// head, the head zero-initialised as torchvision's).
class VisionTransformer : public nn::Module {
 public:
  /// Throws tl::Error, before drawing any weight, with torchvision's "Input shape indivisible by patch size!" (and
  /// the values) unless patch_size divides image_size, nn.MultiheadAttention's "embed_dim must be divisible by
  /// num_heads" (and the values) unless num_heads divides hidden_dim, and for a negative num_classes.
  VisionTransformer(int64_t patch_size, int64_t num_layers, int64_t num_heads, int64_t hidden_dim, int64_t mlp_dim,
                    const VisionTransformerOptions& options = {});
  /// Throws tl::Error before any kernel runs for a non-4-D input and torchvision's "Wrong image height!
  /// Expected 224 but got 200!" (then width) for another size.
  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "VisionTransformer"; }
  nn::ForwardSignature forward_signature() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<VisionTransformer>(); }

  int64_t patch_size() const { return patch_size_; }
  int64_t hidden_dim() const { return hidden_dim_; }
  const VisionTransformerOptions& options() const { return options_; }

 private:
  int64_t patch_size_;
  int64_t hidden_dim_;
  VisionTransformerOptions options_;
};

/// 86,567,656 parameters with the default 1000 classes.
std::shared_ptr<VisionTransformer> vit_b_16(const VisionTransformerOptions& options = {});
/// 88,224,232 parameters.
std::shared_ptr<VisionTransformer> vit_b_32(const VisionTransformerOptions& options = {});
/// 304,326,632 parameters.
std::shared_ptr<VisionTransformer> vit_l_16(const VisionTransformerOptions& options = {});
/// 306,535,400 parameters.
std::shared_ptr<VisionTransformer> vit_l_32(const VisionTransformerOptions& options = {});
/// 632,045,800 parameters.
std::shared_ptr<VisionTransformer> vit_h_14(const VisionTransformerOptions& options = {});

}  // namespace tl::models
