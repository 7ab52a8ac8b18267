// nn/attention.h — MultiheadAttention, torch.nn.MultiheadAttention: PyTorch 1.13's
// F.multi_head_attention_forward (in-projection, scaled dot products, masks, softmax, dropout, out-projection)
// built from tensor ops, so autograd and the profiler see every step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "nn/linear.h"

namespace tl::nn {

/// MultiheadAttentionOptions(8, 2).dropout(0.1).batch_first(true).kdim(5).vdim(3), LibTorch's chain
/// (batch_first is PyTorch's keyword; LibTorch has none).
class MultiheadAttentionOptions {
 public:
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads) : embed_dim_(embed_dim), num_heads_(num_heads) {}

  int64_t embed_dim() const { return embed_dim_; }
  int64_t num_heads() const { return num_heads_; }
  /// Dropout on the attention weights, in training mode.
  MultiheadAttentionOptions& dropout(double value) { return set(dropout_, value); }
  double dropout() const { return dropout_; }
  /// False: no in_proj_bias and no out_proj.bias.
  MultiheadAttentionOptions& bias(bool value) { return set(bias_, value); }
  bool bias() const { return bias_; }
  /// Feature sizes of key and value; unset means embed_dim.
  MultiheadAttentionOptions& kdim(int64_t value) { return set(kdim_, std::optional<int64_t>(value)); }
  int64_t kdim() const { return kdim_.value_or(embed_dim_); }
  MultiheadAttentionOptions& vdim(int64_t value) { return set(vdim_, std::optional<int64_t>(value)); }
  int64_t vdim() const { return vdim_.value_or(embed_dim_); }
  /// True: batched inputs and output are (N, L, E) instead of (L, N, E).
  MultiheadAttentionOptions& batch_first(bool value) { return set(batch_first_, value); }
  bool batch_first() const { return batch_first_; }

 private:
  template <class T>
  MultiheadAttentionOptions& set(T& field, T value) {
    field = value;
    return *this;
  }

  int64_t embed_dim_;
  int64_t num_heads_;
  double dropout_ = 0.0;
  bool bias_ = true;
  std::optional<int64_t> kdim_;
  std::optional<int64_t> vdim_;
  bool batch_first_ = false;
};

/// PyTorch's out_proj class of MultiheadAttention: a Linear under another printed name.
class NonDynamicallyQuantizableLinear : public Linear {
 public:
  using Linear::Linear;
  std::string type_name() const override { return "NonDynamicallyQuantizableLinear"; }
  std::shared_ptr<Module> clone() const override { return clone_as<NonDynamicallyQuantizableLinear>(); }
};

/// Parameters as PyTorch's: with kdim == vdim == embed_dim, in_proj_weight (3E, E) (q_proj_weight,
/// k_proj_weight, v_proj_weight None), otherwise q_proj_weight (E, E), k_proj_weight (E, kdim),
/// v_proj_weight (E, vdim) (in_proj_weight None); in_proj_bias (3E) or None; the child out_proj (E, E).
/// Initialised as PyTorch 1.13: out_proj drawn as a Linear, then xavier_uniform_ of the projection
/// weights and zeroed biases. Not a leaf for symbolic tracing (it returns two tensors).
// The typed forward (LibTorch's signature) hides Module::forward(const Tensor&) on purpose: attention takes
// three tensors and returns two; Module::operator() reaches it through forward(Inputs).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverloaded-virtual"
class MultiheadAttention : public Module {
 public:
  /// Throws tl::Error for embed_dim or num_heads below 1, embed_dim not divisible by num_heads or a
  /// dropout outside [0, 1].
  explicit MultiheadAttention(const MultiheadAttentionOptions& options);
  MultiheadAttention(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttention(MultiheadAttentionOptions(embed_dim, num_heads)) {}

  /// query (L, N, E) (batch_first: (N, L, E)) or unbatched (L, E); key (S, N, kdim), value (S, N, vdim).
  /// key_padding_mask (N, S) (unbatched (S)), bool (true = ignored) or float (added); attn_mask (L, S) or
  /// (N * num_heads, L, S), bool or float. Returns the output (as query, E features) and, with
  /// need_weights, the attention weights (N, L, S) averaged over heads or (N, num_heads, L, S) (an
  /// undefined tensor without need_weights). Throws PyTorch's texts for inconsistent shapes and dtypes.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);
  /// Through Module::operator(): {query, key, value} -> {output, weights averaged over heads}.
  TensorList forward(Inputs inputs) override;
  ForwardSignature forward_signature() const override { return {.arg_names = {"query", "key", "value"}}; }
  std::shared_ptr<Module> clone() const override { return clone_as<MultiheadAttention>(); }

  const MultiheadAttentionOptions& options() const { return options_; }
  /// xavier_uniform_ of the projection weights, zeros for in_proj_bias and out_proj.bias.
  void reset_parameters();

 private:
  bool same_embed_dim() const;

  MultiheadAttentionOptions options_;
};
#pragma GCC diagnostic pop

}  // namespace tl::nn
