// profiler/record_function.h — tl::profiler::RecordFunction, torch.profiler.record_function in C++:
// core's RecordFunction under the profiler's name, so user scopes, the autograd engine's and the
// optimizers' scopes are one mechanism (see core/record_function.h).
#pragma once

#include "core/record_function.h"

namespace tl::profiler {

/// Usage:
///   {
///     tl::profiler::RecordFunction scope("MASK INDICES");
///     ...   // ops here are this scope's children; its self time is what they leave over
///   }
/// Records a "user_annotation" event on the profile running on this thread (if any); costs one
/// thread-local read when none runs. Scopes must nest; one closed early (end(), or destroyed out of
/// order) also closes the scopes opened inside it, so events always nest.
using RecordFunction = tl::RecordFunction;

}  // namespace tl::profiler
