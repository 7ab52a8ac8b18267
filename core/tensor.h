// core/tensor.h — Tensor: TensorBase (core/tensor_base.h) with the op methods. The methods are generated
// from core/native_functions.toml (core/gen_ops.py) and defined in ops/, where each one goes through
// dispatch::call; the autograd methods (requires_grad_, backward, ...) are defined by the autograd/ layer.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/generator.h"
#include "core/return_types.h"
#include "core/scalar.h"
#include "core/tensor_base.h"
#include "core/tensor_index.h"

namespace tl {

class GradSlot;

class Tensor : public TensorBase {
 public:
  /// An undefined tensor (stands for None).
  Tensor() = default;
  /// A tensor over existing storage; checks that every reachable element lies inside it. A quantized dtype
  /// takes its quantizer (of the same dtype), any other none: otherwise a tl::Error.
  static Tensor make(std::shared_ptr<Storage> storage, Shape sizes, Strides strides, int64_t offset,
                     DType dtype, std::shared_ptr<const Quantizer> quantizer = nullptr);
  /// A fresh contiguous tensor with uninitialised memory. Throws tl::Error naming the size and dtype for
  /// negative sizes, a byte count int64 cannot hold, and a request above tl::allocation_limit(); a quantized
  /// dtype needs its quantizer, as make().
  static Tensor allocate(const Shape& sizes, DType dtype, std::shared_ptr<const Quantizer> quantizer = nullptr);
  /// A proxy: no storage. With `sizes` unknown (nullopt), asking for its shape throws the tag's text.
  /// `strides` are the example value's (a layout-dependent op traced on a channels-last or blocked
  /// example must see it); contiguous when not given.
  static Tensor make_proxy(std::shared_ptr<ProxyTag> tag, std::optional<Shape> sizes = std::nullopt,
                           DType dtype = DType::Float32, std::optional<Strides> strides = std::nullopt);

  /// The value of a one-element tensor, converted to T (recorded as ATen's item -> _local_scalar_dense).
  template <typename T>
  T item() const;
  Scalar item() const;

  /// A per-channel quantized tensor's scales (float64) and zero points (int64), one per index along its
  /// axis (torch.Tensor.q_per_channel_scales). Throws tl::Error for per-tensor and not quantized tensors.
  Tensor q_per_channel_scales() const;
  Tensor q_per_channel_zero_points() const;

  // ---- autograd (defined in autograd/) ----
  /// Sets requires_grad of a leaf (torch.Tensor.requires_grad_). Throws tl::Error for a non-leaf and for
  /// a tensor that is not floating point.
  Tensor& requires_grad_(bool requires_grad = true);
  /// The accumulated gradient (undefined until backward() reaches this tensor).
  const Tensor& grad() const;
  /// The .grad slot: `x.mutable_grad() = g` is PyTorch's `x.grad = g`, checked as PyTorch checks it
  /// (see GradSlot); `x.mutable_grad() = {}` clears it.
  GradSlot mutable_grad();
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
  /// PyTorch's `t.data = new_data` (Tensor::set_data): this tensor object takes new_data's storage,
  /// sizes, strides, offset and dtype and keeps its own autograd state (requires_grad, .grad), so every
  /// handle to it (a module's registry, an optimizer) sees the new data. The version counter is the new
  /// storage's. Throws tl::Error, changing nothing, for an undefined tensor or new_data, a proxy, and a
  /// non-floating new_data for a tensor that requires grad.
  void set_data(const Tensor& new_data) const;

  // ---- ops: generated from core/native_functions.toml by core/gen_ops.py (defined in ops/) ----
#include "core/op_methods.h"
  // ---- ops whose C++ overloads differ from their schema (ops/manual_api.cpp) ----
  Tensor max() const;
  /// (values, indices) along `dim`: `.values`, `.indices`, or `auto [values, indices] = x.max(1)`.
  return_types::max max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  return_types::min min(int64_t dim, bool keepdim = false) const;
  /// (n, dim) int64 indices of the non-zero elements.
  Tensor nonzero() const;
  /// This tensor itself when it is already contiguous, with no op run (as PyTorch's Tensor::contiguous:
  /// a profile records nothing); otherwise aten::contiguous, a contiguous copy. A traced proxy always
  /// records the op.
  Tensor contiguous() const;

  // ---- indexing as LibTorch's (torch::indexing; ops/indexing.cpp) ----
  /// x[i]: select(0, i), a view (i may be negative). Throws tl::Error for a 0-d tensor or i out of range.
  Tensor operator[](int64_t index) const;
  /// x.index({Slice(), 1, None, "..."}): a view made by one select / slice / unsqueeze per index, left to
  /// right, as PyTorch records `x[:, 1, None, ...]` (aten::slice, aten::select, aten::unsqueeze). Throws
  /// tl::Error for more indices than dimensions, two ellipses, a step <= 0 and an integer out of range.
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor index(std::span<const indexing::TensorIndex> indices) const;
  /// x.index_put_({...}, v): copies v, broadcast, into x.index({...}) (LibTorch's set_item for basic
  /// indices: an aten::copy_ into the view). Throws tl::Error, changing nothing, where index() or copy_
  /// would.
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value);
};

/// A tensor's .grad as an assignable slot (what Tensor::mutable_grad() returns; lives for one expression).
class GradSlot {
 public:
  /// Sets .grad to `grad` (the same tensor object, not a copy); an undefined `grad` clears it. Throws
  /// tl::Error, leaving .grad as it was, when `grad` is the tensor itself or differs from it in dtype
  /// or size, as PyTorch's setter does ("assigned grad has data of a different size: ...").
  GradSlot& operator=(const Tensor& grad);
  GradSlot& operator=(const GradSlot& other) { return *this = static_cast<const Tensor&>(other); }
  /// The slot itself, as LibTorch's mutable_grad() returns it, for in-place updates of the gradient
  /// (`Tensor& g = x.mutable_grad(); g.mul_(2.0);`). Assigning through this reference is not checked.
  operator Tensor&() const { return slot_; }

 private:
  friend class Tensor;
  GradSlot(const Tensor& owner, Tensor& slot) : owner_(owner), slot_(slot) {}
  Tensor owner_;
  Tensor& slot_;
};

/// Prints like PyTorch's print(t): tensor([[0.1000, 0.2000]]), summarised with "..." when large, with
/// PyTorch's suffixes (dtype=..., requires_grad=True, grad_fn=<MulBackward0>) and, for a module's
/// parameter, "Parameter containing:" on a line of its own first.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// The tensors an op takes as a list (LibTorch's TensorList, an ArrayRef): a braced list `tl::cat({x, y})`,
/// a std::vector or any span. It refers to the caller's tensors and lives for the call.
class TensorListRef : public std::span<const Tensor> {
 public:
  using std::span<const Tensor>::span;
  TensorListRef(std::span<const Tensor> tensors) : std::span<const Tensor>(tensors) {}
  TensorListRef(std::initializer_list<Tensor> tensors) : std::span<const Tensor>(tensors.begin(), tensors.size()) {}
};

#include "core/op_operators.h"

namespace detail {
/// The real values of a quantized tensor, (q - zero_point) * scale per element as ATen's dequantize, as a new
/// contiguous float32 tensor: the dequantize kernel's loop, and what print shows.
Tensor dequantize_elements(const Tensor& q);
}  // namespace detail

template <typename T>
T Tensor::item() const {
  return item().to<T>();
}

}  // namespace tl
