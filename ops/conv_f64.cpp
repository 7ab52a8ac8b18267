// ops/conv_f64.cpp — float64 conv2d and its gradients as im2col + the ISA-dispatched GEMM. Per (image
// n, group g): out[n, g] (C_out/G x OH*OW) = weight[g] (C_out/G x C_in/G*kH*kW) @ columns (C_in/G*kH*kW
// x OH*OW); a 1x1, stride 1, unpadded conv over row-major planes multiplies the input planes directly.
// Backward: grad_weight[g] += grad[n, g] @ columns^T, and grad_input[n, g] = col2im(weight[g]^T @ grad[n, g]).
#include <algorithm>
#include <exception>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#include "core/parallel.h"
#include "ops/conv_f64.h"
#include "ops/gemm.h"

namespace tl::kernels {
namespace {

using onednn::Pair;

struct Geometry {
  int64_t channels, H, W, KH, KW, OH, OW;  // channels: input channels per group
  Pair stride, padding, dilation;
  int64_t rows() const { return channels * KH * KW; }
  int64_t cols() const { return OH * OW; }
};

/// Outputs o in [lo, hi) read inside the input along one axis for the kernel tap at input offset
/// `tap` (o * stride + tap in [0, size)); the others read padding.
std::pair<int64_t, int64_t> valid_range(int64_t out, int64_t size, int64_t stride, int64_t tap) {
  const int64_t hi = std::min(out, tap >= size ? 0 : (size - 1 - tap) / stride + 1);
  const int64_t lo = tap >= 0 ? 0 : (-tap + stride - 1) / stride;
  return {std::min(lo, hi), hi};
}

/// Column rows [begin, end) of one (image, group): row (c * KH + kh) * KW + kw holds, for every
/// output position, the input element under that kernel tap (0 in the padding). `in` points at the
/// group's first channel; sc, sh, sw are the input's strides.
void im2col(const double* in, int64_t sc, int64_t sh, int64_t sw, const Geometry& g, int64_t begin, int64_t end,
            double* columns) {
  for (int64_t r = begin; r < end; ++r) {
    const int64_t c = r / (g.KH * g.KW), kh = r / g.KW % g.KH, kw = r % g.KW;
    const int64_t tap_h = kh * g.dilation[0] - g.padding[0], tap_w = kw * g.dilation[1] - g.padding[1];
    const auto [i0, i1] = valid_range(g.OH, g.H, g.stride[0], tap_h);
    const auto [j0, j1] = valid_range(g.OW, g.W, g.stride[1], tap_w);
    double* row = columns + r * g.cols();
    std::fill(row, row + i0 * g.OW, 0.0);
    std::fill(row + i1 * g.OW, row + g.cols(), 0.0);
    for (int64_t i = i0; i < i1; ++i) {
      double* dst = row + i * g.OW;
      const int64_t base = c * sc + (i * g.stride[0] + tap_h) * sh;
      std::fill(dst, dst + j0, 0.0);
      for (int64_t j = j0; j < j1; ++j) dst[j] = in[base + (j * g.stride[1] + tap_w) * sw];
      std::fill(dst + j1, dst + g.OW, 0.0);
    }
  }
}

/// The adjoint of im2col for the channels [begin, end) of one (image, group): adds each column row
/// (c * KH + kh) * KW + kw into the input element under that kernel tap; padding taps are dropped.
/// `in` points at the group's first channel of a contiguous (C, H, W) gradient.
void col2im(const double* columns, const Geometry& g, int64_t begin, int64_t end, double* in) {
  for (int64_t c = begin; c < end; ++c)
    for (int64_t r = c * g.KH * g.KW; r < (c + 1) * g.KH * g.KW; ++r) {
      const int64_t kh = r / g.KW % g.KH, kw = r % g.KW;
      const int64_t tap_h = kh * g.dilation[0] - g.padding[0], tap_w = kw * g.dilation[1] - g.padding[1];
      const auto [i0, i1] = valid_range(g.OH, g.H, g.stride[0], tap_h);
      const auto [j0, j1] = valid_range(g.OW, g.W, g.stride[1], tap_w);
      const double* row = columns + r * g.cols();
      for (int64_t i = i0; i < i1; ++i) {
        double* dst = in + (c * g.H + i * g.stride[0] + tap_h) * g.W;
        for (int64_t j = j0; j < j1; ++j) dst[j * g.stride[1] + tap_w] += row[i * g.OW + j];
      }
    }
}

/// One conv2d call's operands, shared by every (image, group) work item.
struct ConvF64 {
  const Tensor& x;
  const double* weight;  // contiguous (C_out, C_in / G, kH, kW)
  const Tensor& bias;
  const Tensor& out;
  Geometry geo;
  int64_t groups;
  bool direct;  // the input planes are the columns

  /// out[n, g] for item = n * groups + g; `columns` holds rows() x cols() doubles unless direct.
  void run(int64_t item, double* columns) const {
    const int64_t n = item / groups, g = item % groups, out_per_group = out.size(1) / groups;
    const int64_t rows = geo.rows(), cols = geo.cols(), sc = x.stride(1);
    const double* in = x.data<double>() + n * x.stride(0) + g * geo.channels * sc;
    detail::GemmOperand b{in, sc, 1};
    if (!direct) {
      const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, cols));
      parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
        im2col(in, sc, x.stride(2), x.stride(3), geo, begin, end, columns);
      });
      b = {columns, cols, 1};
    }
    double* o = out.data<double>() + (n * out.size(1) + g * out_per_group) * cols;
    if (bias.defined())
      for (int64_t oc = 0; oc < out_per_group; ++oc)
        std::fill_n(o + oc * cols, cols, bias.data<double>()[(g * out_per_group + oc) * bias.stride(0)]);
    detail::gemm(DType::Float64, out_per_group, cols, rows, 1.0, {weight + g * out_per_group * rows, rows, 1}, b,
                 bias.defined() ? 1.0 : 0.0, o, cols);
  }
};

std::unique_ptr<double[]> allocate_columns(int64_t count) {
  try {
    return std::make_unique_for_overwrite<double[]>(static_cast<size_t>(count));
  } catch (const std::bad_alloc&) {
    TL_CHECK(false, "conv2d: out of memory for ", count, " float64 im2col values");
  }
  return nullptr;
}

}  // namespace

void conv2d_backward_f64(const Tensor& grad, const Tensor& x, const Tensor& w, const Pair& stride, const Pair& padding,
                         const Pair& dilation, int64_t groups, const Tensor& grad_input, const Tensor& grad_weight) {
  const Tensor weight = w.contiguous();
  const Geometry geo{x.size(1) / groups, x.size(2), x.size(3), w.size(2), w.size(3), grad.size(2), grad.size(3),
                     stride, padding, dilation};
  const int64_t rows = geo.rows(), cols = geo.cols(), out_per_group = grad.size(1) / groups;
  const std::unique_ptr<double[]> columns = allocate_columns(rows * cols);
  const int64_t grain = std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, cols));
  const double* dy = grad.data<double>();
  const double* wt = weight.data<double>();
  if (grad_input.defined()) std::fill_n(grad_input.data<double>(), grad_input.numel(), 0.0);
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t g = 0; g < groups; ++g) {
      const double* dy_ng = dy + (n * grad.size(1) + g * out_per_group) * cols;
      if (grad_weight.defined()) {
        const double* in = x.data<double>() + n * x.stride(0) + g * geo.channels * x.stride(1);
        parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
          im2col(in, x.stride(1), x.stride(2), x.stride(3), geo, begin, end, columns.get());
        });
        detail::gemm(DType::Float64, out_per_group, rows, cols, 1.0, {dy_ng, cols, 1}, {columns.get(), 1, cols},
                     n == 0 ? 0.0 : 1.0, grad_weight.data<double>() + g * out_per_group * rows, rows);
      }
      if (grad_input.defined()) {
        detail::gemm(DType::Float64, rows, cols, out_per_group, 1.0, {wt + g * out_per_group * rows, 1, rows},
                     {dy_ng, cols, 1}, 0.0, columns.get(), cols);
        double* gi = grad_input.data<double>() + (n * x.size(1) + g * geo.channels) * geo.H * geo.W;
        parallel_for(0, geo.channels, std::max<int64_t>(1, grain / std::max<int64_t>(1, geo.KH * geo.KW)),
                     [&](int64_t begin, int64_t end) { col2im(columns.get(), geo, begin, end, gi); });
      }
    }
}

void conv2d_f64(const Tensor& x, const Tensor& w, const Tensor& b, const Pair& stride, const Pair& padding,
                const Pair& dilation, int64_t groups, const Tensor& out) {
  const Tensor weight = w.contiguous();
  const Geometry geo{x.size(1) / groups, x.size(2), x.size(3), w.size(2), w.size(3), out.size(2), out.size(3),
                     stride, padding, dilation};
  const bool pointwise = geo.KH == 1 && geo.KW == 1 && stride == Pair{1, 1} && padding == Pair{0, 0};
  const bool direct = pointwise && x.stride(3) == 1 && x.stride(2) == geo.W &&
                      detail::gemm_operand_ok(geo.rows(), geo.cols(), x.stride(1), 1);
  const ConvF64 conv{x, weight.data<double>(), b, out, geo, groups, direct};
  const int64_t items = x.size(0) * groups, column_size = direct ? 0 : geo.rows() * geo.cols();
  // Few items: one at a time, each with a parallel im2col and a multi-threaded GEMM. Otherwise one
  // slot of items per thread, each with its own columns and a single-threaded GEMM.
  const int64_t slots = items >= get_num_threads() ? get_num_threads() : 1;
  std::vector<std::unique_ptr<double[]>> columns;
  for (int64_t s = 0; s < slots; ++s) columns.push_back(allocate_columns(column_size));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(slots));
  parallel_for(0, slots, 1, [&](int64_t begin, int64_t end) {
    for (int64_t s = begin; s < end; ++s) {
      try {
        for (int64_t item = s; item < items; item += slots) conv.run(item, columns[s].get());
      } catch (...) {
        errors[s] = std::current_exception();  // rethrown below, outside the parallel region
      }
    }
  });
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace tl::kernels
