// tests/profiler/test_op_tree.cpp — our op events against ATen's: the names, the nesting and the Input
// Shapes of a ResNet18 and a MyModule inference forward, and of one sample call per op a user meets, equal
// PyTorch 1.13's, line for line (tests/reference/op_tree_*.txt, from tests/reference/make_op_tree_references.py),
// but for the events op_tree_util.h's kNotMirrored lists.
#include <doctest/doctest.h>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/my_module.h"
#include "models/resnet.h"
#include "nn/functional.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "op_tree_util.h"

namespace tl::profiler {
namespace {

using testing::check_same_tree;
using testing::our_tree;
using testing::reference_tree;

template <typename Run>
EventList profile_forward(Run run) {
  NoGradGuard no_grad;
  run();  // warm-up, as the reference's
  Profile prof({.record_shapes = true});
  {
    auto running = prof.start();
    run();
  }
  return prof.events();
}

TEST_CASE("op tree: a ResNet18 inference forward records ATen's ops, nesting and Input Shapes") {
  manual_seed(0);
  auto model = models::resnet18();
  model->eval();
  const Tensor x = randn({2, 3, 64, 64});
  const EventList events = profile_forward([&] { (*model)(x); });
  check_same_tree(our_tree(events), reference_tree("op_tree_resnet18.txt", ""));
}

TEST_CASE("op tree: MyModule's forward records ATen's ops, nesting and Input Shapes") {
  for (const bool use_nonzero : {false, true}) {
    CAPTURE(use_nonzero);
    manual_seed(0);
    models::MyModule module({.in_features = 500, .out_features = 10, .use_nonzero = use_nonzero});
    const Tensor input = rand({8, 500}), mask = rand({6, 6, 6});
    const EventList events = profile_forward([&] { module({input, mask}); });
    check_same_tree(our_tree(events), reference_tree("op_tree_my_module.txt",
                                                     use_nonzero ? "# use_nonzero=True" : "# use_nonzero=False"));
  }
}

// One sample call per op, in the order a user meets them: the same calls, names and input shapes as
// op_sample_lines() in make_op_tree_references.py (only the shapes of the inputs matter).
struct OpSample {
  std::string name;
  std::function<void()> run;
};

std::vector<OpSample> op_samples() {
  namespace F = nn::functional;
  manual_seed(0);
  const Tensor x = randn({4, 10}), y = randn({4, 10}), w = randn({10, 3}), weight = randn({3, 10});
  const Tensor target = from_vector<int64_t>({1, 2, 3, 0}, {4});
  const Tensor img = randn({2, 3, 8, 8});
  const Tensor a = randn({4, 16, 32}), b = randn({4, 32, 8}), m = randn({32, 8});
  const Tensor v = randn({10}), u = randn({32}), index = from_vector<int64_t>({0, 2}, {2});
  const Tensor b1 = b.slice(0, std::nullopt, 1), xd = x.to(DType::Float64), flags = x > 0;
  std::vector<bool> third(40);
  for (size_t i = 0; i < third.size(); ++i) third[i] = i % 3 == 0;
  const Tensor every_third = from_vector<bool>(third, {4, 10}), every_third_row = every_third.select(0, 0);
  const Tensor row_index = index.view({1, 2});
  const Tensor image = randn({3, 64, 64}), filters = randn({64, 3, 7, 7}), filter_bias = randn({64});
  const Tensor px = x.sigmoid(), py = y.sigmoid();  // probabilities for the binary cross entropies
  const Tensor filters1d = randn({8, 16, 3});
  return {
      {"cross_entropy", [=] { F::cross_entropy(x, target); }},
      {"nll_loss", [=] { F::nll_loss(x, target); }},
      {"mse_loss", [=] { F::mse_loss(x, y); }},
      {"mse_loss_sum", [=] { F::mse_loss(x, y, "sum"); }},
      {"add_number", [=] { x + 2; }},
      {"mul_number_", [=] { x.clone().mul_(0.5); }},
      {"gt_number", [=] { [[maybe_unused]] const Tensor mask = x > 0; }},
      {"relu", [=] { F::relu(x); }},
      {"gelu", [=] { gelu(x); }},
      {"softmax", [=] { F::softmax(x, 1); }},
      {"log_softmax", [=] { F::log_softmax(x, 1); }},
      {"softmax_own_dtype", [=] { F::softmax(x, 1, DType::Float32); }},
      {"dropout", [=] { F::dropout(x, 0.5, true); }},
      {"max_pool2d", [=] { F::max_pool2d(img, 2); }},
      {"avg_pool2d", [=] { F::avg_pool2d(img, 2); }},
      {"adaptive_avg_pool2d", [=] { F::adaptive_avg_pool2d(img, 2); }},
      {"flatten", [=] { flatten(img, 1); }},
      {"reshape", [=] { img.reshape({2, -1}); }},
      {"reshape_copy", [=] { img.transpose(1, 2).reshape({2, -1}); }},
      {"view", [=] { img.view({2, -1}); }},
      {"transpose", [=] { img.transpose(1, 2); }},
      {"permute", [=] { img.permute({0, 2, 3, 1}); }},
      {"unsqueeze", [=] { x.unsqueeze(0); }},
      {"squeeze", [=] { img.slice(0, std::nullopt, 1).squeeze(0); }},
      {"cat", [=] { cat(std::vector<Tensor>{x, x}, 1); }},
      {"stack", [=] { stack(std::vector<Tensor>{x, x}); }},
      {"stack_last", [=] { stack(std::vector<Tensor>{x, x}, 2); }},
      {"contiguous", [=] { x.t().contiguous(); }},
      {"clone", [=] { x.clone(); }},
      {"to", [=] { x.to(DType::Float64); }},
      {"mm", [=] { mm(x, w); }},
      {"matmul", [=] { matmul(x, w); }},
      {"matmul_folded", [=] { matmul(a, m); }},
      {"bmm", [=] { bmm(a, b); }},
      {"matmul_batched", [=] { matmul(a, b); }},
      {"linear", [=] { linear(x, weight); }},
      {"sum_dim", [=] { img.sum(Shape{1}); }},
      {"mean", [=] { x.mean(); }},
      {"mean_dim", [=] { img.mean(Shape{2, 3}); }},
      {"ones_like", [=] { ones_like(x); }},
      {"rsub_number", [=] { 2.0 - x; }},
      {"rsub", [=] { rsub(x, y); }},
      {"rmul_number", [=] { 2 * x; }},
      {"radd_number", [=] { 2 + x; }},
      {"rtruediv_number", [=] { 1.0 / x; }},
      {"reciprocal", [=] { x.reciprocal(); }},
      {"rlt_number", [=] { [[maybe_unused]] const Tensor mask = 2 < x; }},
      {"req_number", [=] { [[maybe_unused]] const Tensor mask = 2 == x; }},
      {"sum_int_dim", [=] { x.sum(0); }},
      {"mean_int_dim", [=] { x.mean(0); }},
      {"zeros", [=] { zeros({4, 10}); }},
      {"ones", [=] { ones({4, 10}); }},
      {"full", [=] { full({4, 10}, 2.5); }},
      {"rand", [=] { rand({4, 10}); }},
      {"randn", [=] { randn({4, 10}); }},
      {"arange", [=] { arange(0, 1, 0.25); }},
      {"sum", [=] { x.sum(); }},
      {"sum_bool_dim", [=] { flags.sum(Shape{1}); }},
      {"matmul_dot", [=] { matmul(v, v); }},
      {"matmul_mv", [=] { matmul(x, v); }},
      {"matmul_vm", [=] { matmul(v, w); }},
      {"matmul_folded_vector", [=] { matmul(a, u); }},
      {"matmul_broadcast", [=] { matmul(a, b1); }},
      {"pow_number", [=] { x.pow(2); }},
      {"max", [=] { max(x); }},
      {"max_dim", [=] { max(x, 1); }},
      {"min", [=] { min(x); }},
      {"min_dim", [=] { min(x, 1); }},
      {"argmax", [=] { x.argmax(); }},
      {"argmax_dim", [=] { x.argmax(1); }},
      {"argmax_transposed", [=] { x.t().argmax(); }},
      {"index_select", [=] { x.index_select(1, index); }},
      {"masked_select", [=] { x.masked_select(every_third); }},
      {"masked_select_broadcast", [=] { x.masked_select(every_third_row); }},
      {"add_float64", [=] { x + xd; }},
      {"gt_float64", [=] { [[maybe_unused]] const Tensor mask = x > xd; }},
      {"mul_float64_", [=] { x.clone().mul_(xd); }},
      {"conv2d_unbatched", [=] { F::conv2d(image, filters, filter_bias, 2, 3); }},
      {"index_slice_select", [=] { x.index({indexing::Slice(), 1}); }},
      {"index_none_ellipsis", [=] { x.index({indexing::Slice(1), indexing::None, indexing::Ellipsis}); }},
      {"index_int", [=] { x[1]; }},
      {"gather", [=] { x.gather(1, row_index); }},
      {"scatter", [=] { x.scatter(1, row_index, y); }},
      {"scatter_add", [=] { x.scatter_add(1, row_index, y); }},
      {"masked_fill", [=] { x.masked_fill(every_third, 0.5); }},
      {"masked_fill_broadcast", [=] { x.masked_fill(every_third_row, 0.5); }},
      {"zeros_like", [=] { zeros_like(x); }},
      {"full_like", [=] { full_like(x, 2.5); }},
      {"l1_loss", [=] { F::l1_loss(x, y); }},
      {"smooth_l1_loss", [=] { F::smooth_l1_loss(x, y, "mean", 0.5); }},
      {"smooth_l1_loss_sum", [=] { F::smooth_l1_loss(x, y, "sum"); }},
      {"huber_loss", [=] { F::huber_loss(x, y); }},
      {"binary_cross_entropy", [=] { F::binary_cross_entropy(px, py); }},
      {"binary_cross_entropy_sum", [=] { F::binary_cross_entropy(px, py, {}, "sum"); }},
      {"binary_cross_entropy_with_logits", [=] { F::binary_cross_entropy_with_logits(x, py); }},
      {"binary_cross_entropy_with_logits_pos_weight",
       [=] { F::binary_cross_entropy_with_logits(x, py, v, "sum", v); }},
      {"kl_div_batchmean", [=] { F::kl_div(x, py, "batchmean"); }},
      {"conv1d", [=] { F::conv1d(a, filters1d, {}, 2, int64_t{1}); }},
      {"max_pool1d", [=] { F::max_pool1d(a, 2); }},
      {"avg_pool1d", [=] { F::avg_pool1d(a, 2); }},
  };
}

TEST_CASE("op tree: one sample call per op records ATen's ops, nesting and Input Shapes") {
  for (const OpSample& sample : op_samples()) {
    CAPTURE(sample.name);
    const EventList events = profile_forward(sample.run);
    check_same_tree(our_tree(events), reference_tree("op_tree_ops.txt", "# " + sample.name));
  }
}

}  // namespace
}  // namespace tl::profiler
