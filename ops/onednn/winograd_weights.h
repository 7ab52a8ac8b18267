// ops/onednn/winograd_weights.h — packing 3x3 fp32 conv weights into oneDNN's Winograd layouts ourselves:
// the values oneDNN's own reorder to those layouts writes, in a small part of its time.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "core/tensor.h"

namespace tl::onednn {

/// True when `packed` is a layout pack_winograd_weights writes: oneDNN's fp32 Winograd weights
/// (wino_wei_aaOio or wino_wei_aaOBiOo for F(2x2, 3x3), wino_wei_OBaaIBOIio for F(4x4, 3x3), 16 output
/// channels per block) for a dense weight of size `weight` (C_out, C_in, 3, 3). Any other layout
/// (int8, groups) is left to oneDNN's reorder.
bool packs_winograd_weights(const dnnl::memory::desc& packed, const Shape& weight);

/// weight: contiguous float32 (C_out, C_in, 3, 3); dst: packed.get_size() bytes, all written (the
/// channels the layout pads C_out and C_in up to hold zeros). Runs on the calling thread's OpenMP
/// threads. packs_winograd_weights(packed, weight.shape()) must hold (an internal assert otherwise).
void pack_winograd_weights(const Tensor& weight, const dnnl::memory::desc& packed, void* dst);

}  // namespace tl::onednn
