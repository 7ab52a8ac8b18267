// profiler/clock.cpp — clock_gettime(CLOCK_MONOTONIC) is a vDSO call (~20 ns), cheap enough to
// read twice per op event.
#include "profiler/clock.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

namespace tl::profiler {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::string current_thread_name() {
  char name[64] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof name) != 0) return "";
  return name;
}

int64_t current_process_id() { return static_cast<int64_t>(getpid()); }

}  // namespace tl::profiler
