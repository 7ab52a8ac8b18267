// ops/pad.cpp — constant_pad_nd (any dtype, any rank) and the reflection / replication pads of the last one
// or two dims with their backward kernels (F.pad's modes), as ATen's CPU kernels: a negative pad crops.
// The pads read and write contiguous (planes, H, W) blocks, in parallel over planes; a 1-D pad is H = 1.
#include <algorithm>
#include <span>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/strided_view.h"

namespace tl::kernels {
namespace {

using detail::narrowed;

/// The geometry of a reflection or replication pad: `rank` padded trailing dims (1 or 2), and per padded
/// axis (H then W; a 1-D pad has H = 1 and no H padding) the input index each output index reads.
struct PadPlan {
  Shape out_shape;
  int64_t planes = 0, in_h = 1, in_w = 0, out_h = 1, out_w = 0, left = 0;
  std::vector<int64_t> rows, cols;
};

int64_t reflect(int64_t i, int64_t n) {
  if (i < 0) return -i;
  return i >= n ? 2 * (n - 1) - i : i;
}
int64_t clamp_index(int64_t i, int64_t n) { return std::clamp<int64_t>(i, 0, n - 1); }

/// Checks `self` and the pads of `op` (ATen's messages) and maps every output index to its input index.
/// padding is (left, right) for a 1-D pad, (left, right, top, bottom) for a 2-D one.
PadPlan pad_plan(const char* op, const Tensor& self, const Shape& padding, bool reflection) {
  const int64_t rank = static_cast<int64_t>(padding.size()) / 2, dim = self.dim();
  bool sized = dim == rank + 1 || dim == rank + 2;  // unbatched or batched; every dim but the batch non-empty
  for (int64_t d = dim == rank + 2 ? 1 : 0; sized && d < dim; ++d) sized = self.size(d) > 0;
  TL_CHECK(sized, op, ": expected ", rank + 1, "D or ", rank + 2, "D (batch mode) tensor with possibly 0 batch size "
           "and other non-zero dimensions for input, but got: ", self.shape());
  PadPlan p;
  p.in_w = self.size(-1);
  p.in_h = rank == 2 ? self.size(-2) : 1;
  const int64_t left = padding[0], right = padding[1], top = rank == 2 ? padding[2] : 0,
                bottom = rank == 2 ? padding[3] : 0;
  if (reflection) {
    TL_CHECK(left < p.in_w && right < p.in_w, op, ": padding size should be less than the corresponding input "
             "dimension, but got: padding (", left, ", ", right, ") at dimension ", dim - 1, " of input ", self.shape());
    TL_CHECK(top < p.in_h && bottom < p.in_h, op, ": padding size should be less than the corresponding input "
             "dimension, but got: padding (", top, ", ", bottom, ") at dimension ", dim - 2, " of input ", self.shape());
  }
  p.out_w = p.in_w + left + right;
  p.out_h = p.in_h + top + bottom;
  if (rank == 1)
    TL_CHECK(p.out_w >= 1, op, ": input (W: ", p.in_w, ") is too small. Calculated output W: ", p.out_w);
  else
    TL_CHECK(p.out_w >= 1 && p.out_h >= 1, op, ": input (H: ", p.in_h, ", W: ", p.in_w,
             ") is too small. Calculated output H: ", p.out_h, " W: ", p.out_w);
  p.out_shape = self.shape();
  p.out_shape[dim - 1] = p.out_w;
  if (rank == 2) p.out_shape[dim - 2] = p.out_h;
  p.planes = self.numel() / (p.in_h * p.in_w);
  p.left = left;
  const auto map = [&](int64_t i, int64_t n) { return reflection ? reflect(i, n) : clamp_index(i, n); };
  for (int64_t o = 0; o < p.out_h; ++o) p.rows.push_back(map(o - top, p.in_h));
  for (int64_t o = 0; o < p.out_w; ++o) p.cols.push_back(map(o - left, p.in_w));
  return p;
}

/// out (planes, out_h, out_w) from x (planes, in_h, in_w), both contiguous: the columns that read the
/// input in order ([left, left + in_w) clipped) are one copy, the reflected or replicated edges a table.
template <typename T>
void pad_planes(const PadPlan& p, const T* x, T* out) {
  const int64_t lo = std::clamp<int64_t>(p.left, 0, p.out_w), hi = std::clamp<int64_t>(p.left + p.in_w, lo, p.out_w);
  const int64_t plane_work = p.out_h * p.out_w;
  parallel_for(0, p.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane_work)),
               [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane)
      for (int64_t i = 0; i < p.out_h; ++i) {
        const T* src = x + (plane * p.in_h + p.rows[i]) * p.in_w;
        T* dst = out + (plane * p.out_h + i) * p.out_w;
        for (int64_t j = 0; j < lo; ++j) dst[j] = src[p.cols[j]];
        std::copy(src + (lo - p.left), src + (hi - p.left), dst + lo);
        for (int64_t j = hi; j < p.out_w; ++j) dst[j] = src[p.cols[j]];
      }
  });
}

/// The input gradient: each output gradient added to the input element it was read from.
template <typename T>
void pad_backward_planes(const PadPlan& p, const T* grad, T* out) {
  using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
  parallel_for(0, p.planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, p.out_h * p.out_w)),
               [&](int64_t begin, int64_t end) {
    for (int64_t plane = begin; plane < end; ++plane) {
      T* dst = out + plane * p.in_h * p.in_w;
      std::fill_n(dst, p.in_h * p.in_w, T(0.0f));
      for (int64_t i = 0; i < p.out_h; ++i) {
        const T* g = grad + (plane * p.out_h + i) * p.out_w;
        T* row = dst + p.rows[i] * p.in_w;
        for (int64_t j = 0; j < p.out_w; ++j) {
          T& to = row[p.cols[j]];
          to = static_cast<T>(static_cast<A>(to) + static_cast<A>(g[j]));
        }
      }
    }
  });
}

Tensor pad_forward(const char* op, const Tensor& self, const Shape& padding, bool reflection) {
  const PadPlan p = pad_plan(op, self, padding, reflection);
  Tensor out = Tensor::allocate(p.out_shape, self.dtype());
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    if (out.numel() == 0) return;
    const Tensor x = self.contiguous();
    pad_planes<scalar_t>(p, x.data<scalar_t>(), out.data<scalar_t>());
  });
  return out;
}

Tensor pad_backward(const char* op, const Tensor& grad_output, const Tensor& self, const Shape& padding,
                    bool reflection) {
  const PadPlan p = pad_plan(op, self, padding, reflection);
  TL_CHECK(grad_output.dtype() == self.dtype(), op, ": grad_output dtype ", grad_output.dtype(),
           " differs from self dtype ", self.dtype());
  TL_CHECK(grad_output.shape() == p.out_shape, op, ": grad_output ", grad_output.shape(),
           " differs from the forward's output ", p.out_shape, " for self ", self.shape());
  Tensor out = Tensor::allocate(self.shape(), self.dtype());
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    if (out.numel() == 0) return;
    const Tensor g = grad_output.contiguous();
    pad_backward_planes<scalar_t>(p, g.data<scalar_t>(), out.data<scalar_t>());
  });
  return out;
}

Shape to_shape(std::span<const int64_t> values) { return Shape(std::vector<int64_t>(values.begin(), values.end())); }

}  // namespace

// self: any rank and dtype; pad: (left, right) pairs from the last dim backwards, negative ones crop.
Tensor constant_pad_nd(const Tensor& self, const ConstantPadNdArgs& args) {
  const Shape& pad = args.pad;
  const int64_t n = static_cast<int64_t>(pad.size()) / 2, rank = self.dim();
  TL_CHECK(pad.size() % 2 == 0, "constant_pad_nd: length of pad must be even but instead it equals ", pad.size());
  TL_CHECK(n <= rank, "constant_pad_nd: length of pad should be no more than twice the number of dimensions of the "
           "input. Pad length is ", pad.size(), " while the input has ", rank, " dimensions.");
  const bool crops_only = std::all_of(pad.begin(), pad.end(), [](int64_t v) { return v <= 0; });
  Shape out_shape = self.shape();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = rank - 1 - i, before = pad[2 * i], after = pad[2 * i + 1];
    out_shape[d] = self.size(d) + before + after;
    TL_CHECK(out_shape[d] > 0 || (crops_only && out_shape[d] == 0), "constant_pad_nd: the input size ", self.size(d),
             ", plus negative padding ", before, " and ", after, " resulted in a negative output size, which is "
             "invalid. Check dimension ", d, " of your input.");
  }
  Tensor out = Tensor::allocate(out_shape, self.dtype());
  if (out.numel() == 0) return out;
  // dst: the part of out the input lands in, src: the part of self that lands. The value fills the rest of out
  // only, a slab before and after dst along each padded dim (within dst's range along the dims done before); below
  // one thread's grain the slabs' loops cost more to set up than rewriting dst, so the value fills all of out first.
  // Only crops: nothing to fill, and the value is not converted (nor checked), as in ATen.
  const Tensor value = crops_only ? Tensor() : detail::scalar_to_tensor(args.value, self.dtype());
  const bool whole = !crops_only && out.numel() < kGrainSize;
  if (whole) detail::copy_elements(out, value);
  const auto fill = [&](const Tensor& slab) {
    if (!whole && slab.numel() > 0) detail::copy_elements(slab, value);
  };
  Tensor dst = out, src = self;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = rank - 1 - i, before = pad[2 * i];
    const int64_t start = std::clamp<int64_t>(before, 0, out_shape[d]);
    const int64_t length = std::max<int64_t>(
        std::min(self.size(d) + std::min<int64_t>(before, 0), out_shape[d] - start), 0);
    fill(narrowed(dst, d, 0, start));
    fill(narrowed(dst, d, start + length, out_shape[d] - start - length));
    dst = narrowed(dst, d, start, length);
    src = narrowed(src, d, std::max<int64_t>(-before, 0), length);
  }
  if (dst.numel() > 0) detail::copy_elements(dst, src);
  return out;
}

// self (C, W) or (N, C, W), padding (left, right) -> (.., W + left + right).
Tensor reflection_pad1d(const Tensor& self, const ReflectionPad1dArgs& args) {
  return pad_forward("reflection_pad1d", self, to_shape(args.padding), true);
}
// self (C, H, W) or (N, C, H, W), padding (left, right, top, bottom) -> (.., H + top + bottom, W + left + right).
Tensor reflection_pad2d(const Tensor& self, const ReflectionPad2dArgs& args) {
  return pad_forward("reflection_pad2d", self, to_shape(args.padding), true);
}
Tensor replication_pad1d(const Tensor& self, const ReplicationPad1dArgs& args) {
  return pad_forward("replication_pad1d", self, to_shape(args.padding), false);
}
Tensor replication_pad2d(const Tensor& self, const ReplicationPad2dArgs& args) {
  return pad_forward("replication_pad2d", self, to_shape(args.padding), false);
}

// grad_output of the forward's output shape, self the forward's input -> the gradient of self (contiguous).
Tensor reflection_pad1d_backward(const Tensor& grad_output, const Tensor& self, const ReflectionPad1dBackwardArgs& args) {
  return pad_backward("reflection_pad1d_backward", grad_output, self, to_shape(args.padding), true);
}
Tensor reflection_pad2d_backward(const Tensor& grad_output, const Tensor& self, const ReflectionPad2dBackwardArgs& args) {
  return pad_backward("reflection_pad2d_backward", grad_output, self, to_shape(args.padding), true);
}
Tensor replication_pad1d_backward(const Tensor& grad_output, const Tensor& self,
                                  const ReplicationPad1dBackwardArgs& args) {
  return pad_backward("replication_pad1d_backward", grad_output, self, to_shape(args.padding), false);
}
Tensor replication_pad2d_backward(const Tensor& grad_output, const Tensor& self,
                                  const ReplicationPad2dBackwardArgs& args) {
  return pad_backward("replication_pad2d_backward", grad_output, self, to_shape(args.padding), false);
}

}  // namespace tl::kernels
