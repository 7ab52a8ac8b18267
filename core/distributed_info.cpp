// core/distributed_info.cpp — the process's DistributedInfo behind a mutex.
#include "core/distributed_info.h"

#include <mutex>

namespace tl {
namespace {

std::mutex& info_mutex() {
  static std::mutex m;
  return m;
}

DistributedInfo& info() {
  static DistributedInfo i;
  return i;
}

}  // namespace

void set_distributed_info(const DistributedInfo& value) {
  std::lock_guard<std::mutex> lock(info_mutex());
  info() = value;
}

DistributedInfo distributed_info() {
  std::lock_guard<std::mutex> lock(info_mutex());
  return info();
}

}  // namespace tl
