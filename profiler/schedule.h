// profiler/schedule.h — torch.profiler.schedule: which steps are skipped, warmed up or recorded.
// Steps cycle through wait, warmup and active; the last active step of a cycle saves the trace.
#pragma once

#include <cstdint>

namespace tl::profiler {

/// What the profiler does during one step (torch.profiler.ProfilerAction).
enum class ProfilerAction : uint8_t {
  None,           ///< not profiling: no hooks installed
  Warmup,         ///< hooks installed, events discarded
  Record,         ///< events kept
  RecordAndSave,  ///< events kept; the trace is ready when the step ends
};

/// PyTorch's spelling: "NONE", "WARMUP", "RECORD", "RECORD_AND_SAVE".
const char* action_name(ProfilerAction action);

/// torch.profiler.schedule(wait, warmup, active, repeat, skip_first).
struct Schedule {
  int64_t wait = 0;
  int64_t warmup = 0;
  int64_t active = 1;
  int64_t repeat = 0;  ///< cycles to run; 0 repeats until the profiler stops
  int64_t skip_first = 0;

  /// The action for step number `step` (>= 0). Throws tl::Error for a negative step or an
  /// invalid schedule (see validate()).
  ProfilerAction operator()(int64_t step) const;
  /// Throws tl::Error naming the option and its value unless wait, warmup, repeat, skip_first >= 0,
  /// active > 0 and skip_first + repeat * (wait + warmup + active) fits in int64.
  void validate() const;
};

}  // namespace tl::profiler
