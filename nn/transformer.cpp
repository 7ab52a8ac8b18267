// nn/transformer.cpp — the transformer layers, stacks and Transformer as PyTorch 1.13's forward computes them
// (torch/nn/modules/transformer.py: _sa_block, _mha_block, _ff_block, the residual adds and norms, the layers in
// turn, _reset_parameters).
#include "nn/transformer.h"

#include <cmath>
#include <tuple>
#include <utility>
#include <vector>

#include "core/autocast.h"
#include "core/grad_mode.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace tl::nn {
namespace {

/// PyTorch's check of a key padding mask's dtype, made by the encoder layer and the encoder before any work.
void check_key_padding_mask(const Tensor& mask) {
  if (mask.defined())
    TL_CHECK(mask.dtype() == DType::Bool || is_floating_point(mask.dtype()),
             "only bool and floating types of key_padding_mask are supported");
}

/// F.relu or F.gelu for the options' name, else the function given; PyTorch's text for another name.
TransformerLayerOptions::Activation resolve_activation(const TransformerLayerOptions& options) {
  const std::string& name = options.activation_name();
  TransformerLayerOptions::Activation activation = options.activation();
  if (name == "relu") activation = [](const Tensor& x) { return functional::relu(x); };
  if (name == "gelu") activation = [](const Tensor& x) { return functional::gelu(x); };
  TL_CHECK(activation != nullptr, "activation should be relu/gelu, not ", name);
  return activation;
}

std::shared_ptr<MultiheadAttention> attention(const TransformerLayerOptions& options) {
  return std::make_shared<MultiheadAttention>(MultiheadAttentionOptions(options.d_model(), options.nhead())
                                                  .dropout(options.dropout())
                                                  .batch_first(options.batch_first()));
}

std::shared_ptr<LayerNorm> layer_norm(const TransformerLayerOptions& options) {
  return std::make_shared<LayerNorm>(
      LayerNormOptions{.normalized_shape = {options.d_model()}, .eps = options.layer_norm_eps()});
}

/// dropout(attn(query, kv, kv)[0]) with need_weights=False, as _sa_block and _mha_block ask (the output is the
/// same; the weights are not averaged).
Tensor attention_block(MultiheadAttention& attn, const ModuleHandle<Dropout>& dropout, const Tensor& query,
                       const Tensor& kv, const Tensor& mask, const Tensor& key_padding_mask) {
  return dropout(std::get<0>(attn.forward(query, kv, kv, key_padding_mask, /*need_weights=*/false, mask)));
}

/// out_dropout(linear2(dropout(activation(linear1(x))))), PyTorch's _ff_block.
Tensor feed_forward_block(const Tensor& x, const ModuleHandle<Linear>& linear1, const ModuleHandle<Dropout>& dropout,
                          const ModuleHandle<Linear>& linear2, const ModuleHandle<Dropout>& out_dropout,
                          const TransformerLayerOptions::Activation& activation) {
  return out_dropout(linear2(dropout(activation(linear1(x)))));
}

/// num_layers deep copies of `layer` (PyTorch's _get_clones).
std::shared_ptr<ModuleList> clones(const std::shared_ptr<Module>& layer, int64_t num_layers, const char* owner,
                                   const char* layer_name) {
  TL_CHECK(layer != nullptr, owner, ": ", layer_name, " is null");
  TL_CHECK(num_layers > 0, owner, ": num_layers must be positive, got ", num_layers);
  std::vector<std::shared_ptr<Module>> copies;
  for (int64_t i = 0; i < num_layers; ++i) copies.push_back(layer->clone());
  return std::make_shared<ModuleList>(std::move(copies));
}

/// The children of `layers` as L, all checked before the first runs (and draws dropout masks).
template <class L>
std::vector<L*> typed_layers(const ModuleList& layers, const char* owner, const char* layer_type) {
  std::vector<L*> typed;
  for (const std::shared_ptr<Module>& module : layers) {
    typed.push_back(dynamic_cast<L*>(module.get()));
    TL_CHECK(typed.back() != nullptr, owner, ": layers.", typed.size() - 1, " is a ", module->type_name(), ", not a ",
             layer_type);
  }
  return typed;
}

}  // namespace

TransformerLayerOptions& TransformerLayerOptions::activation(std::string name) {
  activation_name_ = std::move(name);
  activation_ = nullptr;
  return *this;
}

TransformerLayerOptions& TransformerLayerOptions::activation(Activation function) {
  activation_name_.clear();
  activation_ = std::move(function);
  return *this;
}

// ---- encoder ----

TransformerEncoderLayer::TransformerEncoderLayer(const TransformerLayerOptions& options)
    : options_(options), activation_(resolve_activation(options)) {
  // PyTorch's order of construction, which is its order of drawing and of the state dict.
  self_attn = register_module("self_attn", attention(options));
  linear1 = register_module("linear1", std::make_shared<Linear>(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", std::make_shared<Dropout>(options.dropout()));
  linear2 = register_module("linear2", std::make_shared<Linear>(options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", layer_norm(options));
  norm2 = register_module("norm2", layer_norm(options));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(options.dropout()));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(options.dropout()));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask,
                                        const Tensor& src_key_padding_mask) {
  check_key_padding_mask(src_key_padding_mask);
  const auto sa = [&](const Tensor& x) {
    return attention_block(*self_attn, dropout1, x, x, src_mask, src_key_padding_mask);
  };
  const auto ff = [&](const Tensor& x) {
    return feed_forward_block(x, linear1, dropout, linear2, dropout2, activation_);
  };
  Tensor x = src;
  if (options_.norm_first()) {
    x = x + sa(norm1(x));
    return x + ff(norm2(x));
  }
  x = norm1(x + sa(x));
  return norm2(x + ff(x));
}

TransformerEncoder::TransformerEncoder(const std::shared_ptr<TransformerEncoderLayer>& encoder_layer,
                                       int64_t num_layers, std::shared_ptr<Module> norm_module,
                                       bool enable_nested_tensor, bool mask_check)
    : num_layers_(num_layers), enable_nested_tensor_(enable_nested_tensor), mask_check_(mask_check) {
  layers = register_module("layers", clones(encoder_layer, num_layers, "TransformerEncoder", "encoder_layer"));
  if (norm_module) norm = register_module("norm", std::move(norm_module));
}

// TransformerEncoder.forward's why_not_sparsity_fast_path, condition by condition (the projections always share
// one embedding size and the norms one eps here), then torch._nested_tensor_from_mask_left_aligned.
Tensor TransformerEncoder::nested_lengths(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask,
                                          const TransformerEncoderLayer& first) const {
  const TransformerLayerOptions& options = first.options();
  const std::string& activation = options.activation_name();
  if (options.norm_first() || first.is_training() || !options.batch_first() ||
      (activation != "relu" && activation != "gelu") || src.dim() != 3 || !enable_nested_tensor_ ||
      !src_key_padding_mask.defined() || src_key_padding_mask.sizes() != Shape{src.size(0), src.size(1)} ||
      mask.defined() || options.nhead() % 2 == 1 || is_autocast_enabled())
    return {};
  if (GradMode::is_enabled()) {
    if (src.requires_grad()) return {};
    for (const Tensor& p : first.parameters())
      if (p.requires_grad()) return {};
  }
  NoGradGuard no_grad;
  const Tensor keep = src_key_padding_mask.logical_not();
  const Tensor lengths = keep.sum(1);
  if (mask_check_) {  // padding only at the end: each row's first padded position is its count of unpadded ones
    const Tensor first_padded = cat({src_key_padding_mask.ne(Scalar(0)), ones({src.size(0), 1}, DType::Bool)}, 1)
                                    .to(DType::Int32)
                                    .argmax(1);
    if (!first_padded.eq(lengths).all().item<bool>()) return {};
  }
  return lengths;
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask) {
  check_key_padding_mask(src_key_padding_mask);
  const std::vector<TransformerEncoderLayer*> typed =
      typed_layers<TransformerEncoderLayer>(*layers, "TransformerEncoder", "TransformerEncoderLayer");
  const Tensor lengths = nested_lengths(src, mask, src_key_padding_mask, *typed.front());
  // The nested path runs each sequence's first k positions: the padded batch with those as the unpadded ones.
  const Tensor padded = lengths.defined()
                            ? arange(0, src.size(1)).unsqueeze(0).ge(lengths.unsqueeze(1))
                            : Tensor();
  Tensor output = src;
  for (TransformerEncoderLayer* layer : typed)
    output = layer->forward(output, mask, lengths.defined() ? padded : src_key_padding_mask);
  if (lengths.defined()) {
    const int64_t longest = src.size(0) == 0 ? 0 : lengths.max().item<int64_t>();
    output = output.narrow(1, 0, longest).masked_fill(padded.narrow(1, 0, longest).unsqueeze(2), 0.0);
  }
  return norm.is_empty() ? output : norm(output);
}

// ---- decoder ----

TransformerDecoderLayer::TransformerDecoderLayer(const TransformerLayerOptions& options)
    : options_(options), activation_(resolve_activation(options)) {
  self_attn = register_module("self_attn", attention(options));
  multihead_attn = register_module("multihead_attn", attention(options));
  linear1 = register_module("linear1", std::make_shared<Linear>(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", std::make_shared<Dropout>(options.dropout()));
  linear2 = register_module("linear2", std::make_shared<Linear>(options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", layer_norm(options));
  norm2 = register_module("norm2", layer_norm(options));
  norm3 = register_module("norm3", layer_norm(options));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(options.dropout()));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(options.dropout()));
  dropout3 = register_module("dropout3", std::make_shared<Dropout>(options.dropout()));
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                        const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                        const Tensor& memory_key_padding_mask) {
  const auto sa = [&](const Tensor& x) {
    return attention_block(*self_attn, dropout1, x, x, tgt_mask, tgt_key_padding_mask);
  };
  const auto mha = [&](const Tensor& x) {
    return attention_block(*multihead_attn, dropout2, x, memory, memory_mask, memory_key_padding_mask);
  };
  const auto ff = [&](const Tensor& x) {
    return feed_forward_block(x, linear1, dropout, linear2, dropout3, activation_);
  };
  Tensor x = tgt;
  if (options_.norm_first()) {
    x = x + sa(norm1(x));
    x = x + mha(norm2(x));
    return x + ff(norm3(x));
  }
  x = norm1(x + sa(x));
  x = norm2(x + mha(x));
  return norm3(x + ff(x));
}

TransformerDecoder::TransformerDecoder(const std::shared_ptr<TransformerDecoderLayer>& decoder_layer,
                                       int64_t num_layers, std::shared_ptr<Module> norm_module)
    : num_layers_(num_layers) {
  layers = register_module("layers", clones(decoder_layer, num_layers, "TransformerDecoder", "decoder_layer"));
  if (norm_module) norm = register_module("norm", std::move(norm_module));
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                   const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                   const Tensor& memory_key_padding_mask) {
  Tensor output = tgt;
  for (TransformerDecoderLayer* layer :
       typed_layers<TransformerDecoderLayer>(*layers, "TransformerDecoder", "TransformerDecoderLayer"))
    output = layer->forward(output, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  return norm.is_empty() ? output : norm(output);
}

// ---- Transformer ----

Transformer::Transformer(const TransformerLayerOptions& layer, int64_t num_encoder_layers,
                         int64_t num_decoder_layers)
    : options_(layer) {
  encoder = register_module("encoder", std::make_shared<TransformerEncoder>(
                                           std::make_shared<TransformerEncoderLayer>(layer), num_encoder_layers,
                                           layer_norm(layer)));
  decoder = register_module("decoder", std::make_shared<TransformerDecoder>(
                                           std::make_shared<TransformerDecoderLayer>(layer), num_decoder_layers,
                                           layer_norm(layer)));
  for (const Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                            const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                            const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  const bool batched = src.dim() == 3;
  const int64_t batch_dim = options_.batch_first() ? 0 : 1;
  TL_CHECK(!batched || src.size(batch_dim) == tgt.size(batch_dim), "the batch number of src and tgt must be equal");
  TL_CHECK(src.size(-1) == options_.d_model() && tgt.size(-1) == options_.d_model(),
           "the feature number of src and tgt must be equal to d_model");
  const Tensor memory = encoder->forward(src, src_mask, src_key_padding_mask);
  return decoder->forward(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor Transformer::generate_square_subsequent_mask(int64_t sz) {
  TL_CHECK(sz >= 0, "generate_square_subsequent_mask: sz must be non-negative, got ", sz);
  return full({sz, sz}, -INFINITY).triu(1);
}

}  // namespace tl::nn
