// nn/embedding.cpp — Embedding: PyTorch's padding_idx rules, initialisation and repr, forward through F.embedding.
#include "nn/embedding.h"

#include "nn/functional.h"
#include "nn/init.h"

namespace tl::nn {
namespace {

EmbeddingOptions checked(EmbeddingOptions o) {
  TL_CHECK(o.num_embeddings >= 0 && o.embedding_dim >= 0, "Embedding: sizes must be non-negative, got num_embeddings=",
           o.num_embeddings, " and embedding_dim=", o.embedding_dim);
  if (o.padding_idx) {
    TL_CHECK(*o.padding_idx < o.num_embeddings && *o.padding_idx >= -o.num_embeddings,
             "Embedding: padding_idx must be within num_embeddings (", o.num_embeddings, "), got ", *o.padding_idx);
    if (*o.padding_idx < 0) *o.padding_idx += o.num_embeddings;
  }
  return o;
}

}  // namespace

Embedding::Embedding(const EmbeddingOptions& options, const Tensor& weight) : options_(checked(options)) {
  const EmbeddingOptions& o = options_;
  if (weight.defined()) {
    TL_CHECK(weight.shape() == (Shape{o.num_embeddings, o.embedding_dim}), "Embedding: shape of weight ",
             weight.shape(), " does not match num_embeddings and embedding_dim (", o.num_embeddings, ", ",
             o.embedding_dim, ")");
    register_parameter("weight", weight);
    return;
  }
  register_parameter("weight", empty({o.num_embeddings, o.embedding_dim}));
  reset_parameters();
}

std::shared_ptr<Embedding> Embedding::from_pretrained(const Tensor& embeddings, bool freeze,
                                                      std::optional<int64_t> padding_idx, bool scale_grad_by_freq) {
  TL_CHECK(embeddings.dim() == 2, "Embedding.from_pretrained: embeddings parameter is expected to be 2-dimensional, "
           "got ", embeddings.shape());
  auto module = std::make_shared<Embedding>(
      EmbeddingOptions{.num_embeddings = embeddings.size(0), .embedding_dim = embeddings.size(1),
                       .padding_idx = padding_idx, .scale_grad_by_freq = scale_grad_by_freq},
      embeddings);
  module->parameter("weight").requires_grad_(!freeze);
  return module;
}

void Embedding::reset_parameters() {
  init::normal_(parameter("weight"));
  if (options_.padding_idx) init::zeros_(parameter("weight").select(0, *options_.padding_idx));
}

Tensor Embedding::forward(const Tensor& input) {
  return functional::embedding(input, parameter("weight"), options_.padding_idx, options_.scale_grad_by_freq);
}

std::string Embedding::extra_repr() const {
  const EmbeddingOptions& o = options_;
  std::string s = std::to_string(o.num_embeddings) + ", " + std::to_string(o.embedding_dim);
  if (o.padding_idx) s += ", padding_idx=" + std::to_string(*o.padding_idx);
  if (o.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  return s;
}

}  // namespace tl::nn
