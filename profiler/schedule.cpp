// profiler/schedule.cpp — the step-to-action function, identical to torch.profiler.schedule's.
#include "profiler/schedule.h"

#include <utility>

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
  for (const auto& [name, value] : {std::pair{"wait", wait}, {"warmup", warmup}, {"repeat", repeat},
                                    {"skip_first", skip_first}})
    TL_CHECK(value >= 0, "schedule: ", name, " must be >= 0, got ", value);
  TL_CHECK(active > 0, "schedule: active must be > 0, got ", active);
  // operator() computes the cycle length and the steps of all cycles: both must fit in int64.
  int64_t cycle = 0, steps = 0;
  TL_CHECK(!__builtin_add_overflow(wait, warmup, &cycle) && !__builtin_add_overflow(cycle, active, &cycle),
           "schedule: wait + warmup + active overflows int64 (wait=", wait, ", warmup=", warmup, ", active=", active,
           ")");
  TL_CHECK(!__builtin_mul_overflow(repeat, cycle, &steps) && !__builtin_add_overflow(steps, skip_first, &steps),
           "schedule: skip_first + repeat * (wait + warmup + active) overflows int64 (skip_first=", skip_first,
           ", repeat=", repeat, ", cycle of ", cycle, " steps)");
}

ProfilerAction Schedule::operator()(int64_t step) const {
  validate();
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
