// ops/quantized/qconv.cpp — quantized::conv2d_prepack / conv2d_unpack and quantized::conv2d (_relu, and our
// fused _add / _add_relu) on oneDNN's int8 convolution: u8 channels-last activations with a zero point, s8
// symmetric weights reordered once at prepack, s32 accumulation, requantized to u8 in the attribute chain.
#include <algorithm>
#include <string>
#include <vector>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/inference_layout.h"
#include "ops/ops.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

using onednn::Pair;
using int8::PackedWeight;

/// What follows the requantizing output scales. Add: PyTorch's conv2d then add(_relu) in one primitive — the
/// conv's value rounded and clamped to its own quint8 range (round, clip), rescaled to the output's units
/// (linear), the residual added from dst (sum with its zero point), then ReLU for AddRelu.
enum class Fuse { None, Relu, Add, AddRelu };

/// The post-op constants of an Add / AddRelu chain (baked into the primitive).
struct AddChain {
  float clip_low = 0, clip_high = 0, rescale = 1, residual_scale = 1;
  int32_t residual_zero_point = 0;
};

/// Everything the primitive depends on besides the data and the runtime zero points.
struct QConvSpec {
  Shape src;     // logical (N, C_in, H, W); channels-last in memory
  Shape weight;  // (C_out, C_in / groups, kH, kW)
  Pair stride{1, 1}, padding{0, 0}, dilation{1, 1};
  int64_t groups = 1;
  bool bias = false;
  Fuse fuse = Fuse::None;
  AddChain add;
  std::vector<float> scales;  // the output scales, per output channel (oneDNN 2.6's int8 conv bakes them in)
  bool src_zero_point = false, dst_zero_point = false;  // whether they are not 0 (int8::requantize_attr)

  Shape output_shape(const char* op) const {
    const Pair hw = conv_output_size(op, src, {weight[2], weight[3]}, stride, padding, dilation);
    return {src[0], weight[0], hw[0], hw[1]};
  }
  dnnl::memory::dims weight_dims() const {
    if (groups == 1) return onednn::dims(weight);
    return {groups, weight[0] / groups, weight[1], weight[2], weight[3]};
  }
  onednn::PrimitiveKey key() const {
    onednn::PrimitiveKey k("quantized::conv2d");
    k.add(src).add(weight).add(onednn::to_shape(stride)).add(onednn::to_shape(padding));
    k.add(onednn::to_shape(dilation)).add(groups).add(int64_t{bias}).add(static_cast<int64_t>(fuse));
    k.add(double{add.clip_low}).add(double{add.clip_high}).add(double{add.rescale}).add(double{add.residual_scale});
    k.add(int64_t{add.residual_zero_point}).add(int64_t{src_zero_point}).add(int64_t{dst_zero_point});
    for (float scale : scales) k.add(double{scale});
    return k;
  }
};

struct QConvPlan : onednn::CachedPlan {
  onednn::Primitive conv;
  dnnl::memory::desc src, weights, dst;
  std::string impl;
};

dnnl::post_ops post_ops_of(const QConvSpec& s) {
  dnnl::post_ops p;
  using dnnl::algorithm;
  if (s.fuse == Fuse::Add || s.fuse == Fuse::AddRelu) {
    p.append_eltwise(1.0f, algorithm::eltwise_round, 0.0f, 0.0f);
    p.append_eltwise(1.0f, algorithm::eltwise_clip, s.add.clip_low, s.add.clip_high);
    p.append_eltwise(1.0f, algorithm::eltwise_linear, s.add.rescale, 0.0f);
    p.append_sum(s.add.residual_scale, s.add.residual_zero_point, dnnl::memory::data_type::u8);
  }
  if (s.fuse == Fuse::Relu || s.fuse == Fuse::AddRelu) p.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
  return p;
}

QConvPlan make_plan(const QConvSpec& s, const char* op) {
  using dnnl::memory;
  using Conv = dnnl::convolution_forward;
  const memory::desc src(onednn::dims(s.src), memory::data_type::u8, memory::format_tag::nhwc);
  const memory::desc weights(s.weight_dims(), memory::data_type::s8, memory::format_tag::any);
  const memory::desc bias({s.weight[0]}, memory::data_type::f32, memory::format_tag::a);
  const memory::desc dst(onednn::dims(s.output_shape(op)), memory::data_type::u8, memory::format_tag::nhwc);
  const memory::dims strides{s.stride[0], s.stride[1]}, padding{s.padding[0], s.padding[1]},
      dilation{s.dilation[0] - 1, s.dilation[1] - 1};  // oneDNN counts dilation from 0
  const auto inference = dnnl::prop_kind::forward_inference;
  const auto direct = dnnl::algorithm::convolution_direct;
  const Conv::desc desc = s.bias ? Conv::desc(inference, direct, src, weights, bias, dst, strides, dilation, padding, padding)
                                 : Conv::desc(inference, direct, src, weights, dst, strides, dilation, padding, padding);
  const dnnl::primitive_attr attr = int8::requantize_attr(post_ops_of(s), s.scales, s.src_zero_point, s.dst_zero_point);
  const Conv::primitive_desc pd(desc, attr, onednn::engine());
  QConvPlan plan;
  plan.conv = onednn::Primitive(pd);
  plan.src = pd.src_desc();
  plan.weights = pd.weights_desc();
  plan.dst = pd.dst_desc();
  plan.impl = pd.impl_info_str();
  return plan;
}

std::shared_ptr<const QConvPlan> plan_for(const QConvSpec& s, const char* op) {
  return onednn::primitive_cache().get_or_create<QConvPlan>(s.key(), [&] { return make_plan(s, op); });
}

std::string context_of(const QConvSpec& s) {
  return detail::str_cat("input ", s.src, ", weight ", s.weight, ", stride ", onednn::to_shape(s.stride), ", padding ",
                         onednn::to_shape(s.padding), ", dilation ", onednn::to_shape(s.dilation), ", groups ",
                         s.groups);
}

QConvSpec spec_of(const PackedWeight& p) {
  QConvSpec s;
  s.weight = p.weight.shape();
  s.stride = p.stride;
  s.padding = p.padding;
  s.dilation = p.dilation;
  s.groups = p.groups;
  s.bias = p.bias.defined();
  return s;
}

/// The conv: checks, then runs the primitive into a channels-last quint8 result (output_scale, output_zero_point),
/// `out` when given, else a fresh one. `other` (Add / AddRelu) is the residual, of the result's shape; `out` may be
/// `other` itself when their qparams agree.
Tensor run_qconv(const char* op, const Tensor& qx, const Tensor& w, const Tensor& other, const Tensor& out, Fuse fuse,
                 double conv_scale, int64_t conv_zero_point, double output_scale, int64_t output_zero_point) {
  int8::check_quint8(op, "input", qx);
  const PackedWeight& packed = int8::packed_weight_of(op, "quantized::conv2d_prepack", w, /*conv=*/true);
  QConvSpec s = spec_of(packed);
  TL_CHECK(qx.dim() == 4, op, ": expected a 4-D input (N, C, H, W), got ", qx.shape());
  TL_CHECK(qx.size(1) == s.weight[1] * s.groups, op, ": input ", qx.shape(), " has ", qx.size(1),
           " channels but weight ", s.weight, " with groups=", s.groups, " expects ", s.weight[1] * s.groups);
  s.src = qx.shape();
  s.fuse = fuse;
  const Shape out_shape = s.output_shape(op);
  const bool add = fuse == Fuse::Add || fuse == Fuse::AddRelu;
  if (add) {
    int8::check_quint8(op, "the residual", other);
    TL_CHECK(other.shape() == out_shape, op, ": the residual ", other.shape(), " does not have the conv's output shape ",
             out_shape);
    // The conv's own quantizer validates its qparams, as the output's does below.
    const auto conv_q = Quantizer::per_tensor_affine(DType::QUInt8, conv_scale, conv_zero_point);
    const float inv_output = 1.0f / static_cast<float>(output_scale);
    s.add.clip_low = static_cast<float>(-conv_zero_point);
    s.add.clip_high = static_cast<float>(255 - conv_zero_point);
    s.add.rescale = static_cast<float>(conv_q->scale()) * inv_output;
    s.add.residual_scale = static_cast<float>(other.q_scale()) * inv_output;
    s.add.residual_zero_point = static_cast<int32_t>(other.q_zero_point());
  }
  const double requantize_to = add ? conv_scale : output_scale;
  Tensor y = int8::result_or_out(op, out, out_shape, inference::nhwc_strides(out_shape[1], out_shape[2], out_shape[3]),
                                 output_scale, output_zero_point);
  if (y.numel() == 0) return y;
  if (add && !(y.storage() == other.storage() && y.storage_offset() == other.storage_offset() &&
               y.strides() == other.strides())) {
    // A residual sharing the result's bytes in another layout (an arena reusing them) is read out first.
    const Tensor residual = int8::integers_of(other);
    detail::copy_elements(int8::integers_of(y), y.storage() == other.storage() ? residual.clone() : residual);
  }
  const Tensor x = int8::to_nhwc(qx);
  int8::Requantize r;
  r.src_zero_point = static_cast<int32_t>(x.q_zero_point());
  r.dst_zero_point = static_cast<int32_t>(output_zero_point);
  s.src_zero_point = r.src_zero_point != 0;
  s.dst_zero_point = r.dst_zero_point != 0;
  r.bias_dims = {s.weight[0]};
  // Everything the spec adds to the weight's, the scales its output scales and bias are computed from, and the thread
  // count (oneDNN fixes a primitive's when it is made: the primitive cache keys on it too).
  std::vector<double> signature(s.src.begin(), s.src.end());
  signature.insert(signature.end(), {static_cast<double>(get_num_threads()), static_cast<double>(fuse), s.add.clip_low, s.add.clip_high, s.add.rescale,
                                     s.add.residual_scale, static_cast<double>(s.add.residual_zero_point),
                                     static_cast<double>(s.src_zero_point), static_cast<double>(s.dst_zero_point),
                                     x.q_scale(), requantize_to});
  onednn::guarded(op, [&] { return context_of(s); }, [&] {
    const auto call = int8::call_plan(packed, std::move(signature), [&] {
      s.scales = int8::output_scales(x.q_scale(), packed.inverse_scales, requantize_to);
      int8::PackedWeight::CallPlan made;
      made.plan = plan_for(s, op);
      if (s.bias) made.bias = int8::accumulator_bias(packed.bias, x.q_scale(), packed.inverse_scales);
      return made;
    });
    const auto* plan = static_cast<const QConvPlan*>(call->plan.get());
    r.bias = call->bias;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, onednn::memory_of(x, plan->src)},
        {DNNL_ARG_WEIGHTS, int8::weight_memory(packed, plan->weights)},
        {DNNL_ARG_DST, onednn::memory_of(y, plan->dst)}};
    r.add_to(args);
    plan->conv.execute(std::move(args));
  });
  return y;
}

}  // namespace

// weight: qint8 (C_out, C_in / groups, kH, kW), per tensor or per channel (axis 0), zero points 0; bias: float32
// (C_out) or None. Returns a 1-D int8 tensor over the weight in the s8 layout oneDNN's int8 conv wants (as
// packed for a 1 x C_in x 32 x 32 input of zero point 0), carrying the weight, bias and window for the kernels and
// unpack.
Tensor quantized_conv2d_prepack(const Tensor& weight, const Tensor& bias, const QuantizedConv2dPrepackArgs& args) {
  constexpr const char* op = "quantized::conv2d_prepack";
  auto packed = int8::checked_weight(op, weight, bias, 4);
  check_positive(op, "stride", args.stride);
  check_positive(op, "padding", args.padding, /*allow_zero=*/true);
  check_positive(op, "dilation", args.dilation);
  TL_CHECK(args.groups > 0, op, ": groups must be positive, got ", args.groups);
  TL_CHECK(weight.size(0) % args.groups == 0, op, ": weight ", weight.shape(), " has ", weight.size(0),
           " output channels, not divisible by groups=", args.groups);
  for (int64_t d = 0; d < 4; ++d) TL_CHECK(weight.size(d) > 0, op, ": weight ", weight.shape(), " has an empty dimension");
  packed->stride = args.stride;
  packed->padding = args.padding;
  packed->dilation = args.dilation;
  packed->groups = args.groups;
  QConvSpec s = spec_of(*packed);
  const int64_t extent = std::max((weight.size(2) - 1) * args.dilation[0], (weight.size(3) - 1) * args.dilation[1]) + 1;
  const int64_t side = std::max<int64_t>(32, extent);
  s.src = {1, weight.size(1) * args.groups, side, side};
  s.scales.assign(static_cast<size_t>(weight.size(0)), 1.0f);  // the weights' layout does not depend on them
  return onednn::guarded(op, [&] { return context_of(s); }, [&] {
    const dnnl::memory::desc user = onednn::plain_desc(s.weight, DType::QInt8).reshape(s.weight_dims());
    return int8::carry_packed(std::move(packed), plan_for(s, op)->weights, user);
  });
}

// packed_weight: what quantized_conv2d_prepack returned. Returns {weight} or {weight, bias} as given to it.
TensorList quantized_conv2d_unpack(const Tensor& packed_weight) {
  return int8::packed_weight_of("quantized::conv2d_unpack", "quantized::conv2d_prepack", packed_weight, true).unpacked();
}

// qx: quint8 (N, C_in, H, W) per tensor, any layout (channels-last is read in place); packed_weight: from
// quantized_conv2d_prepack. Result: quint8 (N, C_out, H_out, W_out), channels-last, output_scale / zero point;
// written into `out` when given (of exactly that shape, layout and qparams).
Tensor quantized_conv2d(const Tensor& qx, const Tensor& packed_weight, const Tensor& out, const QuantizedConv2dArgs& args) {
  return run_qconv("quantized::conv2d", qx, packed_weight, {}, out, Fuse::None, 0, 0, args.output_scale,
                   args.output_zero_point);
}

Tensor quantized_conv2d_relu(const Tensor& qx, const Tensor& packed_weight, const Tensor& out,
                             const QuantizedConv2dReluArgs& args) {
  return run_qconv("quantized::conv2d_relu", qx, packed_weight, {}, out, Fuse::Relu, 0, 0, args.output_scale,
                   args.output_zero_point);
}

// quantized::conv2d(qx, w, conv_scale, conv_zero_point) then quantized::add(_relu)(that, qother, output_scale,
// output_zero_point), in one primitive; qother: quint8 of the conv's output shape, any layout.
Tensor quantized_conv2d_add(const Tensor& qx, const Tensor& packed_weight, const Tensor& qother, const Tensor& out,
                            const QuantizedConv2dAddArgs& args) {
  return run_qconv("quantized::conv2d_add", qx, packed_weight, qother, out, Fuse::Add, args.conv_scale,
                   args.conv_zero_point, args.output_scale, args.output_zero_point);
}

Tensor quantized_conv2d_add_relu(const Tensor& qx, const Tensor& packed_weight, const Tensor& qother, const Tensor& out,
                                 const QuantizedConv2dAddReluArgs& args) {
  return run_qconv("quantized::conv2d_add_relu", qx, packed_weight, qother, out, Fuse::AddRelu, args.conv_scale,
                   args.conv_zero_point, args.output_scale, args.output_zero_point);
}

}  // namespace tl::kernels
