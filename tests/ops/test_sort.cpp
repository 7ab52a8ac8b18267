// tests/ops/test_sort.cpp — sort, argsort, topk, kthvalue, cumsum, cumprod, var / std (and their _mean),
// vector norms, any / all, baddbmm, outer, unique and einsum against PyTorch 1.13 (tests/ops/data/sort_cases.json,
// written by gen_sort_cases.py): values, NaN placement, stable indices (also of the float radix sort), the
// default (unstable) sort's, topk's and kthvalue's indices of ties, gradients by torch.autograd (cumprod through
// zeros, var with n <= correction, norms at ties and zeros, einsum's operands); their error messages and
// torch.return_types.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "autograd/engine.h"
#include "ops/ops.h"
#include "tests/ops/loss_cases.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::element_at;
using testing::OpCase;

const std::vector<OpCase>& cases() {
  static const std::vector<OpCase>& all = testing::op_cases("sort_cases.json");
  return all;
}

std::optional<Shape> dims_of(const OpCase& c) {
  if (!c.lists.count("dim")) return std::nullopt;
  return Shape(c.lists.at("dim"));
}

TensorList pair(const auto& r) { return {r.values, r.indices}; }
TensorList tuple_list(const std::tuple<Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }
TensorList tuple_list(const std::tuple<Tensor, Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t), std::get<2>(t)}; }

// einsum's operands: self, then the inputs t1, t2, ...
std::vector<Tensor> operands_of(const OpCase& c, const Tensor& self) {
  std::vector<Tensor> out{self};
  for (size_t i = 1; c.inputs.count("t" + std::to_string(i)); ++i) out.push_back(c.inputs.at("t" + std::to_string(i)));
  return out;
}

// The case's op on `self` (its other inputs from the case), through the public C++ API.
TensorList run(const OpCase& c, const Tensor& self, const std::string& op) {
  const auto num = [&](const char* name) { return static_cast<int64_t>(c.numbers.at(name)); };
  const auto flag = [&](const char* name) { return c.numbers.at(name) != 0; };
  const auto correction = [&]() -> std::optional<int64_t> {
    if (!c.numbers.count("correction")) return std::nullopt;
    return num("correction");
  };
  const std::optional<DType> dtype =
      c.dtype.empty() ? std::nullopt : std::optional(c.dtype == "float64" ? DType::Float64 : DType::Float32);
  const std::optional<Shape> dims = dims_of(c);
  if (op == "sort") return pair(self.sort(num("dim"), flag("descending")));
  if (op == "argsort") return {argsort(self, num("dim"), flag("descending"))};
  if (op == "topk") return pair(topk(self, num("k"), num("dim"), flag("largest")));
  if (op == "kthvalue") return pair(self.kthvalue(num("k"), num("dim"), flag("keepdim")));
  if (op == "cumsum") return {self.cumsum(num("dim"), dtype)};
  if (op == "cumprod") return {cumprod(self, num("dim"), dtype)};
  if (op == "var") return {dims ? var(self, *dims, flag("unbiased"), flag("keepdim"), correction()) : self.var()};
  if (op == "std") return {dims ? self.std(*dims, flag("unbiased"), flag("keepdim"), correction()) : tl::std(self)};
  if (op == "var_mean") return tuple_list(var_mean(self, *dims, flag("unbiased"), flag("keepdim"), correction()));
  if (op == "std_mean") return tuple_list(std_mean(self));
  const Scalar ord(c.numbers.count("ord") ? c.numbers.at("ord") : 2.0);
  if (op == "linalg_vector_norm")
    return {dims ? linalg_vector_norm(self, ord, *dims, flag("keepdim"), dtype) : linalg_vector_norm(self, ord, {}, false, dtype)};
  if (op == "norm") return {self.norm(ord, *dims, flag("keepdim"))};
  if (op == "any") return {c.numbers.count("dim") ? self.any(num("dim"), flag("keepdim")) : any(self)};
  if (op == "all") return {c.numbers.count("dim") ? all(self, num("dim"), flag("keepdim")) : self.all()};
  if (op == "baddbmm")
    return {baddbmm(self, c.inputs.at("batch1"), c.inputs.at("batch2"), c.numbers.at("beta"), c.numbers.at("alpha"))};
  if (op == "outer") return {self.outer(c.inputs.at("vec2"))};
  if (op == "_unique2") return tuple_list(_unique2(self, flag("sorted"), flag("return_inverse"), flag("return_counts")));
  if (op == "unique_dim")
    return tuple_list(unique_dim(self, num("dim"), flag("sorted"), flag("return_inverse"), flag("return_counts")));
  if (op == "unique_consecutive")
    return tuple_list(c.numbers.count("dim") ? unique_consecutive(self, flag("return_inverse"), flag("return_counts"), num("dim"))
                                              : unique_consecutive(self, flag("return_inverse"), flag("return_counts")));
  if (op == "einsum") return {einsum(c.strings.at("equation"), operands_of(c, self))};
  if (op == "var:bool") return {self.var(flag("unbiased"))};
  if (op == "std:bool") return {tl::std(self, flag("unbiased"))};
  if (op == "var_mean:bool") return tuple_list(var_mean(self, flag("unbiased")));
  if (op == "std_mean:bool") return tuple_list(std_mean(self, flag("unbiased")));
  throw std::runtime_error("sort_cases.json: no call for op " + op);
}

double rtol_for(const Tensor& t) { return t.dtype() == DType::Float64 ? 1e-10 : 1e-5; }

// With ties PyTorch's topk / kthvalue indices are unspecified: each of ours must select its value along dim.
void check_indices_select_values(const OpCase& c, const Tensor& values, const Tensor& indices) {
  const Tensor& self = c.inputs.at("self");
  const int64_t rank = self.dim(), dim = static_cast<int64_t>(c.numbers.at("dim"));
  const int64_t d = dim < 0 ? dim + rank : dim;
  Tensor idx = indices, vals = values;
  if (c.numbers.count("keepdim") && c.numbers.at("keepdim") == 0) {
    idx = idx.unsqueeze(d);
    vals = vals.unsqueeze(d);
  }
  int64_t inner = 1;
  for (int64_t k = d + 1; k < rank; ++k) inner *= self.size(k);
  const int64_t m = idx.size(d), n = self.size(d);
  for (int64_t flat = 0; flat < idx.numel(); ++flat) {
    const int64_t outer = flat / (m * inner), i = flat % inner;
    const int64_t at = static_cast<int64_t>(element_at(idx, flat));
    REQUIRE(at >= 0);
    REQUIRE(at < n);
    CHECK(element_at(self, outer * n * inner + at * inner + i) == element_at(vals, flat));
  }
}

TEST_CASE("sorting, scans, moments, norms, any / all, baddbmm and outer give PyTorch 1.13's values") {
  int checked = 0;
  for (const OpCase& c : cases()) {
    if (c.op.rfind("grad:", 0) == 0) continue;
    CAPTURE(c.name);
    const TensorList got = run(c, c.inputs.at("self"), c.op);
    REQUIRE(got.size() == c.expected.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].dtype() == c.expected[i].dtype());
      if (c.ties && i == 1) continue;  // the indices: checked below
      const double rtol = rtol_for(c.expected[i]);
      CHECK_TENSOR_CLOSE(got[i], c.expected[i], rtol, rtol / 10);
    }
    if (c.ties) check_indices_select_values(c, got[0], got[1]);
    ++checked;
  }
  CHECK(checked > 150);
}

TEST_CASE("the gradients of cumsum, cumprod, var, std, norms, sort, topk and kthvalue are torch.autograd's") {
  int checked = 0;
  for (const OpCase& c : cases()) {
    if (c.op.rfind("grad:", 0) != 0) continue;
    CAPTURE(c.name);
    const Tensor x = c.inputs.at("self").clone().requires_grad_();
    const Tensor out = run(c, x, c.op.substr(5)).at(0);
    (out * c.inputs.at("weight")).sum().backward();
    REQUIRE(x.grad().defined());
    CHECK_TENSOR_CLOSE(x.grad(), c.expected.at(0), 1e-10, 1e-12);
    ++checked;
  }
  CHECK(checked >= 19);
}

TEST_CASE("einsum's gradients are torch.autograd's, through the ops it decomposes into") {
  int checked = 0;
  for (const OpCase& c : cases()) {
    if (c.op != "einsum" || c.grads.empty()) continue;
    CAPTURE(c.name);
    std::vector<Tensor> leaves = operands_of(c, c.inputs.at("self"));
    for (Tensor& t : leaves) t = t.clone().requires_grad_();
    (einsum(c.strings.at("equation"), leaves) * c.inputs.at("weight")).sum().backward();
    for (size_t i = 0; i < leaves.size(); ++i) {
      const std::string name = i == 0 ? "self" : "t" + std::to_string(i);
      CAPTURE(name);
      REQUIRE(leaves[i].grad().defined());
      CHECK_TENSOR_CLOSE(leaves[i].grad(), c.grads.at(name), 1e-10, 1e-12);
    }
    ++checked;
  }
  CHECK(checked >= 25);
}

TEST_CASE("x.var(false) is LibTorch's var(bool unbiased), an int stays a dim") {
  const Tensor x = from_vector<float>({1, 2, 4, 8, 3, 5}, {2, 3});
  // A bool converting to dim 0 would give a (3,) result: the template overload takes bool alone.
  CHECK(x.var(false).dim() == 0);
  CHECK(equal(x.var(false), x.var({}, false)));
  CHECK(equal(tl::std(x, true), x.std({}, true)));
  CHECK(equal(x.var(0), x.var(0, true)));
  CHECK(x.var(0).shape() == Shape{3});
  CHECK(x.std(1).shape() == Shape{2});
  CHECK(equal(std::get<0>(var_mean(x, false)), x.var(false)));
}

TEST_CASE("unique: every NaN is a value of its own, last, counted once") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = from_vector<float>({2, nan, 1, nan, 2}, {5});
  const auto [values, inverse, counts] = _unique2(x, true, true, true);
  REQUIRE(values.shape() == Shape{4});
  CHECK(equal(values.slice(0, 0, 2), from_vector<float>({1, 2}, {2})));
  CHECK(std::isnan(values.select(0, 2).item<float>()));
  CHECK(std::isnan(values.select(0, 3).item<float>()));
  CHECK(equal(inverse, from_vector<int64_t>({1, 2, 0, 3, 1}, {5})));
  CHECK(equal(counts, from_vector<int64_t>({1, 2, 1, 1}, {4})));
  // sorted=false comes back sorted too (PyTorch leaves that order unspecified)
  CHECK(equal(std::get<0>(_unique2(from_vector<int64_t>({3, 1, 3}, {3}), false)), from_vector<int64_t>({1, 3}, {2})));
}

TEST_CASE("misuse of unique and einsum throws PyTorch's message and changes nothing") {
  const Tensor x = from_vector<float>({3, 1, 2, 5, 4, 0}, {2, 3});
  const Tensor before = x.clone();
  CHECK_THROWS_WITH_AS(unique_dim(x, 2), "unique_dim: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       Error);
  CHECK_THROWS_WITH_AS(unique_dim(from_vector<float>({3}, {}), 0),
                       "unique_dim: Dimension specified as 0 but tensor has no dimensions", Error);
  CHECK_THROWS_WITH_AS(unique_dim(zeros({0, 2}), 1),
                       "unique_dim: There are 0 sized dimensions, and they aren't selected, so unique cannot be applied",
                       Error);
  CHECK_THROWS_WITH_AS(unique_dim(zeros({0, 0}), 0),
                       "unique_dim: Number of zero sized dimensions is more than one, so unique cannot be applied", Error);
  CHECK_THROWS_WITH_AS(unique_consecutive(zeros({2, 0}), true, true, 0),
                       "unique_consecutive: There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                       "applied",
                       Error);
  const Tensor leaf = x.clone().requires_grad_();
  const Tensor values = std::get<0>(_unique2(leaf));
  CHECK(values.requires_grad());
  CHECK_THROWS_WITH_AS(values.sum().backward(), "the derivative for 'aten::_unique2' is not implemented", Error);

  const Tensor a = ones({2, 3}), b = ones({4, 5}), sq = ones({2, 3});
  CHECK_THROWS_WITH_AS(einsum("ij,jk", {a}), "einsum(): fewer operands were provided than specified in the equation",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("i->", {a, a}), "einsum(): more operands were provided than specified in the equation",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("ij", std::vector<Tensor>{}), "einsum(): must provide at least one operand", Error);
  CHECK_THROWS_WITH_AS(einsum("ij->k", {a}),
                       "einsum(): output subscript k does not appear in the equation for any input operand", Error);
  CHECK_THROWS_WITH_AS(einsum("i->ii", {ones({2})}), "einsum(): output subscript i appears more than once in the output",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("ij", {ones({2, 3, 4})}),
                       "einsum(): the number of subscripts in the equation (2) does not match the number of dimensions "
                       "(3) for operand 0 and no ellipsis was given",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("...ij->...ji", {ones({1})}),
                       "einsum(): the number of subscripts in the equation (2) is more than the number of dimensions (1) "
                       "for operand 0",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("ij,jk->ik", {a, b}),
                       "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("ii->i", {sq}), "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("ij->i->j", {ones({2, 2})}),
                       "einsum(): invalid subscript given at index 5 in the equation string, subscripts must be in [a-zA-Z]",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("i1->i", {ones({2, 2})}),
                       "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("i.j->ij", {ones({2, 2})}), "einsum(): found '.' for operand 0 that is not part of any ellipsis",
                       Error);
  CHECK_THROWS_WITH_AS(einsum("......->", {ones({1})}),
                       "einsum(): found '.' for operand 0 for which an ellipsis was already found", Error);
  CHECK_THROWS_WITH_AS(einsum("i...->...i...", {ones({1})}),
                       "einsum(): found '.' for output but an ellipsis (...) was already found", Error);
  CHECK_THROWS_WITH_AS(einsum("...i,...i", {ones({2, 3}), ones({4, 3})}),
                       "einsum(): dimension 0 covered by ellipsis in operand 1 has size 4 which does not broadcast with "
                       "previously seen ellipsis with size 2 for the respective dimension",
                       Error);
  const Tensor ints = from_vector<int64_t>({1, 2, 3, 4}, {2, 2});
  CHECK_THROWS_WITH_AS(einsum("ij,jk->ik", {ints, ints}), "bmm: expected float32, float64 or bfloat16 operands, got torch.int64",
                       Error);
  CHECK(equal(einsum("ij->ji", {ints}), ints.t()));  // no contraction, no bmm
  CHECK(equal(x, before));
}

TEST_CASE("ties: a short lane (16 or fewer) sorts stably in both directions, topk returns indices of its values") {
  const Tensor x = from_vector<float>({2, 1, 2, 1, 2}, {5});
  const auto [values, indices] = x.sort(0, true);
  CHECK(equal(indices, from_vector<int64_t>({0, 2, 4, 1, 3}, {5})));
  CHECK(equal(values, from_vector<float>({2, 2, 2, 1, 1}, {5})));
  CHECK(equal(argsort(x), from_vector<int64_t>({1, 3, 0, 2, 4}, {5})));
  const auto top = x.topk(2);
  CHECK(equal(top.values, from_vector<float>({2, 2}, {2})));
  CHECK(equal(x.index_select(0, top.indices), top.values));
  CHECK(top.indices.select(0, 0).item<int64_t>() != top.indices.select(0, 1).item<int64_t>());
}

// Values (j * 37) % mod for j < n (ties everywhere), NaN at j = 5, 5 + nan_every, ... when nan_every is not 0.
Tensor tied_values(int64_t n, int64_t mod, int64_t nan_every) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j)
    v[static_cast<size_t>(j)] = nan_every != 0 && j >= 5 && (j - 5) % nan_every == 0
                                    ? std::numeric_limits<float>::quiet_NaN()
                                    : static_cast<float>((j * 37) % mod);
  return from_vector<float>(v, {n});
}

TEST_CASE("topk: the indices of ties and NaNs are PyTorch 1.13's, by partial sort (k * 64 <= n) or nth_element") {
  struct TopkCase {
    int64_t n, mod, nan_every, k;
    bool largest, sorted;
    std::vector<int64_t> indices;  // torch.topk(tied_values(n, mod, nan_every), k, 0, largest, sorted).indices
  };
  const TopkCase cases[] = {
      {69, 3, 0, 3, true, true, {47, 20, 50}},
      {69, 3, 0, 3, false, true, {48, 21, 51}},
      {69, 3, 0, 5, true, false, {50, 23, 47, 20, 44}},
      {200, 3, 0, 3, true, true, {8, 5, 2}},
      {200, 3, 41, 3, true, true, {87, 5, 46}},
      {200, 3, 41, 3, false, true, {6, 3, 0}},
      {1000, 17, 0, 8, true, true, {45, 28, 113, 96, 62, 130, 79, 11}},
      {1000, 17, 0, 8, false, true, {34, 51, 102, 85, 0, 119, 68, 17}},
      {1000, 17, 97, 8, true, false, {393, 296, 587, 490, 5, 684, 199, 102}},
      {1000, 17, 97, 20, false, true,
       {51, 782, 391, 680, 221, 850, 663, 425, 340, 646, 119, 867, 136, 255, 884, 442, 612, 901, 323, 748}},
  };
  for (const TopkCase& c : cases) {
    INFO("n ", c.n, " mod ", c.mod, " nan_every ", c.nan_every, " k ", c.k, " largest ", c.largest, " sorted ",
         c.sorted);
    const Tensor x = tied_values(c.n, c.mod, c.nan_every);
    const auto [values, indices] = x.topk(c.k, 0, c.largest, c.sorted);
    CHECK(equal(indices, from_vector<int64_t>(c.indices, {c.k})));
    CHECK(equal(values.isnan(), x.index_select(0, indices).isnan()));
    CHECK(equal(values.nan_to_num(), x.index_select(0, indices).nan_to_num()));
  }
  // Strided lanes: x.t() of a (150, 3), along its rows (the partial sort) and its columns (nth_element).
  const Tensor x = tied_values(450, 5, 0).reshape({150, 3}).t();
  CHECK(equal(x.topk(2, 1).indices, from_vector<int64_t>({9, 4, 7, 2, 5, 0}, {3, 2})));
  CHECK(equal(x.topk(2, 0).indices.slice(1, 0, 8),
              from_vector<int64_t>({2, 1, 1, 0, 0, 2, 1, 1, 1, 0, 0, 2, 2, 1, 0, 0}, {2, 8})));
}

TEST_CASE("kthvalue: the indices of ties and NaNs are PyTorch 1.13's (ATen's quick select)") {
  struct KthCase {
    int64_t n, mod, nan_every, k, index;  // index: torch.kthvalue(tied_values(n, mod, nan_every), k, 0).indices
  };
  const KthCase cases[] = {
      {69, 3, 0, 1, 21},       {69, 3, 0, 35, 34},        {69, 3, 0, 69, 68},
      {200, 3, 41, 100, 124},  {200, 3, 41, 199, 46},     {1000, 17, 0, 500, 796},
      {1000, 17, 97, 3, 493},  {1000, 17, 97, 500, 303},  {1000, 17, 97, 995, 684},
  };
  for (const KthCase& c : cases) {
    INFO("n ", c.n, " mod ", c.mod, " nan_every ", c.nan_every, " k ", c.k);
    const Tensor x = tied_values(c.n, c.mod, c.nan_every);
    for (const Tensor& in : {x, x.to(DType::Float64)}) {
      const auto [value, index] = in.kthvalue(c.k);
      CHECK(index.item<int64_t>() == c.index);
      CHECK(equal(value.isnan(), in.select(0, c.index).isnan()));
      CHECK(equal(value.nan_to_num(), in.select(0, c.index).nan_to_num()));
    }
  }
  // Strided lanes: x.t() of a (150, 3), along its rows and its columns.
  const Tensor x = tied_values(450, 5, 0).reshape({150, 3}).t();
  CHECK(equal(x.kthvalue(75, 1).indices, from_vector<int64_t>({32, 20, 133}, {3})));
  CHECK(equal(x.kthvalue(2, 0).indices.slice(0, 0, 8), from_vector<int64_t>({1, 0, 0, 2, 2, 1, 0, 0}, {8})));
}

// stable=False is std::sort with PyTorch's order, as PyTorch 1.13's CPU sort: in a lane of more than 16 values,
// ties come out in the order introsort's partitions leave them. The indices are torch.sort(tied_values(...)) 's.
TEST_CASE("sort(stable=False): the indices of ties and NaNs are PyTorch 1.13's, in both directions") {
  struct SortCase {
    int64_t n, mod, nan_every;
    bool descending;
    std::vector<int64_t> first;  // the first indices of torch.sort(tied_values(n, mod, nan_every), 0, descending)
  };
  const SortCase cases[] = {
      {40, 3, 0, false, {0, 21, 18, 24, 15, 27, 12, 30, 9, 33, 6, 36, 3, 39, 31, 34, 28, 37, 25, 22,
                         1, 19, 16, 4, 13, 7, 10, 2, 20, 38, 5, 35, 8, 32, 11, 29, 14, 26, 17, 23}},
      {40, 3, 0, true, {29, 20, 17, 23, 14, 26, 11, 8, 32, 5, 35, 2, 38, 31, 1, 34, 28, 25, 37, 22,
                        16, 13, 4, 10, 19, 7, 30, 39, 0, 3, 36, 6, 33, 9, 12, 27, 15, 24, 18, 21}},
      {300, 7, 41, false, {56, 91, 84, 217, 77, 70, 231, 63, 238, 203, 245, 49, 252, 42, 259, 35, 266, 224, 98, 196}},
      {300, 7, 41, true, {251, 169, 5, 210, 292, 46, 87, 128, 45, 206, 101, 255, 269, 199, 108, 262, 38, 115, 192, 52}},
  };
  for (const SortCase& c : cases) {
    INFO("n ", c.n, " mod ", c.mod, " nan_every ", c.nan_every, " descending ", c.descending);
    const Tensor x = tied_values(c.n, c.mod, c.nan_every);
    const auto first = static_cast<int64_t>(c.first.size());
    for (const Tensor& in : {x, x.to(DType::Float64)}) {
      const auto [values, indices] = in.sort(0, c.descending);
      CHECK(equal(indices.slice(0, 0, first), from_vector<int64_t>(c.first, {first})));
      CHECK(equal(argsort(in, 0, c.descending).slice(0, 0, first), from_vector<int64_t>(c.first, {first})));
      CHECK(equal(values.isnan(), in.index_select(0, indices).isnan()));
      CHECK(equal(values.nan_to_num(), in.index_select(0, indices).nan_to_num()));
    }
  }
}

TEST_CASE("sort(stable=True): float32 lanes from 256 (a radix sort) equal a stable sort, on ties, -0.0, NaN, inf") {
  // (300, 3): lanes of 300 along dim 0 (strided) and, transposed and copied, along dim 1 (contiguous).
  manual_seed(6);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = floor(randn({300, 3}) * 3);
  float* p = x.data<float>();
  const float specials[] = {-0.0f, 0.0f, nan, -nan, inf, -inf, 1e-40f, -3.0f};
  for (int64_t e = 0; e < x.numel(); e += 5) p[e] = specials[(e / 5) % 8];
  for (bool descending : {false, true})
    for (int64_t dim : {0, 1}) {
      INFO("descending ", descending, " dim ", dim);
      const Tensor in = dim == 0 ? x : x.t().contiguous();
      const auto [values, indices] = in.sort(dim, descending, true);
      const Tensor lanes = dim == 0 ? in.t().contiguous() : in;  // (3, 300), a lane per row
      const Tensor got = dim == 0 ? indices.t().contiguous() : indices;
      for (int64_t r = 0; r < 3; ++r) {
        const float* lane = lanes.data<float>() + r * 300;
        std::vector<int64_t> want(300);
        for (int64_t j = 0; j < 300; ++j) want[static_cast<size_t>(j)] = j;
        const auto less = [](float a, float b) { return std::isnan(a) ? false : std::isnan(b) || a < b; };
        std::stable_sort(want.begin(), want.end(), [&](int64_t a, int64_t b) {
          return descending ? less(lane[b], lane[a]) : less(lane[a], lane[b]);
        });
        CHECK(equal(got.select(0, r), from_vector<int64_t>(want, {300})));
      }
      const Tensor picked = dim == 0 ? in.gather(0, indices) : in.gather(1, indices);
      // The values are the elements the indices name, bit for bit (-0.0 and each NaN's sign where they were).
      const Tensor v = values.contiguous(), w = picked.contiguous();
      CHECK(std::memcmp(v.data<float>(), w.data<float>(), sizeof(float) * 900) == 0);
    }
}

TEST_CASE("values+indices ops return torch.return_types, printed as PyTorch prints them") {
  const Tensor x = from_vector<float>({3, 1, 2}, {3});
  std::ostringstream sort_text, topk_text, kth_text;
  sort_text << sort(x);
  topk_text << topk(x, 1);
  kth_text << kthvalue(x, 1);
  CHECK(sort_text.str() == "torch.return_types.sort(\nvalues=tensor([1., 2., 3.]),\nindices=tensor([1, 2, 0]))");
  CHECK(topk_text.str() == "torch.return_types.topk(\nvalues=tensor([3.]),\nindices=tensor([0]))");
  CHECK(kth_text.str() == "torch.return_types.kthvalue(\nvalues=tensor(1.),\nindices=tensor(1))");
  auto [values, indices] = x.kthvalue(2);
  CHECK(values.item<float>() == 2.0f);
  CHECK(indices.item<int64_t>() == 2);
}

TEST_CASE("misuse of sorting, scans, moments and norms throws PyTorch's message and changes nothing") {
  const Tensor x = from_vector<float>({3, 1, 2, 5, 4, 0}, {2, 3});
  const Tensor before = x.clone();
  CHECK_THROWS_WITH_AS(topk(x, 4), "topk: selected index k out of range (k = 4, dimension 1 has size 3)", Error);
  CHECK_THROWS_WITH_AS(x.topk(-1), "topk: selected index k out of range (k = -1, dimension 1 has size 3)", Error);
  CHECK_THROWS_WITH_AS(topk(x, 1, 2), "topk: dimension out of range (expected to be in range of [-2, 1], but got 2)",
                       Error);
  CHECK_THROWS_WITH_AS(topk(x.gt(1.0), 1), "topk: not implemented for torch.bool", Error);
  CHECK_THROWS_WITH_AS(kthvalue(x, 0), "kthvalue(): selected number k out of range for dimension 1 (k = 0, size 3)",
                       Error);
  CHECK_THROWS_WITH_AS(x.kthvalue(4), "kthvalue(): selected number k out of range for dimension 1 (k = 4, size 3)",
                       Error);
  CHECK_THROWS_WITH_AS(kthvalue(zeros({0, 3}), 1, 0), "kthvalue(): Expected reduction dim 0 to have non-zero size",
                       Error);
  CHECK_THROWS_WITH_AS(x.sort(2), "sort: dimension out of range (expected to be in range of [-2, 1], but got 2)", Error);
  CHECK_THROWS_WITH_AS(cumsum(x, -3), "cumsum: dimension out of range (expected to be in range of [-2, 1], but got -3)",
                       Error);
  CHECK_THROWS_WITH_AS(x.any(2), "any: dimension out of range (expected to be in range of [-2, 1], but got 2)", Error);
  const Tensor ints = from_vector<int64_t>({1, 2}, {2});
  CHECK_THROWS_WITH_AS(var(ints), "std and var only support floating point and complex dtypes, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(ints.std(), "std and var only support floating point and complex dtypes, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(linalg_vector_norm(ints),
                       "linalg.vector_norm: Expected a floating point or complex tensor as input. Got torch.int64", Error);
  CHECK_THROWS_WITH_AS(ints.norm(), "norm(): input dtype should be either floating point or complex. Got torch.int64 instead",
                       Error);
  const double inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(linalg_vector_norm(zeros({0}), inf),
                       "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not "
                       "have an identity",
                       Error);
  CHECK_THROWS_WITH_AS(linalg_vector_norm(zeros({2, 0}), -inf, 1),
                       "linalg.vector_norm cannot compute the -inf norm on the dimension 1 because this dimension is "
                       "empty and the operation does not have an identity",
                       Error);
  CHECK_THROWS_WITH_AS(outer(x, x.select(0, 0)), "outer: Expected 1-D argument self, but got 2-D", Error);
  const Tensor b = zeros({2, 2, 2});
  CHECK_THROWS_WITH_AS(baddbmm(b, x, b), "baddbmm: batch1 must be a 3D tensor, got size [2, 3]", Error);
  CHECK_THROWS_WITH_AS(baddbmm(b, zeros({3, 2, 2}), b),
                       "baddbmm: Expected size for first two dimensions of batch2 tensor to be: [3, 2] but got: [2, 2]",
                       Error);
  CHECK_THROWS_WITH_AS(baddbmm(zeros({3, 2}), b, b),
                       "baddbmm: self of size [3, 2] cannot be broadcast to the product's size [2, 2, 2]", Error);
  CHECK_THROWS_WITH_AS(value_selecting_reduction_backward(ones({2, 1}), 1, from_vector<int64_t>({0, 3}, {2, 1}),
                                                         {2, 3}, true),
                       "value_selecting_reduction_backward: index 3 is out of bounds for dimension 1 with size 3", Error);
  CHECK(equal(x, before));
}

}  // namespace
}  // namespace tl
