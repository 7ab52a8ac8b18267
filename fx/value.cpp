// fx/value.cpp — checked access to run-time values; packing outputs and the output's flattening.
#include "fx/value.h"

namespace tl::fx {

const Tensor& NodeValue::tensor(const char* what) const {
  TL_CHECK(is_tensor(), what, ": expected a tensor, got ", is_none() ? "None" : "a tuple of tensors");
  return std::get<Tensor>(v_);
}

const TensorList& NodeValue::list(const char* what) const {
  TL_CHECK(is_list(), what, ": expected a tuple of tensors, got ", is_none() ? "None" : "a tensor");
  return std::get<TensorList>(v_);
}

TensorList NodeValue::tensors() const {
  if (is_tensor()) return {std::get<Tensor>(v_)};
  if (is_list()) return std::get<TensorList>(v_);
  return {};
}

NodeValue call_result(TensorList outputs) {
  if (outputs.size() == 1) return NodeValue(std::move(outputs[0]));
  return NodeValue(std::move(outputs));
}

TensorList flatten_results(std::span<const NodeValue* const> results) {
  TensorList out;
  for (const NodeValue* v : results) {
    if (v == nullptr) out.emplace_back();
    else for (const Tensor& t : v->tensors()) out.push_back(t);
  }
  return out;
}

}  // namespace tl::fx
