// ops/aten_tree.cpp — the table of ATen's op trees (ops/aten_tree.h): one row per op that records child
// scopes, each a description of PyTorch 1.13's CPU tree for that call (tests/reference/op_tree_*.txt).
#include "ops/aten_tree.h"

#include <array>

#include "core/op_args.h"
#include "core/op_kind.h"
#include "ops/elementwise.h"
#include "ops/reduce_plan.h"

namespace tl::detail {

void to_children(AtenTree& t, const TensorType& from, DType dtype) {
  t.open("aten::to", [&] { return ScopeArgs{from, AttrValue(dtype), AttrValue(false), AttrValue(false), AttrValue{}}; });
  if (from.dtype != dtype) {
    t.open("aten::_to_copy", [&] {
      return ScopeArgs{from, AttrValue(dtype), AttrValue{}, AttrValue{}, AttrValue{}, AttrValue(false), AttrValue{}};
    });
    t.leaf("aten::copy_", [&] { return ScopeArgs{TensorType{from.sizes, dtype}, from, AttrValue(false)}; });
    t.close();
  }
  t.close();
}

void fill_leaf(AtenTree& t, const TensorType& out, const std::optional<Scalar>& value) {
  if (!value) {
    t.leaf("aten::zero_", [&] { return ScopeArgs{out}; });
    return;
  }
  t.leaf("aten::fill_", [&] {
    return ScopeArgs{out, value->is_floating_point() ? AttrValue(value->to<double>()) : AttrValue(value->to<int64_t>())};
  });
}

void sum_children(AtenTree& t, const TensorType& x, const TensorType& out, bool keepdim, const Shape& filled) {
  if (!keepdim) t.leaf("aten::as_strided", [&] { return ScopeArgs{out, AttrValue{}, AttrValue{}, AttrValue{}}; });
  if (x.dtype != out.dtype) to_children(t, x, out.dtype);
  t.leaf("aten::fill_", [&] { return ScopeArgs{TensorType{filled, out.dtype}, AttrValue(int64_t{0})}; });
}

void scalar_div_children(AtenTree& t, const TensorType& self, const AttrValue& divisor) {
  t.open("aten::div_", [&] { return ScopeArgs{self, divisor}; });
  t.open("aten::div_", [&] { return ScopeArgs{self, divisor}; });
  const DType number = std::holds_alternative<int64_t>(divisor) ? DType::Int64 : DType::Float64;
  if (number != self.dtype) to_children(t, TensorType{{}, number}, self.dtype);
  t.close();
  t.close();
}

namespace {

using Inputs = std::span<const Tensor>;

TensorType type_of(const Tensor& x) { return {x.shape(), x.dtype()}; }

// The tensor input `i` of a call, or an undefined one where the caller passed none (a number instead).
Tensor input(Inputs in, size_t i) { return i < in.size() ? in[i] : Tensor{}; }

// ---- views ----

// The view each of ATen's view ops (permute, select, expand, ...) makes with as_strided inside itself.
void as_strided_view(const Tensor& self, AtenTree& t) {
  if (!t.work()) return;
  t.leaf("aten::as_strided", [&] {
    return ScopeArgs{self, AttrValue(t.result().shape()), AttrValue(t.result().strides()), AttrValue{}};
  });
}

template <typename Args>
void strided_view(Inputs in, const Args&, AtenTree& t) {
  as_strided_view(in[0], t);
}

// ATen's t() is transpose(0, 1) (transpose(0, 0) below two dimensions).
void t_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor& self = in[0];
  t.open("aten::transpose", [&] { return ScopeArgs{self, AttrValue(int64_t{0}), AttrValue(int64_t{self.dim() < 2 ? 0 : 1})}; });
  as_strided_view(self, t);
  t.close();
}

// ATen's reshape (and flatten): _reshape_alias where a view can express the result, else a clone (the
// kernel's, dispatched) viewed through _unsafe_view; nothing when the result is self itself.
template <typename Args>
void reshape_(Inputs in, const Args&, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work()) return;
  const Tensor& out = t.result();
  if (out.is_same(self)) return;
  if (out.storage() == self.storage()) {
    t.leaf("aten::_reshape_alias", [&] { return ScopeArgs{self, AttrValue(out.shape()), AttrValue(out.strides())}; });
    return;
  }
  t.leaf("aten::_unsafe_view", [&] { return ScopeArgs{TensorType{self.shape(), self.dtype()}, AttrValue(out.shape())}; });
}

// ---- copies ----

// ATen's clone copies into the result it allocated with copy_.
void clone_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work()) return;
  t.leaf("aten::copy_", [&] { return ScopeArgs{t.result(), self, AttrValue(false)}; });
}

// ATen's to: nothing when self already has the dtype (and no copy is asked), else _to_copy (the kernel's
// work), which copies into its result with copy_.
void to_(Inputs in, const ToArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (self.dtype() == a.dtype && !a.copy) return;
  t.open("aten::_to_copy", [&] {
    return ScopeArgs{self, AttrValue(a.dtype), AttrValue{}, AttrValue{}, AttrValue{}, AttrValue(false), AttrValue{}};
  });
  if (!t.work()) return;
  t.leaf("aten::copy_", [&] { return ScopeArgs{t.result(), self, AttrValue(false)}; });
}

// ---- factories ----

// ATen's factories fill the `empty` they made (a kernel allocation, not recorded) in place: zeros with
// zero_, ones and full with fill_, rand and randn with uniform_(0, 1) and normal_(0, 1).
void zeros_(Inputs, const ZerosArgs& a, AtenTree& t) {
  if (t.work()) fill_leaf(t, {a.size, a.dtype}, std::nullopt);
}
void ones_(Inputs, const OnesArgs& a, AtenTree& t) {
  if (t.work()) fill_leaf(t, {a.size, a.dtype}, Scalar(int64_t{1}));
}
void full_(Inputs, const FullArgs& a, AtenTree& t) {
  if (t.work()) fill_leaf(t, {a.size, a.dtype}, a.fill_value);
}

template <typename Args>
void random_(const char* fill, const Args& a, AtenTree& t) {
  if (!t.work()) return;
  t.leaf(fill, [&] { return ScopeArgs{TensorType{a.size, a.dtype}, AttrValue(0.0), AttrValue(1.0), AttrValue{}}; });
}
void rand_(Inputs, const RandArgs& a, AtenTree& t) { random_("aten::uniform_", a, t); }
void randn_(Inputs, const RandnArgs& a, AtenTree& t) { random_("aten::normal_", a, t); }

// ATen's arange runs arange.start_out into an empty result it then resizes (a kernel allocation).
void arange_(Inputs, const ArangeArgs& a, AtenTree& t) {
  t.open("aten::arange", [&] { return ScopeArgs{box(a.start), box(a.end), box(a.step), TensorType{Shape{0}, a.dtype}}; });
}

// ---- pointwise ----

// ATen's rsub is sub(other, self), recorded with a number wrapped in a 0-d tensor and sub's alpha.
void rsub_(Inputs in, const RsubArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  const Tensor other = input(in, 1);
  t.open("aten::sub", [&] {
    if (other.defined() || !a.other) return ScopeArgs{other, self, AttrValue(int64_t{1})};
    return ScopeArgs{TensorType{Shape{}, wrapped_number_dtype(*a.other)}, self, AttrValue(int64_t{1})};
  });
}

// ---- reductions ----

// The keepdim-shaped sizes ATen's sum and mean fill and reduce into: self's, with the reduced dims 1.
template <typename Args>
Shape filled_sizes(const Tensor& self, const Args& a, const char* op) {
  return reduced_shape(self.shape(), reduced_dims(self, a.dim, op), true);
}

// ATen's sum: the dimless overload runs sum.dim_IntList (torchless's schema has one sum; ATen has both);
// sum_children describe the reduction's view, conversion and accumulator.
void sum_(Inputs in, const SumArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (!a.dim) t.open("aten::sum", [&] { return ScopeArgs{self, AttrValue{}, AttrValue(false), box(a.dtype)}; });
  if (!t.work()) return;
  sum_children(t, type_of(self), type_of(t.result()), a.keepdim, filled_sizes(self, a, "sum"));
}

// ATen's mean.dim (under the dimless overload's mean): sum into the result (sum.IntList_out, with
// sum_children), then an in-place division by the element count. torchless divides inside its reduction,
// which runs in mean.dim.
void mean_(Inputs in, const MeanArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (!a.dim) t.open("aten::mean", [&] { return ScopeArgs{self, AttrValue{}, AttrValue(false), box(a.dtype)}; });
  if (!t.work()) return;
  const TensorType out = type_of(t.result());
  t.open("aten::sum", [&] { return ScopeArgs{self, box(a.dim), AttrValue(a.keepdim), AttrValue{}, out}; });
  sum_children(t, type_of(self), out, a.keepdim, filled_sizes(self, a, "mean"));
  t.close();
  const int64_t n = t.result().numel() > 0 ? self.numel() / t.result().numel() : 0;
  scalar_div_children(t, out, AttrValue(n));
}

// ---- convolution ----

// ATen's conv2d: convolution -> _convolution -> (float32 and bfloat16, with work to do) mkldnn_convolution,
// in which the kernel's work runs. An unbatched input runs as a batch of one: unsqueeze(0) before,
// squeeze(0) after. The row reads only dims that exist: the kernel has not checked the call yet.
void conv2d_(Inputs in, const Conv2dArgs& a, AtenTree& t) {
  const Tensor &self = in[0], &weight = in[1];
  const Tensor bias = input(in, 2);
  if (self.dim() != 3 && self.dim() != 4) return;
  const bool unbatched = self.dim() == 3;
  Shape batched = self.shape();
  if (unbatched) {
    batched.insert(0, 1);
    t.open("aten::unsqueeze", [&] { return ScopeArgs{self, AttrValue(int64_t{0})}; });
    t.leaf("aten::as_strided", [&] { return ScopeArgs{self, AttrValue{}, AttrValue{}, AttrValue{}}; });
    t.close();
  }
  const TensorType x{batched, self.dtype()};
  const auto convolution_args = [&] {
    return ScopeArgs{x, weight, bias, box(a.stride), box(a.padding), box(a.dilation), AttrValue(false),
                     AttrValue(Shape{0, 0}), AttrValue(a.groups)};
  };
  t.open("aten::convolution", convolution_args);
  t.open("aten::_convolution", [&] {
    ScopeArgs args = convolution_args();
    for (bool flag : {false, false, true, true}) args.emplace_back(AttrValue(flag));  // benchmark ... allow_tf32
    return args;
  });
  const bool onednn = self.dtype() != DType::Float64 && weight.dim() == 4 && batched[0] > 0 && batched[1] > 0 &&
                      weight.size(0) > 0;
  if (onednn) {
    t.open("aten::mkldnn_convolution", [&] {
      return ScopeArgs{x, weight, bias, box(a.padding), box(a.stride), box(a.dilation), AttrValue(a.groups)};
    });
  }
  if (!t.work()) return;
  if (onednn) t.close();
  t.close();
  t.close();
  if (!unbatched) return;
  TensorType out{t.result().shape(), t.result().dtype()};
  out.sizes.insert(0, 1);
  t.open("aten::squeeze", [&] { return ScopeArgs{out, AttrValue(int64_t{0})}; });
  t.leaf("aten::as_strided", [&] { return ScopeArgs{out, AttrValue{}, AttrValue{}, AttrValue{}}; });
  t.close();
}

// ---- the table ----

using Row = void (*)(const OpCall& call, AtenTree& t);

template <OpKind Op>
using RowFn = void (*)(Inputs inputs, const ArgsOf<Op>& args, AtenTree& t);

template <OpKind Op, RowFn<Op> Fn>
void typed(const OpCall& call, AtenTree& t) {
  Fn(call.inputs, *static_cast<const ArgsOf<Op>*>(call.args), t);
}

template <OpKind Op, RowFn<Op> Fn>
constexpr void add(std::array<Row, kNumOps>& rows) {
  rows[static_cast<size_t>(Op)] = &typed<Op, Fn>;
}

constexpr std::array<Row, kNumOps> kRows = [] {
  std::array<Row, kNumOps> rows{};
  add<OpKind::Permute, strided_view>(rows);
  add<OpKind::Transpose, strided_view>(rows);
  add<OpKind::Slice, strided_view>(rows);
  add<OpKind::Select, strided_view>(rows);
  add<OpKind::Expand, strided_view>(rows);
  add<OpKind::Squeeze, strided_view>(rows);
  add<OpKind::Unsqueeze, strided_view>(rows);
  add<OpKind::T, t_>(rows);
  add<OpKind::Reshape, reshape_>(rows);
  add<OpKind::Flatten, reshape_>(rows);
  add<OpKind::Clone, clone_>(rows);
  add<OpKind::To, to_>(rows);
  add<OpKind::Rsub, rsub_>(rows);
  add<OpKind::Sum, sum_>(rows);
  add<OpKind::Mean, mean_>(rows);
  add<OpKind::Conv2d, conv2d_>(rows);
  add<OpKind::Zeros, zeros_>(rows);
  add<OpKind::Ones, ones_>(rows);
  add<OpKind::Full, full_>(rows);
  add<OpKind::Rand, rand_>(rows);
  add<OpKind::Randn, randn_>(rows);
  add<OpKind::Arange, arange_>(rows);
  return rows;
}();

}  // namespace

bool has_aten_tree(OpKind op) { return kRows[static_cast<size_t>(op)] != nullptr; }

void emit_aten_tree(const OpCall& call, const TensorList* outputs, ScopeObserver& observer, std::vector<uint64_t>& open) {
  AtenTree t(observer, outputs, open);
  kRows[static_cast<size_t>(call.op)](call, t);
}

}  // namespace tl::detail
