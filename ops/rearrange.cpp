// ops/rearrange.cpp — flip, roll, repeat, tile, triu and tril: fresh tensors whose elements are the
// input's, moved. Each is one or a few copies through the elementwise loop (ops/elementwise.h) from a view
// that reads the input in the output's order: negative strides for flip, stride-0 dims for repeat.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/strided_view.h"

namespace tl::kernels {
namespace {

using detail::narrowed;

// out = self rolled by shift[d] along each dim d that has one: 2^k block copies for k rolled dims.
void roll_into(const Tensor& out, const Tensor& self, const std::vector<int64_t>& shift) {
  std::vector<int64_t> rolled;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (shift[d] != 0) rolled.push_back(d);
  for (uint64_t block = 0; block < (uint64_t{1} << rolled.size()); ++block) {
    Tensor dst = out, src = self;
    for (size_t j = 0; j < rolled.size(); ++j) {
      const int64_t d = rolled[j], n = self.size(d), s = shift[d];
      // Elements [0, n - s) move to [s, n); the last s wrap around to [0, s).
      const bool wraps = (block >> j) & 1u;
      dst = narrowed(dst, d, wraps ? 0 : s, wraps ? s : n - s);
      src = narrowed(src, d, wraps ? n - s : 0, wraps ? s : n - s);
    }
    detail::copy_elements(dst, src);
  }
}

// The upper (j - i >= diagonal) or lower (j - i <= diagonal) triangle of each matrix in self's last two
// dims, zeros elsewhere (NaN and inf included: they are selected, not multiplied): a copy of self, then the dropped
// run of each row (a prefix for triu, a suffix for tril) zeroed, both at memcpy / memset speed.
Tensor triangle(const Tensor& self, int64_t diagonal, bool upper, const char* op) {
  wrap_dim(-2, self.dim(), op);  // at least 2-D, in ATen's words
  const int64_t rows = self.size(-2), cols = self.size(-1);
  Tensor out = Tensor::allocate(self.shape(), self.dtype());
  if (out.numel() == 0) return out;
  detail::copy_elements(out, self);
  TL_DISPATCH_ALL_TYPES(self.dtype(), op, [&] {
    scalar_t* const dst = out.data<scalar_t>();
    parallel_for(0, out.numel() / cols, std::max<int64_t>(1, kGrainSize / cols), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        // Row i keeps columns [i + diagonal, cols) (triu) or [0, i + diagonal + 1) (tril); the diagonal clamped
        // first, so that no sum overflows.
        const int64_t i = r % rows, shift = std::clamp<int64_t>(diagonal, -rows, cols);
        const int64_t cut = std::clamp<int64_t>(i + shift + (upper ? 0 : 1), 0, cols);
        scalar_t* const row = dst + r * cols;
        if (upper) std::fill_n(row, cut, scalar_t(0));
        else std::fill_n(row + cut, cols - cut, scalar_t(0));
      }
    });
  });
  return out;
}

}  // namespace

// A copy read through a view with the flipped dims' strides negated.
Tensor flip(const Tensor& self, const FlipArgs& args) {
  const int64_t rank = self.dim();
  std::vector<bool> flipped(static_cast<size_t>(rank > 0 ? rank : 1), false);
  for (int64_t d : args.dims) {
    const int64_t w = wrap_dim(d, rank, "flip");
    TL_CHECK(!flipped[w], "flip: dim ", w, " appears multiple times in the list of dims");
    flipped[w] = true;
  }
  Tensor out = Tensor::allocate(self.shape(), self.dtype());
  if (self.numel() == 0) return out;
  Strides strides = self.strides();
  int64_t offset = self.storage_offset();
  for (int64_t d = 0; d < rank; ++d) {
    if (!flipped[d]) continue;
    offset += (self.size(d) - 1) * strides[d];
    strides[d] = -strides[d];
  }
  detail::copy_elements(out, Tensor::make(self.storage(), self.shape(), strides, offset, self.dtype()));
  return out;
}

// Element i of a rolled dim moves to (i + shift) mod size; a dim named twice rolls by the sum of its shifts.
// Without dims, the flattened tensor rolls by the one shift.
Tensor roll(const Tensor& self, const RollArgs& args) {
  const Shape& shifts = args.shifts.values;
  const Shape& dims = args.dims.values;
  TL_CHECK(!shifts.empty(), "roll: `shifts` required");
  const bool flat = dims.empty() && shifts.size() == 1;
  TL_CHECK(flat || shifts.size() == dims.size(), "roll: shifts and dimensions must align. shifts: ", shifts.size(),
           ", dims:", dims.size());
  const int64_t rank = flat ? 1 : self.dim();
  std::vector<int64_t> shift(static_cast<size_t>(std::max<int64_t>(rank, 1)), 0);
  for (int64_t i = 0; !flat && i < dims.size(); ++i) shift[wrap_dim(dims[i], rank, "roll")] += shifts[i];
  if (flat) shift[0] = shifts[0];
  Tensor out = Tensor::allocate(self.shape(), self.dtype());
  if (self.numel() == 0) return out;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t n = flat ? self.numel() : self.size(d);
    shift[d] = ((shift[d] % n) + n) % n;
  }
  if (!flat) {
    roll_into(out, self, shift);
    return out;
  }
  // The flat roll: a contiguous copy of self and the output, both viewed as 1-D.
  const Shape line{self.numel()};
  const Tensor src = Tensor::allocate(line, self.dtype());
  const Tensor src_shaped = Tensor::make(src.storage(), self.shape(), contiguous_strides(self.shape()), 0, self.dtype());
  detail::copy_elements(src_shaped, self);
  roll_into(Tensor::make(out.storage(), line, {1}, 0, self.dtype()), src, shift);
  return out;
}

// Each dim of self (padded with leading 1s to the length of repeats) repeated repeats[i] times: one copy
// into the output viewed as (r0, s0, r1, s1, ...) from self viewed as (1, s0, 1, s1, ...).
Tensor repeat(const Tensor& self, const RepeatArgs& args) {
  const Shape& repeats = args.repeats;
  TL_CHECK(repeats.size() >= self.dim(), "repeat: Number of dimensions of repeat dims can not be smaller than number of "
           "dimensions of tensor");
  const int64_t rank = repeats.size(), lead = rank - self.dim();
  const auto n = static_cast<size_t>(rank);
  Shape sizes(n, 1), self_strides(n, 0), shape(n, 0);
  for (int64_t d = 0; d < self.dim(); ++d) {
    sizes[lead + d] = self.size(d);
    self_strides[lead + d] = self.stride(d);
  }
  for (int64_t d = 0; d < rank; ++d) shape[d] = sizes[d] * repeats[d];
  for (int64_t d = 0; d < rank; ++d)
    TL_CHECK(shape[d] >= 0, "repeat: Trying to create tensor with negative dimension ", shape[d], ": ", shape);
  Tensor out = Tensor::allocate(shape, self.dtype());
  if (out.numel() == 0) return out;
  const Strides out_strides = contiguous_strides(shape);
  Shape out_sizes, src_sizes;
  Strides out_view_strides, src_strides;
  for (int64_t d = 0; d < rank; ++d) {
    out_sizes.push_back(repeats[d]);
    out_sizes.push_back(sizes[d]);
    out_view_strides.push_back(sizes[d] * out_strides[d]);
    out_view_strides.push_back(out_strides[d]);
    src_sizes.push_back(1);
    src_sizes.push_back(sizes[d]);
    src_strides.push_back(0);
    src_strides.push_back(self_strides[d]);
  }
  detail::copy_elements(Tensor::make(out.storage(), out_sizes, out_view_strides, 0, out.dtype()),
                        Tensor::make(self.storage(), src_sizes, src_strides, self.storage_offset(), self.dtype()));
  return out;
}

// repeat with dims padded by leading 1s to self's rank (composite: autograd records the repeat).
Tensor tile(const Tensor& self, const TileArgs& args) {
  Shape dims = args.dims;
  while (dims.size() < self.dim()) dims.insert(0, 1);
  return self.repeat(dims);
}

Tensor triu(const Tensor& self, const TriuArgs& args) { return triangle(self, args.diagonal, true, "triu"); }
Tensor tril(const Tensor& self, const TrilArgs& args) { return triangle(self, args.diagonal, false, "tril"); }

}  // namespace tl::kernels
