// core/tensor_accessor.h — TensorAccessor<T, N>, LibTorch's typed strided view of a tensor's elements
// (x.accessor<float, 2>()): a[i][j] reads and writes the tensor in place. Unlike LibTorch's, every index
// is checked against its size (an out-of-range one throws tl::Error instead of reading past the data).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/error.h"

namespace tl {

/// N dimensions of a tensor's elements of type T, seen through their sizes and strides (in elements).
/// It keeps its own copy of the sizes and strides and a pointer to the data: the tensor's storage must
/// outlive it (TensorBase::accessor() refuses a temporary tensor). `a[i]` is a TensorAccessor<T, N - 1>
/// of the sub-tensor at index i, and for N == 1 a T& to the element; i must be in [0, size(0)) (no
/// negative indices, as LibTorch's): otherwise it throws tl::Error naming the index, dim and size.
template <typename T, size_t N>
class TensorAccessor {
 public:
  using Dims = std::array<int64_t, N>;
  TensorAccessor(T* data, const Dims& sizes, const Dims& strides, int64_t first_dim = 0)
      : data_(data), sizes_(sizes), strides_(strides), first_dim_(first_dim) {}

  decltype(auto) operator[](int64_t i) const {
    TL_CHECK(i >= 0 && i < sizes_[0], "index ", i, " is out of bounds for dimension ", first_dim_, " with size ",
             sizes_[0]);
    T* at = data_ + i * strides_[0];
    if constexpr (N == 1) {
      return static_cast<T&>(*at);
    } else {
      std::array<int64_t, N - 1> sizes{}, strides{};
      for (size_t d = 1; d < N; ++d) {
        sizes[d - 1] = sizes_[d];
        strides[d - 1] = strides_[d];
      }
      return TensorAccessor<T, N - 1>(at, sizes, strides, first_dim_ + 1);
    }
  }
  /// The size and stride of this accessor's dimension `d` (0 is the one operator[] indexes); throws
  /// tl::Error for d >= N.
  int64_t size(size_t d) const { return sizes_[checked(d)]; }
  int64_t stride(size_t d) const { return strides_[checked(d)]; }
  const Dims& sizes() const { return sizes_; }
  const Dims& strides() const { return strides_; }
  /// Pointer to the first element (honour strides()).
  T* data() const { return data_; }

 private:
  size_t checked(size_t d) const {
    TL_CHECK(d < N, "TensorAccessor: dimension ", d, " is out of range for an accessor of ", N, " dims");
    return d;
  }

  T* data_;
  Dims sizes_, strides_;
  int64_t first_dim_;  // the tensor's dimension that sizes_[0] describes, for the error text
};

}  // namespace tl
