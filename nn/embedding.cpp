// nn/embedding.cpp — Embedding and EmbeddingBag: PyTorch's padding_idx rules, initialisation and repr, forward
// through F.embedding / F.embedding_bag.
#include "nn/embedding.h"

#include "core/py_repr.h"
#include "nn/functional.h"
#include "nn/init.h"

namespace tl::nn {
namespace {

/// padding_idx within [-num_embeddings, num_embeddings), made non-negative (Embedding's and EmbeddingBag's rule).
std::optional<int64_t> checked_padding_idx(std::optional<int64_t> padding_idx, int64_t num_embeddings,
                                           const char* who) {
  if (!padding_idx) return padding_idx;
  TL_CHECK(*padding_idx < num_embeddings && *padding_idx >= -num_embeddings, who,
           ": padding_idx must be within num_embeddings (", num_embeddings, "), got ", *padding_idx);
  return *padding_idx < 0 ? *padding_idx + num_embeddings : *padding_idx;
}

void check_sizes(int64_t num_embeddings, int64_t embedding_dim, const char* who) {
  TL_CHECK(num_embeddings >= 0 && embedding_dim >= 0, who, ": sizes must be non-negative, got num_embeddings=",
           num_embeddings, " and embedding_dim=", embedding_dim);
}

EmbeddingOptions checked(EmbeddingOptions o) {
  check_sizes(o.num_embeddings, o.embedding_dim, "Embedding");
  o.padding_idx = checked_padding_idx(o.padding_idx, o.num_embeddings, "Embedding");
  return o;
}

EmbeddingBagOptions checked(EmbeddingBagOptions o) {
  check_sizes(o.num_embeddings, o.embedding_dim, "EmbeddingBag");
  o.padding_idx = checked_padding_idx(o.padding_idx, o.num_embeddings, "EmbeddingBag");
  TL_CHECK(o.mode == "sum" || o.mode == "mean" || o.mode == "max", "mode has to be one of sum, mean or max");
  return o;
}

/// The weight given (checked against the sizes) or an empty one to draw.
Tensor initial_weight(const Tensor& weight, int64_t num_embeddings, int64_t embedding_dim, const char* who) {
  if (!weight.defined()) return empty({num_embeddings, embedding_dim});
  TL_CHECK(weight.shape() == (Shape{num_embeddings, embedding_dim}), who, ": shape of weight ", weight.shape(),
           " does not match num_embeddings and embedding_dim (", num_embeddings, ", ", embedding_dim, ")");
  return weight;
}

/// normal_ of the weight, then the padding_idx row zero (PyTorch's reset_parameters of both).
void draw_weight(Tensor& weight, std::optional<int64_t> padding_idx) {
  init::normal_(weight);
  if (padding_idx) init::zeros_(weight.select(0, *padding_idx));
}

/// The part of extra_repr after the sizes that Embedding and EmbeddingBag print alike.
std::string norm_repr(std::optional<double> max_norm, double norm_type) {
  std::string s;
  if (max_norm) s += ", max_norm=" + py_float(*max_norm);
  if (norm_type != 2.0) s += ", norm_type=" + py_float(norm_type);
  return s;
}

}  // namespace

Embedding::Embedding(const EmbeddingOptions& options, const Tensor& weight) : options_(checked(options)) {
  register_parameter("weight", initial_weight(weight, options_.num_embeddings, options_.embedding_dim, "Embedding"));
  if (!weight.defined()) reset_parameters();
}

std::shared_ptr<Embedding> Embedding::from_pretrained(const Tensor& embeddings, bool freeze,
                                                      std::optional<int64_t> padding_idx, std::optional<double> max_norm,
                                                      double norm_type, bool scale_grad_by_freq) {
  TL_CHECK(embeddings.dim() == 2, "Embedding.from_pretrained: embeddings parameter is expected to be 2-dimensional, "
           "got ", embeddings.shape());
  auto module = std::make_shared<Embedding>(
      EmbeddingOptions{.num_embeddings = embeddings.size(0), .embedding_dim = embeddings.size(1),
                       .padding_idx = padding_idx, .max_norm = max_norm, .norm_type = norm_type,
                       .scale_grad_by_freq = scale_grad_by_freq},
      embeddings);
  module->parameter("weight").requires_grad_(!freeze);
  return module;
}

void Embedding::reset_parameters() { draw_weight(parameter("weight"), options_.padding_idx); }

Tensor Embedding::forward(const Tensor& input) {
  const EmbeddingOptions& o = options_;
  return functional::embedding(input, parameter("weight"),
                               {.padding_idx = o.padding_idx, .max_norm = o.max_norm, .norm_type = o.norm_type,
                                .scale_grad_by_freq = o.scale_grad_by_freq});
}

std::string Embedding::extra_repr() const {
  const EmbeddingOptions& o = options_;
  std::string s = std::to_string(o.num_embeddings) + ", " + std::to_string(o.embedding_dim);
  if (o.padding_idx) s += ", padding_idx=" + std::to_string(*o.padding_idx);
  s += norm_repr(o.max_norm, o.norm_type);
  if (o.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  return s;
}

EmbeddingBag::EmbeddingBag(const EmbeddingBagOptions& options, const Tensor& weight) : options_(checked(options)) {
  register_parameter("weight",
                     initial_weight(weight, options_.num_embeddings, options_.embedding_dim, "EmbeddingBag"));
  if (!weight.defined()) reset_parameters();
}

std::shared_ptr<EmbeddingBag> EmbeddingBag::from_pretrained(const Tensor& embeddings, bool freeze,
                                                            EmbeddingBagOptions options) {
  TL_CHECK(embeddings.dim() == 2, "EmbeddingBag.from_pretrained: embeddings parameter is expected to be "
           "2-dimensional, got ", embeddings.shape());
  options.num_embeddings = embeddings.size(0);
  options.embedding_dim = embeddings.size(1);
  auto module = std::make_shared<EmbeddingBag>(options, embeddings);
  module->parameter("weight").requires_grad_(!freeze);
  return module;
}

void EmbeddingBag::reset_parameters() { draw_weight(parameter("weight"), options_.padding_idx); }

Tensor EmbeddingBag::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  const EmbeddingBagOptions& o = options_;
  return functional::embedding_bag(input, parameter("weight"),
                                   {.offsets = offsets,
                                    .max_norm = o.max_norm,
                                    .norm_type = o.norm_type,
                                    .scale_grad_by_freq = o.scale_grad_by_freq,
                                    .mode = o.mode,
                                    .per_sample_weights = per_sample_weights,
                                    .include_last_offset = o.include_last_offset,
                                    .padding_idx = o.padding_idx});
}

std::string EmbeddingBag::extra_repr() const {
  const EmbeddingBagOptions& o = options_;
  std::string s = std::to_string(o.num_embeddings) + ", " + std::to_string(o.embedding_dim);
  s += norm_repr(o.max_norm, o.norm_type);
  if (o.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  s += ", mode=" + o.mode;
  if (o.padding_idx) s += ", padding_idx=" + std::to_string(*o.padding_idx);
  return s;
}

}  // namespace tl::nn
