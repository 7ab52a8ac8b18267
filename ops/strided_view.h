// ops/strided_view.h — (internal to ops/) views a kernel makes of a tensor without going through the
// dispatcher: no op is recorded, no autograd node made; the view shares the tensor's storage.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace tl::detail {

/// t restricted to [start, start + length) along dim; dim, start and length must be valid for t.
inline Tensor narrowed(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  Shape sizes = t.shape();
  sizes[dim] = length;
  return Tensor::make(t.storage(), sizes, t.strides(), t.storage_offset() + start * t.stride(dim), t.dtype());
}

}  // namespace tl::detail
