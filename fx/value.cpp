// fx/value.cpp — checked access to run-time values.
#include "fx/value.h"

namespace tl::fx {

const Tensor& Value::tensor(const char* what) const {
  TL_CHECK(is_tensor(), what, ": expected a tensor, got ", is_none() ? "None" : "a tuple of tensors");
  return std::get<Tensor>(v_);
}

const TensorList& Value::list(const char* what) const {
  TL_CHECK(is_list(), what, ": expected a tuple of tensors, got ", is_none() ? "None" : "a tensor");
  return std::get<TensorList>(v_);
}

TensorList Value::tensors() const {
  if (is_tensor()) return {std::get<Tensor>(v_)};
  if (is_list()) return std::get<TensorList>(v_);
  return {};
}

}  // namespace tl::fx
