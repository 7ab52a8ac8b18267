// nn/embedding.h — Embedding, torch.nn.Embedding: a lookup table of num_embeddings vectors of embedding_dim,
// indexed by integer tensors; the row at padding_idx gets no gradient.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "nn/module.h"

namespace tl::nn {

/// nn.Embedding's arguments, with its defaults (max_norm and sparse gradients are not supported).
struct EmbeddingOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::optional<int64_t> padding_idx;  ///< negative counts from the end, as PyTorch
  bool scale_grad_by_freq = false;
};

/// Parameter "weight" (num_embeddings, embedding_dim), drawn from N(0, 1) as PyTorch draws it, the padding_idx
/// row then zero. Input (*) int64 / int32 indices, output (*, embedding_dim). Throws tl::Error at construction
/// for a padding_idx outside [-num_embeddings, num_embeddings); the op throws for an index out of range.
class Embedding : public Module {
 public:
  /// With `weight` (num_embeddings, embedding_dim) defined, the module holds it instead of drawing one
  /// (PyTorch's _weight).
  explicit Embedding(const EmbeddingOptions& options, const Tensor& weight = {});
  /// nn.Embedding(num_embeddings, embedding_dim).
  Embedding(int64_t num_embeddings, int64_t embedding_dim)
      : Embedding(EmbeddingOptions{.num_embeddings = num_embeddings, .embedding_dim = embedding_dim}) {}
  /// nn.Embedding.from_pretrained: holds `embeddings` (2-D) as its weight, which requires grad unless `freeze`.
  static std::shared_ptr<Embedding> from_pretrained(const Tensor& embeddings, bool freeze = true,
                                                    std::optional<int64_t> padding_idx = std::nullopt,
                                                    bool scale_grad_by_freq = false);

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Embedding"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Embedding>(); }

  /// padding_idx as given to the constructor, made non-negative.
  const EmbeddingOptions& options() const { return options_; }
  /// Re-draws the weight from N(0, 1) and zeroes the padding_idx row.
  void reset_parameters();

 private:
  EmbeddingOptions options_;
};

}  // namespace tl::nn
