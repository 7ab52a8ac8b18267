// tests/autograd/test_autograd.cpp — autograd's semantics as PyTorch users know them: leaves and
// .grad, accumulation, retain_grad, grad mode, detach, the graph freed after backward, in-place ops on
// leaves, non-leaves and views, and the version counter. Values are checked against hand derivatives.
#include <doctest/doctest.h>

#include <limits>
#include <thread>

#include "autograd/engine.h"
#include "autograd/node.h"
#include "core/dispatch.h"
#include "core/grad_mode.h"
#include "core/op_kind.h"
#include "ops/ops.h"
#include "tests/support/reflected_forms.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

Tensor vec(std::vector<float> v) { return from_vector(v, {static_cast<int64_t>(v.size())}); }
Tensor leaf(std::vector<float> v) { return vec(std::move(v)).requires_grad_(); }

void check_values(const Tensor& t, std::vector<float> expected) {
  REQUIRE(t.defined());
  const std::string diff = testing::compare_tensors(t, vec(expected).reshape(t.shape()), 1e-6, 1e-6);
  CHECK_MESSAGE(diff.empty(), diff);
}

TEST_CASE("a number on the left and one-int dims: PyTorch's grad_fn and gradients (reflected_operators.json)") {
  const nlohmann::json ref = testing::reflected_reference();
  for (const testing::ReflectedForm& form : testing::reflected_forms()) {
    const nlohmann::json& expected = ref.at("forms").at(form.name);
    Tensor x = testing::reference_input(ref, "x", DType::Float32).requires_grad_();
    const Tensor y = form.f(x);
    if (!expected.contains("grad")) {
      CHECK_MESSAGE(!y.requires_grad(), form.name, " should not require grad, as in PyTorch");
      continue;
    }
    CHECK_MESSAGE(y.grad_fn_name() == expected.at("grad_fn").get<std::string>(), form.name, ": ", y.grad_fn_name());
    y.sum().backward();
    const std::string diff = testing::compare_tensors(x.grad(), testing::reference_tensor(expected.at("grad")), 1e-6, 1e-7);
    CHECK_MESSAGE(diff.empty(), form.name, ": ", diff);
  }
}

TEST_CASE("a leaf that requires grad gets d(sum(x * y + x))/dx in .grad") {
  Tensor x = leaf({1, 2, 3}), y = leaf({4, 5, 6});
  Tensor loss = (x * y + x).sum();
  CHECK(loss.requires_grad());
  CHECK_FALSE(loss.is_leaf());
  CHECK(loss.grad_fn_name() == "SumBackward0");
  loss.backward();
  check_values(x.grad(), {5, 6, 7});
  check_values(y.grad(), {1, 2, 3});
  CHECK_FALSE(x.grad().requires_grad());
}

TEST_CASE("gradients accumulate across backward calls until cleared") {
  Tensor x = leaf({1, 2});
  (x * x).sum().backward();
  (x * 3.0).sum().backward();
  check_values(x.grad(), {2 + 3, 4 + 3});
  x.mutable_grad() = Tensor();
  (x * 3.0).sum().backward();
  check_values(x.grad(), {3, 3});
}

// PyTorch 1.13's `x.grad = g` refuses these, naming them as below, and keeps the old .grad.
TEST_CASE("assigning .grad checks it as PyTorch's setter does: size, dtype, not the tensor itself") {
  Tensor x = leaf({1, 2, 3});
  const Tensor g = vec({2, 2, 2});
  x.mutable_grad() = g;
  CHECK(x.grad().is_same(g));
  CHECK_THROWS_WITH_AS(x.mutable_grad() = ones({3, 1}),
                       "assigned grad has data of a different size: the tensor has size [3], the gradient [3, 1]",
                       Error);
  CHECK_THROWS_WITH_AS(x.mutable_grad() = ones({3}, DType::Float64),
                       "assigned grad has data of a different type: the tensor is torch.float32, the gradient "
                       "torch.float64",
                       Error);
  CHECK_THROWS_WITH_AS(x.mutable_grad() = x, "can't assign Variable as its own grad", Error);
  CHECK(x.grad().is_same(g));
  check_values(x.grad(), {2, 2, 2});
  x.mutable_grad() = {};
  CHECK_FALSE(x.grad().defined());

  Tensor counts = from_vector<int64_t>({1, 2}, {2});  // any dtype may hold a .grad of its own dtype
  counts.mutable_grad() = from_vector<int64_t>({3, 4}, {2});
  CHECK(counts.grad().dtype() == DType::Int64);
  Tensor h = x * 2.0;  // a non-leaf too
  h.mutable_grad() = ones({3});
  check_values(h.grad(), {1, 1, 1});
}

TEST_CASE("a leaf used twice sums both paths; broadcasting sums back to the input's shape") {
  Tensor x = leaf({1, 2}), b = leaf({10});
  Tensor loss = (x * x + x + b).sum();
  loss.backward();
  check_values(x.grad(), {3, 5});
  check_values(b.grad(), {2});
}

TEST_CASE("backward with a gradient argument weights a non-scalar output") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  y.backward(vec({1, 0.5f, -1}));
  check_values(x.grad(), {2, 1, -2});
}

TEST_CASE("misuse of backward raises tl::Error naming the values, leaving .grad untouched") {
  Tensor x = leaf({1, 2, 3});
  Tensor y = x * 2.0;
  CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("grad can be implicitly created only for scalar outputs"),
                       Error);
  CHECK_THROWS_WITH_AS(y.backward(vec({1, 2})),
                       "Mismatch in shape: grad_output[0] has a shape of [2] and output[0] has a shape of [3]", Error);
  CHECK_FALSE(x.grad().defined());
  Tensor plain = vec({1});
  CHECK_THROWS_WITH_AS(plain.backward(), "element 0 of tensors does not require grad and does not have a grad_fn",
                       Error);
}

TEST_CASE("a second backward through freed saved tensors raises tl::Error unless the graph was retained") {
  Tensor x = leaf({1, 2});
  Tensor loss = (x * x).sum();
  loss.backward(Tensor(), /*retain_graph=*/true);
  loss.backward();
  check_values(x.grad(), {4, 8});
  CHECK_THROWS_WITH_AS(loss.backward(), doctest::Contains("Trying to backward through the graph a second time"),
                       Error);
  check_values(x.grad(), {4, 8});
}

TEST_CASE("retain_grad keeps a non-leaf's gradient; other non-leaves keep none") {
  Tensor x = leaf({1, 2});
  Tensor h = x * 3.0, k = h * 2.0;
  h.retain_grad();
  k.sum().backward();
  check_values(h.grad(), {2, 2});
  CHECK_FALSE(k.grad().defined());
}

TEST_CASE("AccumulateGrad's post hooks run once per backward, after the sum of both paths is in .grad") {
  Tensor x = leaf({1, 2}), b = leaf({10});
  auto accumulator = std::dynamic_pointer_cast<autograd::AccumulateGrad>(autograd::gradient_edge(x).fn);
  REQUIRE(accumulator != nullptr);
  std::vector<std::vector<double>> seen;
  accumulator->add_post_hook([&](const Tensor& t) {
    CHECK(t.is_same(x));
    seen.push_back({t.grad()[0].item<double>(), t.grad()[1].item<double>()});
  });
  accumulator->add_post_hook([&](const Tensor&) { seen.push_back({}); });
  (x * x + x + b).sum().backward();
  (x * 2.0 + b).sum().backward();  // the accumulator is kept alive here, so the hooks stay
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == std::vector<double>{3, 5});
  CHECK(seen[1].empty());
  CHECK(seen[2] == std::vector<double>{5, 7});
  b.mutable_grad() = {};
  (b * 3.0).sum().backward();  // x takes no part: its hooks do not run
  CHECK(seen.size() == 4);
}

TEST_CASE("a leaf whose requires_grad was turned off after the forward gets no .grad (PyTorch's AccumulateGrad)") {
  Tensor a = leaf({1, 2}), b = leaf({3, 4});
  const Tensor y = (a * b).sum();
  a.requires_grad_(false);
  y.backward();
  CHECK_FALSE(a.grad().defined());
  check_values(b.grad(), {1, 2});
  CHECK_THROWS_WITH_AS(autograd::grad({(b * 2.0).sum() + (a * b).sum()}, {a}), "grad: input 0 does not require grad",
                       Error);
}

TEST_CASE("NoGradGuard and InferenceMode record nothing; detach cuts the history") {
  Tensor x = leaf({1, 2});
  {
    NoGradGuard no_grad;
    Tensor y = x * 2.0;
    CHECK_FALSE(y.requires_grad());
    CHECK(y.is_leaf());
  }
  {
    InferenceMode inference;
    CHECK_FALSE((x + 1.0).requires_grad());
  }
  CHECK(GradMode::is_enabled());
  Tensor d = (x * 2.0).detach();
  CHECK_FALSE(d.requires_grad());
  CHECK(d.storage() != nullptr);
  Tensor loss = (d * x).sum();
  loss.backward();
  check_values(x.grad(), {2, 4});
}

TEST_CASE("requires_grad_ refuses non-leaves and integer tensors") {
  Tensor x = leaf({1});
  Tensor y = x * 2.0;
  CHECK_THROWS_WITH_AS(y.requires_grad_(false), doctest::Contains("only change requires_grad flags of leaf variables"),
                       Error);
  CHECK(y.requires_grad());
  Tensor i = arange(0, 3);
  CHECK_THROWS_WITH_AS(i.requires_grad_(), "only Tensors of floating point dtype can require gradients, got torch.int64",
                       Error);
  CHECK_FALSE(i.requires_grad());
}

TEST_CASE("an op given an out= result refuses inputs that require grad, as PyTorch's, before writing it") {
  Tensor x = randn({1, 8, 2, 2}).requires_grad_();
  Tensor out = zeros({1, 8, 2, 2});
  const TensorList inputs{x, out};
  CHECK_THROWS_WITH_AS(dispatch::call(OpKind::ToDense, inputs, Attrs{}),
                       "to_dense(): functions with out=... arguments don't support automatic differentiation, but one "
                       "of the arguments requires grad.",
                       Error);
  CHECK(out._version() == 0);
  CHECK(out.eq(0).all().item<bool>());
  CHECK_FALSE(out.requires_grad());
}

TEST_CASE("an in-place op on a leaf that requires grad raises; under NoGradGuard it runs") {
  Tensor x = leaf({1, 2});
  CHECK_THROWS_WITH_AS(x.add_(1.0), doctest::Contains("a leaf Variable that requires grad is being used in an in-place"),
                       Error);
  check_values(x, {1, 2});
  {
    NoGradGuard no_grad;
    x.mul_(2.0);
  }
  check_values(x, {2, 4});
}

TEST_CASE("in-place ops on non-leaves are differentiated with the value self had") {
  Tensor x = leaf({1, 2, 3}), w = leaf({2, 3, 4});
  Tensor h = x * 1.0;
  h.mul_(w);  // h = x * w; d/dw uses the x the product saw
  h.relu_();
  h.sum().backward();
  check_values(x.grad(), {2, 3, 4});
  check_values(w.grad(), {1, 2, 3});
}

TEST_CASE("the version counter: modifying a tensor saved for backward raises at backward") {
  Tensor x = leaf({1, 2});
  Tensor h = x * 1.0;
  Tensor y = h * h;  // saves h
  CHECK(h._version() == 0);
  h.add_(1.0);
  CHECK(h._version() == 1);
  CHECK_THROWS_WITH_AS(y.sum().backward(),
                       doctest::Contains("one of the variables needed for gradient computation has been modified by an "
                                         "inplace operation"),
                       Error);
  CHECK_FALSE(x.grad().defined());
}

// PyTorch 1.13 saves what the formulas of the inputs that need grad read (derivatives.yaml's codegen):
// linear and mul with a constant input keep that input only, so an optimizer step on the weight between
// forward and backward is no error; div's self formula reads other, and convolution's one formula for
// input, weight and bias reads both, so those still raise there as in PyTorch.
TEST_CASE("saved tensors follow which inputs need grad: forward, step, backward with only the weight learning") {
  const Tensor x = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});  // no grad
  Tensor w = from_vector<float>({1, 0, -1, 2, 1, 0}, {2, 3}).requires_grad_(), b = leaf({0, 0});
  const Tensor out = linear(x, w, b).sum();
  const Tensor product = (x.select(0, 0) * w.select(0, 0)).sum();
  {
    NoGradGuard step;
    w.add_(1.0);
    b.add_(1.0);
  }
  out.backward();
  check_values(w.grad(), {5, 7, 9, 5, 7, 9});  // d/dw sum(x w^T + b) = x summed over the batch, per row
  check_values(b.grad(), {2, 2});
  product.backward();
  check_values(w.grad(), {5 + 1, 7 + 2, 9 + 3, 5, 7, 9});

  Tensor y = leaf({1, 2});
  Tensor divisor = vec({2, 4});
  const Tensor quotient = (y / divisor).sum();
  divisor.add_(1.0);
  CHECK_THROWS_WITH_AS(quotient.backward(), doctest::Contains("modified by an inplace operation"), Error);

  Tensor kernel = ones({1, 1, 2, 2}).requires_grad_();
  const Tensor conv = conv2d(ones({1, 1, 3, 3}), kernel).sum();
  {
    NoGradGuard step;
    kernel.add_(1.0);
  }
  CHECK_THROWS_WITH_AS(conv.backward(), doctest::Contains("modified by an inplace operation"), Error);
}

TEST_CASE("gradients flow through views, and through an in-place op on a view into its base") {
  Tensor x = leaf({1, 2, 3, 4});
  Tensor m = x.view({2, 2}).t();
  (m.select(0, 1) * 10.0).sum().backward();  // column 1 of x.view(2, 2): x[1], x[3]
  check_values(x.grad(), {0, 10, 0, 10});

  Tensor a = leaf({1, 2, 3, 4}), w = leaf({5});
  Tensor base = a * 1.0;
  Tensor row = base.view({2, 2}).select(0, 0);  // base[0], base[1]
  row.mul_(w);
  CHECK(base.grad_fn_name() == "CopySlices");
  (base * vec({1, 2, 3, 4})).sum().backward();
  check_values(a.grad(), {5, 10, 3, 4});
  check_values(w.grad(), {1 * 1 + 2 * 2});
}

TEST_CASE("an in-place op on a view of a leaf that requires grad raises") {
  Tensor x = leaf({1, 2});
  Tensor v = x.view({2, 1});
  CHECK_THROWS_WITH_AS(v.mul_(2.0), doctest::Contains("a view of a leaf Variable that requires grad"), Error);
  check_values(x, {1, 2});
}

TEST_CASE("autograd::grad returns gradients without touching .grad") {
  Tensor x = leaf({1, 2}), y = leaf({3});
  Tensor out = (x * x).sum() + y * 0.0;
  TensorList g = autograd::grad({out.sum()}, {x, y});
  check_values(g[0], {2, 4});
  check_values(g[1], {0});
  CHECK_FALSE(x.grad().defined());
  Tensor unused = leaf({1});
  CHECK_THROWS_WITH_AS(autograd::grad({(x * 2.0).sum()}, {unused}), doctest::Contains("was not used in the graph"),
                       Error);
}

// torch.autograd.grad's results for these calls, from PyTorch 1.13: y = sum((x * w)^2) with x = [1, 2],
// w = [3, 4], h = x * w, so dy/dh = 2h = [6, 16] and dy/dx = 2h * w = [18, 64], dy/dw = 2h * x = [6, 32].
TEST_CASE("autograd::grad runs only what its inputs need: no leaf's .grad changes") {
  Tensor x = leaf({1, 2}), w = leaf({3, 4});
  Tensor h = x * w;
  h.retain_grad();
  const Tensor y = (h * h).sum();
  SUBCASE("a leaf input: the nodes on the way run, the leaves' accumulators do not") {
    check_values(autograd::grad({y}, {x}).at(0), {18, 64});
    check_values(h.grad(), {6, 16});  // h's node ran on the way to x: its retained gradient is kept, as in PyTorch
  }
  SUBCASE("a non-leaf input: nothing below it runs") {
    check_values(autograd::grad({y}, {h}).at(0), {6, 16});
    CHECK_FALSE(h.grad().defined());
  }
  CHECK_FALSE(x.grad().defined());
  CHECK_FALSE(w.grad().defined());
}

TEST_CASE("autograd::grad returns one gradient per input, repeats and unused ones included") {
  Tensor x = leaf({1, 2}), w = leaf({3, 4}), unused = leaf({1});
  TensorList g = autograd::grad({(x * w).sum()}, {x, w, x}, {}, true);
  REQUIRE(g.size() == 3);
  check_values(g[0], {3, 4});
  check_values(g[1], {1, 2});
  check_values(g[2], {3, 4});
  g = autograd::grad({(x * w).sum()}, {unused, x}, {}, false, /*allow_unused=*/true);
  CHECK_FALSE(g.at(0).defined());
  check_values(g.at(1), {3, 4});
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("autograd::grad with no inputs refuses, as PyTorch's 'grad requires non-empty inputs.'") {
  Tensor x = leaf({1, 2});
  const Tensor y = (x * x).sum();
  CHECK_THROWS_WITH_AS(autograd::grad({y}, {}), "grad requires non-empty inputs", Error);
  CHECK_FALSE(x.grad().defined());
  y.backward();  // the graph was neither run nor freed
  check_values(x.grad(), {2, 4});
}

TEST_CASE("an op without a derivative records a node whose backward names it") {
  Tensor x = leaf({1, -2, 3});
  Tensor s = threshold_backward(vec({1, 1, 1}), x, 0.0);  // a backward op: no double backward
  CHECK(s.requires_grad());
  CHECK_THROWS_WITH_AS(s.sum().backward(), "the derivative for 'aten::threshold_backward' is not implemented", Error);
}

// The cases below are PyTorch 1.13's results for the same calls (a hostile try-out found each one).

TEST_CASE("a view made before its base was written in place takes the base's new history") {
  Tensor x = leaf({1, 2, 3});
  Tensor a = x * 1.0;
  Tensor v = a.slice(0, 0, 2);
  a.mul_(2.0);
  v.sum().backward();
  check_values(x.grad(), {2, 2, 0});

  Tensor y = leaf({1, 2, 3});
  Tensor b = y * 1.0;
  Tensor v1 = b.slice(0, 0, 2), v2 = b.slice(0, 1, 3);
  v1.mul_(5.0);
  v2.sum().backward();
  check_values(y.grad(), {0, 5, 1});
}

TEST_CASE("writing a slice of a buffer that does not require grad gives the buffer the history") {
  Tensor y = leaf({1, 2});
  Tensor buf = zeros({4});
  buf.slice(0, 0, 2).copy_(y * 3.0);
  CHECK(buf.requires_grad());
  buf.sum().backward();
  check_values(y.grad(), {3, 3});
}

TEST_CASE(".grad never shares memory with the gradient the caller passed or with another leaf's") {
  Tensor x = leaf({1, 1}), y = leaf({1, 1});
  const Tensor g = vec({1, 1});
  x.backward(g);
  x.backward(g);
  check_values(x.grad(), {2, 2});
  check_values(g, {1, 1});
  (x + y).backward(g);
  {
    NoGradGuard no_grad;
    Tensor& y_grad = y.mutable_grad();
    y_grad.mul_(10.0);
  }
  check_values(x.grad(), {3, 3});
  check_values(y.grad(), {10, 10});
  check_values(g, {1, 1});
}

TEST_CASE("retain_grad follows an in-place op to the tensor's new value") {
  Tensor x = leaf({1, 2});
  Tensor y = x * 2.0;
  y.retain_grad();
  y.mul_(3.0);
  y.sum().backward();
  check_values(y.grad(), {1, 1});
  check_values(x.grad(), {6, 6});
}

TEST_CASE("threads sharing a parameter record and accumulate its gradient without racing") {
  Tensor w = leaf({1, 2});
  constexpr int kSteps = 2000;
  auto work = [&] {
    const Tensor x = vec({1, 1});
    for (int i = 0; i < kSteps; ++i) (x * w).sum().backward();
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  check_values(w.grad(), {2 * kSteps, 2 * kSteps});
}

TEST_CASE("edge cases of the formulas: max over a NaN, a dot product, index_select with inf and duplicates") {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  Tensor x = leaf({1, nan, 3});
  x.max().backward();
  check_values(x.grad(), {0, 1, 0});

  Tensor a = leaf({1, 2, 3, 4}), b = leaf({5, 6, 7, 8});
  matmul(a, b).backward();
  check_values(a.grad(), {5, 6, 7, 8});
  check_values(b.grad(), {1, 2, 3, 4});

  Tensor s = leaf({1, 2, 3});
  s.index_select(0, from_vector<int64_t>({0, 2, 2}, {3})).backward(vec({inf, 1, 1}));
  check_values(s.grad(), {inf, 0, 2});

  Tensor m = leaf({1, 2, 3, 4});
  m.view({2, 2}).masked_select(vec({1, 0}).gt(0.5)).backward(vec({5, 7}));
  check_values(m.grad(), {5, 0, 7, 0});
}

}  // namespace
}  // namespace tl
