// nn/transformer.h — TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer, TransformerDecoder and
// Transformer, torch.nn's (PyTorch 1.13): attention and feed-forward blocks around residual adds and LayerNorms,
// built from MultiheadAttention, Linear, Dropout and LayerNorm modules (the slow path: the eval fast path of
// PyTorch computes the same numbers).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "nn/attention.h"
#include "nn/container.h"
#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/normalization.h"

namespace tl::nn {

/// TransformerEncoderLayerOptions(512, 8).dim_feedforward(1024).activation("gelu").batch_first(true) (the class
/// behind LibTorch's names TransformerEncoderLayerOptions and TransformerDecoderLayerOptions),
/// LibTorch's chain with PyTorch 1.13's keywords and defaults (batch_first, norm_first and layer_norm_eps
/// are PyTorch's; LibTorch has none). The encoder and decoder layers (and Transformer) take the same.
class TransformerLayerOptions {
 public:
  using Activation = std::function<Tensor(const Tensor&)>;

  TransformerLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}

  int64_t d_model() const { return d_model_; }
  int64_t nhead() const { return nhead_; }
  TransformerLayerOptions& dim_feedforward(int64_t value) { return set(dim_feedforward_, value); }
  int64_t dim_feedforward() const { return dim_feedforward_; }
  /// The probability of every dropout of the layer, the attention weights' included.
  TransformerLayerOptions& dropout(double value) { return set(dropout_, value); }
  double dropout() const { return dropout_; }
  /// "relu" or "gelu" (F.relu, F.gelu), as PyTorch's string form; the layer refuses another name.
  TransformerLayerOptions& activation(std::string name);
  /// Any function of the feed-forward block's hidden tensor, as PyTorch's callable form.
  TransformerLayerOptions& activation(Activation function);
  /// The name given ("relu" by default), or "" when a function was given.
  const std::string& activation_name() const { return activation_name_; }
  /// The function given; empty when a name was.
  const Activation& activation() const { return activation_; }
  TransformerLayerOptions& layer_norm_eps(double value) { return set(layer_norm_eps_, value); }
  double layer_norm_eps() const { return layer_norm_eps_; }
  /// True: input and output (N, S, E) instead of (S, N, E).
  TransformerLayerOptions& batch_first(bool value) { return set(batch_first_, value); }
  bool batch_first() const { return batch_first_; }
  /// True: LayerNorm before each block (x + block(norm(x))) instead of after (norm(x + block(x))).
  TransformerLayerOptions& norm_first(bool value) { return set(norm_first_, value); }
  bool norm_first() const { return norm_first_; }

 private:
  template <class T>
  TransformerLayerOptions& set(T& field, T value) {
    field = value;
    return *this;
  }

  int64_t d_model_;
  int64_t nhead_;
  int64_t dim_feedforward_ = 2048;
  double dropout_ = 0.1;
  std::string activation_name_ = "relu";
  Activation activation_;
  double layer_norm_eps_ = 1e-5;
  bool batch_first_ = false;
  bool norm_first_ = false;
};

using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

/// torch.nn.TransformerEncoderLayer. Children, in PyTorch's order and names: self_attn (MultiheadAttention,
/// the layer's dropout on its weights), linear1 (d_model -> dim_feedforward), dropout, linear2, norm1, norm2,
/// dropout1, dropout2; drawn in that order, so with the same manual_seed the parameters are PyTorch's.
/// forward: x = norm1(x + dropout1(self_attn(x, x, x))), x = norm2(x + dropout2(linear2(dropout(act(linear1(x))))))
/// (norm_first: x + block(norm(x)) each). A leaf for symbolic tracing, as torch.fx treats torch.nn's layers.
class TransformerEncoderLayer : public Module {
 public:
  /// Throws tl::Error for an activation name other than relu/gelu, and as MultiheadAttention, Linear and
  /// Dropout throw for their options.
  explicit TransformerEncoderLayer(const TransformerLayerOptions& options);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayer(TransformerLayerOptions(d_model, nhead)) {}

  using Module::forward;
  /// src (S, N, E) (batch_first: (N, S, E)) or unbatched (S, E); src_mask (S, S) or (N * nhead, S, S) and
  /// src_key_padding_mask (N, S), bool (true = ignored) or float (added), as MultiheadAttention takes them.
  /// Returns a tensor shaped as src. Throws PyTorch's texts for masks of another dtype or shape.
  Tensor forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask = {});
  /// Through Module::operator(): src alone (no masks).
  Tensor forward(const Tensor& src) override { return forward(src, Tensor(), Tensor()); }
  ForwardSignature forward_signature() const override { return {.arg_names = {"src"}}; }
  bool is_leaf() const override { return true; }
  std::string type_name() const override { return "TransformerEncoderLayer"; }
  std::shared_ptr<Module> clone() const override { return clone_as<TransformerEncoderLayer>(); }

  const TransformerLayerOptions& options() const { return options_; }

  ModuleHandle<MultiheadAttention> self_attn;
  ModuleHandle<Linear> linear1;
  ModuleHandle<Dropout> dropout;
  ModuleHandle<Linear> linear2;
  ModuleHandle<LayerNorm> norm1;
  ModuleHandle<LayerNorm> norm2;
  ModuleHandle<Dropout> dropout1;
  ModuleHandle<Dropout> dropout2;

 private:
  TransformerLayerOptions options_;
  TransformerLayerOptions::Activation activation_;  ///< F.relu, F.gelu or the function given
};

/// torch.nn.TransformerDecoderLayer. Children, in PyTorch's order and names: self_attn, multihead_attn (over the
/// memory), linear1, dropout, linear2, norm1, norm2, norm3, dropout1, dropout2, dropout3. forward: x = norm1(x +
/// dropout1(self_attn(x, x, x))), x = norm2(x + dropout2(multihead_attn(x, memory, memory))), x = norm3(x +
/// feed_forward(x)) (norm_first: x + block(norm(x)) each). A leaf for symbolic tracing.
class TransformerDecoderLayer : public Module {
 public:
  /// Throws as TransformerEncoderLayer's constructor.
  explicit TransformerDecoderLayer(const TransformerDecoderLayerOptions& options);
  TransformerDecoderLayer(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayer(TransformerDecoderLayerOptions(d_model, nhead)) {}

  using Module::forward;
  /// tgt (T, N, E) (batch_first: (N, T, E)) or unbatched (T, E); memory (S, N, E); tgt_mask (T, T), memory_mask
  /// (T, S) and the key padding masks (N, T) and (N, S), as MultiheadAttention takes them. Returns tgt's shape.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  /// Through Module::operator(): {tgt, memory} (no masks) -> {output}.
  TensorList forward(Inputs inputs) override { return {forward(inputs[0], inputs[1], Tensor())}; }
  ForwardSignature forward_signature() const override { return {.arg_names = {"tgt", "memory"}}; }
  bool is_leaf() const override { return true; }
  std::string type_name() const override { return "TransformerDecoderLayer"; }
  std::shared_ptr<Module> clone() const override { return clone_as<TransformerDecoderLayer>(); }

  const TransformerDecoderLayerOptions& options() const { return options_; }

  ModuleHandle<MultiheadAttention> self_attn;
  ModuleHandle<MultiheadAttention> multihead_attn;
  ModuleHandle<Linear> linear1;
  ModuleHandle<Dropout> dropout;
  ModuleHandle<Linear> linear2;
  ModuleHandle<LayerNorm> norm1;
  ModuleHandle<LayerNorm> norm2;
  ModuleHandle<LayerNorm> norm3;
  ModuleHandle<Dropout> dropout1;
  ModuleHandle<Dropout> dropout2;
  ModuleHandle<Dropout> dropout3;

 private:
  TransformerDecoderLayerOptions options_;
  TransformerDecoderLayerOptions::Activation activation_;  ///< F.relu, F.gelu or the function given
};

/// torch.nn.TransformerEncoder(encoder_layer, num_layers, norm, enable_nested_tensor, mask_check): `layers` holds
/// num_layers deep copies of encoder_layer (clone(), as PyTorch's _get_clones deep-copies: every layer starts with
/// the same weights); `norm`, when given, is applied to the last layer's output. Children: layers (ModuleList), norm.
class TransformerEncoder : public Module {
 public:
  /// Throws tl::Error for a null encoder_layer or num_layers below 1.
  TransformerEncoder(const std::shared_ptr<TransformerEncoderLayer>& encoder_layer, int64_t num_layers,
                     std::shared_ptr<Module> norm = nullptr, bool enable_nested_tensor = true, bool mask_check = true);

  using Module::forward;
  /// src, mask (PyTorch's name for the layers' src_mask) and src_key_padding_mask as the layers take them;
  /// each layer's typed forward runs in turn, then norm. Throws tl::Error when a child of `layers` was replaced
  /// by a module other than a TransformerEncoderLayer.
  ///
  /// PyTorch 1.13's nested-tensor path, taken where its forward takes it (enable_nested_tensor, batched src, a
  /// src_key_padding_mask and no mask, the first layer in eval mode with batch_first, post-norm, relu or gelu and
  /// an even nhead, nothing requiring grad while grad mode is on, no autocast; with mask_check, every sequence's
  /// padding at its end): each sequence's first k unpadded positions (k counted over the mask) run alone, and the
  /// output has zeros at the padded positions and is cut to the longest k (PyTorch's to_padded_tensor(0.)).
  Tensor forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask = {});
  Tensor forward(const Tensor& src) override { return forward(src, Tensor(), Tensor()); }
  ForwardSignature forward_signature() const override { return {.arg_names = {"src"}}; }
  bool is_leaf() const override { return true; }
  std::string type_name() const override { return "TransformerEncoder"; }
  std::shared_ptr<Module> clone() const override { return clone_as<TransformerEncoder>(); }

  int64_t num_layers() const { return num_layers_; }
  bool enable_nested_tensor() const { return enable_nested_tensor_; }
  bool mask_check() const { return mask_check_; }

  ModuleHandle<ModuleList> layers;
  ModuleHandle<Module> norm;  ///< empty without a norm

 private:
  /// Each sequence's unpadded length k (N) where PyTorch takes the nested-tensor path, else an undefined tensor.
  Tensor nested_lengths(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask,
                        const TransformerEncoderLayer& first) const;

  int64_t num_layers_;
  bool enable_nested_tensor_;
  bool mask_check_;
};

/// torch.nn.TransformerDecoder(decoder_layer, num_layers, norm): as TransformerEncoder, over decoder layers.
class TransformerDecoder : public Module {
 public:
  /// Throws tl::Error for a null decoder_layer or num_layers below 1.
  TransformerDecoder(const std::shared_ptr<TransformerDecoderLayer>& decoder_layer, int64_t num_layers,
                     std::shared_ptr<Module> norm = nullptr);

  using Module::forward;
  /// As TransformerDecoderLayer::forward, through every layer in turn, then norm. Throws tl::Error when a child
  /// of `layers` was replaced by a module other than a TransformerDecoderLayer.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  /// Through Module::operator(): {tgt, memory} (no masks) -> {output}.
  TensorList forward(Inputs inputs) override { return {forward(inputs[0], inputs[1], Tensor())}; }
  ForwardSignature forward_signature() const override { return {.arg_names = {"tgt", "memory"}}; }
  bool is_leaf() const override { return true; }
  std::string type_name() const override { return "TransformerDecoder"; }
  std::shared_ptr<Module> clone() const override { return clone_as<TransformerDecoder>(); }

  int64_t num_layers() const { return num_layers_; }

  ModuleHandle<ModuleList> layers;
  ModuleHandle<Module> norm;  ///< empty without a norm

 private:
  int64_t num_layers_;
};

/// torch.nn.Transformer: encoder (TransformerEncoder with a final LayerNorm) and decoder (TransformerDecoder with
/// one), every parameter of two or more dims then re-drawn by xavier_uniform_ in parameters() order, as PyTorch's
/// _reset_parameters. A leaf for symbolic tracing.
class Transformer : public Module {
 public:
  /// nn.Transformer(d_model, nhead, num_encoder_layers, num_decoder_layers, dim_feedforward, ...): `layer` holds
  /// d_model, nhead and the layers' other options. Throws as the layers' constructors, and for a layer count
  /// below 1.
  explicit Transformer(const TransformerLayerOptions& layer = TransformerLayerOptions(512, 8),
                       int64_t num_encoder_layers = 6, int64_t num_decoder_layers = 6);

  using Module::forward;
  /// src (S, N, E), tgt (T, N, E) (batch_first: batch first) or unbatched; the masks as the encoder and the
  /// decoder take them (memory_mask (T, S)). Throws PyTorch's texts when src and tgt differ in batch or
  /// features.
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  /// Through Module::operator(): {src, tgt} (no masks) -> {output}.
  TensorList forward(Inputs inputs) override { return {forward(inputs[0], inputs[1], Tensor())}; }
  ForwardSignature forward_signature() const override { return {.arg_names = {"src", "tgt"}}; }
  bool is_leaf() const override { return true; }
  std::string type_name() const override { return "Transformer"; }
  std::shared_ptr<Module> clone() const override { return clone_as<Transformer>(); }

  const TransformerLayerOptions& options() const { return options_; }
  /// (sz, sz) float: -inf above the diagonal, 0 elsewhere (a position sees itself and the ones before).
  static Tensor generate_square_subsequent_mask(int64_t sz);

  ModuleHandle<TransformerEncoder> encoder;
  ModuleHandle<TransformerDecoder> decoder;

 private:
  TransformerLayerOptions options_;
};

}  // namespace tl::nn
