// ops/onednn/packed.h — an object a tensor carries: a weight packed once for a primitive (its bytes in the
// primitive's layout plus what it was packed for), handed out as a 1-D tensor over those bytes whose storage
// owns the object. While that storage lives, packed_of finds the object again; a copy or view of the tensor
// is not a packed weight.
#pragma once

#include <memory>

#include "core/tensor.h"

namespace tl::onednn {

/// Base of the carried objects (inference_conv.cpp's fp32 conv weights, ops/quantized's int8 ones).
struct Packed {
  Tensor bytes;  ///< 1-D, contiguous: the packed data the handed-out tensor views whole
  Packed() = default;
  Packed(const Packed&) = delete;
  Packed& operator=(const Packed&) = delete;
  virtual ~Packed();

 private:
  friend Tensor carry(std::shared_ptr<Packed> packed);
  const Storage* storage_ = nullptr;  ///< the wrapping storage it is registered under
};

/// A 1-D tensor over `packed->bytes` (same dtype and size) whose storage owns `packed`.
Tensor carry(std::shared_ptr<Packed> packed);

/// The object `t` carries, or nullptr unless `t` is, whole, a tensor carry() returned. Valid while `t` lives.
const Packed* packed_of(const Tensor& t);

/// packed_of(t) as a T, or nullptr when it carries nothing or something else.
template <typename T>
const T* packed_as(const Tensor& t) {
  return dynamic_cast<const T*>(packed_of(t));
}

}  // namespace tl::onednn
