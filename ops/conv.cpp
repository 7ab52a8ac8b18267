// ops/conv.cpp — conv2d through oneDNN, and conv1d as conv2d over (N, C, 1, L) as ATen runs it on CPU.
// Eager path as in PyTorch: NCHW input (any strides) in, the result contiguous or channels-last as ATen lays it out
// (conv_channels_last). The primitive takes the layouts oneDNN prefers (format any: NHWC here, measured ~1.4x faster
// than plain NCHW on ResNet18's layers) with cached reorders around it.
// float64, which oneDNN lacks, is validated here and computed by ops/conv_f64.cpp.
#include <algorithm>
#include <memory>
#include <unordered_map>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/conv.h"
#include "ops/conv_f64.h"
#include "ops/elementwise.h"
#include "ops/memory_format.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/onednn/window.h"

namespace tl::kernels {
namespace {

using onednn::Pair;

/// The conv primitive plus the reorders between the tensors' layouts and the primitive's.
struct ConvPlan : onednn::CachedPlan {
  onednn::Primitive conv, src_reorder, weights_reorder, dst_reorder;  // reorders empty when not needed
  dnnl::memory::desc src_user, src, weights_user, weights, bias, dst, dst_user;
};

void check_window(const char* op, const ConvWindow& p) {
  check_positive(op, "stride", p.stride);
  check_positive(op, "padding", p.padding, /*allow_zero=*/true);
  check_positive(op, "dilation", p.dilation);
  TL_CHECK(p.groups > 0, op, ": groups must be positive, got ", p.groups);
}

void check_tensors(const char* op, const Tensor& x, const Tensor& w, const Tensor& b, int64_t groups) {
  TL_CHECK(x.dtype() == DType::Float32 || x.dtype() == DType::Float64 || x.dtype() == DType::BFloat16,
           op, ": expected input to be float32, float64 or bfloat16, got ", x.dtype());
  TL_CHECK(w.dtype() == x.dtype(), op, ": weight dtype ", w.dtype(), " differs from input dtype ", x.dtype());
  TL_CHECK(w.size(0) >= groups, op, ": Given groups=", groups, ", expected weight to be at least ", groups,
           " at dimension 0, but got weight of size ", w.shape(), " instead");
  TL_CHECK(w.size(0) % groups == 0, op, ": weight ", w.shape(), " has ", w.size(0),
           " output channels, not divisible by groups=", groups);
  TL_CHECK(x.size(1) == w.size(1) * groups, op, ": input ", x.shape(), " has ", x.size(1), " channels but weight ",
           w.shape(), " with groups=", groups, " expects ", w.size(1) * groups);
  TL_CHECK(w.size(2) > 0 && w.size(3) > 0, op, ": weight ", w.shape(), " has an empty kernel");
  if (!b.defined()) return;
  TL_CHECK(b.dim() == 1 && b.size(0) == w.size(0), op, ": expected bias of shape [", w.size(0), "], got ", b.shape());
  TL_CHECK(b.dtype() == x.dtype(), op, ": bias dtype ", b.dtype(), " differs from input dtype ", x.dtype());
}

/// (N, C_out, H_out, W_out); throws when the dilated kernel does not fit the padded input.
Shape output_shape(const char* op, const Tensor& x, const Tensor& w, const ConvWindow& p) {
  const Pair hw = conv_output_size(op, x.shape(), {w.size(2), w.size(3)}, p.stride, p.padding, p.dilation);
  return {x.size(0), w.size(0), hw[0], hw[1]};
}

ConvPlan make_plan(const Tensor& x, const Tensor& w, const Tensor& b, const ConvWindow& p, const Tensor& out) {
  using dnnl::memory;
  const memory::data_type type = onednn::data_type(x.dtype());
  ConvPlan plan;
  plan.src_user = onednn::strided_desc(x);
  plan.weights_user = onednn::grouped_weights_desc(w, p.groups);
  plan.dst_user = onednn::strided_desc(out);
  const memory::desc src_any(onednn::dims(x.sizes()), type, memory::format_tag::any);
  const memory::desc weights_any(plan.weights_user.dims(), type, memory::format_tag::any);
  const memory::desc dst_any(onednn::dims(out.sizes()), type, memory::format_tag::any);
  const memory::dims strides{p.stride[0], p.stride[1]}, padding{p.padding[0], p.padding[1]},
      dilation{p.dilation[0] - 1, p.dilation[1] - 1};  // oneDNN counts dilation from 0
  const auto inference = dnnl::prop_kind::forward_inference;
  const auto direct = dnnl::algorithm::convolution_direct;
  using Conv = dnnl::convolution_forward;
  const Conv::desc desc = b.defined()
      ? Conv::desc(inference, direct, src_any, weights_any, onednn::strided_desc(b), dst_any, strides, dilation, padding, padding)
      : Conv::desc(inference, direct, src_any, weights_any, dst_any, strides, dilation, padding, padding);
  const Conv::primitive_desc pd(desc, onednn::default_attr(), onednn::engine());
  plan.conv = onednn::Primitive(pd);
  plan.src = pd.src_desc();
  plan.weights = pd.weights_desc();
  plan.dst = pd.dst_desc();
  if (b.defined()) plan.bias = pd.bias_desc();
  if (plan.src != plan.src_user) plan.src_reorder = onednn::make_reorder(plan.src_user, plan.src);
  if (plan.weights != plan.weights_user) plan.weights_reorder = onednn::make_reorder(plan.weights_user, plan.weights);
  if (plan.dst != plan.dst_user) plan.dst_reorder = onednn::make_reorder(plan.dst, plan.dst_user);
  return plan;
}

void run_plan(const ConvPlan& plan, const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& out) {
  using onednn::Staging;
  std::shared_ptr<Storage> src_keep, weights_keep, dst_keep;
  const dnnl::memory src =
      onednn::staged_input(onednn::memory_of(x, plan.src_user), plan.src_reorder, Staging::Src, plan.src, src_keep);
  const dnnl::memory weights = onednn::staged_input(onednn::memory_of(w, plan.weights_user), plan.weights_reorder,
                                            Staging::Weights, plan.weights, weights_keep);
  const dnnl::memory dst_user = onednn::memory_of(out, plan.dst_user);
  const dnnl::memory dst = plan.dst_reorder ? onednn::staging_memory(Staging::Dst, plan.dst, dst_keep) : dst_user;
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (b.defined()) args.emplace(DNNL_ARG_BIAS, onednn::memory_of(b, plan.bias));
  plan.conv.execute(std::move(args));
  if (plan.dst_reorder) plan.dst_reorder.execute({{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, dst_user}});
}

}  // namespace

bool conv_channels_last(const Tensor& x, const Tensor& w) {
  return detail::suggests_channels_last(x) || detail::suggests_channels_last(w);
}

Tensor conv2d_nchw(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias, const ConvWindow& p,
                   bool channels_last) {
  check_tensors(op, x, weight, bias, p.groups);
  const Shape out_shape = output_shape(op, x, weight, p);
  Tensor out = Tensor::allocate(out_shape, x.dtype());
  if (out.numel() == 0) return out;
  if (x.size(1) == 0) {  // no input channels: every output is the bias (or zero)
    std::fill_n(static_cast<char*>(out.raw_data()), out.nbytes(), 0);
    add_channel_bias(out, bias);
    return out;
  }
  if (x.dtype() == DType::Float64) {
    conv2d_f64(x, weight, bias, p.stride, p.padding, p.dilation, p.groups, out);
    if (!channels_last) return out;
    Tensor nhwc = detail::allocate_channels_last(out_shape, x.dtype());
    detail::copy_elements(nhwc, out);
    return nhwc;
  }
  if (channels_last) out = detail::allocate_channels_last(out_shape, x.dtype());
  auto context = [&] {
    return detail::str_cat("input ", x.shape(), ", weight ", weight.shape(), ", stride ", onednn::to_shape(p.stride),
                           ", padding ", onednn::to_shape(p.padding), ", dilation ", onednn::to_shape(p.dilation),
                           ", groups ", p.groups);
  };
  onednn::guarded(op, context, [&] {
    const Tensor b = bias.defined() ? onednn::to_contiguous(bias, op) : bias;
    onednn::PrimitiveKey key("conv2d");
    key.add(x).add(weight).add(b).add(onednn::to_shape(p.stride)).add(onednn::to_shape(p.padding));
    key.add(onednn::to_shape(p.dilation)).add(p.groups).add(out);
    auto plan = onednn::primitive_cache().get_or_create<ConvPlan>(key, [&] { return make_plan(x, weight, b, p, out); });
    run_plan(*plan, x, weight, b, out);
  });
  return out;
}

// input (N, C_in, H, W) or (C_in, H, W); weight (C_out, C_in / groups, kH, kW); bias (C_out) or None.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv2dArgs& args) {
  const ConvWindow window{args.stride, args.padding, args.dilation, args.groups, args.padding};
  check_window("conv2d", window);
  TL_CHECK(input.dim() == 3 || input.dim() == 4, "conv2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got ",
           input.shape());
  TL_CHECK(weight.dim() == 4, "conv2d: expected 4-D weight (C_out, C_in / groups, kH, kW), got ", weight.shape());
  // An unbatched input runs as a batch of one, as ATen's conv2d does it.
  const Tensor x = input.dim() == 4 ? input : onednn::add_batch_dim(input);
  const Tensor out = conv2d_nchw("conv2d", x, weight, bias, window, conv_channels_last(x, weight));
  return input.dim() == 4 ? out : onednn::drop_batch_dim(out);
}

// input (N, C_in, L) or (C_in, L); weight (C_out, C_in / groups, k); bias (C_out) or None. Runs conv2d over
// (N, C_in, 1, L) with a (C_out, C_in / groups, 1, k) weight, as ATen's _convolution does on CPU.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Conv1dArgs& args) {
  const Pair padding = conv1d_pair("conv1d", args.padding, "padding", 0);
  const ConvWindow window{conv1d_pair("conv1d", args.stride, "stride", 1), padding,
                          conv1d_pair("conv1d", args.dilation, "dilation", 1), args.groups, padding};
  check_window("conv1d", window);
  TL_CHECK(input.dim() == 2 || input.dim() == 3, "conv1d: expected 2-D (C, L) or 3-D (N, C, L) input, got ",
           input.shape());
  TL_CHECK(weight.dim() == 3, "conv1d: expected 3-D weight (C_out, C_in / groups, k), got ", weight.shape());
  // The result is contiguous whatever the input's strides, as ATen's (its memory formats are 4-d and 5-d).
  const Tensor x = input.dim() == 3 ? input : onednn::add_batch_dim(input);
  const Tensor out = onednn::drop_unit_dim(
      conv2d_nchw("conv1d", onednn::add_unit_dim(x, 2), onednn::add_unit_dim(weight, 2), bias, window), 2);
  return input.dim() == 3 ? out : onednn::drop_batch_dim(out);
}

}  // namespace tl::kernels
