// fx/value.h — what a node evaluates to at run time: a tensor, or several (a multi-output op or
// a tuple return), or nothing (None).
#pragma once

#include <variant>

#include "core/dispatch.h"

namespace tl::fx {

class Value {
 public:
  Value() = default;
  Value(Tensor t) : v_(std::move(t)) {}  // NOLINT: a tensor is a value
  Value(TensorList ts) : v_(std::move(ts)) {}  // NOLINT

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

}  // namespace tl::fx
