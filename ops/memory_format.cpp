// ops/memory_format.cpp — ATen 1.13's stride rules: is_channels_last_strides_2d (c10/core/MemoryFormat.h) and
// TensorIterator's fast set-up, reorder_dimensions and output allocation (ATen/TensorIterator.cpp).
#include "ops/memory_format.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "ops/elementwise.h"

namespace tl::detail {
namespace {

// ATen's is_non_overlapping_and_dense: the dimensions of size >= 2, ordered by stride, step densely.
bool non_overlapping_and_dense(const Tensor& x) {
  std::vector<int64_t> order(static_cast<size_t>(x.dim()));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    if (x.size(a) < 2) return false;
    if (x.size(b) < 2) return true;
    return x.stride(a) < x.stride(b);
  });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (x.size(d) < 2) return true;
    if (x.stride(d) != expected) return false;
    expected *= x.size(d);
  }
  return true;
}

// x's stride along dimension d of the broadcast `shape`, in bytes; 0 where x is broadcast along it.
int64_t broadcast_stride(const Tensor& x, const Shape& shape, size_t d) {
  const size_t offset = shape.size() - static_cast<size_t>(x.dim());
  if (d < offset) return 0;
  const int64_t xd = static_cast<int64_t>(d - offset);
  if (x.size(xd) == 1 && shape[d] != 1) return 0;
  return x.stride(xd) * x.element_size();
}

// TensorIterator's reorder_dimensions: the dimensions from the fastest-moving, by an insertion sort that moves a
// dimension only on a strict decision (the first input with unequal strides along the two, or a larger size at
// equal strides).
std::vector<size_t> iteration_order(const Shape& shape, std::initializer_list<Tensor> inputs) {
  const size_t ndim = shape.size();
  std::vector<size_t> perm(ndim);
  for (size_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  auto should_swap = [&](size_t d0, size_t d1) {
    for (const Tensor& x : inputs) {
      const int64_t s0 = broadcast_stride(x, shape, d0), s1 = broadcast_stride(x, shape, d1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 != s1) return s0 < s1 ? -1 : 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  for (size_t i = 1; i < ndim; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      const int comparison = should_swap(perm[d0], perm[d1]);
      if (comparison > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
  return perm;
}

Tensor allocate_strided(const Shape& shape, const Strides& strides, DType dtype) {
  const Tensor storage = Tensor::allocate({numel_of(shape)}, dtype);
  return Tensor::make(storage.storage(), shape, strides, 0, dtype);
}

}  // namespace

bool is_channels_last_contiguous(const Tensor& x) {
  if (x.dim() != 4) return false;
  int64_t expected = 1;
  for (int64_t d : {1, 3, 2, 0}) {
    if (x.size(d) == 1) continue;
    if (x.stride(d) != expected) return false;
    expected *= x.size(d);
  }
  return true;
}

bool suggests_channels_last(const Tensor& x) {
  if (x.dim() != 4 || x.stride(1) == 0) return false;
  int64_t min = 0;
  for (int64_t d : {1, 3, 2, 0}) {
    if (x.size(d) == 0 || x.stride(d) < min) return false;
    if (d == 0 && min == x.stride(1)) return false;  // N111 and N11W: NCHW, ATen's default
    min = x.stride(d);
    if (x.size(d) > 1) min *= x.size(d);
  }
  return true;
}

Tensor allocate_channels_last(const Shape& nchw, DType dtype) {
  return allocate_strided(nchw, {nchw[1] * nchw[2] * nchw[3], 1, nchw[3] * nchw[1], nchw[1]}, dtype);
}

Tensor channels_last_dense(const Tensor& t) {
  if (is_channels_last_contiguous(t)) return t;
  Tensor copy = allocate_channels_last(t.shape(), t.dtype());
  copy_elements(copy, t);
  return copy;
}

Tensor allocate_like_inputs(const Shape& shape, DType dtype, std::initializer_list<Tensor> inputs) {
  // Each property is looked at only when the ones before it did not decide: a 1-element add of two
  // contiguous tensors pays for the shape and contiguity checks alone.
  const auto all = [&](const auto& property) { return std::all_of(inputs.begin(), inputs.end(), property); };
  if (inputs.size() > 0 && all([&](const Tensor& x) { return x.shape() == shape; })) {  // TensorIterator's fast set-up
    if (all([](const Tensor& x) { return x.is_contiguous(); })) return Tensor::allocate(shape, dtype);
    if (all(is_channels_last_contiguous)) return allocate_channels_last(shape, dtype);
    const Strides& last = (inputs.end() - 1)->strides();
    if (all([&](const Tensor& x) { return x.strides() == last && non_overlapping_and_dense(x); }))
      return allocate_strided(shape, last, dtype);
  }
  const std::vector<size_t> perm = iteration_order(shape, inputs);
  Strides strides(shape.size());
  int64_t stride = 1;
  for (size_t d : perm) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return allocate_strided(shape, strides, dtype);
}

}  // namespace tl::detail
