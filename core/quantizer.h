// core/quantizer.h — how a quantized tensor's integers stand for real values (ATen's Quantizer): per-tensor
// affine (one scale and zero point) or per-channel affine (one of each per index along `axis`). A quantizer
// is immutable once made and shared by the views of its tensor.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iosfwd>
#include <limits>
#include <memory>
#include <vector>

#include "core/dtype.h"

namespace tl {

/// torch.qscheme. A quantized tensor is per_tensor_affine or per_channel_affine (PyTorch stores what a symmetric
/// observer computes in those too); the observers (ao/quantization) use all four.
/// (per_channel_affine_float_qparams, for embeddings, is not here yet.)
enum class QScheme : uint8_t { PerTensorAffine, PerTensorSymmetric, PerChannelAffine, PerChannelSymmetric };
/// "torch.per_tensor_affine", ...
const char* qscheme_name(QScheme qscheme);
/// per_tensor_affine or per_tensor_symmetric.
bool is_per_tensor(QScheme qscheme);
std::ostream& operator<<(std::ostream& os, QScheme qscheme);

/// The smallest and largest integer a quantized dtype stores: quint8 [0, 255], qint8 [-128, 127],
/// qint32 [-2^31, 2^31 - 1]. An internal error for other dtypes.
int64_t quant_min(DType dtype);
int64_t quant_max(DType dtype);

class Quantizer {
 public:
  /// Per-tensor affine: real = (q - zero_point) * scale. Throws tl::Error for a dtype that is not quantized,
  /// a scale that is not positive and finite, and a zero point outside the dtype's range (ATen's message).
  static std::shared_ptr<const Quantizer> per_tensor_affine(DType dtype, double scale, int64_t zero_point);
  /// Per-channel affine along `axis` of a tensor of `sizes`: channel c has scales[c], zero_points[c]. Throws
  /// tl::Error as per_tensor_affine for each channel, for an axis outside the sizes, and for scales or zero
  /// points whose count is not sizes[axis].
  static std::shared_ptr<const Quantizer> per_channel_affine(DType dtype, std::vector<double> scales,
                                                             std::vector<int64_t> zero_points, int64_t axis,
                                                             const std::vector<int64_t>& sizes);

  QScheme qscheme() const { return qscheme_; }
  /// The quantized dtype it makes (torch.quint8, ...).
  DType dtype() const { return dtype_; }
  /// The per-tensor scale and zero point (per_tensor_affine only: the tensor methods check).
  double scale() const { return scales_[0]; }
  int64_t zero_point() const { return zero_points_[0]; }
  /// One per channel (per_channel_affine) or one (per_tensor_affine).
  const std::vector<double>& scales() const { return scales_; }
  const std::vector<int64_t>& zero_points() const { return zero_points_; }
  /// The channel dimension (per_channel_affine), -1 for per_tensor_affine.
  int64_t axis() const { return axis_; }
  /// The same qparams on another channel dimension (a view that removed or added dimensions before axis).
  std::shared_ptr<const Quantizer> with_axis(int64_t axis) const;
  /// Same scheme, dtype and qparams (torch.equal's quantizer check).
  bool operator==(const Quantizer& other) const;

 private:
  Quantizer(QScheme qscheme, DType dtype, std::vector<double> scales, std::vector<int64_t> zero_points, int64_t axis)
      : qscheme_(qscheme), dtype_(dtype), scales_(std::move(scales)), zero_points_(std::move(zero_points)), axis_(axis) {}

  QScheme qscheme_;
  DType dtype_;
  std::vector<double> scales_;
  std::vector<int64_t> zero_points_;
  int64_t axis_;
};

/// ATen's quantize_val as its CPU kernel computes it (fbgemm::Quantize, non-legacy): zero_point +
/// nearbyint(x * inv_scale), in float, converted to int64 as x86 converts (NaN, infinities and anything past
/// int64 give its lowest value) and clamped to T's range. `inv_scale` is 1.0f / static_cast<float>(scale),
/// computed once by the caller. Checked against PyTorch 1.13 on ties, NaN, infinities and large values.
template <typename T>
T quantize_value(float x, float inv_scale, int64_t zero_point) {
  const float v = static_cast<float>(zero_point) + std::nearbyint(x * inv_scale);
  const bool fits = v >= -9.223372036854775808e18f && v < 9.223372036854775808e18f;  // false for NaN
  const int64_t q = fits ? static_cast<int64_t>(v) : std::numeric_limits<int64_t>::min();
  return static_cast<T>(std::clamp<int64_t>(q, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

/// ATen's dequantize_val: float(scale) * float(q - zero_point), in float.
inline float dequantize_value(int64_t q, float scale, int64_t zero_point) {
  return scale * static_cast<float>(static_cast<int32_t>(q - zero_point));
}

}  // namespace tl
