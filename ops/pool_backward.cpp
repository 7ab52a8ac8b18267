// ops/pool_backward.cpp — the backward kernels of the 2-D pools: each output's gradient goes back to
// the input elements its window read (ops/pool_windows.h), or to the maximum max_pool2d_with_indices
// recorded. Plain loops in parallel over (n, c) planes, accumulating per plane in float (double for
// float64); the gradient is contiguous NCHW of self's shape, or channels-last for max_pool2d's channels-last
// self (as ATen's), accumulated per sample. (C, H, W) input is a batch of one.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/memory_format.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/window.h"
#include "ops/pool_windows.h"

namespace tl::kernels {
namespace {

using onednn::Pair;
using onednn::PoolParams;

template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// grad_output (made contiguous, or channels-last dense when channels_last) and self as 4-D tensors, after
/// checking that they agree in rank and dtype.
struct Operands {
  Tensor grad, x;
  bool unbatched, channels_last;
};

Operands operands(const char* op, const Tensor& grad, const Tensor& self, bool channels_last = false) {
  TL_CHECK(self.dim() == 3 || self.dim() == 4, op, ": expected 3-D (C, H, W) or 4-D (N, C, H, W) self, got ",
           self.shape());
  TL_CHECK(is_floating_point(self.dtype()), op, ": expected a floating point self, got ", self.dtype());
  TL_CHECK(grad.dtype() == self.dtype(), op, ": grad_output dtype ", grad.dtype(), " differs from self dtype ",
           self.dtype());
  TL_CHECK(grad.dim() == self.dim(), op, ": grad_output ", grad.shape(), " and self ", self.shape(),
           " differ in their number of dimensions");
  const bool unbatched = self.dim() == 3;
  if (channels_last) return {detail::channels_last_dense(grad), self, false, true};
  const Tensor g = onednn::to_contiguous(grad, op);  // self is read for its sizes only
  return {unbatched ? onednn::add_batch_dim(g) : g, unbatched ? onednn::add_batch_dim(self) : self, unbatched, false};
}

/// The forward's output shape for x under `p`; grad_output must have it.
void check_grad_shape(const char* op, const Operands& in, const PoolParams& p) {
  const Pair hw = conv_output_size(op, in.x.shape(), p.kernel, p.stride, p.padding, p.dilation, p.ceil_mode);
  const Shape expected{in.x.size(0), in.x.size(1), hw[0], hw[1]};
  TL_CHECK(in.grad.shape() == expected, op, ": grad_output ", in.grad.shape(), " differs from the forward's output ",
           expected, " for self ", in.x.shape());
}

/// The input gradient: per (n, c) plane, `scatter(g, acc, plane)` adds the plane's output gradients
/// g (OH * OW, contiguous) into acc (H * W zeros at the start).
template <typename T, typename Scatter>
Tensor scatter_planes(const Operands& in, const Scatter& scatter) {
  const int64_t planes = in.x.size(0) * in.x.size(1), plane_in = in.x.size(2) * in.x.size(3);
  const int64_t plane_out = in.grad.size(2) * in.grad.size(3);
  Tensor out = Tensor::allocate(in.x.sizes(), in.x.dtype());
  const T* g = in.grad.data<T>();
  T* o = out.data<T>();
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, plane_in + plane_out));
  parallel_for(0, planes, grain, [&](int64_t begin, int64_t end) {
    std::vector<acc_t<T>> acc(static_cast<size_t>(plane_in));
    for (int64_t plane = begin; plane < end; ++plane) {
      std::fill(acc.begin(), acc.end(), acc_t<T>(0));
      scatter(g + plane * plane_out, acc.data(), plane);
      for (int64_t k = 0; k < plane_in; ++k) o[plane * plane_in + k] = static_cast<T>(acc[k]);
    }
  });
  return in.unbatched ? onednn::drop_batch_dim(out) : out;
}

/// Averaging windows: each output's gradient, divided by its window's divisor (or divisor_override),
/// goes to every input element of the window.
Tensor average_backward(const Operands& in, const AxisWindows& rows, const AxisWindows& cols, int64_t divisor_override) {
  const int64_t oh = in.grad.size(2), ow = in.grad.size(3), W = in.x.size(3);
  return TL_DISPATCH_FLOATING_TYPES(in.x.dtype(), "avg_pool2d_backward", [&] {
    using acc = acc_t<scalar_t>;
    return scatter_planes<scalar_t>(in, [&](const scalar_t* g, acc* a, int64_t) {
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t divisor = divisor_override != 0 ? divisor_override : rows.divisor[i] * cols.divisor[j];
          const acc v = static_cast<acc>(g[i * ow + j]) / static_cast<acc>(divisor);
          for (int64_t h = rows.begin[i]; h < rows.end[i]; ++h)
            for (int64_t w = cols.begin[j]; w < cols.end[j]; ++w) a[h * W + w] += v;
        }
    });
  });
}

/// max_backward for channels-last dense grad and indices (`ix`): per sample, each output's gradient goes to the
/// element its index names in its channel, accumulated as scatter_planes does; the result is channels-last.
template <typename T>
Tensor max_backward_channels_last(const Operands& in, const int64_t* ix) {
  const int64_t N = in.x.size(0), C = in.x.size(1), plane_in = in.x.size(2) * in.x.size(3);
  const int64_t plane_out = in.grad.size(2) * in.grad.size(3);
  Tensor out = detail::allocate_channels_last(in.x.shape(), in.x.dtype());
  const T* g = in.grad.data<T>();
  T* o = out.data<T>();
  parallel_for(0, N, 1, [&](int64_t begin, int64_t end) {
    std::vector<acc_t<T>> acc(static_cast<size_t>(plane_in * C));
    for (int64_t n = begin; n < end; ++n) {
      std::fill(acc.begin(), acc.end(), acc_t<T>(0));
      const T* gn = g + n * plane_out * C;
      const int64_t* in_n = ix + n * plane_out * C;
      for (int64_t k = 0; k < plane_out; ++k)
        for (int64_t c = 0; c < C; ++c) acc[in_n[k * C + c] * C + c] += static_cast<acc_t<T>>(gn[k * C + c]);
      T* on = o + n * plane_in * C;
      for (int64_t k = 0; k < plane_in * C; ++k) on[k] = static_cast<T>(acc[k]);
    }
  });
  return out;
}

/// Each output's gradient goes to the input element `indices` names (h * W + w within its plane), as
/// max_pool2d_with_indices and adaptive_max_pool2d recorded them.
Tensor max_backward(const char* op, const Operands& in, const Tensor& grad_output, const Tensor& self,
                    const Tensor& indices) {
  TL_CHECK(indices.dtype() == DType::Int64, op, ": expected int64 indices, got ", indices.dtype());
  TL_CHECK(indices.shape() == grad_output.shape(), op, ": indices ", indices.shape(), " differ from grad_output ",
           grad_output.shape());
  const Tensor idx = in.channels_last ? detail::channels_last_dense(indices) : indices.contiguous();
  const int64_t plane_in = in.x.size(2) * in.x.size(3), plane_out = in.grad.size(2) * in.grad.size(3);
  const int64_t* ix = idx.data<int64_t>();
  const int64_t count = idx.numel();  // numel() multiplies the sizes on each call
  for (int64_t k = 0; k < count; ++k)
    TL_CHECK(ix[k] >= 0 && ix[k] < plane_in, op, ": index ", ix[k], " at position ", k,
             " is outside its input plane of ", plane_in, " elements (self ", self.shape(), ")");
  if (in.channels_last)
    return TL_DISPATCH_FLOATING_TYPES(in.x.dtype(), op, [&] { return max_backward_channels_last<scalar_t>(in, ix); });
  return TL_DISPATCH_FLOATING_TYPES(in.x.dtype(), op, [&] {
    using acc = acc_t<scalar_t>;
    return scatter_planes<scalar_t>(in, [&](const scalar_t* g, acc* a, int64_t plane) {
      const int64_t* from = ix + plane * plane_out;
      for (int64_t k = 0; k < plane_out; ++k) a[from[k]] += static_cast<acc>(g[k]);
    });
  });
}

}  // namespace

// grad_output (N, C, H_out, W_out), self (N, C, H, W), indices int64 as max_pool2d_with_indices gave
// them -> grad_input (N, C, H, W); 3-D operands without N.
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices,
                                        const MaxPool2dWithIndicesBackwardArgs& args) {
  const char* op = "max_pool2d_with_indices_backward";
  const PoolParams p = onednn::pool_params(op, args.kernel_size, args.stride, args.padding, args.dilation, args.ceil_mode);
  // As ATen's: a channels-last self gets a channels-last gradient.
  const bool channels_last = self.dim() == 4 && grad_output.dim() == 4 && detail::suggests_channels_last(self);
  const Operands in = operands(op, grad_output, self, channels_last);
  check_grad_shape(op, in, p);
  return max_backward(op, in, grad_output, self, indices);
}

// grad_output (N, C, H_out, W_out), self (N, C, H, W) -> grad_input (N, C, H, W).
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self, const AvgPool2dBackwardArgs& args) {
  const char* op = "avg_pool2d_backward";
  const PoolParams p = onednn::pool_params(op, args.kernel_size, args.stride, args.padding, {1, 1}, args.ceil_mode);
  const bool include_pad = args.count_include_pad;
  const int64_t divisor = args.divisor_override.value_or(0);
  TL_CHECK(!args.divisor_override || divisor != 0, op, ": divisor_override must be non-zero, got 0");
  const Operands in = operands(op, grad_output, self);
  check_grad_shape(op, in, p);
  const int64_t oh = in.grad.size(2), ow = in.grad.size(3);
  return average_backward(in, avg_axis(in.x.size(2), oh, p.kernel[0], p.stride[0], p.padding[0], include_pad),
                          avg_axis(in.x.size(3), ow, p.kernel[1], p.stride[1], p.padding[1], include_pad), divisor);
}

// grad_output (N, C, H_out, W_out), self (N, C, H, W) -> grad_input (N, C, H, W); the output size is
// grad_output's.
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  const char* op = "_adaptive_avg_pool2d_backward";
  const Operands in = operands(op, grad_output, self);
  TL_CHECK(in.grad.size(0) == in.x.size(0) && in.grad.size(1) == in.x.size(1), op, ": grad_output ",
           grad_output.shape(), " and self ", self.shape(), " differ in batch or channels");
  TL_CHECK(in.x.size(2) > 0 && in.x.size(3) > 0, op, ": expected non-empty spatial dimensions, got self ",
           self.shape());
  const int64_t oh = in.grad.size(2), ow = in.grad.size(3);
  return average_backward(in, adaptive_axis(in.x.size(2), oh), adaptive_axis(in.x.size(3), ow), 0);
}

// grad_output (N, C, H_out, W_out), self (N, C, H, W), indices as adaptive_max_pool2d gave them ->
// grad_input (N, C, H, W); 3-D operands without N.
Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& indices) {
  const char* op = "adaptive_max_pool2d_backward";
  const Operands in = operands(op, grad_output, self);
  TL_CHECK(in.grad.size(0) == in.x.size(0) && in.grad.size(1) == in.x.size(1), op, ": grad_output ",
           grad_output.shape(), " and self ", self.shape(), " differ in batch or channels");
  return max_backward(op, in, grad_output, self, indices);
}

}  // namespace tl::kernels
