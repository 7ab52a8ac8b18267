// tests/nn/test_loss.cpp — F.softmax / F.log_softmax / F.nll_loss / F.cross_entropy / F.mse_loss and the
// CrossEntropyLoss, NLLLoss, MSELoss modules: each equals the op it stands for (the ops are checked
// against PyTorch in tests/ops/test_loss.cpp), reduction strings, the weight buffer, repr, errors.
#include <doctest/doctest.h>

#include <string>

#include "core/generator.h"
#include "nn/functional.h"
#include "nn/loss.h"
#include "nn/repr.h"
#include "ops/ops.h"

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

}  // namespace
}  // namespace tl::nn
