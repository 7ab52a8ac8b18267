// profiler/clock.h — the profiler's time and identity sources: a monotonic clock in nanoseconds
// (never goes backwards, so a child event never ends after its parent) and thread/process ids.
#pragma once

#include <cstdint>
#include <string>

namespace tl::profiler {

/// Nanoseconds on the monotonic clock (CLOCK_MONOTONIC): comparable across threads of a process.
int64_t now_ns();

/// The calling thread's operating-system id (gettid), as Chrome traces and `top -H` show it.
uint64_t current_thread_id();

/// The calling thread's name (pthread_getname_np), or "" when it has none.
std::string current_thread_name();

/// The process id.
int64_t current_process_id();

}  // namespace tl::profiler
