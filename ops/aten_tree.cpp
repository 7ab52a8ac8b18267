// ops/aten_tree.cpp — the table of ATen's op trees (ops/aten_tree.h): one row per op that records child
// scopes, each a description of PyTorch 1.13's CPU tree for that call (tests/reference/op_tree_*.txt).
#include "ops/aten_tree.h"

#include <array>

#include "core/op_args.h"
#include "core/op_kind.h"
#include "ops/conv.h"
#include "ops/elementwise.h"
#include "ops/matmul_plan.h"
#include "ops/memory_format.h"
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

void reshape_children(AtenTree& t, const TensorType& x, const Shape& size, bool view) {
  t.open("aten::reshape", [&] { return ScopeArgs{x, AttrValue(size)}; });
  if (view) {
    t.leaf("aten::_reshape_alias", [&] { return ScopeArgs{x, AttrValue(size), AttrValue{}}; });
  } else {
    t.open("aten::clone", [&] { return ScopeArgs{x, AttrValue{}}; });
    t.leaf("aten::copy_", [&] { return ScopeArgs{x, x, AttrValue(false)}; });
    t.close();
    t.leaf("aten::_unsafe_view", [&] { return ScopeArgs{x, AttrValue(size)}; });
  }
  t.close();
}

namespace {

// ATen's expand_outplace: both operands expanded to `shape` when their shapes differ, nothing otherwise.
void expand_outplace_children(AtenTree& t, const Tensor& a, const Tensor& b, const Shape& shape) {
  if (a.shape() == b.shape()) return;
  for (const Tensor* x : {&a, &b}) {
    t.open("aten::expand", [&] { return ScopeArgs{*x, AttrValue(shape), AttrValue(false)}; });
    t.leaf("aten::as_strided", [&] { return ScopeArgs{*x, AttrValue{}, AttrValue{}, AttrValue{}}; });
    t.close();
  }
}

}  // namespace

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

void mean_children(AtenTree& t, const TensorType& x, const AttrValue& dim, bool keepdim, const TensorType& out,
                   const Shape& filled, int64_t n) {
  t.open("aten::sum", [&] { return ScopeArgs{x, dim, AttrValue(keepdim), AttrValue{}, out}; });
  sum_children(t, x, out, keepdim, filled);
  t.close();
  scalar_div_children(t, out, AttrValue(n));
}

namespace {

using Inputs = std::span<const Tensor>;

TensorType type_of(const Tensor& x) { return {x.shape(), x.dtype()}; }

// The tensor input `i` of a call, or an undefined one where the caller passed none (a number instead).
Tensor input(Inputs in, size_t i) { return i < in.size() ? in[i] : Tensor{}; }

// Tensor::contiguous of a tensor that is not (in the format asked for): contiguous -> clone -> copy_.
void contiguous_children(AtenTree& t, const Tensor& x) {
  t.open("aten::contiguous", [&] { return ScopeArgs{x, AttrValue{}}; });
  t.open("aten::clone", [&] { return ScopeArgs{x, AttrValue{}}; });
  t.leaf("aten::copy_", [&] { return ScopeArgs{type_of(x), x, AttrValue(false)}; });
  t.close();
  t.close();
}

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

// ---- joins ----

// ATen's stack: below the last dim, cat along dim then a view that splits it; at the last dim, a cat of
// the inputs unsqueezed (unsqueeze -> as_strided each). The kernel's work runs in cat.
void stack_(Inputs in, const StackArgs& a, AtenTree& t) {
  if (in.empty() || !in[0].defined()) return;
  const int64_t rank = in[0].dim() + 1, dim = a.dim < 0 ? a.dim + rank : a.dim;
  if (dim < 0 || dim >= rank) return;
  const bool split = dim < in[0].dim();
  if (!split) {
    for (const Tensor& x : in) {
      t.open("aten::unsqueeze", [&] { return ScopeArgs{x, AttrValue(dim)}; });
      t.leaf("aten::as_strided", [&] { return ScopeArgs{x, AttrValue{}, AttrValue{}, AttrValue{}}; });
      t.close();
    }
  }
  t.open("aten::cat", [&] { return ScopeArgs{AttrValue{}, AttrValue(dim)}; });
  if (!t.work()) return;
  t.close();
  if (!split) return;
  Shape joined = in[0].shape();
  joined[dim] *= static_cast<int64_t>(in.size());
  t.leaf("aten::view", [&] { return ScopeArgs{TensorType{joined, t.result().dtype()}, AttrValue(t.result().shape())}; });
}

// ---- copies ----

// ATen's clone copies into the result it allocated with copy_.
void clone_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work()) return;
  t.leaf("aten::copy_", [&] { return ScopeArgs{t.result(), self, AttrValue(false)}; });
}

// ATen's out-of-place scatter and scatter_add copy self into their result, then write it in place.
template <typename Args>
void scatter_copy(Inputs in, const Args&, AtenTree& t) { clone_(in, NoArgs{}, t); }

// ATen's masked_fill: self and mask expanded to one shape when they differ (expand_outplace),
// self cloned, then masked_fill_ on the clone.
void masked_fill_tree(Inputs in, const MaskedFillArgs& a, AtenTree& t) {
  const Tensor &self = in[0], &mask = in[1];
  if (!t.work()) return;
  const Shape shape = broadcast_shapes(self.shape(), mask.shape(), "masked_fill");
  expand_outplace_children(t, self, mask, shape);
  const TensorType cloned{shape, self.dtype()};
  t.open("aten::clone", [&] { return ScopeArgs{cloned, AttrValue{}}; });
  t.leaf("aten::copy_", [&] { return ScopeArgs{cloned, cloned, AttrValue(false)}; });
  t.close();
  t.leaf("aten::masked_fill_", [&] {
    return ScopeArgs{cloned, mask, a.value.is_floating_point() ? AttrValue(a.value.to<double>()) : AttrValue(a.value.to<int64_t>())};
  });
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
// The *_like factories: ATen's empty_like (a kernel allocation, not recorded here), then the same fill.
void zeros_like_(Inputs in, const ZerosLikeArgs& a, AtenTree& t) {
  if (t.work()) fill_leaf(t, {in[0].shape(), a.dtype.value_or(in[0].dtype())}, std::nullopt);
}
void ones_like_(Inputs in, const OnesLikeArgs& a, AtenTree& t) {
  if (t.work()) fill_leaf(t, {in[0].shape(), a.dtype.value_or(in[0].dtype())}, Scalar(int64_t{1}));
}
void full_like_(Inputs in, const FullLikeArgs& a, AtenTree& t) {
  if (t.work()) fill_leaf(t, {in[0].shape(), a.dtype.value_or(in[0].dtype())}, a.fill_value);
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

// What ATen's TensorIterator records converting a binary op's operands to the dtype it computes in (their
// result type; float32 for a true division of integers): a number operand's 0-d tensor converted (Wrapped),
// or, for pow's Tensor_Scalar (AsIs), result_type and self's to; then the to of each tensor operand of
// another dtype, self first; and an in-place op that computed wider than self copies its result back.
// How ATen takes a number operand: wrapped in a 0-d tensor of its own dtype, which TensorIterator then
// converts to the result type (add, mul, compare, ...), or as it is, with self converted by `to` to the
// result type first (pow's Tensor_Scalar overload).
enum class NumberOperand : uint8_t { Wrapped, AsIs };
struct BinaryRule {
  NumberOperand number = NumberOperand::Wrapped;
  bool true_divide = false;
  bool inplace = false;
};

void binary_children(AtenTree& t, const Tensor& self, const Tensor& other, const std::optional<Scalar>& number,
                     const BinaryRule& rule) {
  const DType result = other.defined() ? result_type(std::initializer_list<Tensor>{self, other})
                                       : result_type(std::span<const Tensor>(&self, 1), std::span<const Scalar>(&*number, 1));
  const DType compute = rule.true_divide && !is_floating_point(result) ? DType::Float32 : result;
  if (!other.defined()) {
    const DType wrapped = wrapped_number_dtype(*number);
    if (rule.number == NumberOperand::AsIs) {
      t.leaf("aten::result_type", [&] { return ScopeArgs{self, box(*number)}; });
      to_children(t, type_of(self), result);
    } else if (wrapped != result) {
      to_children(t, TensorType{{}, wrapped}, result);
    }
  }
  if (self.dtype() != compute) to_children(t, type_of(self), compute);
  if (other.defined() && other.dtype() != compute) to_children(t, type_of(other), compute);
  if (rule.inplace && compute != self.dtype())
    t.leaf("aten::copy_", [&] { return ScopeArgs{self, TensorType{self.shape(), compute}, AttrValue(false)}; });
}

// A binary op's row: its operand conversions, after its kernel. `Number` is the field that holds a number
// given for the second operand (x + 2).
template <typename Args, std::optional<Scalar> Args::*Number, BinaryRule Rule>
void binary_(Inputs in, const Args& a, AtenTree& t) {
  if (t.work()) binary_children(t, in[0], input(in, 1), a.*Number, Rule);
}

// ATen's rsub is sub(other, self), recorded with a number wrapped in a 0-d tensor and sub's alpha; sub
// converts the operands.
void rsub_(Inputs in, const RsubArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  const Tensor other = input(in, 1);
  t.open("aten::sub", [&] {
    if (other.defined() || !a.other) return ScopeArgs{other, self, AttrValue(int64_t{1})};
    return ScopeArgs{TensorType{Shape{}, wrapped_number_dtype(*a.other)}, self, AttrValue(int64_t{1})};
  });
  if (t.work()) binary_children(t, self, other, a.other, {});
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
  const int64_t n = t.result().numel() > 0 ? self.numel() / t.result().numel() : 0;
  mean_children(t, type_of(self), box(a.dim), a.keepdim, type_of(t.result()), filled_sizes(self, a, "mean"), n);
}

// ---- convolution ----

// A view op's scope with its as_strided: unsqueeze / squeeze of `of` at `dim`.
void view_leaf(AtenTree& t, const char* name, const TensorType& of, int64_t dim) {
  t.open(name, [&] { return ScopeArgs{of, AttrValue(dim)}; });
  t.leaf("aten::as_strided", [&] { return ScopeArgs{of, AttrValue{}, AttrValue{}, AttrValue{}}; });
  t.close();
}

// What differs between ATen's convolutions: the window's arguments as the call boxes them and the spatial
// rank.
struct ConvCall {
  int64_t spatial;
  AttrValue stride, padding, dilation, output_padding;
  int64_t groups;
};

// ATen's conv1d and conv2d: convolution -> _convolution -> (float32 and bfloat16, with work to do)
// mkldnn_convolution, in which the kernel's work runs.
// An unbatched input runs as a batch of one: unsqueeze(0) before, squeeze(0) after; _convolution views a
// 1-d input and weight as 2-d (unsqueeze(2)) and its result back (squeeze(2)). The row reads only dims that
// exist: the kernel has not checked the call yet.
void convolution_tree(Inputs in, const ConvCall& c, AtenTree& t) {
  const Tensor &self = in[0], &weight = in[1];
  const Tensor bias = input(in, 2);
  if (self.dim() != c.spatial + 1 && self.dim() != c.spatial + 2) return;
  const bool unbatched = self.dim() == c.spatial + 1;
  Shape batched = self.shape();
  if (unbatched) {
    batched.insert(0, 1);
    view_leaf(t, "aten::unsqueeze", type_of(self), 0);
  }
  const TensorType x{batched, self.dtype()};
  const auto convolution_args = [&] {
    return ScopeArgs{x, weight, bias, c.stride, c.padding, c.dilation, AttrValue(false), c.output_padding,
                     AttrValue(c.groups)};
  };
  t.open("aten::convolution", convolution_args);
  t.open("aten::_convolution", [&] {
    ScopeArgs args = convolution_args();
    for (bool flag : {false, false, true, true}) args.emplace_back(AttrValue(flag));  // benchmark ... allow_tf32
    return args;
  });
  const bool viewed = c.spatial == 1 && weight.dim() == 3;
  TensorType x2 = x, w2 = type_of(weight);
  if (viewed) {
    view_leaf(t, "aten::unsqueeze", x, 2);
    view_leaf(t, "aten::unsqueeze", w2, 2);
    x2.sizes.insert(2, 1);
    w2.sizes.insert(2, 1);
  }
  const bool onednn = self.dtype() != DType::Float64 && w2.sizes.size() == 4 && batched[0] > 0 &&
                      batched[1] > 0 && w2.sizes[0] > 0;
  if (onednn && !unbatched && !viewed) {
    // _convolution makes input and weight contiguous in the memory format of its result (ops/conv.h).
    const bool channels_last = kernels::conv_channels_last(self, weight);
    for (const Tensor* operand : {&self, &weight})
      if (!(channels_last ? is_channels_last_contiguous(*operand) : operand->is_contiguous()))
        contiguous_children(t, *operand);
  }
  if (onednn) {
    t.open("aten::mkldnn_convolution", [&] {
      return ScopeArgs{x2, w2, bias, c.padding, c.stride, c.dilation, AttrValue(c.groups)};
    });
  }
  if (!t.work()) return;
  if (onednn) t.close();
  TensorType out{t.result().shape(), t.result().dtype()};
  if (unbatched) out.sizes.insert(0, 1);
  if (viewed) {
    TensorType out2 = out;
    out2.sizes.insert(2, 1);
    view_leaf(t, "aten::squeeze", out2, 2);
  }
  t.close();
  t.close();
  if (unbatched) view_leaf(t, "aten::squeeze", out, 0);
}

void conv2d_(Inputs in, const Conv2dArgs& a, AtenTree& t) {
  convolution_tree(in, {2, box(a.stride), box(a.padding), box(a.dilation), AttrValue(Shape{0, 0}), a.groups}, t);
}

void conv1d_(Inputs in, const Conv1dArgs& a, AtenTree& t) {
  convolution_tree(in, {1, box(a.stride), box(a.padding), box(a.dilation), AttrValue(Shape{0}), a.groups}, t);
}


// ATen's max() and min() fill a 0-d result with the value they found; with a dim and without keepdim they
// reduce into their results unsqueezed at dim (unsqueeze_ of values and indices), then squeeze them back.
template <typename Args>
void extreme(Inputs in, const Args& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work()) return;
  const Tensor& values = t.result();
  if (!a.dim) {
    t.leaf("aten::fill_", [&] { return ScopeArgs{type_of(values), AttrValue{}}; });
    return;
  }
  if (a.keepdim || self.dim() == 0) return;
  Shape kept = self.shape();
  kept[wrap_dim(*a.dim, self.dim(), "max")] = 1;
  for (const auto& step : {std::pair{"aten::unsqueeze_", values.shape()}, std::pair{"aten::squeeze_", kept}}) {
    const Shape& sizes = step.second;
    for (const DType dtype : {values.dtype(), DType::Int64})
      t.leaf(step.first, [&] { return ScopeArgs{TensorType{sizes, dtype}, AttrValue(*a.dim)}; });
  }
}

// ATen's argmax() and argmin() reduce self reshaped to 1-D; without keepdim they view their result through
// as_strided.
template <typename Args>
void arg_extreme(Inputs in, const Args& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work()) return;
  if (!a.dim) {
    std::vector<ReduceDim> dims;
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back({self.size(d), self.stride(d)});
    reshape_children(t, type_of(self), Shape{-1}, coalesce(dims).size() == 1);
  }
  if (!a.keepdim && self.dim() > 0)
    t.leaf("aten::as_strided", [&] { return ScopeArgs{t.result(), AttrValue{}, AttrValue{}, AttrValue{}}; });
}

// ATen's mse_loss and smooth_l1_loss reduce the elementwise loss (of self's shape) into their 0-d result with
// mean.out (sum, then div_) or sum.out; torchless reduces in one pass, so both come after it.
template <typename Args>
void out_reduced_loss(Inputs in, const Args& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work() || a.reduction == 0) return;
  const TensorType out = type_of(t.result()), x = type_of(self);
  const Shape filled(static_cast<size_t>(self.dim()), 1);
  t.open(a.reduction == 1 ? "aten::mean" : "aten::sum",
         [&] { return ScopeArgs{self, AttrValue{}, AttrValue(false), AttrValue{}, out}; });
  if (a.reduction == 1) mean_children(t, x, AttrValue{}, false, out, filled, self.numel());
  else sum_children(t, x, out, false, filled);
  t.close();
}

// ATen's binary_cross_entropy squeezes its result, self and target (views) before its loop; the weight's
// mul_ and the reduction run as ops of their own inside the kernel, and a reduced loss is written back
// into the result tensor (resize_as_, copy_).
void binary_cross_entropy_(Inputs in, const BinaryCrossEntropyArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  for (int k = 0; k < 3; ++k) {
    t.open("aten::squeeze", [&] { return ScopeArgs{self}; });
    t.leaf("aten::as_strided", [&] { return ScopeArgs{self, AttrValue{}, AttrValue{}, AttrValue{}}; });
    t.close();
  }
  if (!t.work() || a.reduction == 0) return;
  t.leaf("aten::resize_as_", [&] { return ScopeArgs{self, t.result(), AttrValue{}}; });
  t.leaf("aten::copy_", [&] { return ScopeArgs{t.result(), t.result(), AttrValue(false)}; });
}

// A number operand of ATen's C++ (pos_weight - 1, log_weight.add_(1)): the Scalar overload runs the Tensor
// one, which converts the number's 0-d tensor.
void scalar_operand_op(AtenTree& t, const char* name, const Tensor& self, int64_t number, bool inplace) {
  const auto args = [&] { return ScopeArgs{self, AttrValue(number), AttrValue(int64_t{1})}; };
  t.open(name, args);
  t.open(name, args);
  binary_children(t, self, Tensor{}, Scalar(number), BinaryRule{.inplace = inplace});
  t.close();
  t.close();
}

// ATen's binary_cross_entropy_with_logits is a dozen ops on self-shaped tensors (x: self, target, weight and
// pos_weight as given), then the weight's mul_ and mean() or sum(); torchless computes them in one loop.
void binary_cross_entropy_with_logits_(Inputs in, const BinaryCrossEntropyWithLogitsArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  const Tensor weight = input(in, 2), pos_weight = input(in, 3);
  if (!t.work()) return;
  const TensorType x = type_of(self);
  const auto unary = [&](const char* name) { t.leaf(name, [&] { return ScopeArgs{x}; }); };
  const auto with_x = [&](const char* name, bool alpha) {
    t.leaf(name, [&] { return alpha ? ScopeArgs{x, x, AttrValue(int64_t{1})} : ScopeArgs{x, x}; });
  };
  unary("aten::neg");
  t.leaf("aten::clamp_min_", [&] { return ScopeArgs{x, AttrValue(int64_t{0})}; });
  if (pos_weight.defined()) {
    scalar_operand_op(t, "aten::sub", pos_weight, 1, false);
    t.leaf("aten::mul", [&] { return ScopeArgs{pos_weight, x}; });
    scalar_operand_op(t, "aten::add_", self, 1, true);  // log_weight, of self's shape and dtype
  }
  t.leaf("aten::fill_", [&] { return ScopeArgs{x, AttrValue(int64_t{1})}; });
  with_x("aten::sub_", true);
  with_x("aten::mul_", false);
  if (!pos_weight.defined()) with_x("aten::add_", true);
  unary("aten::neg");
  unary("aten::exp_");
  unary("aten::neg");
  with_x("aten::sub", true);
  unary("aten::exp_");
  with_x("aten::add_", true);
  unary("aten::log_");
  with_x("aten::add_", true);
  if (pos_weight.defined()) {
    with_x("aten::mul_", false);
    with_x("aten::add_", true);
  }
  if (weight.defined()) t.leaf("aten::mul_", [&] { return ScopeArgs{x, weight}; });
  if (a.reduction == 0) return;
  const TensorType out = type_of(t.result());
  const Shape filled(static_cast<size_t>(self.dim()), 1);
  const char* name = a.reduction == 1 ? "aten::mean" : "aten::sum";
  t.open(name, [&] { return ScopeArgs{x, AttrValue{}}; });
  t.open(name, [&] { return ScopeArgs{x, AttrValue{}, AttrValue(false), AttrValue{}}; });
  if (a.reduction == 1) mean_children(t, x, AttrValue{}, false, out, filled, self.numel());
  else sum_children(t, x, out, false, filled);
  t.close();
  t.close();
}

// ---- indexing ----

// ATen's masked_select expands operands of two shapes, counts the mask with sum (of its bools as int64) and
// item, sizes its non-empty result (as_strided) and, when it expanded, copies the mask dense first.
void masked_select_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor &self = in[0], &mask = in[1];
  if (!t.work()) return;
  const Shape broadcast = broadcast_shapes(self.shape(), mask.shape(), "masked_select");
  const bool expand = self.shape() != mask.shape();
  expand_outplace_children(t, self, mask, broadcast);
  const TensorType flags{broadcast, DType::Bool}, count{{}, DType::Int64};
  t.open("aten::sum", [&] { return ScopeArgs{flags, AttrValue{}}; });
  t.open("aten::sum", [&] { return ScopeArgs{flags, AttrValue{}, AttrValue(false), AttrValue{}}; });
  sum_children(t, flags, count, false, Shape(broadcast.size(), 1));
  t.close();
  t.close();
  t.open("aten::item", [&] { return ScopeArgs{count}; });
  t.leaf("aten::_local_scalar_dense", [&] { return ScopeArgs{count}; });
  t.close();
  if (t.result().numel() == 0) return;
  t.leaf("aten::as_strided", [&] { return ScopeArgs{t.result(), AttrValue{}, AttrValue{}, AttrValue{}}; });
  if (expand) t.leaf("aten::copy_", [&] { return ScopeArgs{flags, flags, AttrValue(false)}; });
}

// ---- products ----

// What ATen's addmm_impl_cpu_ records before its gemm: resolve_conj of the result, then of each operand it
// hands to BLAS as it is (a row-major one, `*_rows`; a column-major one goes transposed, unresolved), mat2
// first.
void gemm_conj_leaves(AtenTree& t, const ScopeArg& out, const ScopeArg& mat1, bool mat1_rows, const ScopeArg& mat2,
                      bool mat2_rows) {
  t.leaf("aten::resolve_conj", [&] { return ScopeArgs{out}; });
  if (mat2_rows) t.leaf("aten::resolve_conj", [&] { return ScopeArgs{mat2}; });
  if (mat1_rows) t.leaf("aten::resolve_conj", [&] { return ScopeArgs{mat1}; });
}
void gemm_conj_leaves(AtenTree& t, const TensorType& out, const Tensor& mat1, const Tensor& mat2) {
  gemm_conj_leaves(t, out, mat1, mat1.stride(1) == 1, mat2, mat2.stride(1) == 1);
}

// ATen's select of batch entry i of a (B, r, c) tensor, as_strided inside.
void select_leaves(AtenTree& t, const ScopeArg& x, int64_t i) {
  t.open("aten::select", [&] { return ScopeArgs{x, AttrValue(int64_t{0}), AttrValue(i)}; });
  t.leaf("aten::as_strided", [&] { return ScopeArgs{x, AttrValue{}, AttrValue{}, AttrValue{}}; });
  t.close();
}

// What ATen's bmm records before its products: resolve_conj of both operands, then, for products of 400
// multiply-adds or more, per batch entry the select of the result, mat2 and self and gemm_conj_leaves of
// those matrices.
void bmm_leaves(AtenTree& t, const Tensor& self, const Tensor& mat2) {
  t.leaf("aten::resolve_conj", [&] { return ScopeArgs{mat2}; });
  t.leaf("aten::resolve_conj", [&] { return ScopeArgs{self}; });
  const int64_t batches = self.size(0), m = self.size(1), k = self.size(2), n = mat2.size(2);
  if (m * k * n < 400) return;
  const TensorType out{{batches, m, n}, self.dtype()};
  for (int64_t i = 0; i < batches; ++i) {
    select_leaves(t, out, i);
    select_leaves(t, mat2, i);
    select_leaves(t, self, i);
    gemm_conj_leaves(t, TensorType{{m, n}, self.dtype()}, TensorType{{m, k}, self.dtype()}, self.stride(2) == 1,
                     TensorType{{k, n}, mat2.dtype()}, mat2.stride(2) == 1);
  }
}

// What ATen's mv records: addmv_ into its (m) result.
void mv_leaf(AtenTree& t, const Tensor& mat, const Tensor& vec) {
  t.leaf("aten::addmv_", [&] {
    return ScopeArgs{TensorType{{mat.size(0)}, mat.dtype()}, mat, vec, AttrValue(int64_t{0}), AttrValue(int64_t{1})};
  });
}

void mm_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor &self = in[0], &mat2 = in[1];
  if (self.dim() != 2 || mat2.dim() != 2) return;
  gemm_conj_leaves(t, {{self.size(0), mat2.size(1)}, self.dtype()}, self, mat2);
}

void bmm_(Inputs in, const NoArgs&, AtenTree& t) {
  if (in[0].dim() == 3 && in[1].dim() == 3) bmm_leaves(t, in[0], in[1]);
}

// ATen's addmm expands self to the product's size (a view), copies it into the result (beta == 0 never
// reads self) and resolves the conjugate bits before its gemm.
void addmm_(Inputs in, const AddmmArgs& a, AtenTree& t) {
  const Tensor &self = in[0], &mat1 = in[1], &mat2 = in[2];
  if (!self.defined() || mat1.dim() != 2 || mat2.dim() != 2) return;
  const Shape product{mat1.size(0), mat2.size(1)};
  t.open("aten::expand", [&] { return ScopeArgs{self, AttrValue(product), AttrValue(false)}; });
  t.leaf("aten::as_strided", [&] { return ScopeArgs{self, AttrValue(product), AttrValue{}, AttrValue{}}; });
  t.close();
  const TensorType out{product, self.dtype()};
  if (a.beta.to<double>() != 0) t.leaf("aten::copy_", [&] { return ScopeArgs{out, out, AttrValue(false)}; });
  gemm_conj_leaves(t, out, mat1, mat2);
}

// The ops ATen's matmul runs (ops/matmul_plan.h's cases): dot; mv; unsqueeze -> mm -> squeeze_ for a vector
// times a matrix; mm; reshape, mm (mv), _unsafe_view for a batch folded into one product; expand and reshape
// of each operand, bmm, _unsafe_view for broadcast batches. The other cases record matmul alone.
void matmul_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor &self = in[0], &other = in[1];
  const std::optional<MatmulPlan> plan = plan_matmul(self, other);
  if (!plan) return;
  const DType dtype = self.dtype();
  const Tensor &a = plan->self_matrix, &b = plan->other_matrix;
  const Shape& shape = plan->shape;
  using Path = MatmulPlan::Path;
  switch (plan->path) {
    case Path::Folded: {
      const Tensor& flat = plan->folded;
      const bool matrix = other.dim() == 2;
      reshape_children(t, {self.shape(), dtype}, flat.shape(), true);
      t.open(matrix ? "aten::mm" : "aten::mv", [&] { return ScopeArgs{flat, other}; });
      if (matrix) gemm_conj_leaves(t, {{flat.size(0), b.size(1)}, dtype}, flat, other);
      else mv_leaf(t, flat, other);
      if (!t.work()) return;
      t.close();
      t.leaf("aten::_unsafe_view", [&] {
        return ScopeArgs{TensorType{matrix ? Shape{flat.size(0), b.size(1)} : Shape{flat.size(0)}, dtype}, AttrValue(shape)};
      });
      return;
    }
    case Path::Dot:
      t.open("aten::dot", [&] { return ScopeArgs{self, other}; });
      t.leaf("aten::fill_", [&] { return ScopeArgs{TensorType{{}, dtype}, AttrValue{}}; });
      return;
    case Path::Mv:
      t.open("aten::mv", [&] { return ScopeArgs{self, other}; });
      mv_leaf(t, self, other);
      return;
    case Path::VecMat: {
      const TensorType row_out{{1, b.size(1)}, dtype};
      t.open("aten::unsqueeze", [&] { return ScopeArgs{self, AttrValue(int64_t{0})}; });
      t.leaf("aten::as_strided", [&] { return ScopeArgs{self, AttrValue{}, AttrValue{}, AttrValue{}}; });
      t.close();
      t.open("aten::mm", [&] { return ScopeArgs{a, other}; });
      gemm_conj_leaves(t, row_out, a, other);
      if (!t.work()) return;
      t.close();
      t.leaf("aten::squeeze_", [&] { return ScopeArgs{row_out, AttrValue(int64_t{0})}; });
      return;
    }
    case Path::Mm:
      t.open("aten::mm", [&] { return ScopeArgs{self, other}; });
      gemm_conj_leaves(t, {shape, dtype}, self, other);
      return;
    case Path::Batched: {
      for (const auto& operand : {std::pair{&self, &plan->flat_self}, std::pair{&other, &plan->flat_other}}) {
        const Tensor& x = *operand.first;
        Shape expanded = plan->batch;
        expanded.push_back(x.size(-2));
        expanded.push_back(x.size(-1));
        t.open("aten::expand", [&] { return ScopeArgs{x, AttrValue(expanded), AttrValue(false)}; });
        t.leaf("aten::as_strided", [&] { return ScopeArgs{x, AttrValue{}, AttrValue{}, AttrValue{}}; });
        t.close();
        reshape_children(t, {expanded, dtype}, operand.second->shape(), true);
      }
      const Tensor &fa = plan->flat_self, &fb = plan->flat_other;
      t.open("aten::bmm", [&] { return ScopeArgs{fa, fb}; });
      bmm_leaves(t, fa, fb);
      if (!t.work()) return;
      t.close();
      t.leaf("aten::_unsafe_view", [&] {
        return ScopeArgs{TensorType{{fa.size(0), fa.size(1), fb.size(2)}, dtype}, AttrValue(shape)};
      });
      return;
    }
    case Path::Other:
      return;
  }
}

// ---- activations, normalization, pooling ----

// ATen's relu is clamp_min(self, 0), which does the work.
void clamp_min(const char* name, Inputs in, AtenTree& t) {
  const Tensor& self = in[0];
  t.open(name, [&] { return ScopeArgs{self, AttrValue(int64_t{0})}; });
}
// ATen's abs runs abs.out into an empty result it sizes itself (recorded with the empty (0) tensor).
void abs_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work()) return;
  t.leaf("aten::abs", [&] { return ScopeArgs{self, TensorType{Shape{0}, self.dtype()}}; });
}

void relu_(Inputs in, const NoArgs&, AtenTree& t) { clamp_min("aten::clamp_min", in, t); }
void relu_inplace(Inputs in, const NoArgs&, AtenTree& t) { clamp_min("aten::clamp_min_", in, t); }

// ATen's softmax and log_softmax with a dtype convert with Tensor::toType, which records aten::to's
// dtype_layout overload (8 arguments) even for the input's own dtype; a real conversion is the kernel's
// dispatched to (#31: recorded with to's own 5 arguments).
template <typename Args>
void softmax_(Inputs in, const Args& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (!a.dtype || *a.dtype != self.dtype()) return;
  t.leaf("aten::to", [&] {
    return ScopeArgs{self, AttrValue(*a.dtype), AttrValue{}, AttrValue{}, AttrValue{}, AttrValue(false), AttrValue(false),
                     AttrValue{}};
  });
}

// ATen's batch_norm: _batch_norm_impl_index -> native_batch_norm, which does the work.
void batch_norm_(Inputs in, const BatchNormArgs& a, AtenTree& t) {
  const auto native_args = [&] {
    return ScopeArgs{in[0], input(in, 1), input(in, 2), input(in, 3), input(in, 4), AttrValue(a.training),
                     AttrValue(a.momentum), AttrValue(a.eps)};
  };
  t.open("aten::_batch_norm_impl_index", [&] {
    ScopeArgs args = native_args();
    args.emplace_back(AttrValue(true));  // cudnn_enabled
    return args;
  });
  t.open("aten::native_batch_norm", native_args);
}

// ATen's native_layer_norm on CPU: a non-contiguous input (ConvNeXt's LayerNorm2d after a permute) is made
// contiguous first (expect_contiguous: contiguous -> clone -> copy_); after the kernel, mean and rstd (one value per
// normalized row) are viewed to the statistics' shape.
void native_layer_norm_(Inputs in, const NativeLayerNormArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (self.dim() < static_cast<int64_t>(a.normalized_shape.size())) return;  // the kernel refuses it
  const size_t axis = static_cast<size_t>(self.dim()) - a.normalized_shape.size();
  if (!self.is_contiguous()) contiguous_children(t, self);
  if (!t.work()) return;
  int64_t rows = 1;
  Shape stat_shape;
  for (size_t i = 0; i < static_cast<size_t>(self.dim()); ++i) {
    if (i < axis) rows *= self.size(static_cast<int64_t>(i));
    stat_shape.push_back(i < axis ? self.size(static_cast<int64_t>(i)) : 1);
  }
  for (int k = 0; k < 2; ++k)  // mean, rstd
    t.leaf("aten::view", [&] { return ScopeArgs{TensorType{Shape{rows}, self.dtype()}, AttrValue(stat_shape)}; });
}

// ATen's max_pool2d on CPU runs max_pool2d_with_indices (torchless's computes no indices).
void max_pool2d_(Inputs in, const MaxPool2dArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  t.open("aten::max_pool2d_with_indices", [&] {
    return ScopeArgs{self, box(a.kernel_size), box_list(a.stride), box(a.padding), box(a.dilation), box(a.ceil_mode)};
  });
}

// ATen's adaptive_avg_pool2d of a non-empty result is a mean over H and W for a 1 x 1 output (its
// reduction the kernel's work, mean_children after it), else _adaptive_avg_pool2d; an unbatched input is
// seen as a batch of one.
void adaptive_avg_pool2d_(Inputs in, const AdaptiveAvgPool2dArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (self.dim() != 3 && self.dim() != 4) return;
  Shape batched = self.shape();
  if (self.dim() == 3) batched.insert(0, 1);
  const TensorType x{batched, self.dtype()};
  const TensorType out{Shape{batched[0], batched[1], a.output_size[0], a.output_size[1]}, self.dtype()};
  if (numel_of(out.sizes) == 0) return;
  const bool mean = a.output_size == std::array<int64_t, 2>{1, 1};
  const AttrValue dims = Shape{-1, -2};
  if (mean) t.open("aten::mean", [&] { return ScopeArgs{x, dims, AttrValue(true), AttrValue{}}; });
  else t.open("aten::_adaptive_avg_pool2d", [&] { return ScopeArgs{x, box(a.output_size)}; });
  if (!t.work() || !mean) return;
  mean_children(t, x, dims, /*keepdim=*/true, out, out.sizes, batched[2] * batched[3]);
}

// ATen's dropout (run by the kernel, not decomposed) is noise = empty_like(x).bernoulli_(1 - p);
// noise.div_(1 - p); x * noise, when it drops anything and keeps anything.
void dropout_(Inputs in, const DropoutArgs& a, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work() || !a.train || a.p == 0.0 || a.p == 1.0 || self.numel() == 0) return;
  const Tensor& noise = t.result();
  t.leaf("aten::bernoulli_", [&] { return ScopeArgs{noise, AttrValue(1.0 - a.p), AttrValue{}}; });
  scalar_div_children(t, type_of(noise), AttrValue(1.0 - a.p));
  t.leaf("aten::mul", [&] { return ScopeArgs{self, noise}; });
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
  add<OpKind::SqueezeDim, strided_view>(rows);
  add<OpKind::Unsqueeze, strided_view>(rows);
  add<OpKind::T, t_>(rows);
  add<OpKind::Reshape, reshape_>(rows);
  add<OpKind::Flatten, reshape_>(rows);
  add<OpKind::Stack, stack_>(rows);
  add<OpKind::Clone, clone_>(rows);
  add<OpKind::To, to_>(rows);
  add<OpKind::Rsub, rsub_>(rows);
  add<OpKind::Add, binary_<AddArgs, &AddArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Sub, binary_<SubArgs, &SubArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Mul, binary_<MulArgs, &MulArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Div, binary_<DivArgs, &DivArgs::other, BinaryRule{.true_divide = true}>>(rows);
  add<OpKind::Pow, binary_<PowArgs, &PowArgs::exponent, BinaryRule{.number = NumberOperand::AsIs}>>(rows);
  add<OpKind::Add_, binary_<AddArgs, &AddArgs::other, BinaryRule{.inplace = true}>>(rows);
  add<OpKind::Sub_, binary_<SubArgs, &SubArgs::other, BinaryRule{.inplace = true}>>(rows);
  add<OpKind::Mul_, binary_<MulArgs, &MulArgs::other, BinaryRule{.inplace = true}>>(rows);
  add<OpKind::Div_, binary_<DivArgs, &DivArgs::other, BinaryRule{.true_divide = true, .inplace = true}>>(rows);
  add<OpKind::Pow_, binary_<PowArgs, &PowArgs::exponent, BinaryRule{.number = NumberOperand::AsIs, .inplace = true}>>(rows);
  add<OpKind::Gt, binary_<GtArgs, &GtArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Lt, binary_<LtArgs, &LtArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Ge, binary_<GeArgs, &GeArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Le, binary_<LeArgs, &LeArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Eq, binary_<EqArgs, &EqArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Ne, binary_<NeArgs, &NeArgs::other, BinaryRule{}>>(rows);
  add<OpKind::Sum, sum_>(rows);
  add<OpKind::Mean, mean_>(rows);
  add<OpKind::Mm, mm_>(rows);
  add<OpKind::Bmm, bmm_>(rows);
  add<OpKind::Addmm, addmm_>(rows);
  add<OpKind::Matmul, matmul_>(rows);
  add<OpKind::Conv2d, conv2d_>(rows);
  add<OpKind::Conv1d, conv1d_>(rows);
  add<OpKind::Zeros, zeros_>(rows);
  add<OpKind::Ones, ones_>(rows);
  add<OpKind::Full, full_>(rows);
  add<OpKind::ZerosLike, zeros_like_>(rows);
  add<OpKind::OnesLike, ones_like_>(rows);
  add<OpKind::FullLike, full_like_>(rows);
  add<OpKind::Rand, rand_>(rows);
  add<OpKind::Randn, randn_>(rows);
  add<OpKind::Arange, arange_>(rows);
  add<OpKind::Max, extreme<MaxArgs>>(rows);
  add<OpKind::Min, extreme<MinArgs>>(rows);
  add<OpKind::Argmax, arg_extreme<ArgmaxArgs>>(rows);
  add<OpKind::Argmin, arg_extreme<ArgminArgs>>(rows);
  add<OpKind::MseLoss, out_reduced_loss<MseLossArgs>>(rows);
  add<OpKind::SmoothL1Loss, out_reduced_loss<SmoothL1LossArgs>>(rows);
  add<OpKind::BinaryCrossEntropy, binary_cross_entropy_>(rows);
  add<OpKind::BinaryCrossEntropyWithLogits, binary_cross_entropy_with_logits_>(rows);
  add<OpKind::MaskedSelect, masked_select_>(rows);
  add<OpKind::Scatter, scatter_copy<ScatterArgs>>(rows);
  add<OpKind::ScatterAdd, scatter_copy<ScatterAddArgs>>(rows);
  add<OpKind::MaskedFill, masked_fill_tree>(rows);
  add<OpKind::Abs, abs_>(rows);
  add<OpKind::Relu, relu_>(rows);
  add<OpKind::Relu_, relu_inplace>(rows);
  add<OpKind::Softmax, softmax_<SoftmaxArgs>>(rows);
  add<OpKind::LogSoftmax, softmax_<LogSoftmaxArgs>>(rows);
  add<OpKind::BatchNorm, batch_norm_>(rows);
  add<OpKind::NativeLayerNorm, native_layer_norm_>(rows);
  add<OpKind::MaxPool2d, max_pool2d_>(rows);
  add<OpKind::AdaptiveAvgPool2d, adaptive_avg_pool2d_>(rows);
  add<OpKind::Dropout, dropout_>(rows);
  return rows;
}();

}  // namespace

bool has_aten_tree(const OpCall& call) { return !call.decomposed && kRows[static_cast<size_t>(call.op)] != nullptr; }

void emit_aten_tree(const OpCall& call, const TensorList* outputs, ScopeObserver& observer, std::vector<uint64_t>& open) {
  AtenTree t(observer, outputs, open);
  kRows[static_cast<size_t>(call.op)](call, t);
}

}  // namespace tl::detail
