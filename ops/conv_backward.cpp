// ops/conv_backward.cpp — convolution_backward, the gradients of conv2d: grad_input through oneDNN's
// convolution_backward_data, grad_weight through convolution_backward_weights (float32, bfloat16), and
// float64 by ops/conv_f64.cpp; grad_bias is a per-channel sum of grad_output, in double, for every dtype.
// A transposed convolution's gradients are the same kernels with the roles swapped: grad_input is conv2d
// of grad_output, grad_weight the weight gradient with grad_output as the convolution's input.
// Operands are made contiguous, then reordered into the layouts the primitives chose (cached plans);
// the results are contiguous NCHW / OIHW. A channels-last convolution (ATen's rule, conv_channels_last)
// runs on channels-last activations as they are and gives channels-last gradients.
#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/attr_util.h"
#include "ops/conv.h"
#include "ops/conv_f64.h"
#include "ops/memory_format.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/onednn/window.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

using onednn::Pair;
constexpr const char* kOp = "convolution_backward";

struct Params {
  ConvWindow window;
  Pair output_padding;  // of a transposed convolution; {0, 0} otherwise
  bool transposed;
  std::array<bool, 3> mask;  // grad_input, grad_weight, grad_bias
};

/// ATen's int[] stride, padding, dilation and output_padding as the (H, W) pairs a 2-D convolution
/// takes (one value stands for both), checked.
Params checked_params(const ConvolutionBackwardArgs& args) {
  const Pair padding = detail::to_field<Pair>(args.padding, kOp, "padding");
  Params p{{detail::to_field<Pair>(args.stride, kOp, "stride"), padding,
            detail::to_field<Pair>(args.dilation, kOp, "dilation"), args.groups, padding},
           args.transposed ? detail::to_field<Pair>(args.output_padding, kOp, "output_padding") : Pair{0, 0},
           args.transposed, args.output_mask};
  if (p.transposed) {
    check_transposed_window(kOp, p.window, p.output_padding);
    for (int d = 0; d < 2; ++d) p.window.padding_end[d] = padding[d] - p.output_padding[d];
    return p;
  }
  check_positive(kOp, "stride", p.window.stride);
  check_positive(kOp, "padding", p.window.padding, /*allow_zero=*/true);
  check_positive(kOp, "dilation", p.window.dilation);
  TL_CHECK(p.window.groups > 0, kOp, ": groups must be positive, got ", p.window.groups);
  return p;
}

/// The operands of conv2d(x, w) (or of conv_transpose2d(x, w)) and its grad_output must agree with each
/// other and with the forward.
void check_tensors(const Tensor& grad, const Tensor& x, const Tensor& w, const Params& p,
                   const std::optional<Shape>& bias_sizes) {
  TL_CHECK(x.dim() == 4, kOp, ": expected 4-D input (N, C_in, H, W), got ", x.shape());
  TL_CHECK(grad.dtype() == x.dtype(), kOp, ": grad_output dtype ", grad.dtype(), " differs from input dtype ",
           x.dtype());
  if (p.transposed) {
    const Shape expected = conv_transpose_output_shape(kOp, x, w, p.window, p.output_padding);
    TL_CHECK(grad.shape() == expected, kOp, ": grad_output ", grad.shape(), " differs from the forward's output ",
             expected, " for input ", x.shape(), " and weight ", w.shape());
    if (p.mask[2] && bias_sizes)
      TL_CHECK(*bias_sizes == Shape{expected[1]}, kOp, ": bias_sizes ", *bias_sizes, " differs from [", expected[1],
               "], the transposed weight ", w.shape(), "'s output channels");
    return;
  }
  const Pair& stride = p.window.stride;
  const Pair& padding = p.window.padding;
  const Pair& dilation = p.window.dilation;
  const int64_t groups = p.window.groups;
  TL_CHECK(w.dim() == 4, kOp, ": expected 4-D weight (C_out, C_in / groups, kH, kW), got ", w.shape());
  TL_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::BFloat16, kOp,
           ": expected input to be float32, float64 or bfloat16, got ", x.dtype());
  TL_CHECK(w.dtype() == x.dtype(), kOp, ": weight dtype ", w.dtype(), " differs from input dtype ", x.dtype());
  TL_CHECK(w.size(0) % groups == 0, kOp, ": weight ", w.shape(), " has ", w.size(0),
           " output channels, not divisible by groups=", groups);
  TL_CHECK(x.size(1) == w.size(1) * groups, kOp, ": input ", x.shape(), " has ", x.size(1),
           " channels but weight ", w.shape(), " with groups=", groups, " expects ", w.size(1) * groups);
  TL_CHECK(w.size(2) > 0 && w.size(3) > 0, kOp, ": weight ", w.shape(), " has an empty kernel");
  const Pair hw = conv_output_size(kOp, x.shape(), {w.size(2), w.size(3)}, stride, padding, dilation);
  const Shape expected{x.size(0), w.size(0), hw[0], hw[1]};
  TL_CHECK(grad.shape() == expected, kOp, ": grad_output ", grad.shape(), " differs from the forward's output ",
           expected, " for input ", x.shape(), " and weight ", w.shape());
  if (!p.mask[2] || !bias_sizes) return;
  const Shape& bias = *bias_sizes;
  TL_CHECK(bias == Shape{w.size(0)}, kOp, ": bias_sizes ", bias, " differs from [", w.size(0), "], weight ",
           w.shape(), "'s output channels");
}

/// One primitive operand: the layout the primitive chose (format any) and the reorder from or to the
/// tensor's plain layout (empty when they are the same).
struct Operand {
  dnnl::memory::desc desc;
  onednn::Primitive reorder;
};

Operand operand_from(const dnnl::memory::desc& user, const dnnl::memory::desc& chosen) {
  return {chosen, chosen == user ? onednn::Primitive() : onednn::make_reorder(user, chosen)};
}
Operand operand_to(const dnnl::memory::desc& chosen, const dnnl::memory::desc& user) {
  return {chosen, chosen == user ? onednn::Primitive() : onednn::make_reorder(chosen, user)};
}

/// The operands' own layouts: src for input and grad_input, dst for grad_output, weights for the weight
/// (5-D when grouped) and diff_weights for grad_weight.
struct UserLayouts {
  dnnl::memory::desc src, weights, diff_weights, dst;
};

/// Which layouts the backward primitives take: the ones oneDNN prefers (format any), the operands' own
/// (Own), or the activations' own with the weights' of oneDNN's choice (OwnActivations: a channels-last
/// convolution, whose activations the primitives take and give as they are, with no reorder).
enum class Layouts { Preferred, Own, OwnActivations };

/// The backward primitives, built for the gradients the mask asks for, each with the chosen layouts
/// (Preferred is blocked: jit:avx512_core; for ResNet18's 3x3 layers backward_weights measured ~2x faster
/// than the gemm implementation oneDNN picks for plain NCHW, backward_data no slower).
struct BackwardPlan : onednn::CachedPlan {
  UserLayouts user;
  onednn::Primitive data, weights_grad;  // empty when that gradient is not wanted
  Operand data_dst, data_weights, data_src;       // backward_data: diff_dst, weights in; diff_src out
  Operand weights_src, weights_dst, weights_out;  // backward_weights: src, diff_dst in; diff_weights out
};

/// `Layouts::Own` on plain tensors gets oneDNN's im2col + GEMM kernel, which, as PyTorch's, multiplies
/// padding taps (an inf gradient times a padding zero is NaN), where the blocked kernels skip them.
BackwardPlan make_plan(const UserLayouts& user, DType dtype, const ConvWindow& p, bool want_input, bool want_weight,
                       Layouts layouts) {
  using dnnl::memory;
  BackwardPlan plan;
  plan.user = user;
  const memory::data_type type = onednn::data_type(dtype);
  const auto chosen = [&](const memory::desc& own, bool activation) {
    const bool keep = layouts == Layouts::Own || (activation && layouts == Layouts::OwnActivations);
    return keep ? own : memory::desc(own.dims(), type, memory::format_tag::any);
  };
  const memory::desc src_any = chosen(user.src, true), weights_any = chosen(user.weights, false),
                     dst_any = chosen(user.dst, true);
  const memory::dims strides{p.stride[0], p.stride[1]}, padding{p.padding[0], p.padding[1]},
      padding_end{p.padding_end[0], p.padding_end[1]},
      dilation{p.dilation[0] - 1, p.dilation[1] - 1};  // oneDNN counts dilation from 0
  const auto direct = dnnl::algorithm::convolution_direct;
  using Fwd = dnnl::convolution_forward;
  const Fwd::primitive_desc hint(Fwd::desc(dnnl::prop_kind::forward_training, direct, src_any, weights_any, dst_any,
                                           strides, dilation, padding, padding_end),
                                 onednn::default_attr(), onednn::engine());
  if (want_input) {
    using Data = dnnl::convolution_backward_data;
    const Data::primitive_desc pd(Data::desc(direct, src_any, weights_any, dst_any, strides, dilation, padding, padding_end),
                                  onednn::default_attr(), onednn::engine(), hint);
    plan.data = onednn::Primitive(pd);
    plan.data_dst = operand_from(user.dst, pd.diff_dst_desc());
    plan.data_weights = operand_from(user.weights, pd.weights_desc());
    plan.data_src = operand_to(pd.diff_src_desc(), user.src);
  }
  if (want_weight) {
    using Weights = dnnl::convolution_backward_weights;
    const memory::desc diff_weights_any = layouts == Layouts::Own ? user.diff_weights : weights_any;
    const Weights::primitive_desc pd(
        Weights::desc(direct, src_any, diff_weights_any, dst_any, strides, dilation, padding, padding_end),
        onednn::default_attr(), onednn::engine(), hint);
    plan.weights_grad = onednn::Primitive(pd);
    plan.weights_src = operand_from(user.src, pd.src_desc());
    plan.weights_dst = operand_from(user.dst, pd.diff_dst_desc());
    plan.weights_out = operand_to(pd.diff_weights_desc(), user.diff_weights);
  }
  return plan;
}

/// Runs `primitive` with its inputs staged into the chosen layouts and its output reordered back
/// into `out_user`. The three staged operands take three different per-thread staging kinds; the
/// kinds' names (Dst, Src, Weights) only keep the buffers apart here.
void run_staged(const onednn::Primitive& primitive, std::pair<int, const Operand*> in0, const dnnl::memory& user0,
                std::pair<int, const Operand*> in1, const dnnl::memory& user1, std::pair<int, const Operand*> out,
                const dnnl::memory& out_user) {
  using onednn::Staging;
  std::shared_ptr<Storage> keep0, keep1, keep_out;
  const dnnl::memory a = onednn::staged_input(user0, in0.second->reorder, Staging::Dst, in0.second->desc, keep0);
  const dnnl::memory b = onednn::staged_input(user1, in1.second->reorder, Staging::Src, in1.second->desc, keep1);
  const dnnl::memory result =
      out.second->reorder ? onednn::staging_memory(Staging::Weights, out.second->desc, keep_out) : out_user;
  primitive.execute({{in0.first, a}, {in1.first, b}, {out.first, result}});
  if (out.second->reorder) out.second->reorder.execute({{DNNL_ARG_FROM, result}, {DNNL_ARG_TO, out_user}});
}

/// Whether grad_weight must come from oneDNN's im2col + GEMM kernel on plain layouts, which keeps PyTorch's
/// NaN from padding taps (an inf in grad times a padding zero); its blocked and channels-last kernels skip them.
bool gemm_needed(const Tensor& grad, const ConvWindow& p, bool want_weight) {
  const bool padded = p.padding != Pair{0, 0} || p.padding_end != Pair{0, 0};
  return want_weight && padded && !all_finite(grad);
}

/// The gradients through oneDNN. Plain operands: grad contiguous, grad_input and grad_weight contiguous (x
/// and w are made so). channels_last: grad, x and grad_input channels-last dense, grad_weight laid out as w.
void onednn_backward(const Tensor& grad, const Tensor& x, const Tensor& w, const ConvWindow& p,
                     const Tensor& grad_input, const Tensor& grad_weight, bool channels_last = false) {
  auto context = [&] {
    return detail::str_cat("input ", x.shape(), ", weight ", w.shape(), ", stride ", onednn::to_shape(p.stride),
                           ", padding ", onednn::to_shape(p.padding), ", padding at the end ",
                           onednn::to_shape(p.padding_end), ", dilation ", onednn::to_shape(p.dilation), ", groups ",
                           p.groups);
  };
  onednn::guarded(kOp, context, [&] {
    const bool want_input = grad_input.defined(), want_weight = grad_weight.defined();
    // x is only a shape when its gradient alone is wanted (a transposed convolution's forward).
    const Tensor src = want_weight && !channels_last ? onednn::to_contiguous(x, kOp) : x;
    const Tensor weights = channels_last && detail::is_channels_last_contiguous(w) ? w : onednn::to_contiguous(w, kOp);
    const bool plain = !channels_last && gemm_needed(grad, p, want_weight);
    const Layouts layouts = channels_last ? Layouts::OwnActivations : plain ? Layouts::Own : Layouts::Preferred;
    onednn::PrimitiveKey key(kOp);
    key.add(src).add(weights).add(grad).add(grad_weight).add(onednn::to_shape(p.stride));
    key.add(onednn::to_shape(p.padding)).add(onednn::to_shape(p.padding_end)).add(onednn::to_shape(p.dilation));
    key.add(p.groups).add(int64_t{want_input}).add(int64_t{want_weight}).add(static_cast<int64_t>(layouts));
    auto plan = onednn::primitive_cache().get_or_create<BackwardPlan>(key, [&] {
      const auto activation = [&](const Tensor& t) {
        return channels_last ? onednn::strided_desc(t) : onednn::plain_desc(t.sizes(), t.dtype());
      };
      const UserLayouts user{activation(src), onednn::grouped_weights_desc(weights, p.groups),
                             want_weight ? onednn::grouped_weights_desc(grad_weight, p.groups) : dnnl::memory::desc(),
                             activation(grad)};
      return make_plan(user, x.dtype(), p, want_input, want_weight, layouts);
    });
    dnnl::memory dst = onednn::memory_of(grad, plan->user.dst);
    // Both primitives mostly want grad_output in one layout: reorder it once for the two.
    const Operand* data_dst = &plan->data_dst;
    const Operand* weights_dst = &plan->weights_dst;
    const Operand staged_dst{plan->data_dst.desc, onednn::Primitive()};
    std::shared_ptr<Storage> keep_dst;
    if (plan->data && plan->weights_grad && plan->data_dst.reorder && plan->data_dst.desc == plan->weights_dst.desc) {
      dst = onednn::staged_input(dst, plan->data_dst.reorder, onednn::Staging::Dst, plan->data_dst.desc, keep_dst);
      data_dst = weights_dst = &staged_dst;
    }
    if (plan->data)
      run_staged(plan->data, {DNNL_ARG_DIFF_DST, data_dst}, dst,
                 {DNNL_ARG_WEIGHTS, &plan->data_weights}, onednn::memory_of(weights, plan->user.weights),
                 {DNNL_ARG_DIFF_SRC, &plan->data_src}, onednn::memory_of(grad_input, plan->user.src));
    if (plan->weights_grad)
      run_staged(plan->weights_grad, {DNNL_ARG_DIFF_DST, weights_dst}, dst,
                 {DNNL_ARG_SRC, &plan->weights_src}, onednn::memory_of(src, plan->user.src),
                 {DNNL_ARG_DIFF_WEIGHTS, &plan->weights_out}, onednn::memory_of(grad_weight, plan->user.diff_weights));
  });
}

/// grad_bias[c] = sum of grad_output over (n, h, w), for contiguous or channels-last dense grad_output.
void bias_gradient(const Tensor& grad, const Tensor& out) {
  const int64_t N = grad.size(0), C = grad.size(1), S = grad.size(2) * grad.size(3);
  const bool channels_last = !grad.is_contiguous();
  TL_DISPATCH_FLOATING_TYPES(grad.dtype(), kOp, [&] {
    const scalar_t* g = grad.data<scalar_t>();
    scalar_t* o = out.data<scalar_t>();
    if (channels_last) {  // rows of C: double sums per channel, in parallel over blocks of channels
      constexpr int64_t kBlock = 64;
      parallel_for(0, (C + kBlock - 1) / kBlock, 1, [&](int64_t begin, int64_t end) {
        for (int64_t block = begin; block < end; ++block) {
          const int64_t c0 = block * kBlock, width = std::min(kBlock, C - c0);
          double sums[kBlock] = {};
          for (int64_t r = 0; r < N * S; ++r)
            for (int64_t k = 0; k < width; ++k) sums[k] += static_cast<double>(g[r * C + c0 + k]);
          for (int64_t k = 0; k < width; ++k) o[c0 + k] = static_cast<scalar_t>(sums[k]);
        }
      });
      return;
    }
    parallel_for(0, C, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, N * S)), [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        // Eight independent double partial sums (vector lanes on any x86-64): one serial chain of
        // double adds took 4 cycles an element.
        double partial[8] = {};
        for (int64_t n = 0; n < N; ++n) {
          const scalar_t* row = g + (n * C + c) * S;
          int64_t s = 0;
          for (; s + 8 <= S; s += 8)
            for (int k = 0; k < 8; ++k) partial[k] += static_cast<double>(row[s + k]);
          for (; s < S; ++s) partial[0] += static_cast<double>(row[s]);
        }
        double total = 0;
        for (double p : partial) total += p;
        o[c] = static_cast<scalar_t>(total);
      }
    });
  });
}

void zero(const Tensor& t) {
  if (t.defined()) std::fill_n(static_cast<char*>(t.raw_data()), t.nbytes(), 0);
}

/// Copies the leading (H, W) of every plane of `from` (N, C, H', W') into `to` (N, C, H, W), both contiguous;
/// where `to` is the larger, the rest of its planes become zeros.
void copy_planes(const Tensor& from, const Tensor& to) {
  const int64_t planes = from.size(0) * from.size(1), H = std::min(from.size(2), to.size(2));
  const int64_t row_bytes = std::min(from.size(3), to.size(3)) * from.element_size();
  const char* src = static_cast<const char*>(from.raw_data());
  char* dst = static_cast<char*>(to.raw_data());
  if (to.numel() > from.numel()) std::fill_n(dst, to.nbytes(), 0);
  for (int64_t plane = 0; plane < planes; ++plane)
    for (int64_t h = 0; h < H; ++h)
      std::copy_n(src + ((plane * from.size(2) + h) * from.size(3)) * from.element_size(), row_bytes,
                  dst + ((plane * to.size(2) + h) * to.size(3)) * to.element_size());
}

/// A transposed convolution's grad_input: conv2d of grad_output (as the convolution's input) by the
/// weight, cut to the input's size where output_padding >= stride made the convolution's output larger.
Tensor transposed_input_grad(const Tensor& grad, const Tensor& x, const Tensor& w, const ConvWindow& window) {
  const Tensor out = conv2d_nchw(kOp, grad, w, Tensor(), window);
  if (out.size(2) == x.size(2) && out.size(3) == x.size(3)) return out;
  Tensor cut = Tensor::allocate(x.sizes(), x.dtype());
  copy_planes(out, cut);
  return cut;
}

}  // namespace

void conv2d_gradients(const Tensor& grad, const Tensor& x, const Tensor& w, const ConvWindow& window,
                      const Tensor& grad_input, const Tensor& grad_weight) {
  if (x.dtype() == DType::Float64) {
    conv2d_backward_f64(grad, x, w, window.stride, window.padding, window.dilation, window.groups, grad_input,
                        grad_weight);
    return;
  }
  const Pair cut{std::max<int64_t>(0, -window.padding_end[0]), std::max<int64_t>(0, -window.padding_end[1])};
  if (cut == Pair{0, 0}) {
    onednn_backward(grad, x, w, window, grad_input, grad_weight);
    return;
  }
  // A negative end padding (a transposed convolution's output_padding above its padding), which oneDNN
  // refuses: no window reaches x's last -padding_end rows and columns, so the same windows run over x
  // without them, and their input gradient is zero.
  ConvWindow cut_window = window;
  for (int d = 0; d < 2; ++d) cut_window.padding_end[d] += cut[d];
  const Shape cut_shape{x.size(0), x.size(1), x.size(2) - cut[0], x.size(3) - cut[1]};
  Tensor x_cut = Tensor::allocate(cut_shape, x.dtype());
  if (grad_weight.defined()) copy_planes(onednn::to_contiguous(x, kOp), x_cut);
  const Tensor input_cut = grad_input.defined() ? Tensor::allocate(cut_shape, x.dtype()) : Tensor();
  onednn_backward(grad, x_cut, w, cut_window, input_cut, grad_weight);
  if (grad_input.defined()) copy_planes(input_cut, grad_input);
}

// grad_output (N, C_out, H_out, W_out), input (N, C_in, H, W), weight (C_out, C_in / groups, kH, kW), or
// transposed weight (C_in, C_out / groups, kH, kW) -> (grad_input like input, grad_weight like weight,
// grad_bias (C_out)), each undefined where output_mask is false. output_padding is read when transposed.
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, const ConvolutionBackwardArgs& args) {
  const Tensor &x = input, &w = weight;
  const Params p = checked_params(args);
  check_tensors(grad_output, x, w, p, args.bias_sizes);
  // As ATen's mkldnn convolution: a channels-last convolution's gradients stay channels-last (grad_input;
  // grad_weight laid out as the weight), computed by primitives that take the activations as they are.
  // float64, and a gradient that needs the GEMM kernel, compute contiguous gradients laid out so at the end.
  const bool channels_last = !p.transposed && conv_channels_last(x, w);
  const bool weight_channels_last = channels_last && !w.is_contiguous() && detail::is_channels_last_contiguous(w);
  const bool nhwc = channels_last && x.dtype() != DType::Float64 && !gemm_needed(grad_output, p.window, p.mask[1]);
  Tensor grad_input, grad_weight, grad_bias;
  if (p.mask[1])
    grad_weight = nhwc && weight_channels_last ? detail::allocate_channels_last(w.shape(), w.dtype())
                                               : Tensor::allocate(w.sizes(), w.dtype());
  if (p.mask[2]) grad_bias = Tensor::allocate({grad_output.size(1)}, w.dtype());
  const Tensor grad = nhwc ? detail::channels_last_dense(grad_output) : onednn::to_contiguous(grad_output, kOp);
  if (p.mask[2]) bias_gradient(grad, grad_bias);
  const bool empty = grad.numel() == 0 || x.numel() == 0;  // nothing flows: every gradient element is zero
  if (p.mask[0] && (!p.transposed || empty))
    grad_input = nhwc ? detail::allocate_channels_last(x.shape(), x.dtype()) : Tensor::allocate(x.sizes(), x.dtype());
  if (empty) {
    zero(grad_input);
    zero(grad_weight);
  } else if (p.transposed) {
    // The transposed convolution is conv2d's input gradient: its input is the convolution's grad_output,
    // its output the convolution's input.
    if (p.mask[0]) grad_input = transposed_input_grad(grad, x, w, p.window);
    if (p.mask[1]) conv2d_gradients(onednn::to_contiguous(x, kOp), grad, w, p.window, Tensor(), grad_weight);
  } else if (nhwc && (p.mask[0] || p.mask[1])) {
    // x is read only for its shape when grad_weight is not wanted: grad_input then stands for it.
    onednn_backward(grad, p.mask[1] ? detail::channels_last_dense(x) : grad_input, w, p.window, grad_input,
                    grad_weight, true);
  } else if (p.mask[0] || p.mask[1]) {
    conv2d_gradients(grad, x, w, p.window, grad_input, grad_weight);
  }
  if (channels_last && !nhwc) {
    if (grad_input.defined()) grad_input = detail::channels_last_dense(grad_input);
    if (grad_weight.defined() && weight_channels_last) grad_weight = detail::channels_last_dense(grad_weight);
  }
  return {grad_input, grad_weight, grad_bias};
}

}  // namespace tl::kernels
