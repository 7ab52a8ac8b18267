// ops/inference_conv.cpp — mkldnn_convolution and mkldnn_reorder_conv2d_weight: conv2d on the
// inference layouts with the residual add folded in as a oneDNN post-op and ReLU applied right after.
// The second packs a weight once into a PackedConvWeight (the bytes and the oneDNN layout they are in),
// returned as a 1-D tensor that carries it (ops/onednn/packed.h); the first finds that object again.
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "core/warning.h"
#include "ops/inference_layout.h"
#include "ops/ops.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/packed.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/onednn/winograd_weights.h"
#include "ops/onednn/window.h"

namespace tl::kernels {
namespace {

using onednn::Pair;

/// Everything the primitive depends on besides the data.
struct ConvSpec {
  Shape src_sizes;    // the activation tensor's own sizes (4-D, or 5-D blocked)
  Strides src_strides;
  DType dtype = DType::Float32;
  Shape weight;       // (C_out, C_in / groups, kH, kW)
  Pair stride, padding, dilation;
  int64_t groups = 1;
  bool bias = false, sum = false, relu = false;
  bool winograd = false;  ///< asked for; used when oneDNN has a Winograd kernel for this case

  bool blocked() const { return src_sizes.size() == 5; }
  int64_t in_channels() const { return weight[1] * groups; }
  /// Logical (N, C_out, H_out, W_out); throws when the dilated kernel does not fit.
  Shape output_shape(const char* op) const;
  onednn::PrimitiveKey key() const;
};

/// The conv primitive, the layouts it was created for and its implementation's name. The primitive's src and
/// dst are the tensors' own layouts (src_user, dst_user), or, where oneDNN has no JIT kernel on those, the
/// layouts it picks, with reorders from and to the tensors' (see make_plan).
struct ConvPlan : onednn::CachedPlan {
  onednn::Primitive conv;
  dnnl::memory::desc src, weights, bias, dst, src_user, dst_user;
  onednn::Primitive src_reorder, dst_reorder, residual_reorder;  // empty on the tensors' own layouts
  std::string impl;
  std::shared_ptr<std::once_flag> warned = std::make_shared<std::once_flag>();
};

Shape ConvSpec::output_shape(const char* op) const {
  const onednn::Pair hw = conv_output_size(op, src_sizes, {weight[2], weight[3]}, stride, padding, dilation);
  return {src_sizes[0], weight[0], hw[0], hw[1]};
}

onednn::PrimitiveKey ConvSpec::key() const {
  onednn::PrimitiveKey k("mkldnn_convolution");
  k.add(src_sizes).add(src_strides).add(static_cast<int64_t>(dtype)).add(weight);
  k.add(onednn::to_shape(stride)).add(onednn::to_shape(padding)).add(onednn::to_shape(dilation)).add(groups);
  k.add(int64_t{bias}).add(int64_t{sum}).add(int64_t{relu}).add(int64_t{winograd});
  return k;
}

/// The conv fields both ops take (MkldnnConvolutionArgs, MkldnnReorderConv2dWeightArgs), checked.
template <typename Args>
ConvSpec checked_spec(const Args& args, const char* op) {
  ConvSpec s;
  s.stride = args.stride;
  s.padding = args.padding;
  s.dilation = args.dilation;
  s.groups = args.groups;
  check_positive(op, "stride", s.stride);
  check_positive(op, "padding", s.padding, /*allow_zero=*/true);
  check_positive(op, "dilation", s.dilation);
  TL_CHECK(s.groups > 0, op, ": groups must be positive, got ", s.groups);
  s.relu = args.relu;
  s.winograd = args.winograd;
  return s;
}

void check_weight(const char* op, const ConvSpec& s) {
  TL_CHECK(s.weight.size() == 4, op, ": expected a 4-D weight size (C_out, C_in / groups, kH, kW), got ", s.weight);
  TL_CHECK(s.weight[0] > 0 && s.weight[1] > 0 && s.weight[2] > 0 && s.weight[3] > 0, op, ": weight ", s.weight,
           " has an empty dimension");
  TL_CHECK(s.weight[0] % s.groups == 0, op, ": weight ", s.weight, " has ", s.weight[0],
           " output channels, not divisible by groups=", s.groups);
}

/// weight_size, when given (non-empty), is the weight's logical size: a packed weight's carries it,
/// so a caller that thinks it packed another weight is told here, not by a wrong result later.
void check_weight_size(const char* op, const Shape& size, const ConvSpec& s, bool packed) {
  TL_CHECK(size.size() == 0 || size == s.weight, op, ": weight_size ", size, " does not match the ",
           packed ? "prepacked" : "dense", " weight's size ", s.weight);
}

/// The activation's channel count matches the weight, and its layout is one the kernels take.
void check_input(const char* op, const ConvSpec& s) {
  const int64_t c = s.in_channels();
  if (s.blocked()) {
    TL_CHECK(s.src_sizes[1] == inference::blocks_of(c) && s.src_sizes[4] == inference::kBlock, op, ": blocked input ",
             s.src_sizes, " does not hold the ", c, " channels weight ", s.weight, " with groups=", s.groups, " expects");
  } else {
    TL_CHECK(s.src_sizes.size() == 4 && s.src_sizes[1] == c, op, ": input ", s.src_sizes, " has ",
             s.src_sizes.size() == 4 ? s.src_sizes[1] : -1, " channels but weight ", s.weight, " with groups=", s.groups,
             " expects ", c);
  }
}

dnnl::memory::desc src_desc(const ConvSpec& s) {
  const dnnl::memory::data_type type = onednn::data_type(s.dtype);
  const dnnl::memory::dims dims{s.src_sizes[0], s.in_channels(), s.src_sizes[2], s.src_sizes[3]};
  if (s.blocked()) return dnnl::memory::desc(dims, type, dnnl::memory::format_tag::nChw16c);
  return onednn::strided_desc(s.src_sizes, s.src_strides, s.dtype);
}

/// fp32 results are blocked; bf16 results (from bf16 NHWC input) stay NHWC, the layout that reaches
/// AMX; a blocked bf16 input gives a blocked result.
bool blocked_output(const ConvSpec& s) { return s.blocked() || s.dtype == DType::Float32; }

/// Winograd (oneDNN picks F(2x2, 3x3) or F(4x4, 3x3)) does a 3x3 stride-1 conv with 2.25x or 4x fewer
/// multiplications; oneDNN has it for fp32 on blocked layouts. Its rounding differs from direct
/// convolution's (relative ~1e-6).
bool winograd_applies(const ConvSpec& s) {
  return s.winograd && s.dtype == DType::Float32 && s.blocked() && s.groups == 1 && s.weight[2] == 3 &&
         s.weight[3] == 3 && s.stride == Pair{1, 1} && s.dilation == Pair{1, 1};
}

/// The primitive descriptor for `algorithm` from `src` to `dst`; throws dnnl::error when oneDNN has no kernel for it.
dnnl::convolution_forward::primitive_desc conv_pd(const ConvSpec& s, dnnl::algorithm algorithm, const dnnl::memory::desc& src,
                                                  const dnnl::memory::desc& dst) {
  using dnnl::memory;
  const memory::data_type type = onednn::data_type(s.dtype);
  memory::dims weight_dims = onednn::dims(s.weight);
  if (s.groups > 1) weight_dims = {s.groups, s.weight[0] / s.groups, s.weight[1], s.weight[2], s.weight[3]};
  const memory::desc weights_any(weight_dims, type, memory::format_tag::any);
  const memory::desc bias({s.weight[0]}, memory::data_type::f32, memory::format_tag::a);
  const memory::dims strides{s.stride[0], s.stride[1]}, padding{s.padding[0], s.padding[1]},
      dilation{s.dilation[0] - 1, s.dilation[1] - 1};  // oneDNN counts dilation from 0
  using Conv = dnnl::convolution_forward;
  const auto inference = dnnl::prop_kind::forward_inference;
  const Conv::desc desc = s.bias ? Conv::desc(inference, algorithm, src, weights_any, bias, dst, strides, dilation, padding, padding)
                                 : Conv::desc(inference, algorithm, src, weights_any, dst, strides, dilation, padding, padding);
  // No eltwise_relu post-op: oneDNN computes it as max(x, 0), which turns NaN into 0 (relu_nan below).
  dnnl::post_ops post_ops;
  if (s.sum) post_ops.append_sum(1.0f);
  dnnl::primitive_attr attr = onednn::default_attr();
  attr.set_post_ops(post_ops);
  return Conv::primitive_desc(desc, attr, onednn::engine());
}

/// Winograd when asked for and oneDNN has a kernel for this case, direct convolution otherwise.
dnnl::convolution_forward::primitive_desc choose_pd(const ConvSpec& s, const dnnl::memory::desc& src,
                                                    const dnnl::memory::desc& dst) {
  if (winograd_applies(s)) {
    try {
      return conv_pd(s, dnnl::algorithm::convolution_winograd, src, dst);
    } catch (const dnnl::error& e) {
      if (e.status != dnnl_unimplemented) throw;
    }
  }
  return conv_pd(s, dnnl::algorithm::convolution_direct, src, dst);
}

/// oneDNN's reference and plain-GEMM implementations: many times slower than its JIT kernels.
bool slow_impl(const std::string& impl) { return impl.rfind("ref:", 0) == 0 || impl.rfind("gemm:", 0) == 0; }

ConvPlan make_plan(const ConvSpec& s, const char* op) {
  using dnnl::memory;
  const Shape out = s.output_shape(op);
  ConvPlan plan;
  plan.src_user = src_desc(s);
  plan.dst_user = memory::desc(onednn::dims(out), onednn::data_type(s.dtype),
                               blocked_output(s) ? memory::format_tag::nChw16c : memory::format_tag::nhwc);
  dnnl::convolution_forward::primitive_desc pd = choose_pd(s, plan.src_user, plan.dst_user);
  // The JIT kernels take the 16-channel blocked layout only when each group's channels are whole blocks:
  // a grouped conv with 8 channels per group (RegNet's) gets the reference kernel there, ~1000x slower than
  // on the layouts oneDNN picks itself, which cost two reorders.
  if (slow_impl(pd.impl_info_str())) {
    const memory::desc src_any(plan.src_user.dims(), plan.src_user.data_type(), memory::format_tag::any);
    const memory::desc dst_any(plan.dst_user.dims(), plan.dst_user.data_type(), memory::format_tag::any);
    const dnnl::convolution_forward::primitive_desc picked = choose_pd(s, src_any, dst_any);
    if (!slow_impl(picked.impl_info_str())) pd = picked;
  }
  plan.conv = onednn::Primitive(pd);
  plan.src = pd.src_desc();
  plan.weights = pd.weights_desc();
  plan.dst = pd.dst_desc();
  if (s.bias) plan.bias = pd.bias_desc();
  plan.impl = pd.impl_info_str();
  if (plan.src != plan.src_user) plan.src_reorder = onednn::make_reorder(plan.src_user, plan.src);
  if (plan.dst != plan.dst_user) {
    plan.dst_reorder = onednn::make_reorder(plan.dst, plan.dst_user);
    if (s.sum) plan.residual_reorder = onednn::make_reorder(plan.dst_user, plan.dst);
  }
  return plan;
}

std::shared_ptr<const ConvPlan> plan_for(const ConvSpec& s, const char* op) {
  auto plan = onednn::primitive_cache().get_or_create<ConvPlan>(s.key(), [&] { return make_plan(s, op); });
  // Where oneDNN has no JIT kernel on any layout: say so once.
  if (slow_impl(plan->impl)) {
    std::call_once(*plan->warned, [&] {
      warn(op, " for input ", s.src_sizes, " ", s.dtype, ", weight ", s.weight, " runs oneDNN's slow '", plan->impl,
           "' implementation");
    });
  }
  return plan;
}

std::string context_of(const ConvSpec& s) {
  return detail::str_cat("input ", s.src_sizes, " ", s.dtype, ", weight ", s.weight, ", stride ",
                         onednn::to_shape(s.stride), ", padding ", onednn::to_shape(s.padding), ", dilation ",
                         onednn::to_shape(s.dilation), ", groups ", s.groups);
}

/// `other` must have the result's exact layout; it is copied into `y` unless it already is `y`.
void stage_residual(const Tensor& other, const Tensor& y) {
  TL_CHECK(other.shape() == y.shape() && other.strides() == y.strides() && other.dtype() == y.dtype(),
           "mkldnn_convolution: residual ", other.shape(), " with strides ", other.strides(), " ", other.dtype(),
           " does not have the result's layout ", y.shape(), " with strides ", y.strides(), " ", y.dtype());
  if (other.raw_data() == y.raw_data()) return;
  std::memcpy(y.raw_data(), other.raw_data(), static_cast<size_t>(y.numel() * element_size(y.dtype())));
}

/// ReLU in place as eager computes it: NaN and -0.0 stay, every other negative becomes 0. A pass of its
/// own right after the conv, while the result is still in cache. An unconditional store, so that the
/// loop vectorizes (compare and blend).
void relu_nan(float* p, int64_t n) {
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) p[i] = p[i] < 0.0f ? 0.0f : p[i];
  });
}

/// The same on bfloat16's bits, which vectorizes where the float conversion does not: negative (sign
/// set), not -0.0 (magnitude bits nonzero) and not NaN (magnitude at most inf's 0x7f80) becomes +0.
void relu_nan(uint16_t* p, int64_t n) {
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const uint16_t magnitude = p[i] & 0x7fffu;
      p[i] = (p[i] & 0x8000u) && magnitude != 0 && magnitude <= 0x7f80u ? uint16_t{0} : p[i];
    }
  });
}

/// Writes the dense weight into `packed` in the plan's layout: an fp32 Winograd layout by our own
/// transform (oneDNN's reorder to it is 7-20x slower), any other layout by a oneDNN reorder.
void pack_dense_weight(const ConvPlan& plan, const ConvSpec& s, const Tensor& dense, const dnnl::memory& packed) {
  if (dense.dtype() == DType::Float32 && onednn::packs_winograd_weights(plan.weights, dense.shape())) {
    onednn::pack_winograd_weights(dense, plan.weights, packed.get_data_handle());
    return;
  }
  dnnl::memory::desc user = onednn::strided_desc(dense);
  if (s.groups > 1) user = user.reshape(plan.weights.dims());
  onednn::make_reorder(user, plan.weights).execute({{DNNL_ARG_FROM, onednn::memory_of(dense, user)}, {DNNL_ARG_TO, packed}});
}

/// A weight packed by mkldnn_reorder_conv2d_weight: its bytes (1-D, of spec.dtype, exactly desc.get_size()
/// bytes) in the layout `desc` that the primitive for `spec` wants, carried by the tensor the op hands out.
struct PackedConvWeight : onednn::Packed {
  ConvSpec spec;            ///< the input signature and conv it was packed for
  dnnl::memory::desc desc;  ///< the primitive's weights layout, which `bytes` holds
};

/// Packs dense `w` for the primitive `plan` of `s`; returns the 1-D tensor that carries the result.
Tensor make_packed_weight(const ConvPlan& plan, const ConvSpec& s, const Tensor& w, const char* op) {
  auto packed = std::make_shared<PackedConvWeight>();
  packed->spec = s;
  packed->desc = plan.weights;
  const int64_t bytes = static_cast<int64_t>(plan.weights.get_size());
  packed->bytes = Tensor::allocate({bytes / element_size(s.dtype)}, s.dtype);
  pack_dense_weight(plan, s, onednn::to_contiguous(w, op), onednn::memory_of(packed->bytes, plan.weights));
  return onednn::carry(std::move(packed));
}

/// The packed weight `w` (1-D) carries; throws unless `w` is, whole, a tensor mkldnn_reorder_conv2d_weight
/// returned. Valid while `w` lives.
const PackedConvWeight& packed_weight_of(const char* op, const Tensor& w) {
  const PackedConvWeight* packed = onednn::packed_as<PackedConvWeight>(w);
  TL_CHECK(packed, op, ": a 1-D weight must be a tensor mkldnn_reorder_conv2d_weight returned, got ", w.shape(), " ",
           w.dtype());
  return *packed;
}

/// The weight as the primitive wants it: a prepacked weight used as is when it is in the primitive's
/// layout, or a dense 4-D weight reordered on every call (warned once: prepack it with
/// mkldnn_reorder_conv2d_weight).
dnnl::memory weight_memory(const ConvPlan& plan, const ConvSpec& s, const Tensor& w, const PackedConvWeight* packed,
                           std::shared_ptr<Storage>& keep) {
  if (packed) {
    TL_CHECK(packed->desc == plan.weights, "mkldnn_convolution: weight was prepacked for input ",
             packed->spec.src_sizes, " ", packed->spec.dtype, (packed->spec.winograd ? " (winograd)" : ""),
             ", whose layout is not the one the primitive for input ", s.src_sizes, " ", s.dtype,
             (s.winograd ? " (winograd)" : ""), " wants");
    return onednn::memory_of(w, plan.weights);
  }
  TL_WARN_ONCE("mkldnn_convolution got a dense weight ", w.shape(),
               "; it is reordered on every call (prepack it with mkldnn_reorder_conv2d_weight)");
  TL_CHECK(w.dtype() == DType::Float32 || w.dtype() == DType::BFloat16, "mkldnn_convolution: expected a float32 or ",
           "bfloat16 weight, got ", w.dtype());
  dnnl::memory staged = onednn::staging_memory(onednn::Staging::Weights, plan.weights, keep);
  pack_dense_weight(plan, s, onednn::to_contiguous(w, "mkldnn_convolution"), staged);
  return staged;
}

}  // namespace

// self: blocked (N, C_in / 16, H, W, 16), bf16 NHWC or dense fp32 (N, C_in, H, W); weight: dense
// (C_out, C_in / groups, kH, kW) or a 1-D tensor mkldnn_reorder_conv2d_weight returned, whose packed
// object gives the weight's size and layout (weight_size, when not empty, must equal that size or the dense
// weight's; packed_for is not read); bias (C_out) float32
// or None; other: the residual, in the result's layout, added before the ReLU; winograd: use Winograd
// for an fp32 3x3 stride-1 conv on a blocked input when oneDNN has it and input, residual and a dense
// weight are finite (with a Winograd-prepacked weight, NaN or inf input throws before anything is
// written). Result: blocked, or bf16 NHWC for bf16 NHWC input; written into `out` when given (which
// may be `other` itself). NaN, inf and -0.0 come out as eager's conv2d + add + relu give them.
Tensor mkldnn_convolution(const Tensor& self, const Tensor& weight, const Tensor& bias, const Tensor& other,
                          const Tensor& out, const MkldnnConvolutionArgs& args) {
  constexpr const char* op = "mkldnn_convolution";
  const Tensor &x = self, &w = weight, &b = bias;
  inference::check_activation(op, "input", x);
  TL_CHECK(w.defined() && (w.dim() == 4 || w.dim() == 1), op, ": expected a 4-D weight or a 1-D prepacked one, got ",
           w.defined() ? w.shape() : Shape{});
  const PackedConvWeight* packed = w.dim() == 1 ? &packed_weight_of(op, w) : nullptr;
  ConvSpec s = checked_spec(args, op);
  s.src_sizes = x.shape();
  s.src_strides = x.strides();
  s.dtype = x.dtype();
  s.weight = packed ? packed->spec.weight : w.shape();
  s.bias = b.defined();
  s.sum = other.defined();
  check_weight_size(op, args.weight_size, s, packed != nullptr);
  check_weight(op, s);
  check_input(op, s);
  if (s.bias) {
    TL_CHECK(b.dim() == 1 && b.size(0) == s.weight[0] && b.dtype() == DType::Float32 && b.is_contiguous(), op,
             ": expected a contiguous float32 bias of shape [", s.weight[0], "], got ", b.shape(), " ", b.dtype());
  }
  // Winograd's transforms subtract neighbours, so one ±inf becomes NaN across its tile where direct
  // convolution (and eager) gives ±inf. A dense weight can take the direct kernel instead; a weight
  // packed for Winograd cannot, so that call is refused rather than answered wrongly.
  if (winograd_applies(s) && !(all_finite(x) && (!s.sum || all_finite(other)) && (packed || all_finite(w)))) {
    TL_CHECK(!packed, op, ": input ", x.shape(), " or its residual holds NaN or inf, which Winograd turns into ",
             "NaN; pass a weight packed with winograd=False");
    s.winograd = false;
  }
  const Shape o = s.output_shape(op);
  Tensor y = inference::activation_out(op, blocked_output(s), s.dtype, o, out);
  if (y.numel() == 0) return y;
  if (s.sum) stage_residual(other, y);
  auto context = [&] { return context_of(s); };
  onednn::guarded(op, context, [&] {
    auto plan = plan_for(s, op);
    std::shared_ptr<Storage> keep, src_keep, dst_keep;
    const dnnl::memory src = onednn::staged_input(onednn::memory_of(x, plan->src_user), plan->src_reorder,
                                                  onednn::Staging::Src, plan->src, src_keep);
    const dnnl::memory dst_user = onednn::memory_of(y, plan->dst_user);
    const dnnl::memory dst =
        plan->dst_reorder ? onednn::staging_memory(onednn::Staging::Dst, plan->dst, dst_keep) : dst_user;
    if (plan->residual_reorder) plan->residual_reorder.execute({{DNNL_ARG_FROM, dst_user}, {DNNL_ARG_TO, dst}});
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weight_memory(*plan, s, w, packed, keep)}, {DNNL_ARG_DST, dst}};
    if (s.bias) args.emplace(DNNL_ARG_BIAS, onednn::memory_of(b, plan->bias));
    plan->conv.execute(std::move(args));
    if (plan->dst_reorder) plan->dst_reorder.execute({{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, dst_user}});
  });
  if (s.relu) {
    if (y.dtype() == DType::Float32) relu_nan(y.data<float>(), y.numel());
    else relu_nan(static_cast<uint16_t*>(y.raw_data()), y.numel());  // bfloat16: its bits
  }
  return y;
}

// self: a dense (C_out, C_in / groups, kH, kW) float32 weight. Returns it reordered (and converted to
// input_dtype) into the layout mkldnn_convolution's primitive wants for an input of input_size /
// input_stride with the same attributes, as a 1-D tensor of input_dtype holding that many bytes whose
// storage carries the PackedConvWeight (a copy or view of it is not a packed weight).
Tensor mkldnn_reorder_conv2d_weight(const Tensor& self, const MkldnnReorderConv2dWeightArgs& args) {
  constexpr const char* op = "mkldnn_reorder_conv2d_weight";
  const Tensor& w = self;
  TL_CHECK(w.dim() == 4, op, ": expected a 4-D weight (C_out, C_in / groups, kH, kW), got ", w.shape());
  TL_CHECK(w.dtype() == DType::Float32, op, ": expected a float32 weight, got ", w.dtype());
  ConvSpec s = checked_spec(args, op);
  s.src_sizes = args.input_size;
  s.src_strides = args.input_stride;
  s.dtype = args.input_dtype;
  s.weight = w.shape();
  s.bias = args.bias;
  s.sum = args.sum;
  onednn::check_dtype(op, "input_dtype", s.dtype);
  TL_CHECK((s.src_sizes.size() == 4 || s.src_sizes.size() == 5) && s.src_strides.size() == s.src_sizes.size(), op,
           ": expected a 4-D or blocked 5-D input_size with as many input_stride values, got ", s.src_sizes, " and ",
           args.input_stride);
  check_weight(op, s);
  check_input(op, s);
  TL_CHECK(!winograd_applies(s) || all_finite(w), op, ": weight ", w.shape(), " holds NaN or inf, which Winograd's ",
           "weight transform turns into NaN; pack it with winograd=False");
  auto context = [&] { return context_of(s); };
  return onednn::guarded(op, context, [&] { return make_packed_weight(*plan_for(s, op), s, w, op); });
}

}  // namespace tl::kernels
