// profiler/clock.h — the profiler's time and identity sources: a monotonic clock in nanoseconds
// (never goes backwards, so a child event never ends after its parent), thread names and the process
// id (a thread's id is core's current_thread_id(): backward nodes record it too).
#pragma once

#include <cstdint>
#include <string>

namespace tl::profiler {

/// Nanoseconds on the monotonic clock (CLOCK_MONOTONIC): comparable across threads of a process.
int64_t now_ns();

/// The calling thread's name (pthread_getname_np), or "" when it has none.
std::string current_thread_name();

/// The process id.
int64_t current_process_id();

}  // namespace tl::profiler
