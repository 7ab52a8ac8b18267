// ops/quantized/average.h — the averages ATen runs on a quint8 tensor under their float ops' names (avg_pool2d and
// mean: their float kernels call these for a quantized input), private to ops/. Results keep the input's qparams.
#pragma once

#include "core/op_args.h"
#include "core/tensor.h"

namespace tl::kernels::int8 {

/// avg_pool2d of a quint8 (N, C, H, W) or (C, H, W) tensor as ATen's QuantizedCPU kernel: each window's integer sum
/// less zero_point per input element it covers, times 1 / divisor in float, rounded; ties go as ATen's two paths
/// take them (channels-last: zero_point + nearbyint(s), otherwise nearbyint(s + zero_point)). The result is
/// channels-last for a channels-last input, otherwise contiguous.
Tensor avg_pool2d(const Tensor& qx, const AvgPool2dArgs& args);

/// mean of a quint8 tensor as ATen's QuantizedCPU kernel: over innermost dims of a contiguous tensor,
/// nearbyint(integer sum / count); otherwise dequantize (laid out as the input), the float mean, quantize to the
/// input's qparams. `dtype`, when given, must be the input's.
Tensor mean(const Tensor& qx, const MeanArgs& args);

}  // namespace tl::kernels::int8
