// ops/autocast.h — the dispatch point's autocast step (internal to ops/): the cast-then-call it runs for
// the ops whose row names an autocast policy (core/native_functions.toml, PyTorch 1.13's CPU lists).
#pragma once

#include <span>

#include "core/dispatch.h"

namespace tl::detail {

/// Casts the floating-point tensor inputs (not float64) of `op` as `policy` says, through the
/// dispatch point (so autograd records the casts and profiles show aten::to), then runs `op` on its
/// arguments struct `args` with autocast off for the ops it calls.
TensorList autocast_call(OpKind op, AutocastPolicy policy, std::span<const Tensor> inputs, const void* args,
                         CallStyle style);

}  // namespace tl::detail
