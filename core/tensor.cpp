// core/tensor.cpp — Tensor construction, metadata and element access (no ops: those dispatch).
#include "core/tensor.h"

#include <algorithm>

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

// A quantized dtype comes with its quantizer, any other without one.
void check_quantizer(DType dtype, const Quantizer* quantizer) {
  TL_CHECK(is_quantized(dtype) == (quantizer != nullptr), "tensor: ",
           quantizer ? "a quantizer needs a quantized dtype, got " : "a quantized dtype needs a quantizer "
           "(quantize_per_tensor, _make_per_tensor_quantized_tensor), got ", dtype);
  TL_INTERNAL_ASSERT(!quantizer || quantizer->dtype() == dtype, "tensor: a ", quantizer ? quantizer->dtype() : dtype,
                     " quantizer for a ", dtype, " tensor");
}

// The tensor methods of a quantized tensor: PyTorch's messages for a plain tensor and the wrong scheme.
const Quantizer& quantizer_of(const TensorBase& t, const char* op, QScheme scheme) {
  TL_CHECK(t.is_quantized(), "Could not run 'aten::", op, "' with arguments from the 'CPU' backend. This could be "
           "because the operator doesn't exist for this backend");
  const Quantizer& q = *t.quantizer();
  TL_CHECK(q.qscheme() == scheme, "Expected quantizer->qscheme() == ",
           scheme == QScheme::PerTensorAffine ? "kPerTensorAffine" : "kPerChannelAffine", " to be true, but got false. (",
           op, " of a ", q.qscheme(), " tensor)");
  return q;
}

}  // namespace

Tensor Tensor::make(std::shared_ptr<Storage> storage, Shape sizes, Strides strides, int64_t offset,
                    DType dtype, std::shared_ptr<const Quantizer> quantizer) {
  TL_CHECK(storage != nullptr, "tensor: null storage");
  check_quantizer(dtype, quantizer.get());
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
  t.impl_->quantizer = std::move(quantizer);
  return t;
}

Tensor Tensor::allocate(const Shape& sizes, DType dtype, std::shared_ptr<const Quantizer> quantizer) {
  check_sizes(sizes, "tensor");
  check_quantizer(dtype, quantizer.get());
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
  t.impl_->quantizer = std::move(quantizer);
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
  self.quantizer = from.quantizer;
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

QScheme TensorBase::qscheme() const {
  TL_CHECK(is_quantized(), "Could not run 'aten::qscheme' with arguments from the 'CPU' backend. This could be "
           "because the operator doesn't exist for this backend");
  return quantizer()->qscheme();
}

double TensorBase::q_scale() const { return quantizer_of(*this, "q_scale", QScheme::PerTensorAffine).scale(); }

int64_t TensorBase::q_zero_point() const {
  return quantizer_of(*this, "q_zero_point", QScheme::PerTensorAffine).zero_point();
}

int64_t TensorBase::q_per_channel_axis() const {
  return quantizer_of(*this, "q_per_channel_axis", QScheme::PerChannelAffine).axis();
}

Tensor Tensor::q_per_channel_scales() const {
  const std::vector<double>& scales = quantizer_of(*this, "q_per_channel_scales", QScheme::PerChannelAffine).scales();
  Tensor out = allocate({static_cast<int64_t>(scales.size())}, DType::Float64);
  std::copy(scales.begin(), scales.end(), out.data<double>());
  return out;
}

Tensor Tensor::q_per_channel_zero_points() const {
  const std::vector<int64_t>& zero_points =
      quantizer_of(*this, "q_per_channel_zero_points", QScheme::PerChannelAffine).zero_points();
  Tensor out = allocate({static_cast<int64_t>(zero_points.size())}, DType::Int64);
  std::copy(zero_points.begin(), zero_points.end(), out.data<int64_t>());
  return out;
}

Tensor detail::dequantize_elements(const Tensor& q) {
  const Quantizer& quantizer = *q.quantizer();
  Tensor out = Tensor::allocate(q.shape(), DType::Float32);
  float* dst = out.data<float>();
  const int64_t n = q.numel(), dims = q.dim(), axis = quantizer.axis();  // axis -1: per tensor
  TL_DISPATCH_QINT_TYPES(q.dtype(), "dequantize", [&] {
    const auto* src = static_cast<const underlying_t*>(q.raw_data());
    std::vector<int64_t> index(static_cast<size_t>(dims), 0);
    int64_t at = 0;  // the element of `index`, in elements from src
    for (int64_t i = 0; i < n; ++i) {
      if (axis < 0) {
        dst[i] = dequantize_value(src[at], static_cast<float>(quantizer.scale()), quantizer.zero_point());
      } else {  // ATen's per-channel kernel computes in double: (q - zero_point) * scale, then rounds to float
        const auto c = static_cast<size_t>(index[static_cast<size_t>(axis)]);
        dst[i] = static_cast<float>(static_cast<double>(src[at] - quantizer.zero_points()[c]) * quantizer.scales()[c]);
      }
      for (int64_t d = dims - 1; d >= 0; --d) {  // the next index in row-major order
        const auto k = static_cast<size_t>(d);
        at += q.strides()[d];
        if (++index[k] < q.sizes()[d]) break;
        at -= q.strides()[d] * q.sizes()[d];
        index[k] = 0;
      }
    }
  });
  return out;
}

Scalar Tensor::item() const {
  TL_CHECK(numel() == 1, "item(): a Tensor with ", numel(), " elements (size ", shape(),
           ") cannot be converted to Scalar");
  // PyTorch 1.13's item() of a quantized tensor returns an int that is neither the value nor the integer.
  TL_CHECK(!is_quantized(), "item(): a quantized tensor (", dtype(), ") has no scalar value of its own: call "
           "dequantize().item() for the real value or int_repr().item() for the integer");
  // No dispatched op, but profiled as ATen's: item() reads the value through _local_scalar_dense.
  RecordFunction item("aten::item", [&] { return ScopeArgs{*this}; });
  RecordFunction dense("aten::_local_scalar_dense", [&] { return ScopeArgs{*this}; });
  const void* p = raw_data();
  return TL_DISPATCH_ALL_TYPES(dtype(), "item", [&] { return to_scalar(*static_cast<const scalar_t*>(p)); });
}

}  // namespace tl
