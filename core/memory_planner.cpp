// core/memory_planner.cpp — reuse grants, then greedy best-fit placement by size over liveness.
#include "core/memory_planner.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "core/error.h"

namespace tl {
namespace {

struct Placed {
  int64_t bytes;
  size_t first, last;
  bool escapes;
};

void check_requests(const std::vector<BufferRequest>& requests, int64_t alignment) {
  TL_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0, "plan_memory: alignment must be a power of two, got ",
           alignment);
  for (size_t i = 0; i < requests.size(); ++i) {
    const BufferRequest& r = requests[i];
    TL_CHECK(r.bytes >= 0, "plan_memory: buffer ", i, " has size ", r.bytes);
    TL_CHECK(r.first <= r.last, "plan_memory: buffer ", i, " lives from step ", r.first, " to step ", r.last);
    TL_CHECK(r.reuse >= -1 && r.reuse < static_cast<int64_t>(i), "plan_memory: buffer ", i,
             " would reuse buffer ", r.reuse, "; it may reuse only an earlier one");
  }
}

/// `bytes` rounded up to a multiple of `alignment`; throws when that is past INT64_MAX.
int64_t aligned_size(int64_t bytes, int64_t alignment, size_t index) {
  int64_t padded = 0;
  TL_CHECK(!__builtin_add_overflow(bytes, alignment - 1, &padded), "plan_memory: buffer ", index, " has size ",
           bytes, ", which aligned up to ", alignment, " does not fit in int64");
  return padded / alignment * alignment;
}

}  // namespace

MemoryPlan plan_memory(const std::vector<BufferRequest>& requests, int64_t alignment) {
  check_requests(requests, alignment);
  const size_t n = requests.size();
  std::vector<Placed> buffers(n);
  MemoryPlan plan;
  plan.home.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const BufferRequest& r = requests[i];
    buffers[i] = {aligned_size(r.bytes, alignment, i), r.first, r.last, r.escapes};
    plan.home[i] = i;
  }
  // Reuse: the result takes over the dying buffer's memory, which then lives as long as the result.
  // A buffer is taken over at most once, so each home is a chain whose last taker is its only free end.
  std::vector<bool> taken(n, false);
  for (size_t i = 0; i < n; ++i) {
    const int64_t wanted = requests[i].reuse;
    if (wanted < 0) continue;
    const size_t home = plan.home[static_cast<size_t>(wanted)];
    Placed& src = buffers[home];
    Placed& dst = buffers[i];
    if (taken[static_cast<size_t>(wanted)] || src.last != dst.first || src.bytes != dst.bytes || src.escapes ||
        dst.escapes || dst.bytes == 0)
      continue;
    taken[static_cast<size_t>(wanted)] = true;
    src.last = std::max(src.last, dst.last);
    plan.home[i] = home;
  }
  std::vector<size_t> order;
  for (size_t b = 0; b < n; ++b)
    if (plan.home[b] == b && !buffers[b].escapes && buffers[b].bytes > 0) order.push_back(b);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return buffers[a].bytes > buffers[b].bytes; });
  std::vector<int64_t> offset(n, -1);
  std::vector<size_t> placed;
  for (size_t b : order) {
    const Placed& buf = buffers[b];
    std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of live neighbours
    for (size_t p : placed)
      if (buffers[p].first <= buf.last && buf.first <= buffers[p].last)
        busy.emplace_back(offset[p], offset[p] + buffers[p].bytes);
    std::sort(busy.begin(), busy.end());
    int64_t best = -1, best_gap = INT64_MAX, cursor = 0;
    for (const auto& [begin, end] : busy) {
      if (begin - cursor >= buf.bytes && begin - cursor < best_gap) {
        best = cursor;
        best_gap = begin - cursor;
      }
      cursor = std::max(cursor, end);
    }
    offset[b] = best >= 0 ? best : cursor;
    // The ends and gaps above cannot overflow: every buffer placed before passed this check.
    int64_t buf_end = 0;
    TL_CHECK(!__builtin_add_overflow(offset[b], buf.bytes, &buf_end), "plan_memory: the arena does not fit in int64: ",
             "buffer ", b, " of aligned size ", buf.bytes, " would start at offset ", offset[b]);
    plan.arena_bytes = std::max(plan.arena_bytes, buf_end);
    placed.push_back(b);
  }
  plan.offsets.assign(n, -1);
  for (size_t i = 0; i < n; ++i) {
    if (offset[plan.home[i]] < 0 || buffers[i].bytes == 0) continue;
    plan.offsets[i] = offset[plan.home[i]];
    int64_t unshared = 0;
    TL_CHECK(!__builtin_add_overflow(plan.unshared_bytes, buffers[i].bytes, &unshared),
             "plan_memory: unshared_bytes does not fit in int64: buffer ", i, " of aligned size ", buffers[i].bytes,
             " added to the ", plan.unshared_bytes, " bytes of the buffers before it");
    plan.unshared_bytes = unshared;
    ++plan.placed;
  }
  return plan;
}

}  // namespace tl
