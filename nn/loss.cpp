// nn/loss.cpp — the loss modules: options checked at construction, forward through their F.* function
// with the module's weight buffers.
#include "nn/loss.h"

#include "nn/functional.h"

namespace tl::nn {

Tensor Loss::operator()(const Tensor& input, const Tensor& target) {
  TensorList out = (*this)(TensorList{input, target});
  TL_CHECK(out.size() == 1, type_name(), ": forward returned ", out.size(), " tensors, expected 1");
  return std::move(out[0]);
}

TensorList Loss::forward(Inputs inputs) {
  check_inputs(inputs.tensors());
  return {forward(inputs[0], inputs[1])};
}

CrossEntropyLoss::CrossEntropyLoss(const CrossEntropyLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "CrossEntropyLoss");
  TL_CHECK(options.label_smoothing >= 0.0 && options.label_smoothing <= 1.0,
           "CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got ", options.label_smoothing);
  register_buffer("weight", options.weight);
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::cross_entropy(input, target, buffer("weight"), options_.ignore_index, options_.reduction,
                                   options_.label_smoothing);
}

NLLLoss::NLLLoss(const NLLLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "NLLLoss");
  register_buffer("weight", options.weight);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target, buffer("weight"), options_.ignore_index, options_.reduction);
}

MSELoss::MSELoss(const MSELossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "MSELoss");
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  return functional::mse_loss(input, target, options_.reduction);
}

L1Loss::L1Loss(const L1LossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "L1Loss");
}

Tensor L1Loss::forward(const Tensor& input, const Tensor& target) {
  return functional::l1_loss(input, target, options_.reduction);
}

SmoothL1Loss::SmoothL1Loss(const SmoothL1LossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "SmoothL1Loss");
  TL_CHECK(options.beta >= 0, "SmoothL1Loss: smooth_l1_loss does not support negative values for beta, got ",
           options.beta);
}

Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  return functional::smooth_l1_loss(input, target, options_.reduction, options_.beta);
}

HuberLoss::HuberLoss(const HuberLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "HuberLoss");
  TL_CHECK(options.delta > 0, "HuberLoss: huber_loss does not support non-positive values for delta, got ",
           options.delta);
}

Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::huber_loss(input, target, options_.reduction, options_.delta);
}

BCELoss::BCELoss(const BCELossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "BCELoss");
  register_buffer("weight", options.weight);
}

Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy(input, target, buffer("weight"), options_.reduction);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(const BCEWithLogitsLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "BCEWithLogitsLoss");
  register_buffer("weight", options.weight);
  register_buffer("pos_weight", options.pos_weight);
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy_with_logits(input, target, buffer("weight"), options_.reduction,
                                                      buffer("pos_weight"));
}

KLDivLoss::KLDivLoss(const KLDivLossOptions& options) : options_(options) {
  if (options.reduction != "batchmean") functional::reduction_enum(options.reduction, "KLDivLoss");
}

Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::kl_div(input, target, options_.reduction, options_.log_target);
}

Tensor ThreeInputLoss::operator()(const Tensor& a, const Tensor& b, const Tensor& c) {
  TensorList out = (*this)(TensorList{a, b, c});
  TL_CHECK(out.size() == 1, type_name(), ": forward returned ", out.size(), " tensors, expected 1");
  return std::move(out[0]);
}

TensorList ThreeInputLoss::forward(Inputs inputs) {
  check_inputs(inputs.tensors());
  return {forward(inputs[0], inputs[1], inputs[2])};
}

CosineEmbeddingLoss::CosineEmbeddingLoss(const CosineEmbeddingLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "CosineEmbeddingLoss");
}

Tensor CosineEmbeddingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return functional::cosine_embedding_loss(input1, input2, target, options_.margin, options_.reduction);
}

MarginRankingLoss::MarginRankingLoss(const MarginRankingLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "MarginRankingLoss");
}

Tensor MarginRankingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return functional::margin_ranking_loss(input1, input2, target, options_.margin, options_.reduction);
}

TripletMarginLoss::TripletMarginLoss(const TripletMarginLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "TripletMarginLoss");
}

Tensor TripletMarginLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return functional::triplet_margin_loss(anchor, positive, negative, options_.margin, options_.p, options_.eps,
                                         options_.swap, options_.reduction);
}

}  // namespace tl::nn
