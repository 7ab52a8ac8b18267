// ops/quantized/activation.h — the activations ATen runs on a quint8 tensor under their float ops' names (relu,
// hardtanh, hardsigmoid, sigmoid: their float kernels call these for a quantized input), private to ops/.
#pragma once

#include "core/tensor.h"

namespace tl::kernels::int8 {

/// relu(_): max(q, zero_point), qparams kept; `inplace` writes qx. qx: quint8 per tensor, any shape and layout.
Tensor relu(const char* op, const Tensor& qx, bool inplace);

/// hardtanh(_) (relu6 is (0, 6)): the integers clamped to quantize(min_val) and quantize(max_val), qparams kept.
Tensor hardtanh(const char* op, const Tensor& qx, double min_val, double max_val, bool inplace);

/// hardsigmoid and sigmoid: dequantize, the function, requantize to the fixed qparams scale 1/256, zero point 0.
Tensor hardsigmoid(const Tensor& qx);
Tensor sigmoid(const Tensor& qx);

}  // namespace tl::kernels::int8
