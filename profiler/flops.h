// profiler/flops.h — floating-point operation estimates for op calls, matching PyTorch 1.13's
// profiler (torch/csrc/profiler/util.cpp computeFlops) for the ops it estimates.
#pragma once

#include <cstdint>
#include <span>

#include "core/dispatch.h"

namespace tl::profiler {

/// Estimated flops of one call, from the inputs' sizes and the attributes; 0 for ops without an
/// estimate, for symbolic-tracing proxies and for inputs whose shapes do not fit the op (the op
/// itself reports those). Never throws.
///   conv2d        2 * N * H_out * W_out * kH * kW * C_in * C_out / groups
///   mm, addmm     2 * M * K * N  (addmm's bias add is not counted, as in PyTorch)
///   bmm           2 * B * M * K * N
///   matmul        2 * (output elements) * K, batch dimensions broadcast
///   linear        2 * (input elements) * out_features
///   add, mul      elements of the first input
/// PyTorch has no estimate for matmul and linear because they reach mm/addmm through its
/// dispatcher; the profiler gives flops to the innermost op that has an estimate, so an op
/// implemented on top of another one is not counted twice.
int64_t estimate_flops(OpKind op, std::span<const Tensor> inputs, const Attrs& attrs);

}  // namespace tl::profiler
