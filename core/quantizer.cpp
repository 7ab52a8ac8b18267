// core/quantizer.cpp — the quantizers' checks (ATen's checkZeroPoint and per-channel argument checks) and
// their properties.
#include "core/quantizer.h"

#include <ostream>

#include "core/error.h"

namespace tl {
namespace {

// ATen's checkZeroPoint, and a scale the arithmetic can divide by (ATen does not check it: a scale of 0 or
// NaN there quantizes everything to one end of the range).
void check_qparams(DType dtype, double scale, int64_t zero_point, const char* op) {
  TL_CHECK(zero_point <= quant_max(dtype), op, " zero_point ", zero_point, " is above upper bound.");
  TL_CHECK(zero_point >= quant_min(dtype), op, " zero_point ", zero_point, " is below lower bound.");
  TL_CHECK(scale > 0 && std::isfinite(scale) && std::isfinite(1.0f / static_cast<float>(scale)), op,
           ": scale must be positive and finite (and its float inverse finite), got ", scale);
}

void check_quantized(DType dtype) {
  TL_CHECK(is_quantized(dtype), "ScalarType ", scalar_type_name(dtype), " is not supported in new_qtensor.");
}

}  // namespace

const char* qscheme_name(QScheme qscheme) {
  switch (qscheme) {
    case QScheme::PerTensorAffine: return "torch.per_tensor_affine";
    case QScheme::PerTensorSymmetric: return "torch.per_tensor_symmetric";
    case QScheme::PerChannelAffine: return "torch.per_channel_affine";
    case QScheme::PerChannelSymmetric: return "torch.per_channel_symmetric";
  }
  TL_INTERNAL_ASSERT(false, "qscheme_name: unknown QScheme");
  return "";
}

bool is_per_tensor(QScheme qscheme) {
  return qscheme == QScheme::PerTensorAffine || qscheme == QScheme::PerTensorSymmetric;
}

std::ostream& operator<<(std::ostream& os, QScheme qscheme) { return os << qscheme_name(qscheme); }

int64_t quant_min(DType dtype) {
  switch (dtype) {
    case DType::QUInt8: return 0;
    case DType::QInt8: return -128;
    case DType::QInt32: return INT32_MIN;
    default: break;
  }
  TL_INTERNAL_ASSERT(false, "quant_min: ", dtype, " is not quantized");
  return 0;
}

int64_t quant_max(DType dtype) {
  switch (dtype) {
    case DType::QUInt8: return 255;
    case DType::QInt8: return 127;
    case DType::QInt32: return INT32_MAX;
    default: break;
  }
  TL_INTERNAL_ASSERT(false, "quant_max: ", dtype, " is not quantized");
  return 0;
}

std::shared_ptr<const Quantizer> Quantizer::per_tensor_affine(DType dtype, double scale, int64_t zero_point) {
  check_quantized(dtype);
  check_qparams(dtype, scale, zero_point, "quantize_tensor_per_tensor_affine");
  return std::shared_ptr<const Quantizer>(new Quantizer(QScheme::PerTensorAffine, dtype, {scale}, {zero_point}, -1));
}

std::shared_ptr<const Quantizer> Quantizer::per_channel_affine(DType dtype, std::vector<double> scales,
                                                               std::vector<int64_t> zero_points, int64_t axis,
                                                               const std::vector<int64_t>& sizes) {
  check_quantized(dtype);
  const auto dims = static_cast<int64_t>(sizes.size());
  TL_CHECK(axis >= 0 && axis < dims, "Channel axis out of range in per channel affine quantization. Got: ", axis,
           "Expected: [0, ", dims, ")");
  TL_CHECK(static_cast<int64_t>(scales.size()) == sizes[static_cast<size_t>(axis)],
           "length of scales must equal to channel (got ", scales.size(), " scales for size ", sizes[static_cast<size_t>(axis)],
           " of axis ", axis, ")");
  TL_CHECK(zero_points.size() == scales.size(), "number of elements in scales and zero_points must match (got ",
           scales.size(), " and ", zero_points.size(), ")");
  for (size_t c = 0; c < scales.size(); ++c) check_qparams(dtype, scales[c], zero_points[c], "quantize_tensor_per_channel_affine");
  return std::shared_ptr<const Quantizer>(
      new Quantizer(QScheme::PerChannelAffine, dtype, std::move(scales), std::move(zero_points), axis));
}

std::shared_ptr<const Quantizer> Quantizer::with_axis(int64_t axis) const {
  TL_INTERNAL_ASSERT(qscheme_ == QScheme::PerChannelAffine, "with_axis: a per-tensor quantizer has no axis");
  return std::shared_ptr<const Quantizer>(new Quantizer(qscheme_, dtype_, scales_, zero_points_, axis));
}

bool Quantizer::operator==(const Quantizer& other) const {
  return qscheme_ == other.qscheme_ && dtype_ == other.dtype_ && scales_ == other.scales_ &&
         zero_points_ == other.zero_points_ && axis_ == other.axis_;
}

}  // namespace tl
