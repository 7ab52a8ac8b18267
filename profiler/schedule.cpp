// profiler/schedule.cpp — the step-to-action function, identical to torch.profiler.schedule's.
#include "profiler/schedule.h"

#include "core/error.h"

namespace tl::profiler {

const char* action_name(ProfilerAction action) {
  switch (action) {
    case ProfilerAction::None: return "NONE";
    case ProfilerAction::Warmup: return "WARMUP";
    case ProfilerAction::Record: return "RECORD";
    case ProfilerAction::RecordAndSave: return "RECORD_AND_SAVE";
  }
  return "NONE";
}

void Schedule::validate() const {
  TL_CHECK(wait >= 0 && warmup >= 0 && active > 0 && repeat >= 0 && skip_first >= 0,
           "schedule: invalid arguments wait=", wait, ", warmup=", warmup, ", active=", active, ", repeat=", repeat,
           ", skip_first=", skip_first, " (active must be > 0, the others >= 0)");
}

ProfilerAction Schedule::operator()(int64_t step) const {
  TL_CHECK(step >= 0, "schedule: step must be >= 0, got ", step);
  if (step < skip_first) return ProfilerAction::None;
  step -= skip_first;
  const int64_t cycle = wait + warmup + active;
  if (repeat > 0 && step >= repeat * cycle) return ProfilerAction::None;
  const int64_t in_cycle = step % cycle;
  if (in_cycle < wait) return ProfilerAction::None;
  if (in_cycle < wait + warmup) return ProfilerAction::Warmup;
  return in_cycle < cycle - 1 ? ProfilerAction::Record : ProfilerAction::RecordAndSave;
}

}  // namespace tl::profiler
