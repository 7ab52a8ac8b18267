// ops/autocast.h — the dispatch point's autocast step (internal to ops/): which ops autocast casts,
// and the cast-then-call it runs for them.
#pragma once

#include <span>

#include "core/dispatch.h"

namespace tl::detail {

/// How autocast treats an op: leaves it alone, runs it in the lower precision, or in float32.
enum class CastPolicy : uint8_t { None, LowerPrecision, Float32 };

/// PyTorch 1.13's CPU autocast lists, restricted to the ops torchless has.
CastPolicy autocast_policy(OpKind op);

/// Casts the floating-point tensor inputs (not float64) of `op` as `policy` says, through the
/// dispatch point (so autograd records the casts and profiles show aten::to), then runs `op` with
/// autocast off for the ops it calls.
TensorList autocast_call(OpKind op, CastPolicy policy, std::span<const Tensor> inputs, const Attrs& attrs,
                         CallStyle style);

}  // namespace tl::detail
