// ops/quantized/quantize.cpp — quantize_per_tensor / quantize_per_channel (float32 -> quint8 / qint8 / qint32,
// rounded as ATen's quantize_val), dequantize, int_repr, and the _make_*_quantized_tensor factories (integers
// and qparams, as a quantized state_dict loads). Every result is a fresh contiguous tensor; none is differentiable.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/quantized/int8.h"

namespace tl::kernels {
namespace {

using int8::integers_of;

constexpr int64_t kGrain = int64_t{1} << 15;

// std::nearbyint(x) in the default rounding mode without a libm call (x86-64's baseline has no rounding
// instruction): below 2^23 in magnitude, adding 2^23 rounds to an integer (ties to even, as 2^23 is even) and
// subtracting it is exact; from 2^23 on (and NaN) x is its own value. -0.0 and negatives keep their sign.
inline float round_to_even(float x) {
  constexpr float two23 = 8388608.0f;
  const float magnitude = std::fabs(x);
  return magnitude < two23 ? std::copysign((magnitude + two23) - two23, x) : x;
}

// quantize_value<T> over n contiguous floats with one (inv_scale, zero_point), as a branch-free loop the compiler
// vectorizes: the same float arithmetic, with its int64 conversion rule (NaN and anything past int64 give the
// lowest integer, which clamps to T's lowest) written as compares on the rounded float.
template <typename T>
void quantize_run(const float* __restrict src, T* __restrict dst, int64_t n, float inv_scale, int64_t zero_point) {
  constexpr float lowest = static_cast<float>(std::numeric_limits<T>::min());
  constexpr float highest = static_cast<float>(std::numeric_limits<T>::max());
  const float zero = static_cast<float>(zero_point);
  if constexpr (sizeof(T) < sizeof(int32_t)) {
    for (int64_t i = 0; i < n; ++i) {
      const float v = zero + round_to_even(src[i] * inv_scale);
      const bool fits = v >= -9.223372036854775808e18f && v < 9.223372036854775808e18f;  // false for NaN
      dst[i] = static_cast<T>(static_cast<int32_t>(fits ? std::min(std::max(v, lowest), highest) : lowest));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = quantize_value<T>(src[i], inv_scale, zero_point);
  }
}

// self (float32, any layout) quantized by `quantizer` into a new contiguous tensor: per tensor in parallel chunks,
// per channel as runs of `inner` elements of one channel.
Tensor quantize_with(const Tensor& self, std::shared_ptr<const Quantizer> quantizer) {
  const Tensor x = self.contiguous();
  Tensor out = Tensor::allocate(x.shape(), quantizer->dtype(), quantizer);
  const std::vector<double>& scales = quantizer->scales();
  const std::vector<int64_t>& zero_points = quantizer->zero_points();
  std::vector<float> inv_scales(scales.size());
  for (size_t c = 0; c < scales.size(); ++c) inv_scales[c] = 1.0f / static_cast<float>(scales[c]);
  int64_t inner = x.numel(), channels = 1;
  if (quantizer->axis() >= 0) {
    channels = x.size(quantizer->axis());
    inner = 1;
    for (int64_t d = quantizer->axis() + 1; d < x.dim(); ++d) inner *= x.size(d);
  }
  const float* src = x.numel() > 0 ? x.data<float>() : nullptr;
  TL_DISPATCH_QINT_TYPES(quantizer->dtype(), "quantize", [&] {
    auto* dst = static_cast<underlying_t*>(out.raw_data());
    if (channels == 1) {
      parallel_for(0, x.numel(), kGrain, [&](int64_t begin, int64_t end) {
        quantize_run(src + begin, dst + begin, end - begin, inv_scales[0], zero_points[0]);
      });
      return;
    }
    const int64_t runs = inner > 0 ? x.numel() / inner : 0;
    parallel_for(0, runs, std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1)), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const auto c = static_cast<size_t>(r % channels);
        quantize_run(src + r * inner, dst + r * inner, inner, inv_scales[c], zero_points[c]);
      }
    });
  });
  return out;
}

// A quantized tensor over a copy of `self`'s integers (uint8 / int8 / int32 for quint8 / qint8 / qint32), with
// the quantizer make(dtype) returns.
template <typename MakeQuantizer>
Tensor with_integers(const Tensor& self, const MakeQuantizer& make) {
  const DType dtype = self.dtype() == DType::UInt8  ? DType::QUInt8
                      : self.dtype() == DType::Int8 ? DType::QInt8
                      : self.dtype() == DType::Int32 ? DType::QInt32
                                                     : self.dtype();
  TL_CHECK(is_quantized(dtype), "Creation of quantized tensor requires quantized dtype like torch.quint8 (got an integer "
           "tensor of ", self.dtype(), "; expected torch.uint8, torch.int8 or torch.int32)");
  Tensor out = Tensor::allocate(self.shape(), dtype, make(dtype));
  detail::copy_elements(integers_of(out), self);
  return out;
}

// A 1-d scales or zero points tensor's values as T (PyTorch's checks on the per-channel arguments).
template <typename T>
std::vector<T> values_of(const Tensor& t, const char* what) {
  TL_CHECK(t.dim() == 1, what, " tensor must have dimension 1");
  const Tensor c = t.to(dtype_of<T>).contiguous();
  return std::vector<T>(c.data<T>(), c.data<T>() + c.numel());
}

std::vector<double> scales_of(const Tensor& scales) {
  TL_CHECK(is_floating_point(scales.dtype()), "scale tensor must be floating point");
  return values_of<double>(scales, "scale");
}

std::vector<int64_t> zero_points_of(const Tensor& zero_points) {
  return values_of<int64_t>(zero_points, "zero_points");
}

void check_float(const Tensor& self, const char* op) {
  TL_CHECK(self.dtype() == DType::Float32, op, ", got ", scalar_type_name(self.dtype()));
}

}  // namespace

Tensor quantize_per_tensor(const Tensor& self, const QuantizePerTensorArgs& args) {  // self: float32, any shape
  check_float(self, "Quantize only works on Float Tensor");
  return quantize_with(self, Quantizer::per_tensor_affine(args.dtype, args.scale, args.zero_point));
}

// ATen's quantize_per_tensor.tensor_qparams: scale and zero_point one element each (a converted graph's get_attr
// buffers, float32 and int64), read as double and int64.
Tensor quantize_per_tensor_tensor_qparams(const Tensor& self, const Tensor& scale, const Tensor& zero_point,
                                          const QuantizePerTensorTensorQparamsArgs& args) {
  int8::check_qparam_tensors("quantize_per_tensor", scale, zero_point);
  return quantize_per_tensor(self, {.scale = scale.item<double>(), .zero_point = zero_point.item<int64_t>(),
                                    .dtype = args.dtype});
}

// self: float32; scales and zero_points: 1-d, self.size(axis) each.
Tensor quantize_per_channel(const Tensor& self, const Tensor& scales, const Tensor& zero_points,
                            const QuantizePerChannelArgs& args) {
  check_float(self, "quantize_tensor_per_channel_affine expects a Float Tensor");
  return quantize_with(self, Quantizer::per_channel_affine(args.dtype, scales_of(scales), zero_points_of(zero_points),
                                                           args.axis, self.shape().vec()));
}

// A float tensor is returned as float32 (itself when it is), as ATen's dequantize of a CPU tensor.
Tensor dequantize(const Tensor& self) {
  if (!self.is_quantized()) return self.dtype() == DType::Float32 ? self : self.to(DType::Float32);
  return detail::dequantize_elements(self);
}

Tensor int_repr(const Tensor& self) {
  TL_CHECK(self.is_quantized(), "Could not run 'aten::int_repr' with arguments from the 'CPU' backend. This could be "
           "because the operator doesn't exist for this backend (got ", self.dtype(), ")");
  Tensor out = Tensor::allocate(self.shape(), underlying_dtype(self.dtype()));
  detail::copy_elements(out, integers_of(self));
  return out;
}

Tensor _make_per_tensor_quantized_tensor(const Tensor& self, const MakePerTensorQuantizedTensorArgs& args) {
  return with_integers(self, [&](DType dtype) { return Quantizer::per_tensor_affine(dtype, args.scale, args.zero_point); });
}

Tensor _make_per_channel_quantized_tensor(const Tensor& self, const Tensor& scale, const Tensor& zero_point,
                                          const MakePerChannelQuantizedTensorArgs& args) {
  return with_integers(self, [&](DType dtype) {
    return Quantizer::per_channel_affine(dtype, scales_of(scale), zero_points_of(zero_point), args.axis,
                                         self.shape().vec());
  });
}

}  // namespace tl::kernels
