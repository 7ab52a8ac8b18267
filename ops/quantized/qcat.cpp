// ops/quantized/qcat.cpp — quantized::cat: quint8 tensors joined along `dim` into one with the given qparams
// (the first input's when none are given); an input with other qparams is requantized as ATen's qcat does,
// quantize(dequantize(q)) in float. The result is channels-last when ATen's is (its NHWC kernel: 4-D channels-last
// inputs joined along the channels, as a converted graph's branches give), otherwise contiguous.
#include <algorithm>
#include <vector>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/memory_format.h"
#include "ops/ops.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {

// qx: quint8 per tensor, equal sizes but along dim; dim may be negative.
Tensor quantized_cat(std::span<const Tensor> qx, const QuantizedCatArgs& args) {
  constexpr const char* op = "quantized::cat";
  TL_CHECK(!qx.empty(), op, ": expected a non-empty list of Tensors");
  for (const Tensor& t : qx) int8::check_quint8(op, "every input", t);
  const Tensor& first = qx[0];
  const int64_t rank = first.dim();
  TL_CHECK(args.dim >= -rank && args.dim < rank, op, ": Dimension out of range (expected to be in range of [", -rank,
           ", ", rank - 1, "], but got ", args.dim, ")");
  const int64_t dim = args.dim < 0 ? args.dim + rank : args.dim;
  Shape out_shape = first.shape();
  out_shape[dim] = 0;
  for (const Tensor& t : qx) {
    bool fits = t.dim() == rank;
    for (int64_t d = 0; fits && d < rank; ++d) fits = d == dim || t.size(d) == first.size(d);
    TL_CHECK(fits, op, ": Sizes of tensors must match except in dimension ", dim, ", got ", first.shape(), " and ",
             t.shape());
    out_shape[dim] += t.size(dim);
  }
  auto quantizer = Quantizer::per_tensor_affine(DType::QUInt8, args.scale.value_or(first.q_scale()),
                                                args.zero_point.value_or(first.q_zero_point()));
  const bool nhwc = dim == 1 && std::all_of(qx.begin(), qx.end(), [](const Tensor& t) {
    return detail::is_channels_last_contiguous(t);
  });
  Tensor out = nhwc ? int8::allocate_nhwc(out_shape, quantizer->scale(), quantizer->zero_point())
                    : Tensor::allocate(out_shape, DType::QUInt8, quantizer);
  const float inverse = 1.0f / static_cast<float>(quantizer->scale());
  int64_t offset = 0;
  for (const Tensor& t : qx) {
    const Tensor part = int8::integers_of(out).narrow(dim, offset, t.size(dim));
    offset += t.size(dim);
    if (t.numel() == 0) continue;
    if (*t.quantizer() == *quantizer) {
      detail::copy_elements(part, int8::integers_of(t));
      continue;
    }
    // Requantized into a contiguous buffer, then copied into place.
    const Tensor src = int8::integers_of(t).contiguous();
    Tensor requantized = Tensor::allocate(t.shape(), DType::UInt8);
    const float scale = static_cast<float>(t.q_scale());
    const int64_t zero_point = t.q_zero_point();
    const auto* in = src.data<uint8_t>();
    auto* o = requantized.data<uint8_t>();
    parallel_for(0, t.numel(), kGrainSize, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        o[i] = quantize_value<uint8_t>(dequantize_value(in[i], scale, zero_point), inverse, quantizer->zero_point());
      }
    });
    detail::copy_elements(part, requantized);
  }
  return out;
}

}  // namespace tl::kernels
