// ops/tensor_data.cpp — tl::tensor (LibTorch's torch::tensor over nested braced lists) and tl::from_blob
// (a tensor over the caller's memory, not copied and not owned).
#include "ops/tensor_data.h"

#include <algorithm>

#include "core/storage.h"
#include "ops/ops.h"

namespace tl {

TensorData::TensorData(std::initializer_list<TensorData> list) {
  shape_ = Shape{static_cast<int64_t>(list.size())};
  if (list.size() == 0) return;
  const TensorData& first = *list.begin();
  type_ = first.type_;
  for (int64_t d = 0; d < first.shape_.size(); ++d) shape_.push_back(first.shape_[d]);
  int64_t k = 0;
  for (const TensorData& elem : list) {
    TL_CHECK(elem.shape_ == first.shape_, "Expected all sub-lists to have sizes: ", first.shape_, ", but got sub-list ",
             k, " with sizes: ", elem.shape_);
    TL_CHECK(elem.type_ == first.type_, "Expected all elements of the tensor to have the same scalar type: ",
             first.type_, ", but got element of scalar type: ", elem.type_);
    values_.insert(values_.end(), elem.values_.begin(), elem.values_.end());
    ++k;
  }
}

Tensor tensor(const TensorData& data) {
  const DType written = data.scalar_type();
  const DType dtype = is_floating_point(written) ? DType::Float32 : written == DType::Bool ? DType::Bool : DType::Int64;
  return tensor(data, dtype);
}

Tensor tensor(const TensorData& data, DType dtype) {
  Tensor out = empty(data.sizes(), dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "tensor", [&] {
    scalar_t* p = out.data<scalar_t>();
    for (size_t i = 0; i < data.values().size(); ++i) p[i] = data.values()[i].to<scalar_t>();
  });
  return out;
}

Tensor from_blob(void* data, const Shape& sizes, DType dtype) {
  return from_blob(data, sizes, contiguous_strides(sizes), dtype);
}

Tensor from_blob(void* data, const Shape& sizes, const Strides& strides, DType dtype) {
  check_sizes(sizes, "from_blob");
  TL_CHECK(strides.size() == sizes.size(), "from_blob: expected ", sizes.size(), " strides for sizes ", sizes, ", got ",
           strides);
  int64_t last = 0;  // the farthest element, in elements
  for (int64_t d = 0; d < sizes.size(); ++d) {
    TL_CHECK(strides[d] >= 0, "from_blob: expected non-negative strides, got ", strides);
    last += (sizes[d] - 1) * strides[d];
  }
  const int64_t numel = numel_of(sizes);
  TL_CHECK(data != nullptr || numel == 0, "from_blob: null data for sizes ", sizes);
  const int64_t bytes = numel == 0 ? 0 : (last + 1) * element_size(dtype);
  return Tensor::make(Storage::wrap(data, bytes, nullptr), sizes, strides, 0, dtype);
}

}  // namespace tl
