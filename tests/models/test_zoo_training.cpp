// tests/models/test_zoo_training.cpp — one training step of the zoo's models against PyTorch 1.13's
// (tests/reference/make_zoo_training_references.py): the training-mode loss, every parameter's gradient and its
// value after torch.optim.SGD(lr=0.1, momentum=0.9, weight_decay=1e-4), by sum and sum of squares. Dropout and
// stochastic depth are off (p = 0: through the options, or after construction where the builder passes its own, as
// the generator's no_drops), BatchNorm normalises over the batch; the
// BatchNorm nets run in float64, as the generator says why.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/generator.h"
#include "models/convnext.h"
#include "models/efficientnet.h"
#include "models/mobilenet.h"
#include "models/regnet.h"
#include "models/swin_transformer.h"
#include "models/vision_ops.h"
#include "models/vision_transformer.h"
#include "nn/dropout.h"
#include "ops/ops.h"
#include "optim/sgd.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

/// The sum and sum of squares of t's elements, in double.
std::pair<double, double> sums(const Tensor& t) {
  const Tensor d = t.to(DType::Float64).contiguous();
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < d.numel(); ++i) {
    sum += d.data<double>()[i];
    sum_sq += d.data<double>()[i] * d.data<double>()[i];
  }
  return {sum, sum_sq};
}

/// One parameter's line of the reference: the sum and sum of squares of its gradient and of its updated value.
struct ParameterSums {
  std::string key;
  double g_sum = 0, g_sq = 0, w_sum = 0, w_sq = 0;
};

/// True when (sum, sum_sq) of `numel` elements are PyTorch's within 1e-4 plus `floor`: the sum relative to
/// sqrt(sum_sq * numel), the largest it can be (values of both signs may cancel to near 0), the sum of squares
/// relative to itself; `floor` is a norm below which a tensor counts as zero.
bool sums_agree(std::pair<double, double> ours, double sum, double sum_sq, int64_t numel, double floor) {
  const double n = static_cast<double>(numel);
  return std::abs(ours.first - sum) <= 1e-4 * std::sqrt(sum_sq * n) + floor * std::sqrt(n) &&
         std::abs(ours.second - sum_sq) <= 1e-4 * sum_sq + floor * floor;
}

/// The generator's training_step for tests/reference/zoo_training/<name>_train_step.txt: after manual_seed(0),
/// `make()`, then `rule` (may be empty), the reference's dtype, training mode, loss sum(logits * cos(class index)) of
/// zoo_input(n, size), backward and one SGD step. "" when the loss (within 1e-5 of the sum of its terms' magnitudes)
/// and every gradient and updated parameter agree, else what differs. A gradient 0 in exact arithmetic (a BatchNorm
/// bias whose channel shift the next train-mode BatchNorm removes) is rounding noise on both sides: norms below
/// 1e-7 of the model's largest gradient (or parameter) norm count as zero.
std::string training_step_mismatch(const std::string& name, const std::function<std::shared_ptr<nn::Module>()>& make,
                                   const std::function<void(nn::Module&)>& rule) {
  std::istringstream in(testing::zoo_reference("zoo_training", name, "train_step"));
  std::string field, dtype_name;
  int64_t size = 0, n = 0;
  double reference_loss = 0, loss_scale = 0;
  in >> field >> size >> n >> dtype_name >> field >> reference_loss >> loss_scale;
  std::vector<ParameterSums> reference;
  double g_max = 0, w_max = 0;
  for (ParameterSums p; in >> p.key >> p.g_sum >> p.g_sq >> p.w_sum >> p.w_sq;) {
    reference.push_back(p);
    g_max = std::max(g_max, std::sqrt(p.g_sq));
    w_max = std::max(w_max, std::sqrt(p.w_sq));
  }
  const DType dtype = dtype_name == "float64" ? DType::Float64 : DType::Float32;
  manual_seed(0);
  const std::shared_ptr<nn::Module> model = make();
  if (rule) rule(*model);
  model->to(dtype);
  model->train();
  optim::SGD sgd(model->parameters(), {.lr = 0.1, .momentum = 0.9, .weight_decay = 1e-4});
  std::vector<double> weights;
  for (int j = 0; j < 10; ++j) weights.push_back(std::cos(static_cast<double>(j)));
  const Tensor loss = ((*model)(testing::zoo_input(n, size).to(dtype)) * from_vector(weights, {10}).to(dtype)).sum();
  loss.backward();
  std::vector<std::pair<double, double>> grads;
  for (const Tensor& p : model->parameters())  // a parameter without a gradient shows as NaN sums
    grads.push_back(p.grad().defined() ? sums(p.grad()) : std::pair{std::nan(""), std::nan("")});
  sgd.step();
  std::ostringstream out;
  out.precision(9);
  const double our_loss = sums(loss).first;
  if (!(std::abs(our_loss - reference_loss) <= 1e-5 * loss_scale))
    out << name << ": loss " << our_loss << ", PyTorch's " << reference_loss << "\n";
  const auto named = model->named_parameters();
  if (named.size() != reference.size())
    out << name << ": " << named.size() << " parameters, PyTorch's model " << reference.size() << "\n";
  for (size_t i = 0; i < std::min(named.size(), reference.size()); ++i) {
    const ParameterSums& r = reference[i];
    const int64_t numel = named[i].second.numel();
    if (named[i].first != r.key || !sums_agree(grads[i], r.g_sum, r.g_sq, numel, 1e-7 * g_max))
      out << name << " " << named[i].first << ": gradient sum " << grads[i].first << " and sum of squares "
          << grads[i].second << "; PyTorch's " << r.key << ": " << r.g_sum << " and " << r.g_sq << "\n";
    const auto updated = sums(named[i].second);
    if (named[i].first != r.key || !sums_agree(updated, r.w_sum, r.w_sq, numel, 1e-7 * w_max))
      out << name << " " << named[i].first << ": after the step sum " << updated.first << " and sum of squares "
          << updated.second << "; PyTorch's " << r.w_sum << " and " << r.w_sq << "\n";
  }
  return out.str();
}

// The generator's no_drops: every Dropout's and StochasticDepth's p set to 0, for the builders that take no such
// argument (they pass their own, and refuse another: efficientnet_b0's dropout, swin_t's stochastic_depth_prob).
std::shared_ptr<nn::Module> no_drops(std::shared_ptr<nn::Module> model) {
  for (const auto& named : model->named_modules()) {
    if (const auto* dropout = dynamic_cast<const nn::Dropout*>(named.second.get()))
      model->set_submodule(named.first, std::make_shared<nn::Dropout>(
                                            nn::DropoutOptions{.p = 0.0, .inplace = dropout->options().inplace}));
    else if (const auto* depth = dynamic_cast<const ops::StochasticDepth*>(named.second.get()))
      model->set_submodule(named.first, std::make_shared<ops::StochasticDepth>(0.0, depth->mode()));
  }
  return model;
}

TEST_CASE("mobilenet_v3_small, efficientnet_b0, regnet_y_400mf at 64x64: a training step as PyTorch's") {
  CHECK(training_step_mismatch("mobilenet_v3_small",
                               [] { return mobilenet_v3_small({.num_classes = 10, .dropout = 0.0}); },
                               testing::apply_bn_rule) == "");
  CHECK(training_step_mismatch(
            "efficientnet_b0",
            [] { return no_drops(efficientnet_b0({.num_classes = 10, .stochastic_depth_prob = 0.0})); },
            testing::apply_bn_rule) == "");
  CHECK(training_step_mismatch("regnet_y_400mf", [] { return regnet_y_400mf({.num_classes = 10}); },
                               testing::apply_bn_rule) == "");
}

TEST_CASE("convnext_tiny at 64x64: a training step as PyTorch's") {
  CHECK(training_step_mismatch("convnext_tiny",
                               [] { return convnext_tiny({.num_classes = 10, .stochastic_depth_prob = 0.0}); },
                               testing::apply_layer_norm_rule) == "");
}

// vit_b_16 and swin_t at 224 draw 86M and 28M initial weights and take tens of seconds per step here (minutes under
// the sanitizers): only with TL_ZOO_ALL_VARIANTS=1; small configurations of the same classes always.
TEST_CASE("VisionTransformer and SwinTransformer (V1, V2; padded and shifted windows), small: a training step as "
          "PyTorch's") {
  CHECK(training_step_mismatch(
            "vit_small",
            [] {
              return std::make_shared<VisionTransformer>(8, 2, 2, 16, 32,
                                                         VisionTransformerOptions{.image_size = 32, .num_classes = 10});
            },
            testing::apply_vit_head_rule) == "");
  for (const bool v2 : {false, true}) {
    CHECK(training_step_mismatch(
              v2 ? "swin_v2_small" : "swin_small",
              [v2] {
                return std::make_shared<SwinTransformer>(
                    Shape{4, 4}, 16, Shape{2, 2}, Shape{2, 4}, Shape{3, 3},
                    SwinTransformerOptions{.stochastic_depth_prob = 0.0, .num_classes = 10}, v2);
              },
              {}) == "");
  }
}

TEST_CASE("vit_b_16 and swin_t at 224: a training step as PyTorch's" * doctest::skip(testing::skip_heavy_variants())) {
  CHECK(training_step_mismatch("vit_b_16", [] { return vit_b_16({.num_classes = 10}); },
                               testing::apply_vit_head_rule) == "");
  CHECK(training_step_mismatch("swin_t", [] { return no_drops(swin_t({.num_classes = 10})); }, {}) == "");
}

}  // namespace
}  // namespace tl::models
