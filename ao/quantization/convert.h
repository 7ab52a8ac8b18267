// ao/quantization/convert.h — convert_fx as PyTorch 1.13's torch.ao.quantization.quantize_fx.convert_fx: each
// observer becomes quantize_per_tensor / dequantize nodes with its qparams as attributes (the reference model),
// then the reference patterns are lowered to the quantized modules and ops of the onednn engine.
#pragma once

#include <memory>

#include "fx/graph_module.h"

namespace tl::ao::quantization {

/// The quantized GraphModule of `observed` (what prepare_fx returned, calibrated), which is never modified. As
/// PyTorch 1.13's convert then _lower_to_native_backend:
///  - every observer node becomes torch.quantize_per_tensor(x, <prefix>_scale_<i>, <prefix>_zero_point_<i>,
///    torch.quint8) then x.dequantize(), the qparams from the observer's calculate_qparams() as float32 and int64
///    buffers named as PyTorch names them (the observed node's module path, "_input" for a graph input observed
///    for its first user);
///  - dequantize -> Conv2d / ConvReLU2d / Linear / LinearReLU -> quantize becomes the quantized module
///    (QuantizedConv2d, QuantizedConvReLU2d, QuantizedLinear, QuantizedLinearReLU: ao/nn/quantized.h), its weight
///    quantized by the qconfig's weight observer and prepacked;
///  - dequantize -> operator.add / torch.add (-> relu) -> quantize becomes torch.ops.quantized.add(_relu);
///  - max pooling, adaptive average pooling, torch.flatten and the view methods run on the quantized tensor;
///  - what is left unused is removed; the graph's output is dequantized.
/// Throws tl::Error, leaving `observed` as it was, when it is not an ObservedGraphModule, when an observer
/// was never calibrated or its statistics give no qparams (a NaN seen in calibration), or when an observer
/// quantizes to a dtype the backend does not run, naming the observer node and the node it observes.
std::shared_ptr<fx::GraphModule> convert_fx(const std::shared_ptr<fx::GraphModule>& observed);

}  // namespace tl::ao::quantization
