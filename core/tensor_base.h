// core/tensor_base.h — TensorBase: a cheap shared handle to (storage, sizes, strides, offset, dtype), with
// its metadata, element access and autograd flags, and no ops. Copies share everything; views share
// storage. Tensor (core/tensor.h) adds the op methods generated from the op list; code that only reads
// a tensor's geometry and data needs this header alone, and no new op rebuilds it (as ATen's TensorBase).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/dtype.h"
#include "core/error.h"
#include "core/quantizer.h"
#include "core/shape.h"
#include "core/storage.h"
#include "core/tensor_accessor.h"

namespace tl {

/// Marks a tensor that stands for a value not computed yet (a symbolic-tracing proxy). The layer
/// that creates proxies subclasses it; any access to a proxy's data throws `describe()`'s text.
class ProxyTag {
 public:
  virtual ~ProxyTag() = default;
  /// Why the data is not available, e.g. "symbolic tracing: ... %conv1 ...".
  virtual std::string describe() const = 0;
};

struct AutogradMeta;

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape sizes;
  Strides strides;
  int64_t offset = 0;  ///< in elements
  DType dtype = DType::Float32;
  std::shared_ptr<ProxyTag> proxy;
  bool sizes_known = true;  ///< false for a proxy traced without example inputs
  std::shared_ptr<AutogradMeta> autograd;  ///< null for a tensor autograd never touched
  bool is_parameter = false;  ///< registered as a module's parameter (torch.nn.Parameter); not inherited by views
  /// How the integers of a quantized dtype stand for real values (ATen's QTensorImpl); null exactly when the
  /// dtype is not quantized. Views share it.
  std::shared_ptr<const Quantizer> quantizer;
};

class TensorBase {
 public:
  /// An undefined tensor (stands for None).
  TensorBase() = default;

  bool defined() const { return impl_ != nullptr; }
  bool is_proxy() const { return impl_ && impl_->proxy != nullptr; }
  ProxyTag* proxy() const { return impl_ ? impl_->proxy.get() : nullptr; }
  /// True when both handles refer to the same tensor object (not merely equal values).
  bool is_same(const TensorBase& other) const { return impl_ == other.impl_; }
  /// The tensor object's identity (Python's id(t)): equal for two handles exactly when is_same(), null
  /// when undefined. A key for maps of tensors by identity; unique while a handle keeps the object alive.
  const void* identity() const { return impl_.get(); }

  const Shape& shape() const { return meta().sizes; }
  const Shape& sizes() const { return meta().sizes; }
  const Strides& strides() const { return meta().strides; }
  /// Size of dimension `dim` (negative counts from the end).
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return meta().sizes.size(); }
  int64_t numel() const { return numel_of(meta().sizes); }
  DType dtype() const { return impl().dtype; }
  int64_t element_size() const { return tl::element_size(dtype()); }
  /// numel() * element_size(); throws tl::Error when int64 cannot count them (a broadcast view can
  /// reach more elements than any storage holds).
  int64_t nbytes() const {
    int64_t bytes = 0;
    TL_CHECK(!__builtin_mul_overflow(numel(), element_size(), &bytes), "nbytes: size ", shape(), " of ", dtype(),
             " has more bytes than int64 can count");
    return bytes;
  }
  int64_t storage_offset() const { return impl().offset; }
  const std::shared_ptr<Storage>& storage() const { return impl().storage; }
  bool is_contiguous() const;

  /// Typed pointer to element 0 (honour strides()). Throws if T is not the dtype or for a proxy.
  template <typename T>
  T* data() const {
    check_data_access(dtype_of<T>);
    return static_cast<T*>(impl_->storage->data()) + impl_->offset;
  }
  /// Untyped pointer to element 0 (throws for a proxy or an undefined tensor).
  void* raw_data() const;
  /// LibTorch's x.accessor<float, 2>(): the elements as a TensorAccessor<T, N> (a[i][j] reads and
  /// writes them in place, indices checked). Throws tl::Error when the tensor has not N dims or its
  /// dtype is not T's. Not on a temporary tensor, whose storage could die before the accessor.
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() const& {
    static_assert(N > 0, "accessor is used for indexing tensor, for scalars use *data<T>()");
    TL_CHECK(dim() == static_cast<int64_t>(N), "TensorAccessor expected ", N, " dims but tensor has ", dim());
    T* first = data<T>();
    typename TensorAccessor<T, N>::Dims sizes{}, strides{};
    for (size_t d = 0; d < N; ++d) {
      sizes[d] = meta().sizes[static_cast<int64_t>(d)];
      strides[d] = meta().strides[static_cast<int64_t>(d)];
    }
    return TensorAccessor<T, N>(first, sizes, strides);
  }
  template <typename T, size_t N>
  TensorAccessor<T, N> accessor() && = delete;

  // ---- quantization (ATen's QTensorImpl; the ops making quantized tensors are in ops/quantized/) ----
  /// True for a tensor of dtype torch.quint8, torch.qint8 or torch.qint32.
  bool is_quantized() const { return impl().quantizer != nullptr; }
  /// The quantizer of a quantized tensor, null for any other.
  const std::shared_ptr<const Quantizer>& quantizer() const { return impl().quantizer; }
  /// torch.per_tensor_affine or torch.per_channel_affine. Throws tl::Error for a tensor that is not quantized
  /// ("Could not run 'aten::qscheme' with arguments from the 'CPU' backend", as PyTorch).
  QScheme qscheme() const;
  /// The scale and zero point of a per-tensor quantized tensor; tl::Error for per-channel and for a tensor
  /// that is not quantized.
  double q_scale() const;
  int64_t q_zero_point() const;
  /// The channel dimension of a per-channel quantized tensor; tl::Error for per-tensor and not quantized.
  int64_t q_per_channel_axis() const;

  // ---- autograd state (the methods that reach the graph are Tensor's) ----
  /// True when operations on this tensor are recorded for backward().
  bool requires_grad() const;
  /// True for a tensor not made by a recorded operation (requires_grad tensors the user made, and
  /// every tensor that does not require grad).
  bool is_leaf() const;
  /// How many times an in-place op wrote this tensor's storage (torch's _version).
  int64_t _version() const;
  /// True for a tensor a module registered as its parameter (isinstance(t, nn.Parameter)): it prints
  /// as "Parameter containing:". A view, a detach()ed alias or an op's result is a plain tensor.
  bool is_parameter() const { return impl().is_parameter; }

 protected:
  const TensorImpl& impl() const {
    TL_CHECK(impl_ != nullptr, "tensor is undefined (None)");
    return *impl_;
  }
  // The impl, checked to have known sizes (a proxy traced without example inputs has none).
  const TensorImpl& meta() const {
    const TensorImpl& t = impl();
    if (!t.sizes_known) [[unlikely]]
      throw_unknown_sizes();
    return t;
  }
  [[noreturn]] void throw_unknown_sizes() const;
  void check_data_access(DType requested) const;

  std::shared_ptr<TensorImpl> impl_;
  friend struct TensorImplAccess;
};

}  // namespace tl
