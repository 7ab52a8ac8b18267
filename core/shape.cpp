// core/shape.cpp — shape arithmetic shared by views, kernels and shape inference.
#include "core/shape.h"

#include <algorithm>
#include <cstdint>
#include <ostream>

#include "core/error.h"

namespace tl {

std::ostream& operator<<(std::ostream& os, const Shape& shape) {
  os << '[';
  for (int64_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  return os << ']';
}

void check_sizes(const Shape& sizes, const char* what) {
  for (int64_t d : sizes) TL_CHECK(d >= 0, what, ": negative dimension ", d, " in size ", sizes);
  // The product of the sizes with zeros counted as 1 must fit too, so that every stride and every
  // partial product a kernel forms is countable even for a tensor without elements. PyTorch refuses
  // most such sizes as well ("Storage size calculation overflowed"), depending on where the 0 is.
  TL_CHECK(sizes_fit_int64(sizes), what, ": size ", sizes,
           std::find(sizes.begin(), sizes.end(), 0) != sizes.end()
               ? " is too large: its nonzero dimensions multiply past int64, so its strides cannot be counted"
               : " has more elements than int64 can count");
}

bool sizes_fit_int64(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t d : sizes) {
    if (__builtin_mul_overflow(n, std::max<int64_t>(d, 1), &n)) return false;
  }
  return true;
}

int64_t numel_of(const Shape& sizes) {
  int64_t n = 1;
  for (int64_t d : sizes) n *= d;
  return n;
}

Strides contiguous_strides(const Shape& sizes) {
  Strides strides(static_cast<size_t>(sizes.size()), 1);
  int64_t s = 1;
  for (int64_t i = sizes.size() - 1; i >= 0; --i) {
    strides[i] = s;
    // Sizes check_sizes refuses can get here before it runs (a view computes its strides first);
    // saturating keeps that defined until the check throws.
    if (__builtin_mul_overflow(s, sizes[i] > 0 ? sizes[i] : 1, &s)) s = INT64_MAX;
  }
  return strides;
}

int64_t wrap_dim(int64_t dim, int64_t rank, const char* op) {
  const int64_t lo = rank > 0 ? -rank : -1, hi = rank > 0 ? rank - 1 : 0;
  TL_CHECK(dim >= lo && dim <= hi, op, ": dimension out of range (expected to be in range of [",
           lo, ", ", hi, "], but got ", dim, ")");
  return dim < 0 ? dim + (rank > 0 ? rank : 1) : dim;
}

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  const int64_t rank = std::max(a.size(), b.size());
  Shape out(static_cast<size_t>(rank), 1);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    TL_CHECK(da == db || da == 1 || db == 1, op, ": shapes ", a, " and ", b,
             " cannot be broadcast (size ", da, " vs ", db, " at dimension ", i, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace tl
