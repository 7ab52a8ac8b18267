// tests/ops/test_scatter_gather.cpp — gather, scatter, scatter_add, index_add, masked_fill, take_along_dim,
// embedding_dense_backward and Tensor::index (basic and tensor indices, index_put_) against PyTorch 1.13 (values
// and torch.autograd's gradients, data/index_cases.json from gen_index_cases.py), their in-place forms through
// strided views, and their errors.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ops/ops.h"
#include "tests/ops/loss_cases.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using namespace tl::indexing;
using testing::OpCase;

// The case's name without its dtype ("x[mask] float32": "x[mask]").
std::string call_of(const OpCase& c) { return c.name.substr(0, c.name.rfind(' ')); }

// x[tensor indices], as the generator spells them.
Tensor advanced_index(const OpCase& c, const std::map<std::string, Tensor>& in) {
  const Tensor &x = in.at("self"), &idx = in.at("idx"), &idx4 = in.at("idx4"), &idx5 = in.at("idx5");
  const std::map<std::string, std::function<Tensor()>> calls = {
      {"x[mask]", [&] { return x.index({in.at("mask")}); }},
      {"x[mask1]", [&] { return x.index({in.at("mask1")}); }},
      {"x[1:, mask4]", [&] { return x.index({Slice(1), in.at("mask4")}); }},
      {"x[idx]", [&] { return x.index({idx}); }},
      {"x[:, idx4]", [&] { return x.index({Slice(), idx4}); }},
      {"x[idx, one]", [&] { return x.index({idx, in.at("one")}); }},
      {"x[idx, :, idx5]", [&] { return x.index({idx, Slice(), idx5}); }},
      {"x[..., idx5]", [&] { return x.index({Ellipsis, idx5}); }},
      {"x[None, idx]", [&] { return x.index({None, idx}); }},
      {"x[-1, idx4]", [&] { return x.index({-1, idx4}); }},
      {"x[True]", [&] { return x.index({true}); }},
      {"x[False]", [&] { return x.index({false}); }},
      {"x[:, True, idx]", [&] { return x.index({Slice(), true, idx}); }},
      {"x[yes]", [&] { return x.index({in.at("yes")}); }},
      {"x[1, no]", [&] { return x.index({1, in.at("no")}); }},
      {"x[two, idx4]", [&] { return x.index({in.at("two"), idx4}); }},
  };
  REQUIRE(calls.count(call_of(c)) == 1);
  return calls.at(call_of(c))();
}

// A clone of self written through tensor indices, as the generator spells it.
Tensor advanced_index_put(const OpCase& c, const std::map<std::string, Tensor>& in) {
  Tensor out = in.at("self").clone();
  const Tensor& v = in.at("values");
  const std::map<std::string, std::function<void()>> calls = {
      {"x[idx2] = v", [&] { out.index_put_({in.at("idx2")}, v); }},
      {"x[mask] = v5", [&] { out.index_put_({in.at("mask")}, v); }},
      {"x[:, idx4] = v", [&] { out.index_put_({Slice(), in.at("idx4")}, v); }},
      {"x[idx, :, idx5] = v4", [&] { out.index_put_({in.at("idx"), Slice(), in.at("idx5")}, v); }},
      {"x.index_put_((idx,), v, accumulate=True)", [&] { index_put_(out, {in.at("idx")}, v, true); }},
      {"x[yes, idx] = v", [&] { out.index_put_({in.at("yes"), in.at("idx")}, v); }},
  };
  REQUIRE(calls.count(call_of(c)) == 1);
  calls.at(call_of(c))();
  return out;
}

// The case's call, as the generator spells it.
Tensor run_case(const OpCase& c, const std::map<std::string, Tensor>& in) {
  const auto num = [&](const char* name) { return c.numbers.at(name); };
  const auto dim = [&] { return static_cast<int64_t>(num("dim")); };
  if (c.op == "gather") return gather(in.at("self"), dim(), in.at("index"));
  if (c.op == "scatter") return scatter(in.at("self"), dim(), in.at("index"), in.at("src"));
  if (c.op == "scatter_add") return scatter_add(in.at("self"), dim(), in.at("index"), in.at("src"));
  if (c.op == "scatter_value") return in.at("self").scatter(dim(), in.at("index"), num("value"));
  if (c.op == "masked_fill_tensor") return in.at("self").masked_fill(in.at("mask"), in.at("value"));
  if (c.op == "pow_scalar") {  // an integral base is an int, as the generator's Python number
    const double base = num("base");
    return std::floor(base) == base ? pow(static_cast<int64_t>(base), in.at("exponent")) : pow(base, in.at("exponent"));
  }
  if (c.op == "index_add") return index_add(in.at("self"), dim(), in.at("index"), in.at("source"), num("alpha"));
  if (c.op == "masked_fill") {
    const Tensor& self = in.at("self");
    const Scalar value = is_floating_point(self.dtype()) ? Scalar(num("value"))
                         : self.dtype() == DType::Bool  ? Scalar(num("value") != 0)
                                                        : Scalar(static_cast<int64_t>(num("value")));
    return masked_fill(self, in.at("mask"), value);
  }
  if (c.op == "take_along_dim") {
    if (c.numbers.count("dim")) return take_along_dim(in.at("self"), in.at("indices"), dim());
    return take_along_dim(in.at("self"), in.at("indices"));
  }
  const Tensor& x = in.at("self");
  if (c.op == "index" && in.count("idx")) return advanced_index(c, in);
  if (c.op == "index_put") return advanced_index_put(c, in);
  const std::map<std::string, Tensor> calls = {
      {"x[1]", x[1]},
      {"x[-1]", x[-1]},
      {"x[:, 1]", x.index({Slice(), 1})},
      {"x[1:, None, ...]", x.index({Slice(1), None, Ellipsis})},
      {"x[::2, -1]", x.index({Slice(None, None, 2), -1})},
      {"x[..., 1:4:2]", x.index({"...", Slice(1, 4, 2)})},
      {"x[None, :, 2, None]", x.index({None, Slice(), 2, None})},
      {"x[:2, 3, -2:]", x.index({Slice(None, 2), 3, Slice(-2, None)})},
      {"x[1, 2, 3]", x.index({1, 2, 3})},
      {"x[-10:10]", x.index({Slice(-10, 10)})},
      {"x[..., None]", x.index({Ellipsis, None})},
  };
  REQUIRE(calls.count(c.name) == 1);
  return calls.at(c.name);
}

double rtol_of(const Tensor& t) { return t.dtype() == DType::Float64 ? 1e-12 : 1e-6; }

TEST_CASE("indexing ops: every case matches PyTorch 1.13, values and torch.autograd's gradients") {
  int checked = 0;
  for (const OpCase& c : testing::op_cases("index_cases.json")) {
    if (c.op == "linspace" || c.op == "logspace" || c.op == "eye") continue;
    CAPTURE(c.name);
    std::map<std::string, Tensor> in;
    for (const auto& [name, t] : c.inputs) {
      if (name == "weight") continue;
      in[name] = is_floating_point(t.dtype()) ? t.clone().requires_grad_() : t;
    }
    const Tensor out = run_case(c, in);
    CHECK(out.dtype() == c.expected[0].dtype());
    CHECK_TENSOR_CLOSE(out, c.expected[0], rtol_of(out), 0);
    if (!c.grads.empty()) {
      (out * c.inputs.at("weight")).sum().backward();
      for (const auto& grad : c.grads) {
        const std::string& name = grad.first;
        const Tensor& expected = grad.second;
        CAPTURE(name);
        CHECK_TENSOR_CLOSE(in.at(name).grad(), expected, rtol_of(expected), 1e-7);
      }
    }
    ++checked;
  }
  CHECK(checked == 102);
}

// self as a transposed (non-contiguous) view of a wider buffer.
Tensor strided_copy(const Tensor& x) { return x.t().contiguous().t(); }

TEST_CASE("indexing ops: the in-place forms write through a strided self and equal the out-of-place ones") {
  const Tensor x = arange(0.0, 15.0).reshape({3, 5}).to(kFloat);
  const Tensor idx = tensor({{2, 0, 1}, {1, 2, 0}, {0, 1, 2}});
  const Tensor src = tensor({{1.5, 2.5, 3.5}, {4.5, 5.5, 6.5}, {7.5, 8.5, 9.5}});
  const Tensor mask = tensor({true, false, true, false, false});
  Tensor a = strided_copy(x), b = strided_copy(x), c = strided_copy(x), d = strided_copy(x);
  REQUIRE_FALSE(a.is_contiguous());
  CHECK(&a.scatter_(1, idx, src) == &a);
  CHECK_TENSOR_CLOSE(a, scatter(x, 1, idx, src), 0, 0);
  CHECK(&b.scatter_add_(1, idx, src) == &b);
  CHECK_TENSOR_CLOSE(b, scatter_add(x, 1, idx, src), 0, 0);
  CHECK(&c.index_add_(1, tensor({4, 0, 4}), src, -1.0) == &c);
  CHECK_TENSOR_CLOSE(c, index_add(x, 1, tensor({4, 0, 4}), src, -1.0), 0, 0);
  CHECK(&d.masked_fill_(mask, -7) == &d);
  CHECK_TENSOR_CLOSE(d, masked_fill(x, mask, -7), 0, 0);
  CHECK(d._version() == 1);
}

// A copy of a 3-D tensor laid out last dim first: every stride differs from the contiguous one.
Tensor permuted_copy(const Tensor& x) { return x.permute({2, 0, 1}).contiguous().permute({1, 2, 0}); }

TEST_CASE("indexing ops: large strided operands (gather split over threads, rows that chunks cut) equal a plain loop") {
  // 31 x 41 x 60 = 76,260 elements: more than two threads' grain, and the second chunk starts mid-row. Values are
  // small integers, so every sum is exact in any order.
  manual_seed(3);
  const int64_t a = 31, b = 41, c = 60;
  const Tensor self = permuted_copy(floor(rand({a, b, c}) * 100).to(kDouble));
  const Tensor src = permuted_copy(floor(rand({a, b, c}) * 10).to(kDouble));
  REQUIRE_FALSE(self.is_contiguous());
  const Tensor index = (rand({a, c, b}) * static_cast<double>(c)).to(kLong).transpose(1, 2);  // dim 2 values
  REQUIRE_FALSE(index.is_contiguous());
  const Tensor s = self.contiguous(), x = src.contiguous(), ix = index.contiguous();
  const double *ps = s.data<double>(), *px = x.data<double>();
  const int64_t* pi = ix.data<int64_t>();
  std::vector<double> gathered(static_cast<size_t>(a * b * c)), added(ps, ps + a * b * c);
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k) {
        const int64_t e = (i * b + j) * c + k, v = pi[e];
        gathered[static_cast<size_t>(e)] = ps[(i * b + j) * c + v];
        added[static_cast<size_t>((i * b + j) * c + v)] += px[e];
      }
  CHECK_TENSOR_CLOSE(gather(self, 2, index), from_vector<double>(gathered, {a, b, c}), 0, 0);
  Tensor target = permuted_copy(s);
  target.scatter_add_(2, index, src);
  CHECK_TENSOR_CLOSE(target, from_vector<double>(added, {a, b, c}), 0, 0);

  // index_add_ along the middle dim, with repeats; masked_fill_ with a mask broadcast over the first dim.
  const Tensor rows = tensor({39, 0, 7, 39, 12});
  const Tensor source = floor(rand({a, 5, c}) * 10).to(kDouble);
  std::vector<double> indexed(ps, ps + a * b * c);
  const Tensor so = source.contiguous();
  for (int64_t i = 0; i < a; ++i)
    for (int64_t r = 0; r < 5; ++r)
      for (int64_t k = 0; k < c; ++k)
        indexed[static_cast<size_t>((i * b + rows.data<int64_t>()[r]) * c + k)] += 2 * so.data<double>()[(i * 5 + r) * c + k];
  Tensor into = permuted_copy(s);
  into.index_add_(1, rows, source, 2.0);
  CHECK_TENSOR_CLOSE(into, from_vector<double>(indexed, {a, b, c}), 0, 0);
  const Tensor mask = rand({b, c}) > 0.5;
  Tensor filled = permuted_copy(s);
  filled.masked_fill_(mask, -1.0);
  CHECK_TENSOR_CLOSE(filled, where(mask, full({}, -1.0, kDouble), s), 0, 0);

  // Values outside found by both threads' chunks: the message names the first in index's order; self is untouched.
  Tensor bad = index.contiguous();
  bad.data<int64_t>()[a * b * c - 1] = c + 5;
  bad.data<int64_t>()[a * b * c / 2 + 7] = -2;
  CHECK_THROWS_WITH_AS(gather(self, 2, bad), "index -2 is out of bounds for dimension 2 with size 60", Error);
  const Tensor before = target.clone();
  CHECK_THROWS_WITH_AS(target.scatter_add_(2, bad, src), "index -2 is out of bounds for dimension 2 with size 60", Error);
  CHECK_TENSOR_CLOSE(target, before, 0, 0);
}

TEST_CASE("indexing ops: rank 9 (more dims than a walk keeps inline) equals a plain loop") {
  // Along dim 0 of a contiguous (3, 2, 1, 2, 1, 2, 1, 2, 5): element e of index and src pairs with self's element
  // index[e] * rest + e % rest. Small integers, so sums are exact.
  manual_seed(5);
  const Shape shape{3, 2, 1, 2, 1, 2, 1, 2, 5};
  const int64_t n = numel_of(shape), rest = n / 3;
  const Tensor self = floor(rand(shape) * 100).to(kDouble), src = floor(rand(shape) * 10).to(kDouble);
  const Tensor index = (rand(shape) * 3.0).to(kLong);
  const double *ps = self.data<double>(), *px = src.data<double>();
  const int64_t* pi = index.data<int64_t>();
  std::vector<double> gathered(static_cast<size_t>(n)), added(ps, ps + n);
  for (int64_t e = 0; e < n; ++e) {
    gathered[static_cast<size_t>(e)] = ps[pi[e] * rest + e % rest];
    added[static_cast<size_t>(pi[e] * rest + e % rest)] += px[e];
  }
  CHECK_TENSOR_CLOSE(gather(self, 0, index), from_vector<double>(gathered, shape), 0, 0);
  CHECK_TENSOR_CLOSE(scatter_add(self, 0, index, src), from_vector<double>(added, shape), 0, 0);
  Tensor bad = index.clone();
  bad.data<int64_t>()[n - 2] = 3;
  CHECK_THROWS_WITH_AS(gather(self, 0, bad), "index 3 is out of bounds for dimension 0 with size 3", Error);
}

TEST_CASE("masked_fill_: a dense self of each width keeps its values (NaN too) where the mask is false") {
  manual_seed(7);
  const Tensor mask = rand({1003}) > 0.5;
  const bool* m = mask.data<bool>();
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16, DType::Int64, DType::Int32, DType::Bool}) {
    INFO(dtype);
    Tensor x64 = randn({1003}, DType::Float64) * 4;
    x64.data<double>()[1] = std::numeric_limits<double>::quiet_NaN();
    Tensor x = x64.to(dtype);
    const Tensor before = x.clone();
    x.masked_fill_(mask, dtype == DType::Bool ? 1.0 : -2.0);
    const Tensor got = x.to(DType::Float64), was = before.to(DType::Float64);
    int64_t wrong = 0;
    for (int64_t k = 0; k < 1003; ++k) {
      const double g = got.data<double>()[k], w = m[k] ? (dtype == DType::Bool ? 1.0 : -2.0) : was.data<double>()[k];
      wrong += !(g == w || (std::isnan(g) && std::isnan(w)));
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("embedding_dense_backward: on one thread and split over threads, each row sums in index order") {
  // 60 indices with repeats and padding_idx 4: rows of 10 (one thread) and of 700 (42,000 elements: two threads).
  manual_seed(4);
  const int64_t V = 50, n = 60, padding = 4;
  const Tensor index = (rand({3, n / 3}) * static_cast<double>(V)).to(kLong);
  const int64_t* pi = index.data<int64_t>();
  for (int64_t D : {10, 700}) {
    INFO("embedding_dim ", D);
    const Tensor grad = randn({3, n / 3, D});
    const float* pg = grad.data<float>();
    std::vector<float> want(static_cast<size_t>(V * D), 0.0f);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t d = 0; pi[i] != padding && d < D; ++d) want[static_cast<size_t>(pi[i] * D + d)] += pg[i * D + d];
    CHECK_TENSOR_CLOSE(embedding_dense_backward(grad, index, V, padding, false), from_vector<float>(want, {V, D}), 0,
                       0);
  }
}

TEST_CASE("Tensor::index: views that share storage, and index_put_ writes through them") {
  Tensor x = zeros({2, 3, 4});
  const Tensor column = x.index({Slice(), 1});
  CHECK(column.shape() == Shape{2, 4});
  CHECK(column.data<float>() == x.data<float>() + 4);
  x.index_put_({Slice(), 1}, tensor({1.0, 2.0, 3.0, 4.0}));
  CHECK_TENSOR_CLOSE(x.index({0, 1}), tensor({1.0, 2.0, 3.0, 4.0}), 0, 0);
  CHECK_TENSOR_CLOSE(x.index({1, 1}), tensor({1.0, 2.0, 3.0, 4.0}), 0, 0);
  x.index_put_({"...", -1}, 9);
  CHECK(x.index({1, 2, 3}).item<float>() == 9.0f);
  CHECK(x.index({1, 1, 3}).item<float>() == 9.0f);
  CHECK(x.index({1, 1, 2}).item<float>() == 3.0f);
  const Tensor w = ones({3}).requires_grad_();
  w.index({Slice(1)}).sum().backward();
  CHECK_TENSOR_CLOSE(w.grad(), tensor({0.0, 1.0, 1.0}), 0, 0);
  CHECK(w[1].grad_fn_name() == "SelectBackward0");
}

TEST_CASE("tensor indices: index_put_ writes through a strided self and accumulates repeats") {
  const Tensor x = arange(0.0, 15.0).reshape({3, 5}).to(kFloat);
  Tensor a = strided_copy(x);
  REQUIRE_FALSE(a.is_contiguous());
  a.index_put_({tensor({0, 2}), Slice(1, 3)}, tensor({-1.0, -2.0}));
  Tensor expected = x.clone();
  expected.index_put_({0, Slice(1, 3)}, tensor({-1.0, -2.0}));
  expected.index_put_({2, Slice(1, 3)}, tensor({-1.0, -2.0}));
  CHECK_TENSOR_CLOSE(a, expected, 0, 0);
  CHECK(a._version() == 1);
  Tensor b = zeros({4});
  index_put_(b, {tensor({1, 3, 1, 1})}, tensor({1.0, 2.0, 3.0, 4.0}), true);
  CHECK_TENSOR_CLOSE(b, tensor({0.0, 8.0, 0.0, 2.0}), 0, 0);
  Tensor m = arange(0.0, 6.0).reshape({2, 3}).to(kFloat);
  m.index_put_({m > 2.5}, 0.5);
  CHECK_TENSOR_CLOSE(m, tensor({{0.0, 1.0, 2.0}, {0.5, 0.5, 0.5}}), 0, 0);
  CHECK(x.index({tensor({true, false, true})}).grad_fn_name().empty());
  const Tensor w = ones({3, 2}).requires_grad_();
  CHECK(w.index({tensor({2, 2})}).grad_fn_name() == "IndexBackward0");
}

TEST_CASE("tensor indices: misuse throws PyTorch's message and leaves self as it was") {
  const Tensor x = arange(0.0, 6.0).reshape({2, 3}).to(kFloat);
  Tensor y = x.clone();
  const auto unchanged = [&] { CHECK_TENSOR_CLOSE(y, x, 0, 0); CHECK(y._version() == 0); };
  CHECK_THROWS_WITH_AS(x.index({tensor({{true, false, true}})}),
                       "The shape of the mask [1, 3] at index 0 does not match the shape of the indexed tensor [2, 3] at "
                       "index 0",
                       Error);
  CHECK_THROWS_WITH_AS(x.index({tensor({0, 1}), tensor({0, 1, 2})}),
                       "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]", Error);
  CHECK_THROWS_WITH_AS(x.index({tensor({5})}), "index 5 is out of bounds for dimension 0 with size 2", Error);
  CHECK_THROWS_WITH_AS(x.index({Slice(), tensor({-4})}), "index -4 is out of bounds for dimension 1 with size 3", Error);
  CHECK_THROWS_WITH_AS(x.index({tensor({0.5})}),
                       "tensors used as indices must be long, byte or bool tensors, got torch.float32", Error);
  CHECK_THROWS_WITH_AS(x.index({tensor({0}), tensor({0}), tensor({0})}), "too many indices for tensor of dimension 2",
                       Error);
  CHECK_THROWS_WITH_AS(y.index_put_({tensor({1, 0})}, ones({2})),
                       "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [2, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(y.index_put_({tensor({0}), tensor({7})}, ones({1})),
                       "index 7 is out of bounds for dimension 1 with size 3", Error);
  CHECK_THROWS_WITH_AS(y.index_put_({tensor({0})}, ones({3}, kDouble)),
                       "Index put requires the source and destination dtypes match, got torch.float32 for the "
                       "destination and torch.float64 for the source.",
                       Error);
  Tensor c = arange(0.0, 4.0).to(kFloat);
  CHECK_THROWS_WITH_AS(c.index_put_({tensor({1, 2, 3})}, c.index({Slice(0, 3)})),
                       "index_put_: unsupported operation: some elements of the input tensor and the written-to tensor "
                       "refer to a single memory location. Please clone() the tensor before performing the operation.",
                       Error);
  CHECK_TENSOR_CLOSE(c, arange(0.0, 4.0).to(kFloat), 0, 0);
  unchanged();
}

TEST_CASE("indexing ops: misuse throws PyTorch's message and leaves self as it was") {
  const Tensor x = arange(0.0, 6.0).reshape({2, 3}).to(kFloat);
  Tensor y = x.clone();
  const auto unchanged = [&] { CHECK_TENSOR_CLOSE(y, x, 0, 0); CHECK(y._version() == 0); };
  CHECK_THROWS_WITH_AS(x.gather(1, tensor({{0, 1}}).to(kInt)), "gather(): Expected dtype int64 for index", Error);
  const Tensor scalar = tensor({5.0}).sum();
  CHECK_THROWS_WITH_AS(take_along_dim(scalar, tensor({0}).sum(), 0),
                       "take_along_dim: dimension specified as 0 but tensor has no dimensions", Error);
  CHECK_THROWS_WITH_AS(scalar.unbind(0), "size: dimension specified as 0 but tensor has no dimensions", Error);
  CHECK_THROWS_WITH_AS(x.gather(1, tensor({0, 1})), "Index tensor must have the same number of dimensions as input tensor",
                       Error);
  CHECK_THROWS_WITH_AS(x.gather(1, tensor({{0, 3}})), "index 3 is out of bounds for dimension 1 with size 3", Error);
  CHECK_THROWS_WITH_AS(x.gather(1, tensor({{0, -1}})), "index -1 is out of bounds for dimension 1 with size 3", Error);
  CHECK_THROWS_WITH_AS(zeros({2, 0}).gather(1, tensor({{0}, {0}})), "index 0 is out of bounds for dimension 1 with size 0",
                       Error);  // nothing along dim to read
  CHECK_THROWS_WITH_AS(x.gather(1, tensor({{0, 1}, {0, 1}, {0, 1}})),
                       "Size does not match at dimension 0 expected index [3, 2] to be smaller than self [2, 3] apart "
                       "from dimension 1",
                       Error);
  CHECK_THROWS_WITH_AS(x.gather(2, tensor({{0, 1}})), "gather: dimension out of range (expected to be in range of [-2, 1], but got 2)", Error);
  CHECK_THROWS_WITH_AS(y.scatter_(1, tensor({{0, 1}}), ones({2, 3}, kDouble)),
                       "scatter(): Expected self.dtype to be equal to src.dtype", Error);
  CHECK_THROWS_WITH_AS(y.scatter_(1, tensor({{0, 5}}), ones({2, 3})), "index 5 is out of bounds for dimension 1 with size 3",
                       Error);
  unchanged();
  // self written while index or src read it (both are read in place): refused before the kernel, as PyTorch does.
  const char* shared = "scatter_add_: unsupported operation: some elements of the input tensor and the written-to "
                       "tensor refer to a single memory location. Please clone() the tensor before performing the "
                       "operation.";
  CHECK_THROWS_WITH_AS(y.scatter_add_(1, tensor({{0, 1, 2}, {2, 1, 0}}), y), shared, Error);
  Tensor positions = tensor({{1, 0, 2}});
  CHECK_THROWS_WITH_AS(positions.scatter_(1, positions, tensor({{5, 6, 7}})),
                       "scatter_: unsupported operation: some elements of the input tensor and the written-to tensor "
                       "refer to a single memory location. Please clone() the tensor before performing the operation.",
                       Error);
  CHECK(positions.eq(tensor({{1, 0, 2}})).all().item<bool>());
  CHECK_THROWS_WITH_AS(y.expand({2, 2, 3}).scatter_(0, zeros({1, 2, 3}, kLong), ones({1, 2, 3})),
                       "scatter_: unsupported operation: more than one element of the written-to tensor refers to a "
                       "single memory location. Please clone() the tensor before performing the operation.",
                       Error);
  CHECK_THROWS_WITH_AS(y.scatter_add_(1, tensor({{0, 1, 2}}), ones({1, 2})),
                       "Expected index [1, 3] to be smaller than self [2, 3] apart from dimension 1 and to be smaller "
                       "size than src [1, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tensor({0, 1, 1}), ones({2, 3})),
                       "index_add_(): Number of indices (3) should be equal to source.size(dim): (2), for dim: 0", Error);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tensor({0, 2}), ones({2, 3})), "index out of range in self", Error);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tensor({0, 1}), ones({2, 2})),
                       "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0", Error);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tensor({{0, 1}}), ones({2, 3})),
                       "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: torch.int64 and size: "
                       "[1, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(y.index_add_(0, tensor({0, 1}), ones({2, 3}, kDouble)),
                       "index_add_(): self (torch.float32) and source (torch.float64) must have the same scalar type",
                       Error);
  unchanged();
  CHECK_THROWS_WITH_AS(y.masked_fill_(tensor({1.0, 0.0, 1.0}), 1.0),
                       "masked_fill_ only supports boolean masks, but got mask with dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(y.masked_fill_(tensor({true, false}), 1.0),
                       "masked_fill_: shapes [2, 3] and [2] cannot be broadcast (size 3 vs 2 at dimension 1)",
                       Error);
  CHECK_THROWS_WITH_AS(y.masked_fill_(tensor({{true}, {false}, {true}}), 1.0),
                       "masked_fill_: shapes [2, 3] and [3, 1] cannot be broadcast (size 2 vs 3 at dimension 0)",
                       Error);
  unchanged();
  CHECK_THROWS_WITH_AS(take_along_dim(x, tensor({{0, 1}}).to(kInt), 1),
                       "torch.take_along_dim(): dtype of indices should be Long but got torch.int32", Error);
  CHECK_THROWS_WITH_AS(take_along_dim(x, tensor({{{0, 1}}}), 1),
                       "torch.take_along_dim(): input and indices should have the same number of dimensions, but got 2 "
                       "dimensions for input, and 3 dimensions for indices",
                       Error);
  CHECK_THROWS_WITH_AS(x[5], "index 5 is out of bounds for dimension 0 with size 2", Error);  // Python's x[5]
  CHECK_THROWS_WITH_AS(x.index({1, 2, 3}), "too many indices for tensor of dimension 2", Error);
  CHECK_THROWS_WITH_AS(x.index({"...", Ellipsis}), "An index can only have a single ellipsis ('...')", Error);
  CHECK_THROWS_WITH_AS(x.index({Slice(None, None, 0)}), "step must be greater than zero", Error);
  CHECK_THROWS_WITH_AS(x.index({0, 7}), "index 7 is out of bounds for dimension 1 with size 3", Error);
  CHECK_THROWS_WITH_AS(x.index({"..,"}), "Expected \"...\" to represent an ellipsis index, but got \"..,\"", Error);
  CHECK_THROWS_WITH_AS(scalar_tensor(1.0, kFloat)[0],
                       "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
                       "convert a 0-dim tensor to a number",
                       Error);
  CHECK_THROWS_WITH_AS(y.index_put_({Slice(), 1}, ones({3})),
                       "copy_: shapes [2] and [3] cannot be broadcast (size 2 vs 3 at dimension 0)",
                       Error);
  unchanged();
}

}  // namespace
}  // namespace tl
