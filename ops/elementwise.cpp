// ops/elementwise.cpp — loop geometry (broadcast, reorder, coalesce), PyTorch's dtype rules, and the
// converting copy every kernel uses for mixed dtypes. Nothing here goes through the dispatcher.
#include "ops/elementwise.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string_view>

#include "core/boxing.h"

namespace tl::detail {

ElementwiseLoop::ElementwiseLoop(const Tensor& out, std::initializer_list<Tensor> inputs)
    : num_operands_(static_cast<int>(inputs.size()) + 1), numel_(out.numel()) {
  TL_INTERNAL_ASSERT(num_operands_ <= kMaxOperands, "elementwise loop with ", num_operands_, " operands");
  const int64_t rank = out.dim();
  const Shape& shape = out.shape();
  operands_[0] = out;
  std::copy(inputs.begin(), inputs.end(), operands_.begin() + 1);
  // Byte strides per output dimension and operand; 0 where an input broadcasts.
  std::vector<int64_t> strides(static_cast<size_t>(rank) * kMaxOperands, 0);
  for (int k = 0; k < num_operands_; ++k) {
    const Tensor& t = operands_[k];
    TL_INTERNAL_ASSERT(t.dim() <= rank, "operand of size ", t.shape(), " does not broadcast to ", shape);
    const int64_t lead = rank - t.dim(), esize = t.element_size();
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int64_t size = t.shape()[d];
      TL_INTERNAL_ASSERT(size == shape[lead + d] || size == 1, "operand of size ", t.shape(),
                         " does not broadcast to ", shape);
      strides[static_cast<size_t>(lead + d) * kMaxOperands + k] = size == 1 ? 0 : t.strides()[d] * esize;
    }
    if (numel_ > 0) data_[k] = static_cast<char*>(t.raw_data());
  }
  // Innermost first: drop size-1 dimensions, order the rest by the output's stride.
  std::vector<int64_t> dims;
  for (int64_t d = rank - 1; d >= 0; --d)
    if (shape[d] != 1) dims.push_back(d);
  std::stable_sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) {
    return std::llabs(strides[a * kMaxOperands]) < std::llabs(strides[b * kMaxOperands]);
  });
  for (int64_t d : dims) {
    const int64_t* s = &strides[d * kMaxOperands];
    bool merge = !sizes_.empty();
    for (int op = 0; merge && op < num_operands_; ++op)
      merge = s[op] == strides_[strides_.size() - kMaxOperands + op] * sizes_.back();
    if (merge) {
      sizes_.back() *= shape[d];
    } else {
      sizes_.push_back(shape[d]);
      strides_.insert(strides_.end(), s, s + kMaxOperands);
    }
  }
  if (sizes_.empty()) {
    sizes_.push_back(1);
    strides_.assign(kMaxOperands, 0);
  }
}

namespace {

std::optional<DType> promote(std::optional<DType> a, DType b) { return a ? promote_types(*a, b) : b; }

// PyTorch's combine_categories: a lower-priority group matters only when it brings a higher
// category (bool < integral < floating) than the higher-priority group has.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
  if (!higher) return lower;
  if (!lower || is_floating_point(*higher)) return higher;
  if (*higher == DType::Bool || is_floating_point(*lower)) return promote_types(*higher, *lower);
  return higher;
}

bool non_overlapping_and_dense(const Tensor& t) {
  std::vector<int64_t> dims(static_cast<size_t>(t.dim()));
  std::iota(dims.begin(), dims.end(), 0);
  std::sort(dims.begin(), dims.end(), [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t d : dims) {
    if (t.shape()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.shape()[d];
  }
  return true;
}

template <typename U>
void copy_same_type(const ElementwiseLoop& loop) {
  map_elements<U, U>(loop, [](U v) { return v; });
}

}  // namespace

DType result_type(std::span<const Tensor> tensors, std::span<const Scalar> scalars) {
  std::optional<DType> dimensioned, zero_dim, wrapped;
  for (const Tensor& t : tensors) {
    if (!t.defined()) continue;
    std::optional<DType>& slot = t.dim() > 0 ? dimensioned : zero_dim;
    slot = promote(slot, t.dtype());
  }
  // A Python float counts as the default dtype (float32), an int as int64.
  for (const Scalar& s : scalars)
    wrapped = promote(wrapped, s.is_floating_point() ? DType::Float32 : s.is_integral() ? DType::Int64 : DType::Bool);
  const std::optional<DType> result = combine(dimensioned, combine(zero_dim, wrapped));
  TL_INTERNAL_ASSERT(result.has_value(), "result_type of no operands");
  return *result;
}

bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  return from == DType::Bool || to != DType::Bool;
}

Tensor scalar_to_tensor(const Scalar& value, DType dtype) {
  Tensor t = Tensor::allocate({}, dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "scalar_to_tensor",
                        [&] { *static_cast<scalar_t*>(t.raw_data()) = value.to<scalar_t>(); });
  return t;
}

void copy_elements(const Tensor& out, const Tensor& src) {
  if (out.numel() == 0) return;
  const ElementwiseLoop loop(out, {src});
  if (out.dtype() == src.dtype()) {
    // A plain copy only moves bytes: one loop per element size serves every dtype.
    switch (out.element_size()) {
      case 1: return copy_same_type<uint8_t>(loop);
      case 2: return copy_same_type<uint16_t>(loop);
      case 4: return copy_same_type<uint32_t>(loop);
      case 8: return copy_same_type<uint64_t>(loop);
    }
    TL_INTERNAL_ASSERT(false, "element size ", out.element_size());
  }
  TL_DISPATCH_ALL_TYPES(out.dtype(), "copy_", [&] {
    using To = scalar_t;
    TL_DISPATCH_ALL_TYPES(src.dtype(), "copy_", [&] {
      map_elements<To, scalar_t>(loop, [](scalar_t v) { return convert_element<To>(v); });
    });
  });
}

Tensor to_dtype(const Tensor& x, DType dtype) {
  if (x.dtype() == dtype) return x;
  Tensor out = Tensor::allocate(x.shape(), dtype);
  copy_elements(out, x);
  return out;
}

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;  // no element, so none shares memory (an empty expand)
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.strides()[d] == 0 && t.shape()[d] > 1) return true;
  return false;
}

void check_no_internal_overlap(const Tensor& out, std::string_view op) {
  TL_CHECK(!has_internal_overlap(out), op,
           ": unsupported operation: more than one element of the written-to tensor refers to a single "
           "memory location. Please clone() the tensor before performing the operation.");
}

void check_no_overlap(const Tensor& out, const Tensor& in, std::string_view op, bool allow_full) {
  const char* error = ": unsupported operation: some elements of the input tensor and the written-to tensor refer "
                      "to a single memory location. Please clone() the tensor before performing the operation.";
  if (out.is_same(in)) {
    TL_CHECK(allow_full, op, error);
    return;
  }
  // storages first: a traced proxy has none (and may not know its shape)
  if (!out.storage() || out.storage() != in.storage() || out.numel() == 0 || in.numel() == 0) return;
  if (!non_overlapping_and_dense(out) || !non_overlapping_and_dense(in)) return;
  const char* a = static_cast<const char*>(out.raw_data());
  const char* b = static_cast<const char*>(in.raw_data());
  const char* a_end = a + out.nbytes();
  const char* b_end = b + in.nbytes();
  if (a == b && a_end == b_end && out.strides() == in.strides()) {
    TL_CHECK(allow_full, op, error);
    return;
  }
  TL_CHECK(!(a < b_end && b < a_end), op, error);
}

void check_inplace_broadcast(const Tensor& self, const Shape& other, const char* op) {
  const Shape shape = broadcast_shapes(self.shape(), other, op);
  TL_CHECK(shape == self.shape(), op, ": output with shape ", self.shape(), " doesn't match the broadcast shape ",
           shape);
}

Shape activation_backward_shape(const Tensor& grad, const Tensor& self, const char* op) {
  TL_CHECK(is_floating_point(grad.dtype()) && grad.dtype() == self.dtype(), op,
           ": expected grad_output and self of one floating point dtype, got ", grad.dtype(), " and ", self.dtype());
  return broadcast_shapes(grad.shape(), self.shape(), op);
}

DType wrapped_number_dtype(const Scalar& value) {
  return value.is_floating_point() ? DType::Float64 : value.is_integral() ? DType::Int64 : DType::Bool;
}

BinaryOperands binary_operands(const Tensor& self, const Tensor& other, const std::optional<Scalar>& number,
                               const char* op, std::string_view other_name) {
  BinaryOperands r;
  r.self = self;
  TL_CHECK(r.self.defined(), op, ": expected a tensor for 'self', got None");
  if (other.defined()) {
    r.other = other;
    r.other_dtype = other.dtype();
    r.dtype = result_type(std::initializer_list<Tensor>{self, other});
  } else {
    TL_CHECK(number.has_value(), op, ": expected a tensor for '", other_name, "', got None");
    const Scalar& value = *number;
    r.other_dtype = wrapped_number_dtype(value);
    r.dtype = result_type(std::span<const Tensor>(&self, 1), std::span<const Scalar>(&value, 1));
    // PyTorch's wrapped number: a 0-dim double / int64 / bool tensor cast to the common dtype as a tensor
    // is, unchecked (float32 + 1e40 is inf, int32 + 2^40 wraps), where Scalar::to would refuse the value.
    r.other = to_dtype(scalar_to_tensor(value, r.other_dtype), r.dtype);
    r.other_is_scalar = true;
  }
  r.shape = broadcast_shapes(r.self.shape(), r.other.shape(), op);
  return r;
}

}  // namespace tl::detail
