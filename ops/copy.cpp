// ops/copy.cpp — copy_, clone, contiguous and to. Results of clone/to are fresh contiguous tensors;
// contiguous and to (without copy=True) return their input itself when there is nothing to do, as PyTorch does.
#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {

// self: any shape, written in place; src broadcasts to self's shape and converts to self's dtype.
// non_blocking changes nothing on the CPU.
Tensor copy_(const Tensor& self, const Tensor& src, const CopyArgs&) {
  TL_CHECK(src.defined(), "copy_: expected a tensor for 'src', got None");
  detail::check_inplace_broadcast(self, src.shape(), "copy_");
  if (self.is_same(src)) return self;
  detail::copy_elements(self, src);
  return self;
}

namespace {

// A fresh contiguous copy of self in `dtype` (a quantized self's clone keeps its quantizer).
Tensor copied(const Tensor& self, DType dtype) {
  Tensor out = Tensor::allocate(self.shape(), dtype, dtype == self.dtype() ? self.quantizer() : nullptr);
  detail::copy_elements(out, self);
  return out;
}

}  // namespace

Tensor clone(const Tensor& self) { return copied(self, self.dtype()); }

// Dispatches clone, so profiles show aten::contiguous -> aten::clone as PyTorch's do.
Tensor contiguous(const Tensor& self) {
  if (self.is_contiguous()) return self;
  return self.clone();
}

Tensor to(const Tensor& self, const ToArgs& args) {
  const DType dtype = args.dtype;
  if (self.dtype() == dtype && !args.copy) return self;
  return copied(self, dtype);
}

}  // namespace tl::kernels
