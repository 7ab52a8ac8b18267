// ops/quantized/qlinear.cpp — quantized::linear_prepack / linear_unpack and quantized::linear (_relu) on oneDNN's
// int8 matmul, as ATen's onednn engine runs them: u8 input with a zero point, s8 symmetric weights reordered once
// at prepack, s32 accumulation, requantized to u8 (and ReLU) in the attribute chain.
#include <string>
#include <vector>

#include "core/op_args.h"
#include "ops/ops.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/matmul_primitive.h"
#include "ops/onednn/memory.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

using int8::PackedWeight;

/// Everything the primitive depends on besides the data and the runtime zero points.
struct QLinearSpec {
  int64_t rows = 1, in_features = 1, out_features = 1;
  bool bias = false, relu = false;
  /// The output scales, per output feature: fixed in the primitive, as oneDNN 2.6's brgemm matmul (the VNNI
  /// kernel) takes only fixed ones; with runtime scales it falls back to gemm:jit on plain weights, ~3x slower.
  std::vector<float> scales;
  bool src_zero_point = false, dst_zero_point = false;  ///< whether they are not 0 (int8::requantize_attr)

  onednn::PrimitiveKey key() const {
    onednn::PrimitiveKey k("quantized::linear");
    k.add(rows).add(in_features).add(out_features).add(int64_t{bias}).add(int64_t{relu});
    k.add(int64_t{src_zero_point}).add(int64_t{dst_zero_point});
    for (float scale : scales) k.add(double{scale});
    return k;
  }
};

onednn::MatmulPrimitive make_plan(const QLinearSpec& s) {
  using dnnl::memory;
  const memory::desc src({s.rows, s.in_features}, memory::data_type::u8, memory::format_tag::ab);
  const memory::desc weights({s.in_features, s.out_features}, memory::data_type::s8, memory::format_tag::any);
  const memory::desc bias({1, s.out_features}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc dst({s.rows, s.out_features}, memory::data_type::u8, memory::format_tag::ab);
  dnnl::post_ops post_ops;
  if (s.relu) post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  const dnnl::matmul::desc desc = s.bias ? dnnl::matmul::desc(src, weights, bias, dst) : dnnl::matmul::desc(src, weights, dst);
  const dnnl::primitive_attr attr = int8::requantize_attr(post_ops, s.scales, s.src_zero_point, s.dst_zero_point);
  return onednn::MatmulPrimitive(dnnl::matmul::primitive_desc(desc, attr, onednn::engine()));
}

std::shared_ptr<const onednn::MatmulPrimitive> plan_for(const QLinearSpec& s) {
  return onednn::primitive_cache().get_or_create<onednn::MatmulPrimitive>(s.key(), [&] { return make_plan(s); });
}

/// The weight (out_features, in_features) as the matmul's (in_features, out_features) weights.
dnnl::memory::desc transposed_desc(const Tensor& w) {
  return dnnl::memory::desc({w.size(1), w.size(0)}, dnnl::memory::data_type::s8, dnnl::memory::dims{1, w.size(1)});
}

std::string context_of(const QLinearSpec& s) {
  return detail::str_cat("input [", s.rows, ", ", s.in_features, "], weight [", s.out_features, ", ", s.in_features, "]");
}

// qx: quint8 (*, in_features) per tensor; result quint8 (*, out_features), contiguous: `out` when given.
Tensor run_qlinear(const char* op, const Tensor& qx, const Tensor& w, const Tensor& out, bool relu, double output_scale,
                   int64_t output_zero_point) {
  int8::check_quint8(op, "input", qx);
  const PackedWeight& packed = int8::packed_weight_of(op, "quantized::linear_prepack", w, /*conv=*/false);
  QLinearSpec s;
  s.in_features = packed.weight.size(1);
  s.out_features = packed.weight.size(0);
  TL_CHECK(qx.dim() >= 1 && qx.size(-1) == s.in_features, op, ": input ", qx.shape(), " has ",
           qx.dim() >= 1 ? qx.size(-1) : 0, " features but weight ", packed.weight.shape(), " expects ", s.in_features);
  s.rows = qx.numel() / s.in_features;
  s.bias = packed.bias.defined();
  s.relu = relu;
  Shape out_shape = qx.shape();
  out_shape[out_shape.size() - 1] = s.out_features;
  Tensor y = int8::result_or_out(op, out, out_shape, contiguous_strides(out_shape), output_scale, output_zero_point);
  if (y.numel() == 0) return y;
  const Tensor x = qx.is_contiguous() ? qx : qx.contiguous();
  int8::Requantize r;
  s.scales = int8::output_scales(x.q_scale(), packed.inverse_scales, output_scale);
  r.src_zero_point = static_cast<int32_t>(x.q_zero_point());
  r.dst_zero_point = static_cast<int32_t>(output_zero_point);
  s.src_zero_point = r.src_zero_point != 0;
  s.dst_zero_point = r.dst_zero_point != 0;
  const std::vector<float> bias =
      s.bias ? int8::accumulator_bias(packed.bias, x.q_scale(), packed.inverse_scales) : std::vector<float>();
  r.bias = bias;
  r.bias_dims = {1, s.out_features};
  onednn::guarded(op, [&] { return context_of(s); }, [&] {
    auto plan = plan_for(s);
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, onednn::memory_of(x, plan->src)},
                                               {DNNL_ARG_WEIGHTS, int8::weight_memory(packed, plan->weights)},
                                               {DNNL_ARG_DST, onednn::memory_of(y, plan->dst)}};
    r.add_to(args);
    plan->matmul.execute(std::move(args));
  });
  return y;
}

}  // namespace

// weight: qint8 (out_features, in_features), per tensor or per channel (axis 0), zero points 0; bias: float32
// (out_features) or None. Returns a 1-D int8 tensor over the weight in the s8 layout oneDNN's int8 matmul wants
// (as packed for one input row of zero point 0), carrying the weight and bias.
Tensor quantized_linear_prepack(const Tensor& weight, const Tensor& bias) {
  constexpr const char* op = "quantized::linear_prepack";
  auto packed = int8::checked_weight(op, weight, bias, 2);
  TL_CHECK(weight.size(0) > 0 && weight.size(1) > 0, op, ": weight ", weight.shape(), " has an empty dimension");
  QLinearSpec s;
  s.out_features = weight.size(0);
  s.in_features = weight.size(1);
  s.bias = bias.defined();
  s.scales.assign(static_cast<size_t>(s.out_features), 1.0f);  // the weights' layout does not depend on them
  return onednn::guarded(op, [&] { return context_of(s); }, [&] {
    return int8::carry_packed(std::move(packed), plan_for(s)->weights, transposed_desc(weight));
  });
}

// packed_weight: what quantized_linear_prepack returned. Returns {weight} or {weight, bias} as given to it.
TensorList quantized_linear_unpack(const Tensor& packed_weight) {
  return int8::packed_weight_of("quantized::linear_unpack", "quantized::linear_prepack", packed_weight, false).unpacked();
}

Tensor quantized_linear(const Tensor& qx, const Tensor& packed_weight, const Tensor& out, const QuantizedLinearArgs& args) {
  return run_qlinear("quantized::linear", qx, packed_weight, out, false, args.output_scale, args.output_zero_point);
}

Tensor quantized_linear_relu(const Tensor& qx, const Tensor& packed_weight, const Tensor& out,
                             const QuantizedLinearReluArgs& args) {
  return run_qlinear("quantized::linear_relu", qx, packed_weight, out, true, args.output_scale, args.output_zero_point);
}

}  // namespace tl::kernels
