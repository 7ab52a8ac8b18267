// ops/im2col.cpp — im2col and col2im (F.unfold / F.fold): the sliding blocks of a batch of images as columns,
// and the columns summed back into images, with ATen's checks and messages. Row r = (c * kH + i) * kW + j of
// a column matrix holds channel c's tap (i, j) of every block; loops run in parallel over (image, channel).
#include <algorithm>
#include <array>
#include <type_traits>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"

namespace tl::kernels {
namespace {

using Pair = std::array<int64_t, 2>;

struct Window {
  Pair kernel, dilation, padding, stride;
};

void check_window(const char* op, const Window& w) {
  TL_CHECK(w.kernel[0] > 0 && w.kernel[1] > 0, op, ": kernel size should be greater than zero, but got kernel_height: ",
           w.kernel[0], " kernel_width: ", w.kernel[1]);
  TL_CHECK(w.stride[0] > 0 && w.stride[1] > 0, op, ": stride should be greater than zero, but got stride_height: ",
           w.stride[0], " stride_width: ", w.stride[1]);
  TL_CHECK(w.dilation[0] > 0 && w.dilation[1] > 0, op,
           ": dilation should be greater than zero, but got dilation_height: ", w.dilation[0], " dilation_width: ",
           w.dilation[1]);
  TL_CHECK(w.padding[0] >= 0 && w.padding[1] >= 0, op, ": padding should be non-negative, but got pad_height: ",
           w.padding[0], " pad_width: ", w.padding[1]);
}

/// The number of blocks along each axis of an (H, W) image; throws unless both are at least one.
Pair blocks_of(const char* op, Pair image, const Window& w) {
  Pair n;
  for (int d = 0; d < 2; ++d)
    n[d] = (image[d] + 2 * w.padding[d] - (w.dilation[d] * (w.kernel[d] - 1) + 1)) / w.stride[d] + 1;
  TL_CHECK(n[0] >= 1 && n[1] >= 1, op, ": given input with spatial size (", image[0], ", ", image[1],
           "), kernel_size=(", w.kernel[0], ", ", w.kernel[1], "), dilation=(", w.dilation[0], ", ", w.dilation[1],
           "), padding=(", w.padding[0], ", ", w.padding[1], "), calculated shape of the array of sliding blocks as (",
           n[0], ", ", n[1], "), but its components must be at least one.");
  return n;
}

/// For an (H, W) image and its columns (C * kH * kW, L): f(row, h, w, l, inside) for every tap of channel c,
/// its column row, the image position it reads, its block l and whether that position is inside the image.
template <typename F>
void for_each_tap(int64_t H, int64_t W, const Window& w, Pair blocks, int64_t c, const F& f) {
  for (int64_t i = 0; i < w.kernel[0]; ++i)
    for (int64_t j = 0; j < w.kernel[1]; ++j) {
      const int64_t row = (c * w.kernel[0] + i) * w.kernel[1] + j;
      for (int64_t bh = 0; bh < blocks[0]; ++bh) {
        const int64_t h = bh * w.stride[0] - w.padding[0] + i * w.dilation[0];
        for (int64_t bw = 0; bw < blocks[1]; ++bw) {
          const int64_t x = bw * w.stride[1] - w.padding[1] + j * w.dilation[1];
          f(row, h, x, bh * blocks[1] + bw, h >= 0 && h < H && x >= 0 && x < W);
        }
      }
    }
}

int64_t grain_for(int64_t work) { return std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)); }

}  // namespace

// self (N, C, H, W) or (C, H, W) -> (N, C * kH * kW, L) or (C * kH * kW, L), L the number of blocks.
Tensor im2col(const Tensor& self, const Im2colArgs& args) {
  const char* op = "im2col";
  const Window w{args.kernel_size, args.dilation, args.padding, args.stride};
  check_window(op, w);
  const int64_t dim = self.dim();
  TL_CHECK((dim == 3 || dim == 4) && self.size(-1) > 0 && self.size(-2) > 0 && self.size(-3) > 0, op,
           ": expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
           "input, but got: ", self.shape());
  const Tensor x = dim == 3 ? self.unsqueeze(0).contiguous() : self.contiguous();
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const Pair blocks = blocks_of(op, {H, W}, w);
  const int64_t rows = C * w.kernel[0] * w.kernel[1], L = blocks[0] * blocks[1];
  Tensor out = Tensor::allocate({N, rows, L}, self.dtype());
  TL_DISPATCH_ALL_TYPES(self.dtype(), op, [&] {
    const scalar_t* in = x.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    parallel_for(0, N * C, grain_for(rows / std::max<int64_t>(C, 1) * L), [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t n = p / C, c = p % C;
        const scalar_t* plane = in + p * H * W;
        scalar_t* col = o + n * rows * L;
        for_each_tap(H, W, w, blocks, c, [&](int64_t row, int64_t h, int64_t x_, int64_t l, bool inside) {
          col[row * L + l] = inside ? plane[h * W + x_] : scalar_t(0.0f);
        });
      }
    });
  });
  return dim == 3 ? out.squeeze(0) : out;
}

// self (N, C * kH * kW, L) or (C * kH * kW, L) -> (N, C, output_size) or (C, output_size): each block's
// taps added into the image where they came from.
Tensor col2im(const Tensor& self, const Col2imArgs& args) {
  const char* op = "col2im";
  const Window w{args.kernel_size, args.dilation, args.padding, args.stride};
  const Pair& size = args.output_size;
  TL_CHECK(size[0] > 0 && size[1] > 0, op, ": output_size should be greater than zero, but got output_height: ",
           size[0], " output_width: ", size[1]);
  check_window(op, w);
  const int64_t dim = self.dim();
  TL_CHECK((dim == 2 || dim == 3) && self.size(-1) > 0 && self.size(-2) > 0, op,
           ": expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for "
           "input, but got: ", self.shape());
  const int64_t taps = w.kernel[0] * w.kernel[1], rows = self.size(-2);
  TL_CHECK(rows % taps == 0, op, ": expected size of input's dimension ", dim - 2, " to be divisible by the product of "
           "kernel_size, but got input.size(", dim - 2, ")=", rows, " and kernel_size=(", w.kernel[0], ", ",
           w.kernel[1], ").");
  const Pair blocks = blocks_of(op, size, w);
  TL_CHECK(self.size(-1) == blocks[0] * blocks[1], op, ": given output_size=(", size[0], ", ", size[1],
           "), kernel_size=(", w.kernel[0], ", ", w.kernel[1], "), dilation=(", w.dilation[0], ", ", w.dilation[1],
           "), padding=(", w.padding[0], ", ", w.padding[1], "), stride=(", w.stride[0], ", ", w.stride[1],
           "), expected size of input's dimension ", dim - 1, " to match the calculated number of sliding blocks ",
           blocks[0], " * ", blocks[1], " = ", blocks[0] * blocks[1], ", but got input.size(", dim - 1, ")=",
           self.size(-1), ".");
  const Tensor cols = dim == 2 ? self.unsqueeze(0).contiguous() : self.contiguous();
  const int64_t N = cols.size(0), C = rows / taps, H = size[0], W = size[1], L = cols.size(2);
  Tensor out = Tensor::allocate({N, C, H, W}, self.dtype());
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    const scalar_t* in = cols.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    parallel_for(0, N * C, grain_for(taps * L), [&](int64_t begin, int64_t end) {
      for (int64_t p = begin; p < end; ++p) {
        const int64_t n = p / C, c = p % C;
        scalar_t* plane = o + p * H * W;
        std::fill_n(plane, H * W, scalar_t(0.0f));
        const scalar_t* col = in + n * rows * L;
        for_each_tap(H, W, w, blocks, c, [&](int64_t row, int64_t h, int64_t x, int64_t l, bool inside) {
          using A = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
          if (!inside) return;
          scalar_t& to = plane[h * W + x];
          to = static_cast<scalar_t>(static_cast<A>(to) + static_cast<A>(col[row * L + l]));
        });
      }
    });
  });
  return dim == 2 ? out.squeeze(0) : out;
}

}  // namespace tl::kernels
