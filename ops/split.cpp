// ops/split.cpp — narrow, chunk, split, split_with_sizes and unbind: views of their input, each made by
// slice or select (these rows are composite, so autograd records the slices). Arguments are checked first,
// with ATen's words, before any view is made.
#include <algorithm>
#include <vector>

#include "core/op_args.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

void check_not_scalar(const Tensor& self, const char* op) {
  TL_CHECK(self.dim() > 0, op, ": split expects at least a 1-dimensional tensor");
}

// self split along dim into consecutive pieces of the given lengths (which sum to the dim's size).
TensorList pieces(const Tensor& self, int64_t dim, const std::vector<int64_t>& lengths) {
  TensorList out;
  out.reserve(lengths.size());
  int64_t start = 0;
  for (int64_t length : lengths) {
    out.push_back(self.slice(dim, start, start + length));
    start += length;
  }
  return out;
}

// split's pieces: split_size each, the last one shorter; one piece when split_size is 0 (a 0-size dim).
TensorList split_impl(const Tensor& self, int64_t split_size, int64_t dim_arg, const char* op) {
  check_not_scalar(self, op);
  TL_CHECK(split_size >= 0, op, ": split expects split_size be non-negative, but got split_size=", split_size);
  const int64_t dim = wrap_dim(dim_arg, self.dim(), op), dim_size = self.size(dim);
  TL_CHECK(split_size > 0 || dim_size == 0, op,
           ": split_size can only be 0 if dimension size is 0, but got dimension size of ", dim_size);
  const int64_t count = split_size == 0 ? 1 : std::max<int64_t>((dim_size + split_size - 1) / split_size, 1);
  std::vector<int64_t> lengths(static_cast<size_t>(count), split_size);
  lengths.back() = split_size - (split_size * count - dim_size);
  return pieces(self, dim, lengths);
}

TensorList split_with_sizes_impl(const Tensor& self, const Shape& sizes, int64_t dim_arg, const char* op) {
  check_not_scalar(self, op);
  const int64_t dim = wrap_dim(dim_arg, self.dim(), op), dim_size = self.size(dim);
  int64_t total = 0;
  for (int64_t length : sizes) {
    TL_CHECK(length >= 0, op,
             ": split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=", sizes);
    total += length;
  }
  TL_CHECK(total == dim_size, op, ": split_with_sizes expects split_sizes to sum exactly to ", dim_size,
           " (input tensor's size at dimension ", dim, "), but got split_sizes=", sizes);
  return pieces(self, dim, std::vector<int64_t>(sizes.begin(), sizes.end()));
}

}  // namespace

// self.slice(dim, start, start + length); start may be negative or equal the dim's size.
Tensor narrow(const Tensor& self, const NarrowArgs& args) {
  TL_CHECK(self.dim() > 0, "narrow: narrow() cannot be applied to a 0-dim tensor.");
  const int64_t dim = wrap_dim(args.dim, self.dim(), "narrow"), size = self.size(dim), length = args.length;
  const int64_t start = args.start == size ? size : wrap_dim(args.start, size, "narrow");
  TL_CHECK(length >= 0 && start <= size - length, "narrow: start (", start, ") + length (", length,
           ") exceeds dimension size (", size, ").");
  return self.slice(dim, start, start + length);
}

// `chunks` pieces of ceil(size / chunks) (fewer when they run out); a 0-size dim gives `chunks` empty pieces.
TensorList chunk(const Tensor& self, const ChunkArgs& args) {
  TL_CHECK(self.dim() > 0, "chunk: chunk expects at least a 1-dimensional tensor");
  TL_CHECK(args.chunks > 0, "chunk: chunk expects `chunks` to be greater than 0, got: ", args.chunks);
  const int64_t dim = wrap_dim(args.dim, self.dim(), "chunk"), dim_size = self.size(dim);
  if (dim_size == 0) return pieces(self, dim, std::vector<int64_t>(static_cast<size_t>(args.chunks), 0));
  return split_impl(self, (dim_size + args.chunks - 1) / args.chunks, dim, "chunk");
}

TensorList split(const Tensor& self, const SplitArgs& args) {
  return split_impl(self, args.split_size, args.dim, "split");
}

TensorList split_with_sizes(const Tensor& self, const SplitWithSizesArgs& args) {
  return split_with_sizes_impl(self, args.split_sizes, args.dim, "split_with_sizes");
}

// self.select(dim, i) for every i.
TensorList unbind(const Tensor& self, const UnbindArgs& args) {
  const int64_t dim = wrap_dim(args.dim, self.dim(), "unbind");
  TensorList out;
  out.reserve(static_cast<size_t>(self.size(dim)));
  for (int64_t i = 0; i < self.size(dim); ++i) out.push_back(self.select(dim, i));
  return out;
}

}  // namespace tl::kernels
