// core/tensor.h — Tensor: a cheap shared handle to (storage, sizes, strides, offset, dtype).
// Copies of a Tensor share everything; views share storage. The op methods are generated from
// core/op_list.h (core/gen_op_api.py) and defined in ops/, where each one goes through dispatch::call;
// the autograd methods (requires_grad_, backward, ...) are defined by the autograd/ layer.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/error.h"
#include "core/scalar.h"
#include "core/shape.h"
#include "core/storage.h"

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
};

class Tensor {
 public:
  /// An undefined tensor (stands for None).
  Tensor() = default;
  /// A tensor over existing storage; checks that every reachable element lies inside it.
  static Tensor make(std::shared_ptr<Storage> storage, Shape sizes, Strides strides, int64_t offset,
                     DType dtype);
  /// A fresh contiguous tensor with uninitialised memory. Throws tl::Error naming the size and dtype for
  /// negative sizes, a byte count int64 cannot hold, and a request above tl::allocation_limit().
  static Tensor allocate(const Shape& sizes, DType dtype);
  /// A proxy: no storage. With `sizes` unknown (nullopt), asking for its shape throws the tag's text.
  /// `strides` are the example value's (a layout-dependent op traced on a channels-last or blocked
  /// example must see it); contiguous when not given.
  static Tensor make_proxy(std::shared_ptr<ProxyTag> tag, std::optional<Shape> sizes = std::nullopt,
                           DType dtype = DType::Float32, std::optional<Strides> strides = std::nullopt);

  bool defined() const { return impl_ != nullptr; }
  bool is_proxy() const { return impl_ && impl_->proxy != nullptr; }
  ProxyTag* proxy() const { return impl_ ? impl_->proxy.get() : nullptr; }
  /// True when both handles refer to the same tensor object (not merely equal values).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

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
  /// The value of a one-element tensor, converted to T.
  template <typename T>
  T item() const;
  Scalar item() const;

  // ---- autograd (defined in autograd/) ----
  /// True when operations on this tensor are recorded for backward().
  bool requires_grad() const;
  /// Sets requires_grad of a leaf (torch.Tensor.requires_grad_). Throws tl::Error for a non-leaf and for
  /// a tensor that is not floating point.
  Tensor& requires_grad_(bool requires_grad = true);
  /// The accumulated gradient (undefined until backward() reaches this tensor).
  const Tensor& grad() const;
  /// The gradient slot itself: assign to it to set or clear .grad (LibTorch's mutable_grad()).
  Tensor& mutable_grad();
  /// True for a tensor not made by a recorded operation (requires_grad tensors the user made, and
  /// every tensor that does not require grad).
  bool is_leaf() const;
  /// The name of the node that made this tensor ("MulBackward0"), empty for a leaf.
  std::string grad_fn_name() const;
  /// Keeps .grad of this non-leaf tensor at the next backward().
  void retain_grad();
  /// The gradient of `this` with respect to the graph's leaves, accumulated into their .grad. `gradient`
  /// may be omitted only for a one-element tensor. The graph's saved tensors are freed unless
  /// retain_graph is true; a second backward() through them throws tl::Error.
  void backward(const Tensor& gradient = {}, bool retain_graph = false) const;
  /// A tensor sharing this one's data with no autograd history (requires_grad false).
  Tensor detach() const;
  /// How many times an in-place op wrote this tensor's storage (torch's _version).
  int64_t _version() const;

  // ---- ops: generated from core/op_list.h by core/gen_op_api.py (defined in ops/) ----
#include "core/op_methods.h"
  // ---- ops whose C++ overloads differ from their schema (ops/manual_api.cpp) ----
  Tensor max() const;
  /// (values, indices) along `dim`.
  std::pair<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::pair<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  /// (n, dim) int64 indices of the non-zero elements.
  Tensor nonzero() const;
  /// This tensor itself when it is already contiguous, with no op run (as PyTorch's Tensor::contiguous:
  /// a profile records nothing); otherwise aten::contiguous, a contiguous copy. A traced proxy always
  /// records the op.
  Tensor contiguous() const;

 private:
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
  friend struct TensorAccess;
  std::shared_ptr<TensorImpl> impl_;
};

#include "core/op_operators.h"

/// Prints like PyTorch: tensor([[0.1000, 0.2000]]), summarised with "..." when large.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

template <typename T>
T Tensor::item() const {
  return item().to<T>();
}

}  // namespace tl
