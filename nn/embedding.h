// nn/embedding.h — Embedding and EmbeddingBag, torch.nn's: a lookup table of num_embeddings vectors of
// embedding_dim indexed by integer tensors (EmbeddingBag: summed, averaged or maxed per bag); the row at
// padding_idx gets no gradient.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "nn/module.h"

namespace tl::nn {

/// nn.Embedding's arguments, with its defaults (sparse gradients are not supported).
struct EmbeddingOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::optional<int64_t> padding_idx;  ///< negative counts from the end, as PyTorch
  /// Each row a forward looks up is first scaled down to this norm_type-norm when above it (in place).
  std::optional<double> max_norm;
  double norm_type = 2.0;
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
                                                    std::optional<double> max_norm = std::nullopt,
                                                    double norm_type = 2.0, bool scale_grad_by_freq = false);

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

/// nn.EmbeddingBag's arguments, with its defaults (sparse gradients are not supported).
struct EmbeddingBagOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";  ///< "sum", "mean" or "max"
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx;  ///< negative counts from the end, as PyTorch
};

/// Parameter "weight" (num_embeddings, embedding_dim), drawn from N(0, 1) as PyTorch draws it, the padding_idx
/// row then zero. forward(input, offsets, per_sample_weights) is F::embedding_bag with the module's options:
/// input (B, L), or (n) with offsets -> (B, embedding_dim). Throws tl::Error at construction for a padding_idx
/// outside [-num_embeddings, num_embeddings) or a mode other than sum, mean, max.
class EmbeddingBag : public Module {
 public:
  /// With `weight` (num_embeddings, embedding_dim) defined, the module holds it instead of drawing one.
  explicit EmbeddingBag(const EmbeddingBagOptions& options, const Tensor& weight = {});
  /// nn.EmbeddingBag(num_embeddings, embedding_dim).
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBag(EmbeddingBagOptions{.num_embeddings = num_embeddings, .embedding_dim = embedding_dim}) {}
  /// nn.EmbeddingBag.from_pretrained: holds `embeddings` (2-D) as its weight, which requires grad unless
  /// `freeze`; the other options as given (num_embeddings and embedding_dim are the embeddings').
  static std::shared_ptr<EmbeddingBag> from_pretrained(const Tensor& embeddings, bool freeze = true,
                                                       EmbeddingBagOptions options = {});

  using Module::forward;
  /// input (B, L), or (n) with offsets (B, or B + 1 with include_last_offset); per_sample_weights as input
  /// (mode sum). Through Module::operator(): a 2-D input alone.
  Tensor forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights = {});
  Tensor forward(const Tensor& input) override { return forward(input, Tensor(), Tensor()); }
  std::string type_name() const override { return "EmbeddingBag"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<EmbeddingBag>(); }

  /// padding_idx as given to the constructor, made non-negative.
  const EmbeddingBagOptions& options() const { return options_; }
  /// Re-draws the weight from N(0, 1) and zeroes the padding_idx row.
  void reset_parameters();

 private:
  EmbeddingBagOptions options_;
};

}  // namespace tl::nn
