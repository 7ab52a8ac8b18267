// ops/upsample.cpp — upsample_nearest2d and upsample_bilinear2d (F.interpolate's 2-D modes) and their backward
// kernels, with ATen's CPU source-index rules (UpSample.h): per output row and column one table of input
// indices and weights, then a loop over (N * C) planes in parallel. Results are contiguous NCHW.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"

namespace tl::kernels {
namespace {

template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// ATen's compute_scales_value: 1 / scale when the caller gave a positive scale, else in / out.
template <typename A>
A scale_value(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<A>(1.0 / *scale) : static_cast<A>(in) / static_cast<A>(out);
}

/// nearest: the input index of each output index, floor(o * scale) clipped (ATen's nearest_idx, in float).
std::vector<int64_t> nearest_indices(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  const float s = scale_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o)
    idx[o] = out == in ? o : out == 2 * in ? o >> 1 : std::min(static_cast<int64_t>(std::floor(o * s)), in - 1);
  return idx;
}

/// linear: per output index the two input indices it reads and their weights (ATen's
/// compute_source_index_and_lambda, in the kernel's accumulation type A, with the roundings ATen's CPU build
/// makes: its compiler fuses scale * o - index into one fma for align_corners, and evaluates the half-pixel
/// source index in double).
template <typename A>
struct LinearAxis {
  std::vector<int64_t> i0, i1;
  std::vector<A> w0, w1;
};

template <typename A>
LinearAxis<A> linear_axis(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  LinearAxis<A> a;
  const A ratio = align_corners ? (out > 1 ? static_cast<A>(in - 1) / static_cast<A>(out - 1) : A(0))
                                : scale_value<A>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i0 = o;
    A lambda1 = 0;
    if (in != out) {
      if (align_corners) {
        i0 = std::min(static_cast<int64_t>(std::floor(ratio * static_cast<A>(o))), in - 1);
        lambda1 = std::fma(ratio, static_cast<A>(o), -static_cast<A>(i0));
      } else {
        const A real = std::max(static_cast<A>(static_cast<double>(ratio) * (static_cast<double>(o) + 0.5) - 0.5), A(0));
        i0 = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
        lambda1 = real - static_cast<A>(i0);
      }
      lambda1 = std::min(std::max(lambda1, A(0)), A(1));
    }
    a.i0.push_back(i0), a.i1.push_back(in != out && i0 < in - 1 ? i0 + 1 : i0);
    a.w0.push_back(A(1) - lambda1), a.w1.push_back(lambda1);
  }
  return a;
}

/// ATen's upsample_2d_common_check, with the forward's (N, C, H, W) input shape.
void check_sizes(const char* op, const Shape& input, const std::array<int64_t, 2>& output_size) {
  TL_CHECK(input.size() == 4, op, ": expected a 4-D input (N, C, H, W), got ", input);
  TL_CHECK(input[2] > 0 && input[3] > 0 && output_size[0] > 0 && output_size[1] > 0, op,
           ": input and output sizes should be greater than 0, but got input (H: ", input[2], ", W: ", input[3],
           ") output (H: ", output_size[0], ", W: ", output_size[1], ")");
  TL_CHECK(input[0] == 0 || input[1] > 0, op, ": non-empty 4D data tensor expected but got a tensor with sizes ",
           input);
}

/// Calls f(plane) for each of `planes` planes in parallel; `work` is one plane's element count.
template <typename F>
void for_planes(int64_t planes, int64_t work, const F& f) {
  parallel_for(0, planes, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) f(p);
  });
}

template <typename T>
void nearest_forward(const Tensor& x, const Tensor& out, const std::vector<int64_t>& rows,
                     const std::vector<int64_t>& cols) {
  const int64_t H = x.size(2), W = x.size(3), oh = out.size(2), ow = out.size(3);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  for_planes(x.size(0) * x.size(1), oh * ow, [&](int64_t p) {
    for (int64_t i = 0; i < oh; ++i) {
      T* dst = o + (p * oh + i) * ow;
      if (i > 0 && rows[i] == rows[i - 1]) {  // the row above again (every other row of a 2x upsample): a copy
        std::copy(dst - ow, dst, dst);
        continue;
      }
      const T* src = in + (p * H + rows[i]) * W;
      for (int64_t j = 0; j < ow; ++j) dst[j] = src[cols[j]];
    }
  });
}

template <typename T>
void nearest_backward(const Tensor& grad, const Tensor& out, const std::vector<int64_t>& rows,
                      const std::vector<int64_t>& cols) {
  const int64_t H = out.size(2), W = out.size(3), oh = grad.size(2), ow = grad.size(3);
  const T* g = grad.data<T>();
  T* o = out.data<T>();
  for_planes(out.size(0) * out.size(1), oh * ow, [&](int64_t p) {
    std::vector<acc_t<T>> acc(static_cast<size_t>(H * W), acc_t<T>(0));
    for (int64_t i = 0; i < oh; ++i) {
      acc_t<T>* row = acc.data() + rows[i] * W;
      const T* src = g + (p * oh + i) * ow;
      for (int64_t j = 0; j < ow; ++j) row[cols[j]] += static_cast<acc_t<T>>(src[j]);
    }
    std::transform(acc.begin(), acc.end(), o + p * H * W, [](acc_t<T> v) { return static_cast<T>(v); });
  });
}

// out = (x00 * w0 + x01 * w1) * h0 + (x10 * w0 + x11 * w1) * h1, in ATen's order.
template <typename T>
void bilinear_forward(const Tensor& x, const Tensor& out, const LinearAxis<acc_t<T>>& rows,
                      const LinearAxis<acc_t<T>>& cols) {
  using A = acc_t<T>;
  const int64_t H = x.size(2), W = x.size(3), oh = out.size(2), ow = out.size(3);
  const T* in = x.data<T>();
  T* o = out.data<T>();
  for_planes(x.size(0) * x.size(1), oh * ow, [&](int64_t p) {
    for (int64_t i = 0; i < oh; ++i) {
      const T* r0 = in + (p * H + rows.i0[i]) * W;
      const T* r1 = in + (p * H + rows.i1[i]) * W;
      const A h0 = rows.w0[i], h1 = rows.w1[i];
      T* dst = o + (p * oh + i) * ow;
      for (int64_t j = 0; j < ow; ++j) {
        const int64_t c0 = cols.i0[j], c1 = cols.i1[j];
        const A w0 = cols.w0[j], w1 = cols.w1[j];
        const A top = static_cast<A>(r0[c0]) * w0 + static_cast<A>(r0[c1]) * w1;
        const A bottom = static_cast<A>(r1[c0]) * w0 + static_cast<A>(r1[c1]) * w1;
        dst[j] = static_cast<T>(top * h0 + bottom * h1);
      }
    }
  });
}

template <typename T>
void bilinear_backward(const Tensor& grad, const Tensor& out, const LinearAxis<acc_t<T>>& rows,
                       const LinearAxis<acc_t<T>>& cols) {
  using A = acc_t<T>;
  const int64_t H = out.size(2), W = out.size(3), oh = grad.size(2), ow = grad.size(3);
  const T* g = grad.data<T>();
  T* o = out.data<T>();
  for_planes(out.size(0) * out.size(1), oh * ow, [&](int64_t p) {
    std::vector<A> acc(static_cast<size_t>(H * W), A(0));
    for (int64_t i = 0; i < oh; ++i) {
      A* r0 = acc.data() + rows.i0[i] * W;
      A* r1 = acc.data() + rows.i1[i] * W;
      const A h0 = rows.w0[i], h1 = rows.w1[i];
      const T* src = g + (p * oh + i) * ow;
      for (int64_t j = 0; j < ow; ++j) {
        const A v = static_cast<A>(src[j]);
        const int64_t c0 = cols.i0[j], c1 = cols.i1[j];
        r0[c0] += h0 * cols.w0[j] * v;
        r0[c1] += h0 * cols.w1[j] * v;
        r1[c0] += h1 * cols.w0[j] * v;
        r1[c1] += h1 * cols.w1[j] * v;
      }
    }
    std::transform(acc.begin(), acc.end(), o + p * H * W, [](A v) { return static_cast<T>(v); });
  });
}

/// The backward's input_size (N, C, H, W) checked against grad_output (N, C, output_size).
Shape checked_input_size(const char* op, const Tensor& grad, const std::array<int64_t, 4>& input_size,
                         const std::array<int64_t, 2>& output_size) {
  const Shape in{input_size[0], input_size[1], input_size[2], input_size[3]};
  check_sizes(op, in, output_size);
  const Shape expected{in[0], in[1], output_size[0], output_size[1]};
  TL_CHECK(grad.shape() == expected, op, ": expected grad_output of shape ", expected, " (input_size ", in,
           ", output_size [", output_size[0], ", ", output_size[1], "]), got ", grad.shape());
  return in;
}

/// (N, C, output_size) for self (N, C, H, W).
Shape output_shape(const Tensor& self, const std::array<int64_t, 2>& output_size) {
  return {self.size(0), self.size(1), output_size[0], output_size[1]};
}

/// A new `out_shape` tensor of src's floating dtype, filled by kernel.operator()<T>(src made contiguous, out)
/// unless it is empty.
template <typename Kernel>
Tensor resampled(const char* op, const Tensor& src, const Shape& out_shape, const Kernel& kernel) {
  Tensor out = Tensor::allocate(out_shape, src.dtype());
  TL_DISPATCH_FLOATING_TYPES(src.dtype(), op, [&] {
    if (out.numel() > 0) kernel.template operator()<scalar_t>(src.contiguous(), out);
  });
  return out;
}

}  // namespace

// self (N, C, H, W) -> (N, C, output_size); scales_h / scales_w: F.interpolate's scale_factor, when given.
Tensor upsample_nearest2d(const Tensor& self, const UpsampleNearest2dArgs& args) {
  const char* op = "upsample_nearest2d";
  check_sizes(op, self.shape(), args.output_size);
  const auto rows = nearest_indices(self.size(2), args.output_size[0], args.scales_h);
  const auto cols = nearest_indices(self.size(3), args.output_size[1], args.scales_w);
  return resampled(op, self, output_shape(self, args.output_size), [&]<typename T>(const Tensor& x, const Tensor& out) {
    nearest_forward<T>(x, out, rows, cols);
  });
}

Tensor upsample_nearest2d_backward(const Tensor& grad_output, const UpsampleNearest2dBackwardArgs& args) {
  const char* op = "upsample_nearest2d_backward";
  const Shape in = checked_input_size(op, grad_output, args.input_size, args.output_size);
  const auto rows = nearest_indices(in[2], args.output_size[0], args.scales_h);
  const auto cols = nearest_indices(in[3], args.output_size[1], args.scales_w);
  return resampled(op, grad_output, in, [&]<typename T>(const Tensor& g, const Tensor& out) {
    nearest_backward<T>(g, out, rows, cols);
  });
}

// self (N, C, H, W) -> (N, C, output_size); align_corners maps the corner pixels' centres onto each other.
Tensor upsample_bilinear2d(const Tensor& self, const UpsampleBilinear2dArgs& args) {
  const char* op = "upsample_bilinear2d";
  check_sizes(op, self.shape(), args.output_size);
  return resampled(op, self, output_shape(self, args.output_size), [&]<typename T>(const Tensor& x, const Tensor& out) {
    bilinear_forward<T>(x, out, linear_axis<acc_t<T>>(x.size(2), out.size(2), args.align_corners, args.scales_h),
                        linear_axis<acc_t<T>>(x.size(3), out.size(3), args.align_corners, args.scales_w));
  });
}

Tensor upsample_bilinear2d_backward(const Tensor& grad_output, const UpsampleBilinear2dBackwardArgs& args) {
  const char* op = "upsample_bilinear2d_backward";
  const Shape in = checked_input_size(op, grad_output, args.input_size, args.output_size);
  return resampled(op, grad_output, in, [&]<typename T>(const Tensor& g, const Tensor& out) {
    bilinear_backward<T>(g, out, linear_axis<acc_t<T>>(out.size(2), g.size(2), args.align_corners, args.scales_h),
                         linear_axis<acc_t<T>>(out.size(3), g.size(3), args.align_corners, args.scales_w));
  });
}

}  // namespace tl::kernels
