// core/memory_planner.h — lays buffers with known lifetimes out in one arena, as ggml-alloc does: fed
// sizes and the steps over which each buffer lives, it returns offsets, knowing nothing of what the
// buffers hold. Two buffers share bytes only when their lifetimes do not overlap, or when one is
// declared to take over the other's memory at the step where the other dies (an in-place result).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tl {

/// One buffer to place, alive from step `first` to step `last` (inclusive).
struct BufferRequest {
  int64_t bytes = 0;
  size_t first = 0;
  size_t last = 0;
  /// Must outlive the arena (it is returned to the caller): never placed.
  bool escapes = false;
  /// A buffer (index into the requests) whose memory this one may take over: granted when that buffer
  /// dies at this one's first step, has the same (aligned) size, neither escapes and no other buffer
  /// took it over already. -1 for none.
  int64_t reuse = -1;
};

struct MemoryPlan {
  /// Per request: its byte offset in the arena, or -1 when it is not placed (escapes or is empty).
  std::vector<int64_t> offsets;
  /// Per request: the request whose memory it uses (itself, or the one it took over, transitively).
  std::vector<size_t> home;
  /// The arena's size: the end of the highest placed buffer.
  int64_t arena_bytes = 0;
  /// The placed buffers' aligned sizes summed, as if none shared memory.
  int64_t unshared_bytes = 0;
  /// How many requests were placed.
  int64_t placed = 0;
};

/// Aligns every size up to `alignment` (a power of two), grants the reuse requests, then places
/// buffers largest first, each in the smallest gap that fits among the placed buffers whose lifetimes
/// overlap its own. Throws tl::Error on a negative size, first > last, a bad alignment, a reuse
/// index out of range or not earlier than the request, or when an aligned size, an offset, the arena
/// or unshared_bytes would not fit in int64.
MemoryPlan plan_memory(const std::vector<BufferRequest>& requests, int64_t alignment = 64);

}  // namespace tl
