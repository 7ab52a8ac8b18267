// core/tensor.cpp — Tensor construction, metadata and element access (no ops: those dispatch).
#include "core/tensor.h"

#include "core/autograd_meta.h"
#include "core/record_function.h"

namespace tl {
namespace {

template <typename T>
Scalar to_scalar(T v) {
  if constexpr (std::is_same_v<T, bool>) return v;
  else if constexpr (std::is_integral_v<T>) return static_cast<int64_t>(v);
  else return static_cast<double>(static_cast<float>(v));
}
template <>
Scalar to_scalar(double v) { return v; }

}  // namespace

Tensor Tensor::make(std::shared_ptr<Storage> storage, Shape sizes, Strides strides, int64_t offset,
                    DType dtype) {
  TL_CHECK(storage != nullptr, "tensor: null storage");
  TL_CHECK(sizes.size() == strides.size(), "tensor: size ", sizes, " and strides ", strides,
           " differ in length");
  check_sizes(sizes, "tensor");
  TL_CHECK(offset >= 0, "tensor: negative storage offset ", offset);
  // The furthest element reachable must lie inside the storage (an empty tensor reaches nothing);
  // a reach that overflows int64 is outside any storage.
  if (numel_of(sizes) > 0) {
    int64_t hi = offset, lo = offset;
    bool overflow = false;
    for (int64_t i = 0; i < sizes.size(); ++i) {
      int64_t reach = 0;
      overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &reach);
      int64_t& end = reach >= 0 ? hi : lo;
      overflow |= __builtin_add_overflow(end, reach, &end);
    }
    const int64_t capacity = storage->nbytes() / tl::element_size(dtype);
    TL_CHECK(!overflow && lo >= 0 && hi < capacity, "tensor: size ", sizes, " with strides ", strides,
             " and offset ", offset, " reaches outside a storage of ", capacity, " elements");
  }
  Tensor t;
  t.impl_ = std::make_shared<TensorImpl>(
      TensorImpl{std::move(storage), std::move(sizes), std::move(strides), offset, dtype, nullptr});
  return t;
}

Tensor Tensor::allocate(const Shape& sizes, DType dtype) {
  check_sizes(sizes, "tensor");
  const int64_t n = numel_of(sizes), esize = tl::element_size(dtype);
  TL_CHECK(n <= INT64_MAX / esize, "tensor: size ", sizes, " of ", dtype,
           " needs more bytes than int64 can count");
  std::shared_ptr<Storage> storage;
  try {
    storage = Storage::allocate(n * esize);
  } catch (const Error& e) {  // over the allocation limit or out of memory: say what the bytes were for
    detail::throw_error(detail::str_cat("tensor of size ", sizes, " and dtype ", dtype, ": ", e.what()));
  }
  Tensor t;
  t.impl_ = std::make_shared<TensorImpl>(
      TensorImpl{std::move(storage), sizes, contiguous_strides(sizes), 0, dtype, nullptr});
  return t;
}

Tensor Tensor::make_proxy(std::shared_ptr<ProxyTag> tag, std::optional<Shape> sizes, DType dtype,
                          std::optional<Strides> given_strides) {
  TL_INTERNAL_ASSERT(tag != nullptr, "make_proxy: null tag");
  Tensor t;
  const bool known = sizes.has_value();
  Shape shape = known ? std::move(*sizes) : Shape{};
  TL_INTERNAL_ASSERT(!given_strides || given_strides->size() == shape.size(), "make_proxy: ", given_strides->size(),
                     " strides for shape ", shape);
  Strides strides = given_strides ? std::move(*given_strides) : contiguous_strides(shape);
  t.impl_ = std::make_shared<TensorImpl>(
      TensorImpl{nullptr, std::move(shape), std::move(strides), 0, dtype, std::move(tag), known});
  return t;
}

void Tensor::set_data(const Tensor& new_data) const {
  TL_CHECK(defined() && new_data.defined(), "set_data: ", defined() ? "the new data" : "the tensor",
           " is undefined (None)");
  TL_CHECK(!is_proxy() && !new_data.is_proxy(), "set_data: a symbolic proxy has no data to replace or give");
  TL_CHECK(!requires_grad() || is_floating_point(new_data.dtype()),
           "data set to a tensor that requires gradients must be floating point or complex dtype, got ",
           new_data.dtype());
  TensorImpl& self = *impl_;
  const TensorImpl& from = *new_data.impl_;
  if (self.autograd && self.dtype != from.dtype) {
    // As PyTorch's set_data: a gradient accumulator made for the old dtype is not reused.
    std::lock_guard lock(self.autograd->mutex);
    self.autograd->grad_accumulator.reset();
  }
  self.storage = from.storage;
  self.sizes = from.sizes;
  self.strides = from.strides;
  self.offset = from.offset;
  self.dtype = from.dtype;
}

void TensorBase::throw_unknown_sizes() const {
  detail::throw_error(impl_->proxy->describe() + " (its shape is unknown while tracing symbolically)");
}

int64_t TensorBase::size(int64_t dim) const {
  TL_CHECK(this->dim() > 0, "size: dimension specified as ", dim, " but tensor has no dimensions");
  return sizes()[wrap_dim(dim, this->dim(), "size")];
}

int64_t TensorBase::stride(int64_t dim) const {
  TL_CHECK(this->dim() > 0, "stride: dimension specified as ", dim, " but tensor has no dimensions");
  return strides()[wrap_dim(dim, this->dim(), "stride")];
}

bool TensorBase::is_contiguous() const {
  const TensorImpl& t = impl();
  int64_t expected = 1;
  for (int64_t i = t.sizes.size() - 1; i >= 0; --i) {
    if (t.sizes[i] == 1) continue;
    if (t.sizes[i] == 0) return true;
    if (t.strides[i] != expected) return false;
    expected *= t.sizes[i];  // within int64: check_sizes bounded the product of the sizes
  }
  return true;
}

namespace {

GradFnNameFn g_grad_fn_name_fn = nullptr;

}  // namespace

void set_grad_fn_name_fn(GradFnNameFn fn) { g_grad_fn_name_fn = fn; }

GradFnNameFn grad_fn_name_fn() { return g_grad_fn_name_fn; }

bool TensorBase::requires_grad() const {
  const TensorImpl& t = impl();
  if (t.autograd == nullptr) return false;
  const AutogradMeta& m = *t.autograd;
  // A view whose base was written (with grad) after the view was made will take the base's history.
  return m.requires_grad || (m.base.defined() && m.view_version != _version() && m.base.requires_grad());
}

const Tensor& Tensor::grad() const {
  static const Tensor kNone;
  const TensorImpl& t = impl();
  return t.autograd ? t.autograd->grad : kNone;
}

bool TensorBase::is_leaf() const {
  const TensorImpl& t = impl();
  return t.autograd == nullptr || t.autograd->grad_fn == nullptr;
}

int64_t TensorBase::_version() const {
  const TensorImpl& t = impl();
  return t.storage ? t.storage->version() : 0;
}

void TensorBase::check_data_access(DType requested) const {
  const TensorImpl& t = impl();
  TL_CHECK(t.proxy == nullptr, t.proxy ? t.proxy->describe() : std::string());
  TL_CHECK(requested == t.dtype, "data<T>(): tensor has dtype ", t.dtype, " but T is ", requested);
}

void* TensorBase::raw_data() const {
  const TensorImpl& t = impl();
  TL_CHECK(t.proxy == nullptr, t.proxy ? t.proxy->describe() : std::string());
  return static_cast<char*>(t.storage->data()) + t.offset * element_size();
}

Scalar Tensor::item() const {
  TL_CHECK(numel() == 1, "item(): a Tensor with ", numel(), " elements (size ", shape(),
           ") cannot be converted to Scalar");
  // No dispatched op, but profiled as ATen's: item() reads the value through _local_scalar_dense.
  RecordFunction item("aten::item", [&] { return ScopeArgs{*this}; });
  RecordFunction dense("aten::_local_scalar_dense", [&] { return ScopeArgs{*this}; });
  const void* p = raw_data();
  return TL_DISPATCH_ALL_TYPES(dtype(), "item", [&] { return to_scalar(*static_cast<const scalar_t*>(p)); });
}

}  // namespace tl
