// fx/value.h — what a node evaluates to at run time: a tensor, or several (a multi-output op or
// a tuple return), or nothing (None); and the one packing of a call's outputs and output flattening that
// both executors use (getitem: fx/getitem.h).
#pragma once

#include <span>
#include <variant>

#include "core/dispatch.h"

namespace tl::fx {

/// The value a node evaluates to when its graph runs (the Interpreter's environment, the plan's slots);
/// not an FX argument (Argument, fx/argument.h) nor an op's boxed argument (AttrValue, core/dispatch.h).
class NodeValue {
 public:
  NodeValue() = default;
  NodeValue(Tensor t) : v_(std::move(t)) {}  // NOLINT: a tensor is a value
  NodeValue(TensorList ts) : v_(std::move(ts)) {}  // NOLINT

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_list() const { return std::holds_alternative<TensorList>(v_); }
  /// The tensor; throws tl::Error naming `what` when this is not a single tensor.
  const Tensor& tensor(const char* what = "value") const;
  const TensorList& list(const char* what = "value") const;
  /// All tensors held, flattened (a single tensor gives one).
  TensorList tensors() const;

 private:
  std::variant<std::monostate, Tensor, TensorList> v_;
};

/// Deprecated in 0.2.0, removed in 0.3.0: fx::Value is fx::NodeValue.
using Value [[deprecated("tl::fx::Value is tl::fx::NodeValue")]] = NodeValue;

/// A call's outputs as its node's value: the tensor when there is one, else the tuple of them.
NodeValue call_result(TensorList outputs);

/// What forward() returns for an output node's results: each result's tensors in order (a tuple's
/// flattened), an undefined tensor for None (a null entry).
TensorList flatten_results(std::span<const NodeValue* const> results);

}  // namespace tl::fx
