// autograd/derivatives.h — what autograd knows of each op (PyTorch's derivatives.yaml): how its
// backward is computed, which of its tensors the backward needs, and its node's name. Each op row of
// core/native_functions.toml names its derivative beside it; core/gen_ops.py generates the entries
// (autograd/op_derivatives.cpp): one formula per differentiable input, the values each reads inferred
// from the formula, which calls helpers of autograd/formulas.h.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "autograd/node.h"
#include "core/boxing.h"
#include "core/dispatch.h"
#include "core/tensor.h"

namespace tl::autograd {

class SavedTensor;
class Node;

/// What a derivative formula sees: the gradients of the op's outputs, its arguments struct, the
/// tensors it saved and which inputs need a gradient.
class GradContext {
 public:
  GradContext(const Node& node, const TensorList& grads, const OpArgs& args, const std::vector<TensorInfo>& inputs,
              const std::vector<SavedTensor>& saved_inputs, const std::vector<SavedTensor>& saved_outputs,
              const std::vector<bool>& needs)
      : node_(node), grads_(grads), args_(args), inputs_(inputs), saved_inputs_(saved_inputs),
        saved_outputs_(saved_outputs), needs_(needs) {}

  /// The gradient of output `i`; zeros of the output's shape when nothing flowed into it.
  Tensor grad(size_t i = 0) const;
  bool has_grad(size_t i) const { return i < grads_.size() && grads_[i].defined(); }
  /// The call's arguments struct (ArgsOf<op>).
  template <typename Args>
  const Args& args() const {
    return args_.as<Args>();
  }
  /// Saved tensor input / output `i`: read only in the formula of an input whose Reads name it. An output
  /// the call did not make is undefined (max() without a dim has no indices).
  Tensor input(size_t i) const;
  Tensor output(size_t i) const;
  /// An optional tensor input (`Tensor?`): undefined when the call passed None.
  Tensor optional_input(size_t i) const { return info(i).defined ? input(i) : Tensor(); }
  /// A pointwise op's second operand: the saved tensor, or the number it got (x * 2) as a 0-d tensor of
  /// the first input's dtype.
  Tensor input_or_number(size_t i, const std::optional<Scalar>& number) const;
  size_t num_inputs() const { return inputs_.size(); }
  /// Saved inputs [begin, end): a list argument's (aten::index's indices), None entries undefined.
  TensorList inputs(size_t begin, size_t end) const;
  const TensorInfo& info(size_t i) const { return inputs_.at(i); }
  const std::vector<TensorInfo>& infos() const { return inputs_; }
  /// True when input `i` needs a gradient (a formula may skip the others).
  bool needs(size_t i) const { return i < needs_.size() && needs_[i]; }
  bool any_needs() const;

 private:
  const Node& node_;
  const TensorList& grads_;
  const OpArgs& args_;
  const std::vector<TensorInfo>& inputs_;
  const std::vector<SavedTensor>& saved_inputs_;
  const std::vector<SavedTensor>& saved_outputs_;
  const std::vector<bool>& needs_;
};

enum class DerivativeKind : uint8_t {
  Formula,            ///< a node runs `formula` in backward
  Composite,          ///< recorded through the ops it is made of (`decomposition`, or the op's own kernel)
  NotDifferentiable,  ///< its results never require grad (integer or bool results, factories)
  NotImplemented,     ///< recorded, but backward through it throws tl::Error naming the op
};

/// What the gradient formula of one tensor input reads from the forward call: bit i of `inputs` is
/// tensor input i, bit k of `outputs` is output k. A formula shared by several inputs (convolution's
/// "input, weight, bias") reads the same for each of them.
struct Reads {
  uint32_t inputs = 0;
  uint32_t outputs = 0;
  Reads operator|(Reads other) const { return {inputs | other.inputs, outputs | other.outputs}; }
};

struct Derivative {
  DerivativeKind kind = DerivativeKind::NotImplemented;
  /// The node's name, as PyTorch names it ("MulBackward0"); for NotImplemented, the op's aten name.
  const char* name = "";
  /// reads[i]: what the formula of tensor input i reads (inputs past the end read nothing). A call
  /// saves what the formulas of its inputs that need grad read, and nothing else, as derivatives.yaml's
  /// generated code does: mul saves `other` only when self needs grad.
  std::vector<Reads> reads;
  /// One gradient per tensor input (undefined where none); broadcast results are summed back to the
  /// input's shape and converted to its dtype by the node. The gradient of input i is asked for (and
  /// may read the saved tensors) only when input i needs grad.
  TensorList (*formula)(const GradContext&) = nullptr;
  /// Composite: what runs in grad mode on the call's arguments struct, through ops that record
  /// themselves (null: the op's kernel).
  TensorList (*decomposition)(std::span<const Tensor> inputs, const void* args) = nullptr;
  /// The node's name where PyTorch's overloads of the op name their derivatives apart, from the call's
  /// arguments struct (rsub with a number, `2.0 - x`: "RsubBackward1"; the dimless sum(): "SumBackward0");
  /// null: `name` always.
  const char* (*overload_name)(const void* args) = nullptr;
  /// Bit k set: result k of a call gets this node as its grad_fn (derivatives.yaml's
  /// output_differentiability; native_layer_norm's mean and rstd are results the backward reads, not
  /// values a gradient flows from). Integer results never get one.
  uint32_t differentiable_outputs = ~0u;
};

/// The entry of `op` (an in-place op shares its out-of-place op's formula, applied to the original self);
/// generated from the op rows (autograd/op_derivatives.cpp).
const Derivative& derivative_of(OpKind op);

/// What a call of `d` saves: the union of the Reads of the arguments with an input that needs grad
/// (`needs[i]`); `slots` are the call's Schema::tensor_slots, which say whose input i is.
Reads saved_by(const Derivative& d, const std::vector<bool>& needs, std::span<const std::pair<size_t, size_t>> slots);

/// `g` summed over the dimensions broadcasting added or expanded, to `shape`.
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace tl::autograd
