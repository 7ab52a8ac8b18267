// nn/quantized_entries.h — a state dict's quantized tensors as the plain tensors a safetensors file holds, and
// back: each quantized tensor becomes its integers plus entries for its scale(s), zero point(s) and axis.
#pragma once

#include <string>

#include "nn/state_dict.h"

namespace tl::nn {

/// `tensors` with each quantized entry `key` replaced by its integers under `key` (U8 for torch.quint8, I8 for
/// torch.qint8, I32 for torch.qint32: int_repr()) followed by its quantizer, named after the Tensor methods that
/// return it:
///   per tensor affine:  key.q_scale (float64, []), key.q_zero_point (int64, [])
///   per channel affine: key.q_per_channel_scales (float64, [C]), key.q_per_channel_zero_points (int64, [C]),
///                       key.q_per_channel_axis (int64, [])
/// Other entries are kept as they are. The suffixes are therefore reserved next to a quantized entry: a name
/// given twice is refused by the writer.
StateDict split_quantized(const StateDict& tensors);

/// The inverse of split_quantized: an entry `key` with key.q_scale or key.q_per_channel_scales beside it becomes
/// the quantized tensor of those integers (kept at `key`'s position; the quantizer entries are removed). Throws
/// tl::Error starting with `what` and naming the entry for a quantizer entry without its integers or without its
/// companions (a missing scale, zero point or axis), for one of the wrong dtype or shape, for integers of a dtype
/// no quantized dtype stores, and for qparams the quantizer refuses (core/quantizer.h).
StateDict join_quantized(const StateDict& tensors, const std::string& what);

}  // namespace tl::nn
