// core/shape.h — sizes and strides of a tensor (in elements), with checked element counts.
// A Shape never holds a negative size once validated by check_sizes().
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <vector>

namespace tl {

/// A list of dimension sizes (or strides). Prints as PyTorch prints sizes: [5, 3, 224, 224].
class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  explicit Shape(size_t rank, int64_t fill = 0) : dims_(rank, fill) {}

  int64_t size() const { return static_cast<int64_t>(dims_.size()); }
  bool empty() const { return dims_.empty(); }
  int64_t& operator[](int64_t i) { return dims_[static_cast<size_t>(i)]; }
  int64_t operator[](int64_t i) const { return dims_[static_cast<size_t>(i)]; }
  auto begin() const { return dims_.begin(); }
  auto end() const { return dims_.end(); }
  auto begin() { return dims_.begin(); }
  auto end() { return dims_.end(); }
  const int64_t* data() const { return dims_.data(); }
  void push_back(int64_t d) { dims_.push_back(d); }
  void insert(int64_t pos, int64_t d) { dims_.insert(dims_.begin() + pos, d); }
  void erase(int64_t pos) { dims_.erase(dims_.begin() + pos); }
  const std::vector<int64_t>& vec() const { return dims_; }

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<int64_t> dims_;
};

using Strides = Shape;

std::ostream& operator<<(std::ostream& os, const Shape& shape);

/// Throws tl::Error for negative sizes or sizes whose product, zeros counted as 1, overflows int64.
void check_sizes(const Shape& sizes, const char* what);
/// Whether the product of the non-negative `sizes`, zeros counted as 1, fits in int64 (then so does
/// every stride and partial product of them): the bound check_sizes enforces.
bool sizes_fit_int64(const Shape& sizes);
/// Product of sizes; the sizes must have passed check_sizes.
int64_t numel_of(const Shape& sizes);
/// Row-major (C-contiguous) strides for `sizes`.
Strides contiguous_strides(const Shape& sizes);
/// Wraps a possibly negative dim into [0, rank); throws naming `op` when out of range.
int64_t wrap_dim(int64_t dim, int64_t rank, const char* op);
/// The broadcast of two shapes (NumPy rules); throws naming both shapes when incompatible.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

}  // namespace tl
