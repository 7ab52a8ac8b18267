// tests/nn/test_loss.cpp — the F.* losses, distances and one_hot, and the loss modules: each equals the
// op it stands for (the ops are checked against PyTorch in tests/ops/test_loss.cpp), reduction strings
// ("batchmean" too), PyTorch's broadcasting and its warning, the weight buffers, repr, errors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/generator.h"
#include "nn/functional.h"
#include "nn/loss.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/captured_warnings.h"

namespace tl::nn {
namespace {

namespace F = functional;

struct Batch {
  Tensor logits = randn({5, 4});
  Tensor target = from_vector<int64_t>({3, 0, 1, -100, 2}, {5});
  Tensor weight = from_vector<float>({0.5f, 1.0f, 2.0f, 0.25f}, {4});
};

TEST_CASE("loss functional: PyTorch's F.* forms call the ops with the reduction named as a string") {
  manual_seed(11);
  const Batch b;
  const std::pair<std::string, int64_t> reductions[] = {{"none", 0}, {"mean", 1}, {"sum", 2}};
  for (const auto& r : reductions) {
    const std::string name = r.first;  // a named copy: clang 14 cannot capture bindings
    CAPTURE(name);
    CHECK(equal(F::cross_entropy(b.logits, b.target, b.weight, -100, name, 0.1),
                cross_entropy_loss(b.logits, b.target, b.weight, r.second, -100, 0.1)));
    CHECK(equal(F::nll_loss(b.logits, b.target.clamp(0), {}, 2, name), nll_loss(b.logits, b.target.clamp(0), {},
                                                                              r.second, 2)));
    CHECK(equal(F::mse_loss(b.logits, b.logits.mul(0.5), name), mse_loss(b.logits, b.logits.mul(0.5), r.second)));
  }
  CHECK(equal(F::cross_entropy(b.logits, b.target), cross_entropy_loss(b.logits, b.target)));
  CHECK(equal(F::softmax(b.logits, 1), _softmax(b.logits, 1, false)));
  CHECK(equal(F::log_softmax(b.logits, 0, DType::Float64), _log_softmax(b.logits.to(DType::Float64), 0, false)));
  CHECK_THROWS_WITH_AS(F::cross_entropy(b.logits, b.target, {}, -100, "avg"),
                       "cross_entropy: 'avg' is not a valid value for reduction (expected 'none', 'mean' or 'sum')",
                       Error);
  CHECK_THROWS_WITH_AS(F::mse_loss(b.logits, b.logits, "elementwise_mean"),
                       "mse_loss: 'elementwise_mean' is not a valid value for reduction (expected 'none', 'mean' or "
                       "'sum')",
                       Error);
}

TEST_CASE("loss modules: criterion(input, target) equals the functional form with the module's options") {
  manual_seed(12);
  const Batch b;
  CrossEntropyLoss ce({.weight = b.weight, .ignore_index = 3, .reduction = "sum", .label_smoothing = 0.2});
  const Tensor t = b.target.clamp(0);
  CHECK(equal(ce(b.logits, t), F::cross_entropy(b.logits, t, b.weight, 3, "sum", 0.2)));
  CHECK(equal(CrossEntropyLoss()(b.logits, b.target), F::cross_entropy(b.logits, b.target)));
  NLLLoss nll({.weight = b.weight, .reduction = "none"});
  const Tensor lp = F::log_softmax(b.logits, 1);
  CHECK(equal(nll(lp, b.target), F::nll_loss(lp, b.target, b.weight, -100, "none")));
  MSELoss mse({.reduction = "sum"});
  CHECK(equal(mse(b.logits, lp), F::mse_loss(b.logits, lp, "sum")));
  // The TensorList call path (what symbolic tracing and hooks use) gives the same loss.
  CHECK(equal(MSELoss()(TensorList{b.logits, lp}).at(0), F::mse_loss(b.logits, lp)));
  CHECK_THROWS_WITH_AS(MSELoss()(TensorList{b.logits}),
                       "MSELoss.forward takes 2 input(s) (input, target), got 1; a module taking other inputs declares "
                       "them by overriding forward_signature()",
                       Error);
}

TEST_CASE("loss modules: the class weight is the 'weight' buffer; repr as PyTorch prints them") {
  const Tensor w = from_vector<float>({1.0f, 3.0f}, {2});
  CrossEntropyLoss ce({.weight = w});
  REQUIRE(ce.state_dict().size() == 1);
  CHECK(ce.state_dict()[0].first == "weight");
  CHECK(equal(ce.buffer("weight"), w));
  CHECK(NLLLoss().state_dict().empty());
  CHECK(MSELoss().state_dict().empty());
  const auto copy = std::static_pointer_cast<CrossEntropyLoss>(ce.clone());
  CHECK(equal(copy->buffer("weight"), w));
  CHECK(copy->buffer("weight").data<float>() != w.data<float>());
  CHECK(repr(CrossEntropyLoss()) == "CrossEntropyLoss()");
  CHECK(repr(ce) == "CrossEntropyLoss()");
  CHECK(repr(NLLLoss()) == "NLLLoss()");
  CHECK(repr(MSELoss({.reduction = "sum"})) == "MSELoss()");
  CHECK(ce.is_leaf());
}

TEST_CASE("loss modules: bad options throw tl::Error at construction") {
  CHECK_THROWS_WITH_AS(CrossEntropyLoss({.reduction = "avg"}),
                       "CrossEntropyLoss: 'avg' is not a valid value for reduction (expected 'none', 'mean' or 'sum')",
                       Error);
  CHECK_THROWS_WITH_AS(CrossEntropyLoss({.label_smoothing = 1.5}),
                       "CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got 1.5", Error);
  CHECK_THROWS_WITH_AS(NLLLoss({.reduction = ""}),
                       "NLLLoss: '' is not a valid value for reduction (expected 'none', 'mean' or 'sum')", Error);
  CHECK_THROWS_WITH_AS(MSELoss({.reduction = "Mean"}),
                       "MSELoss: 'Mean' is not a valid value for reduction (expected 'none', 'mean' or 'sum')", Error);
}

TEST_CASE("loss functional: the other losses call their ops with the reduction named as a string") {
  manual_seed(13);
  const Tensor x = randn({4, 3}), y = randn({4, 3}), p = sigmoid(randn({4, 3})), t = rand({4, 3});
  const Tensor w = rand({3}), signs = from_vector<float>({1, -1, -1, 1}, {4});
  const std::pair<std::string, int64_t> reductions[] = {{"none", 0}, {"mean", 1}, {"sum", 2}};
  for (const auto& r : reductions) {
    const std::string name = r.first;
    const int64_t code = r.second;
    CAPTURE(name);
    CHECK(equal(F::l1_loss(x, y, name), l1_loss(x, y, code)));
    CHECK(equal(F::smooth_l1_loss(x, y, name, 0.5), smooth_l1_loss(x, y, code, 0.5)));
    CHECK(equal(F::huber_loss(x, y, name, 2.0), huber_loss(x, y, code, 2.0)));
    CHECK(equal(F::binary_cross_entropy(p, t, w, name), binary_cross_entropy(p, t, w.expand({4, 3}), code)));
    CHECK(equal(F::binary_cross_entropy_with_logits(x, t, w, name, w * 2),
                binary_cross_entropy_with_logits(x, t, w, w * 2, code)));
    CHECK(equal(F::kl_div(x, p, name == "mean" ? "sum" : name, true), kl_div(x, p, code == 1 ? 2 : code, true)));
    CHECK(equal(F::cosine_embedding_loss(x, y, signs, 0.2, name), cosine_embedding_loss(x, y, signs, 0.2, code)));
    CHECK(equal(F::margin_ranking_loss(x.select(1, 0), y.select(1, 0), signs, 0.1, name),
                margin_ranking_loss(x.select(1, 0), y.select(1, 0), signs, 0.1, code)));
    CHECK(equal(F::triplet_margin_loss(x, y, p, 0.5, 1.0, 1e-6, true, name),
                triplet_margin_loss(x, y, p, 0.5, 1.0, 1e-6, true, code)));
  }
  // batchmean: the sum over the batch size, as F.kl_div computes it
  CHECK(equal(F::kl_div(x, p, "batchmean"), kl_div(x, p, Reduction::Sum) / 4));
  CHECK(equal(F::one_hot(from_vector<int64_t>({2, 0}, {2})), one_hot(from_vector<int64_t>({2, 0}, {2}))));
  CHECK(equal(F::cosine_similarity(x, y, 0, 1e-3), cosine_similarity(x, y, 0, 1e-3)));
  CHECK(equal(F::pairwise_distance(x, y, 1.0, 0.0, true), pairwise_distance(x, y, 1.0, 0.0, true)));
  // normalize: F.normalize's own composition (norm, clamp_min, expand_as, div)
  CHECK(equal(F::normalize(x), x / x.norm(2, 1, true).clamp_min(1e-12).expand({4, 3})));
  CHECK(equal(F::normalize(x, 1.0, 0, 0.5), x / x.norm(1, 0, true).clamp_min(0.5).expand({4, 3})));
  CHECK_THROWS_WITH_AS(F::kl_div(x, p, "batch"),
                       "kl_div: 'batch' is not a valid value for reduction (expected 'none', 'mean' or 'sum')", Error);
}

TEST_CASE("loss functional: a target of another shape broadcasts with PyTorch's warning, or is refused as PyTorch refuses it") {
  const Tensor x = ones({2, 3}), row = from_vector<float>({0.0f, 0.5f, 2.0f}, {3});
  testing::CapturedWarnings warnings;
  CHECK(equal(F::l1_loss(x, row, "none"), l1_loss(x, row.expand({2, 3}), Reduction::None)));
  CHECK(equal(F::mse_loss(x, row), mse_loss(x, row.expand({2, 3}))));
  CHECK(equal(F::smooth_l1_loss(x, row, "sum"), smooth_l1_loss(x, row.expand({2, 3}), Reduction::Sum)));
  CHECK(equal(F::huber_loss(row, x), huber_loss(row.expand({2, 3}), x)));
  REQUIRE(warnings.messages.size() == 4);
  CHECK(warnings.messages[0] == "Using a target size (torch.Size([3])) that is different to the input size "
                             "(torch.Size([2, 3])). This will likely lead to incorrect results due to broadcasting. "
                             "Please ensure they have the same size.");
  const Tensor p = full({2, 3}, 0.5);
  CHECK_THROWS_WITH_AS(F::binary_cross_entropy(p, row),
                       "binary_cross_entropy: Using a target size (torch.Size([3])) that is different to the input "
                       "size (torch.Size([2, 3])) is deprecated. Please ensure they have the same size.",
                       Error);
  CHECK_THROWS_WITH_AS(F::binary_cross_entropy_with_logits(p, row),
                       "binary_cross_entropy_with_logits: Target size (torch.Size([3])) must be the same as input size "
                       "(torch.Size([2, 3]))",
                       Error);
  CHECK_THROWS_WITH_AS(F::l1_loss(x, ones({2})),
                       "l1_loss: shapes [2, 3] and [2] cannot be broadcast (size 3 vs 2 at dimension 1)", Error);
  CHECK_THROWS_WITH_AS(F::margin_ranking_loss(x, row, row),
                       "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: "
                       "torch.Size([2, 3]), input2: torch.Size([3]), target: torch.Size([3]) ",
                       Error);
  warnings.messages.clear();
  F::kl_div(x.log(), p, "mean");
  REQUIRE(warnings.messages.size() == 1);
  CHECK(warnings.messages[0].rfind("reduction: 'mean' divides the total loss by both the batch size and the support "
                                "size.'batchmean' divides only by the batch size",
                                0) == 0);
  CHECK(equal(x, ones({2, 3})));
}

TEST_CASE("loss modules: the other losses equal their functional form with the module's options") {
  manual_seed(14);
  const Tensor x = randn({4, 3}), y = randn({4, 3}), p = sigmoid(randn({4, 3})), t = rand({4, 3});
  const Tensor w = rand({3}), signs = from_vector<float>({1, -1, -1, 1}, {4});
  CHECK(equal(L1Loss({.reduction = "sum"})(x, y), F::l1_loss(x, y, "sum")));
  CHECK(equal(SmoothL1Loss({.reduction = "none", .beta = 0.25})(x, y), F::smooth_l1_loss(x, y, "none", 0.25)));
  CHECK(equal(HuberLoss({.delta = 0.5})(x, y), F::huber_loss(x, y, "mean", 0.5)));
  CHECK(equal(BCELoss({.weight = w})(p, t), F::binary_cross_entropy(p, t, w)));
  CHECK(equal(BCEWithLogitsLoss({.weight = w, .reduction = "sum", .pos_weight = w * 3})(x, t),
              F::binary_cross_entropy_with_logits(x, t, w, "sum", w * 3)));
  CHECK(equal(KLDivLoss({.reduction = "batchmean", .log_target = true})(x, y), F::kl_div(x, y, "batchmean", true)));
  CHECK(equal(CosineEmbeddingLoss({.margin = 0.5})(x, y, signs), F::cosine_embedding_loss(x, y, signs, 0.5)));
  CHECK(equal(MarginRankingLoss({.margin = 0.5, .reduction = "none"})(x.select(1, 0), y.select(1, 0), signs),
              F::margin_ranking_loss(x.select(1, 0), y.select(1, 0), signs, 0.5, "none")));
  CHECK(equal(TripletMarginLoss({.margin = 2.0, .p = 1.0, .swap = true})(x, y, p),
              F::triplet_margin_loss(x, y, p, 2.0, 1.0, 1e-6, true)));
  // The TensorList call path names the three inputs.
  CHECK(equal(TripletMarginLoss()(TensorList{x, y, p}).at(0), F::triplet_margin_loss(x, y, p)));
  CHECK_THROWS_WITH_AS(CosineEmbeddingLoss()(TensorList{x, y}),
                       "CosineEmbeddingLoss.forward takes 3 input(s) (input1, input2, target), got 2; a module taking "
                       "other inputs declares them by overriding forward_signature()",
                       Error);
}

TEST_CASE("loss modules: weight and pos_weight are buffers; repr as PyTorch prints them; bad options throw") {
  const Tensor w = from_vector<float>({1.0f, 3.0f}, {2});
  BCEWithLogitsLoss both({.weight = w, .pos_weight = w * 2});
  REQUIRE(both.state_dict().size() == 2);
  CHECK(both.state_dict()[0].first == "weight");
  CHECK(both.state_dict()[1].first == "pos_weight");
  CHECK(BCEWithLogitsLoss().state_dict().empty());
  REQUIRE(BCELoss({.weight = w}).state_dict().size() == 1);
  const auto copy = std::static_pointer_cast<BCEWithLogitsLoss>(both.clone());
  CHECK(equal(copy->buffer("pos_weight"), w * 2));
  CHECK(repr(L1Loss()) == "L1Loss()");
  CHECK(repr(SmoothL1Loss({.beta = 0.5})) == "SmoothL1Loss()");
  CHECK(repr(HuberLoss({.delta = 2.0})) == "HuberLoss()");
  CHECK(repr(BCELoss({.weight = w})) == "BCELoss()");
  CHECK(repr(both) == "BCEWithLogitsLoss()");
  CHECK(repr(KLDivLoss({.reduction = "batchmean", .log_target = true})) == "KLDivLoss()");
  CHECK(repr(CosineEmbeddingLoss({.margin = 0.5})) == "CosineEmbeddingLoss()");
  CHECK(repr(MarginRankingLoss({.margin = 0.1})) == "MarginRankingLoss()");
  CHECK(repr(TripletMarginLoss({.margin = 2.0, .p = 1.0, .swap = true})) == "TripletMarginLoss()");
  CHECK(TripletMarginLoss().is_leaf());
  CHECK_THROWS_WITH_AS(L1Loss({.reduction = "avg"}),
                       "L1Loss: 'avg' is not a valid value for reduction (expected 'none', 'mean' or 'sum')", Error);
  CHECK_THROWS_WITH_AS(SmoothL1Loss({.beta = -1.0}),
                       "SmoothL1Loss: smooth_l1_loss does not support negative values for beta, got -1", Error);
  CHECK_THROWS_WITH_AS(HuberLoss({.delta = 0.0}),
                       "HuberLoss: huber_loss does not support non-positive values for delta, got 0", Error);
  CHECK_THROWS_WITH_AS(KLDivLoss({.reduction = "batch"}),
                       "KLDivLoss: 'batch' is not a valid value for reduction (expected 'none', 'mean' or 'sum')", Error);
  CHECK_THROWS_WITH_AS(TripletMarginLoss({.reduction = "max"}),
                       "TripletMarginLoss: 'max' is not a valid value for reduction (expected 'none', 'mean' or 'sum')",
                       Error);
}

}  // namespace
}  // namespace tl::nn
