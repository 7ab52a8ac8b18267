// ops/quantized/int8.cpp — the int8 kernels' shared checks, layouts and requantization parameters (int8.h).
#include "ops/quantized/int8.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/inference_layout.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/memory.h"

namespace tl::kernels::int8 {

Tensor integers_of(const Tensor& q) {
  return Tensor::make(q.storage(), q.shape(), q.strides(), q.storage_offset(), underlying_dtype(q.dtype()));
}

void check_quint8(const char* op, const char* what, const Tensor& t) {
  TL_CHECK(t.defined(), op, ": expected ", what, " to be a tensor, got None");
  TL_CHECK(t.dtype() == DType::QUInt8 && is_per_tensor(t.quantizer()->qscheme()), op, ": expected ", what,
           " to be a torch.quint8 tensor quantized per tensor, got ", t.dtype(),
           t.is_quantized() ? " " : "", t.is_quantized() ? qscheme_name(t.quantizer()->qscheme()) : "");
}

void check_qparam_tensors(const char* op, const Tensor& scale, const Tensor& zero_point) {
  TL_CHECK(scale.defined() && zero_point.defined() && scale.numel() == 1 && zero_point.numel() == 1 &&
               !scale.is_quantized() && !zero_point.is_quantized(),
           op, ": expected scale and zero_point of one element each, got ", scale.defined() ? scale.shape() : Shape{},
           " and ", zero_point.defined() ? zero_point.shape() : Shape{});
}

Tensor allocate_nhwc(const Shape& nchw, double scale, int64_t zero_point) {
  auto quantizer = Quantizer::per_tensor_affine(DType::QUInt8, scale, zero_point);
  const Tensor storage = Tensor::allocate({nchw[0], nchw[2], nchw[3], nchw[1]}, DType::QUInt8, quantizer);
  return Tensor::make(storage.storage(), nchw, inference::nhwc_strides(nchw[1], nchw[2], nchw[3]), 0,
                      DType::QUInt8, quantizer);
}

namespace {

/// Contiguous (N, C, HW) bytes into (N, HW, C), a block of pixels at a time per thread.
void transpose_to_nhwc(const uint8_t* __restrict src, uint8_t* __restrict dst, int64_t n, int64_t c, int64_t hw) {
  constexpr int64_t kPixels = 256;
  const int64_t blocks = (hw + kPixels - 1) / kPixels;
  parallel_for(0, n * blocks, std::max<int64_t>(1, kGrainSize / (kPixels * c)), [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const int64_t image = b / blocks, first = (b % blocks) * kPixels, last = std::min(hw, first + kPixels);
      const uint8_t* in = src + image * c * hw;
      uint8_t* out = dst + image * hw * c;
      for (int64_t p = first; p < last; ++p)
        for (int64_t k = 0; k < c; ++k) out[p * c + k] = in[k * hw + p];
    }
  });
}

}  // namespace

Tensor to_nhwc(const Tensor& x) {
  const Strides nhwc = inference::nhwc_strides(x.size(1), x.size(2), x.size(3));
  bool same = true;
  for (int64_t d = 0; d < 4; ++d) same = same && (x.size(d) == 1 || x.stride(d) == nhwc[d]);
  if (same) return x;
  Tensor out = allocate_nhwc(x.shape(), x.q_scale(), x.q_zero_point());
  if (x.is_contiguous() && element_size(x.dtype()) == 1) {
    transpose_to_nhwc(static_cast<const uint8_t*>(x.raw_data()), static_cast<uint8_t*>(out.raw_data()), x.size(0),
                      x.size(1), x.size(2) * x.size(3));
  } else {
    detail::copy_elements(integers_of(out), integers_of(x));
  }
  return out;
}

bool is_dense(const Tensor& x) {
  std::vector<int64_t> order(static_cast<size_t>(x.dim()));
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x.stride(a) > x.stride(b); });
  int64_t expected = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (x.size(*it) != 1 && x.stride(*it) != expected) return false;
    expected *= x.size(*it);
  }
  return true;
}

Tensor result_or_out(const char* op, const Tensor& out, const Shape& shape, const Strides& strides, double scale,
                     int64_t zero_point) {
  auto quantizer = Quantizer::per_tensor_affine(DType::QUInt8, scale, zero_point);
  if (!out.defined()) {
    const Tensor storage = Tensor::allocate({numel_of(shape)}, DType::QUInt8, quantizer);
    return Tensor::make(storage.storage(), shape, strides, 0, DType::QUInt8, quantizer);
  }
  check_quint8(op, "out", out);
  TL_CHECK(out.q_scale() == quantizer->scale() && out.q_zero_point() == zero_point, op, ": out has scale ",
           out.q_scale(), " and zero_point ", out.q_zero_point(), " but the result's are ", quantizer->scale(), " and ",
           zero_point);
  TL_CHECK(out.shape() == shape && out.strides() == strides, op, ": out has shape ", out.shape(), " and strides ",
           out.strides(), " but the result has shape ", shape, " and strides ", strides);
  return out;
}

Tensor empty_like_dense(const Tensor& x, std::shared_ptr<const Quantizer> quantizer) {
  const DType dtype = quantizer->dtype();
  if (!is_dense(x) || x.is_contiguous()) return Tensor::allocate(x.shape(), dtype, quantizer);
  const Tensor storage = Tensor::allocate({x.numel()}, dtype, quantizer);
  return Tensor::make(storage.storage(), x.shape(), x.strides(), 0, dtype, quantizer);
}

std::vector<float> inverse_scales(const Quantizer& weight, int64_t channels) {
  std::vector<float> out;
  for (double s : weight.scales()) out.push_back(static_cast<float>(1.0 / s));
  if (out.size() == 1) out.assign(static_cast<size_t>(channels), out[0]);
  return out;
}

std::vector<float> output_scales(double input_scale, const std::vector<float>& inverse_weight_scales,
                                 double output_scale) {
  const float src = static_cast<float>(1.0 / input_scale), dst = static_cast<float>(1.0 / output_scale);
  std::vector<float> out;
  for (float w : inverse_weight_scales) out.push_back(dst / (src * w));
  return out;
}

std::vector<float> accumulator_bias(const Tensor& bias, double input_scale, const std::vector<float>& inverse_weight_scales) {
  const float src = static_cast<float>(1.0 / input_scale);
  const float* b = bias.data<float>();
  std::vector<float> out;
  for (size_t c = 0; c < inverse_weight_scales.size(); ++c) out.push_back(b[c] * (src * inverse_weight_scales[c]));
  return out;
}

std::shared_ptr<PackedWeight> checked_weight(const char* op, const Tensor& weight, const Tensor& bias, int64_t dim) {
  TL_CHECK(weight.defined() && weight.dtype() == DType::QInt8, op, ": Weight should be of type QInt8, got ",
           weight.defined() ? weight.dtype() : DType::Float32);
  TL_CHECK(weight.dim() == dim, op, ": Weight is expected to have ", dim, " dims, got ", weight.shape());
  const Quantizer& q = *weight.quantizer();
  TL_CHECK(is_per_tensor(q.qscheme()) || q.axis() == 0, op, ": Only per-tensor and per-channel (axis 0) ",
           "quantized weights are supported, got axis ", q.axis());
  for (int64_t z : q.zero_points()) {
    TL_CHECK(z == 0, op, ": ONEDNN only supports symmetric quantization of weight, whose zero point must be 0, got ",
             z);
  }
  const int64_t out = weight.size(0);
  if (bias.defined()) {
    TL_CHECK(bias.dtype() == DType::Float32 && bias.dim() == 1 && bias.size(0) == out, op,
             ": expected a float32 bias of shape [", out, "], got ", bias.shape(), " ", bias.dtype());
  }
  auto packed = std::make_shared<PackedWeight>();
  packed->weight = weight.contiguous();
  if (bias.defined()) packed->bias = bias.contiguous().clone();
  packed->inverse_scales = inverse_scales(q, out);
  return packed;
}

namespace {

/// The kept qint8 weight reordered into `into` (layout `desc`).
void pack_into(const PackedWeight& packed, const dnnl::memory::desc& desc, const dnnl::memory& into) {
  const Tensor w = integers_of(packed.weight);
  onednn::make_reorder(packed.user, desc).execute({{DNNL_ARG_FROM, onednn::memory_of(w, packed.user)}, {DNNL_ARG_TO, into}});
}

}  // namespace

Tensor carry_packed(std::shared_ptr<PackedWeight> packed, const dnnl::memory::desc& desc,
                    const dnnl::memory::desc& user) {
  packed->desc = desc;
  packed->user = user;
  packed->bytes = Tensor::allocate({static_cast<int64_t>(desc.get_size())}, DType::Int8);
  pack_into(*packed, desc, onednn::memory_of(packed->bytes, desc));
  return onednn::carry(std::move(packed));
}

const PackedWeight& packed_weight_of(const char* op, const char* prepack, const Tensor& w, bool conv) {
  const PackedWeight* packed = w.defined() ? onednn::packed_as<PackedWeight>(w) : nullptr;
  TL_CHECK(packed && (packed->weight.dim() == 4) == conv, op, ": expected a packed weight that ", prepack,
           " returned, got ", w.defined() ? w.shape() : Shape{}, " ", w.defined() ? w.dtype() : DType::Float32,
           packed ? " (packed for another op)" : "");
  return *packed;
}

dnnl::memory weight_memory(const PackedWeight& packed, const dnnl::memory::desc& desc) {
  if (packed.desc == desc) return onednn::memory_of(packed.bytes, desc);
  std::lock_guard<std::mutex> lock(packed.mutex);
  for (const auto& [layout, bytes] : packed.other_layouts) {
    if (layout == desc) return onednn::memory_of(bytes, desc);
  }
  Tensor bytes = Tensor::allocate({static_cast<int64_t>(desc.get_size())}, DType::Int8);
  pack_into(packed, desc, onednn::memory_of(bytes, desc));
  packed.other_layouts.emplace_back(desc, bytes);
  return onednn::memory_of(bytes, desc);
}

std::shared_ptr<const PackedWeight::CallPlan> call_plan(const PackedWeight& packed, std::vector<double> signature,
                                                        const std::function<PackedWeight::CallPlan()>& make) {
  {
    std::lock_guard<std::mutex> lock(packed.mutex);
    for (const auto& kept : packed.call_plans)
      if (kept->signature == signature) return kept;
  }
  auto made = std::make_shared<PackedWeight::CallPlan>(make());
  made->signature = std::move(signature);
  std::lock_guard<std::mutex> lock(packed.mutex);
  if (packed.call_plans.size() >= PackedWeight::kMaxCallPlans) packed.call_plans.erase(packed.call_plans.begin());
  packed.call_plans.push_back(made);
  return made;
}

dnnl::primitive_attr requantize_attr(const dnnl::post_ops& post_ops, const std::vector<float>& scales,
                                     bool src_zero_point, bool dst_zero_point) {
  dnnl::primitive_attr attr = onednn::default_attr();
  attr.set_output_scales(1 << 1, scales);
  if (src_zero_point) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  if (dst_zero_point) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
  attr.set_post_ops(post_ops);
  return attr;
}

void Requantize::add_to(std::unordered_map<int, dnnl::memory>& args) const {
  using dnnl::memory;
  const memory::desc one({1}, memory::data_type::s32, memory::format_tag::a);
  auto zero_point = [&](const int32_t& value) { return onednn::memory_of(const_cast<int32_t*>(&value), one); };
  if (src_zero_point != 0) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zero_point(src_zero_point));
  if (dst_zero_point != 0) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, zero_point(dst_zero_point));
  if (!bias.empty()) {
    const memory::desc desc(bias_dims, memory::data_type::f32, bias_dims.size() == 1 ? memory::format_tag::a
                                                                                     : memory::format_tag::ab);
    args.emplace(DNNL_ARG_BIAS, onednn::memory_of(const_cast<float*>(bias.data()), desc));
  }
}

}  // namespace tl::kernels::int8
