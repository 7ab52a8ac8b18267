// tests/core/test_memory_planner.cpp — plan_memory: disjoint lifetimes share bytes, overlapping ones
// stack, best-fit (not first-fit) gaps, alignment rounding, in-place reuse grants and refusals, the
// errors; every plan (hand-made and 500 random ones) is checked by an independent invariant checker.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/memory_planner.h"

namespace tl {
namespace {

BufferRequest req(int64_t bytes, size_t first, size_t last, int64_t reuse = -1, bool escapes = false) {
  BufferRequest r;
  r.bytes = bytes;
  r.first = first;
  r.last = last;
  r.reuse = reuse;
  r.escapes = escapes;
  return r;
}

// Rounded up without forming bytes + alignment (the tests go up to INT64_MAX).
int64_t aligned(int64_t bytes, int64_t alignment) {
  return bytes % alignment == 0 ? bytes : bytes + (alignment - bytes % alignment);
}

bool same_requests(const std::vector<BufferRequest>& a, const std::vector<BufferRequest>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].bytes != b[i].bytes || a[i].first != b[i].first || a[i].last != b[i].last ||
        a[i].escapes != b[i].escapes || a[i].reuse != b[i].reuse)
      return false;
  return true;
}

/// Whether request `anc` is reached from `j` by following granted take-overs (j -> reuse -> ...).
bool took_over_from(const std::vector<BufferRequest>& requests, const MemoryPlan& plan, size_t j, size_t anc) {
  while (plan.home[j] != j) {
    const int64_t r = requests[j].reuse;
    if (r < 0) return false;  // reported separately by the grant check
    j = static_cast<size_t>(r);
    if (j == anc) return true;
  }
  return false;
}

/// Checks everything the header promises about a plan, computed from the requests alone.
void check_plan(const std::vector<BufferRequest>& requests, const MemoryPlan& plan, int64_t alignment) {
  const size_t n = requests.size();
  REQUIRE(plan.offsets.size() == n);
  REQUIRE(plan.home.size() == n);
  auto is_placed = [&](size_t i) { return !requests[i].escapes && requests[i].bytes > 0; };
  int64_t placed = 0, unshared = 0, highest_end = 0;
  size_t last_step = 0;
  std::vector<bool> taken(n, false);  // taken over by a grant to an earlier-checked request
  for (size_t i = 0; i < n; ++i) {
    INFO("request ", i);
    const BufferRequest& r = requests[i];
    const int64_t size = aligned(r.bytes, alignment);
    last_step = std::max(last_step, r.last);
    REQUIRE(plan.home[i] <= i);
    CHECK(plan.home[plan.home[i]] == plan.home[i]);  // a home is its own home
    if (!is_placed(i)) {
      CHECK(plan.offsets[i] == -1);
      CHECK(plan.home[i] == i);
      continue;
    }
    ++placed;
    unshared += size;
    CHECK(plan.offsets[i] >= 0);
    CHECK(plan.offsets[i] % alignment == 0);
    CHECK(plan.offsets[i] + size <= plan.arena_bytes);
    highest_end = std::max(highest_end, plan.offsets[i] + size);
    CHECK(plan.offsets[i] == plan.offsets[plan.home[i]]);
    // The documented grant rule: the reused buffer dies at this one's first step, same aligned size,
    // neither escapes, and a buffer's memory is taken over at most once.
    bool grantable = false;
    if (r.reuse >= 0) {
      const size_t s = static_cast<size_t>(r.reuse);
      grantable = is_placed(s) && requests[s].last == r.first && aligned(requests[s].bytes, alignment) == size &&
                  !taken[s];
    }
    if (plan.home[i] != i) {
      REQUIRE(r.reuse >= 0);
      const size_t s = static_cast<size_t>(r.reuse);
      CHECK(grantable);
      CHECK(plan.home[i] == plan.home[s]);
      taken[s] = true;
    } else {
      CHECK_FALSE(grantable);  // a request meeting the rule is granted
    }
  }
  CHECK(plan.placed == placed);
  CHECK(plan.unshared_bytes == unshared);
  CHECK(plan.arena_bytes == highest_end);  // "the end of the highest placed buffer"
  CHECK(plan.arena_bytes <= unshared);
  // Pairwise: live together and not sharing a home -> disjoint bytes; live together and sharing bytes
  // -> one took over the other's memory (directly or along a chain of grants).
  for (size_t i = 0; i < n; ++i) {
    if (!is_placed(i)) continue;
    for (size_t j = i + 1; j < n; ++j) {
      if (!is_placed(j)) continue;
      const bool live_together = requests[i].first <= requests[j].last && requests[j].first <= requests[i].last;
      if (!live_together) continue;
      const int64_t bi = plan.offsets[i], ei = bi + aligned(requests[i].bytes, alignment);
      const int64_t bj = plan.offsets[j], ej = bj + aligned(requests[j].bytes, alignment);
      const bool bytes_meet = bi < ej && bj < ei;
      INFO("requests ", i, " and ", j, " at [", bi, ", ", ei, ") and [", bj, ", ", ej, ")");
      if (plan.home[i] != plan.home[j]) CHECK_FALSE(bytes_meet);
      if (bytes_meet) CHECK(took_over_from(requests, plan, j, i));
    }
  }
  // Lower bound: at every step the distinct homes live then need their own bytes.
  for (size_t step = 0; step <= last_step && n > 0; ++step) {
    std::set<size_t> homes;
    for (size_t i = 0; i < n; ++i)
      if (is_placed(i) && requests[i].first <= step && step <= requests[i].last) homes.insert(plan.home[i]);
    int64_t need = 0;
    for (size_t h : homes) need += aligned(requests[h].bytes, alignment);
    INFO("step ", step);
    CHECK(plan.arena_bytes >= need);
  }
}

MemoryPlan checked_plan(const std::vector<BufferRequest>& requests, int64_t alignment = 64) {
  MemoryPlan plan = plan_memory(requests, alignment);
  check_plan(requests, plan, alignment);
  return plan;
}

using Offsets = std::vector<int64_t>;
using Homes = std::vector<size_t>;

TEST_CASE("memory planner: no requests give an empty plan") {
  const MemoryPlan plan = checked_plan({});
  CHECK(plan.offsets.empty());
  CHECK(plan.home.empty());
  CHECK(plan.arena_bytes == 0);
  CHECK(plan.unshared_bytes == 0);
  CHECK(plan.placed == 0);
}

TEST_CASE("memory planner: disjoint lifetimes share offset 0, overlapping ones stack") {
  // 100 B -> 128 B each; [0,1] and [2,3] never meet, so both sit at 0 and the arena is 128.
  MemoryPlan plan = checked_plan({req(100, 0, 1), req(100, 2, 3)});
  CHECK(plan.offsets == Offsets{0, 0});
  CHECK(plan.home == Homes{0, 1});
  CHECK(plan.arena_bytes == 128);
  CHECK(plan.unshared_bytes == 256);
  CHECK(plan.placed == 2);

  // A 64 [0,2], B 128 [1,3], C 64 [2,4], all live at step 2. Largest first: B at 0; A meets B, no gap
  // below it -> 128; C meets B and A -> 192. Arena 256 = the step-2 lower bound.
  plan = checked_plan({req(64, 0, 2), req(128, 1, 3), req(64, 2, 4)});
  CHECK(plan.offsets == Offsets{128, 0, 192});
  CHECK(plan.arena_bytes == 256);
  CHECK(plan.unshared_bytes == 256);

  // Touching ends overlap (lifetimes are inclusive): [0,1] and [1,2] stack.
  plan = checked_plan({req(64, 0, 1), req(64, 1, 2)});
  CHECK(plan.offsets == Offsets{0, 64});
  CHECK(plan.arena_bytes == 128);
}

TEST_CASE("memory planner: best-fit takes the smallest gap that fits, where first-fit would not") {
  // 0 Q 128 [0,1] -> 0 (largest, first).      Then the 64 B ones in index order:
  // 1 P1 64 [1,3] meets Q           -> 128.     2 R 64 [0,1] meets Q, P1 -> 192.
  // 3 P2 64 [1,3] meets Q, P1, R    -> 256.     4 T 64 [2,3] meets only P1 [128,192) and P2 [256,320):
  // gaps [0,128) (128 B) and [192,256) (64 B); best-fit picks 192, first-fit would pick 0.
  const MemoryPlan plan = checked_plan({req(128, 0, 1), req(64, 1, 3), req(64, 0, 1), req(64, 1, 3), req(64, 2, 3)});
  CHECK(plan.offsets == Offsets{0, 128, 192, 256, 192});
  CHECK(plan.arena_bytes == 320);  // step 1: 128 + 3 * 64
  CHECK(plan.unshared_bytes == 384);
  CHECK(plan.placed == 5);
}

TEST_CASE("memory planner: sizes round up to the alignment") {
  MemoryPlan plan = checked_plan({req(1, 0, 0)});
  CHECK(plan.offsets == Offsets{0});
  CHECK(plan.arena_bytes == 64);
  CHECK(plan.unshared_bytes == 64);

  // 1 -> 64, 65 -> 128, 64 stays 64; all live together: 128 first at 0, then 64 (index 0) at 128, then
  // the exact 64 at 192.
  plan = checked_plan({req(1, 0, 0), req(65, 0, 0), req(64, 0, 0)});
  CHECK(plan.offsets == Offsets{128, 0, 192});
  CHECK(plan.arena_bytes == 256);
  CHECK(plan.unshared_bytes == 256);

  // Alignment 16: 1 -> 16, 17 -> 32; 32 at 0, 16 at 32.
  plan = checked_plan({req(1, 0, 0), req(17, 0, 0)}, 16);
  CHECK(plan.offsets == Offsets{32, 0});
  CHECK(plan.arena_bytes == 48);

  // Alignment 1 keeps exact sizes: 5 at 0, 3 at 5.
  plan = checked_plan({req(3, 0, 0), req(5, 0, 0)}, 1);
  CHECK(plan.offsets == Offsets{5, 0});
  CHECK(plan.arena_bytes == 8);
  CHECK(plan.unshared_bytes == 8);
}

TEST_CASE("memory planner: escaping and empty requests are not placed") {
  // 0 escapes, 1 is empty, 2 is placed alone at 0 although all three meet.
  const MemoryPlan plan = checked_plan({req(4096, 0, 5, -1, true), req(0, 0, 5), req(10, 0, 5)});
  CHECK(plan.offsets == Offsets{-1, -1, 0});
  CHECK(plan.home == Homes{0, 1, 2});
  CHECK(plan.arena_bytes == 64);
  CHECK(plan.unshared_bytes == 64);
  CHECK(plan.placed == 1);
}

TEST_CASE("memory planner: a granted reuse shares the offset and extends the source's lifetime") {
  // A 100 [0,2]; B 100 [2,4] takes A over (both 128 B, A dies at B's first step): home A now lives
  // [0,4]. C 64 [3,3] never meets A itself, but meets B, so it must go above: 128.
  MemoryPlan plan = checked_plan({req(100, 0, 2), req(100, 2, 4, 0), req(64, 3, 3)});
  CHECK(plan.home == Homes{0, 0, 2});
  CHECK(plan.offsets == Offsets{0, 0, 128});
  CHECK(plan.arena_bytes == 192);
  CHECK(plan.unshared_bytes == 128 + 128 + 64);
  CHECK(plan.placed == 3);

  // Different byte counts with the same aligned size still qualify: 100 and 120 are both 128.
  plan = checked_plan({req(100, 0, 1), req(120, 1, 2, 0)});
  CHECK(plan.home == Homes{0, 0});
  CHECK(plan.offsets == Offsets{0, 0});
  CHECK(plan.arena_bytes == 128);
  CHECK(plan.unshared_bytes == 256);
}

TEST_CASE("memory planner: reuse chains keep one home") {
  // a [0,1] -> b [1,2] -> c [2,3] all in a's memory; d [3,3] meets c and goes to 64; e [0,0] meets a
  // only and also goes to 64 (d and e never meet).
  const MemoryPlan plan =
      checked_plan({req(64, 0, 1), req(64, 1, 2, 0), req(64, 2, 3, 1), req(64, 3, 3), req(64, 0, 0)});
  CHECK(plan.home == Homes{0, 0, 0, 3, 4});
  CHECK(plan.offsets == Offsets{0, 0, 0, 64, 64});
  CHECK(plan.arena_bytes == 128);
  CHECK(plan.unshared_bytes == 5 * 64);
  CHECK(plan.placed == 5);
}

TEST_CASE("memory planner: refused reuse leaves the buffers apart") {
  SUBCASE("sizes differ") {
    // 64 vs 128: refused. 128 first at 0, the 64 meets it at step 1 -> 128.
    const MemoryPlan plan = checked_plan({req(64, 0, 1), req(128, 1, 2, 0)});
    CHECK(plan.home == Homes{0, 1});
    CHECK(plan.offsets == Offsets{128, 0});
    CHECK(plan.arena_bytes == 192);
  }
  SUBCASE("the source dies after the destination's first step") {
    const MemoryPlan plan = checked_plan({req(64, 0, 2), req(64, 1, 3, 0)});
    CHECK(plan.home == Homes{0, 1});
    CHECK(plan.offsets == Offsets{0, 64});
    CHECK(plan.arena_bytes == 128);
  }
  SUBCASE("the source dies before the destination's first step") {
    // Not a grant, but the lifetimes are disjoint, so both still land at 0 in their own homes.
    const MemoryPlan plan = checked_plan({req(64, 0, 0), req(64, 1, 2, 0)});
    CHECK(plan.home == Homes{0, 1});
    CHECK(plan.offsets == Offsets{0, 0});
  }
  SUBCASE("the source escapes") {
    const MemoryPlan plan = checked_plan({req(64, 0, 1, -1, true), req(64, 1, 2, 0)});
    CHECK(plan.home == Homes{0, 1});
    CHECK(plan.offsets == Offsets{-1, 0});
    CHECK(plan.placed == 1);
  }
  SUBCASE("the destination escapes") {
    const MemoryPlan plan = checked_plan({req(64, 0, 1), req(64, 1, 2, 0, true)});
    CHECK(plan.home == Homes{0, 1});
    CHECK(plan.offsets == Offsets{0, -1});
    CHECK(plan.placed == 1);
  }
  SUBCASE("both are empty") {
    const MemoryPlan plan = checked_plan({req(0, 0, 1), req(0, 1, 2, 0)});
    CHECK(plan.home == Homes{0, 1});
    CHECK(plan.offsets == Offsets{-1, -1});
    CHECK(plan.arena_bytes == 0);
    CHECK(plan.placed == 0);
  }
}

TEST_CASE("memory planner: a buffer already taken over cannot be taken over again") {
  SUBCASE("the second taker starts when the first taker dies, not when the source does") {
    // a [0,5]; b [5,6] takes a over. c [6,8] asks for a, which died at 5, not at c's first step 6:
    // refused by the rule. c meets b at step 6 and must not share its bytes: c at 64.
    const MemoryPlan plan = checked_plan({req(64, 0, 5), req(64, 5, 6, 0), req(64, 6, 8, 0)});
    CHECK(plan.home == Homes{0, 0, 2});
    CHECK(plan.offsets == Offsets{0, 0, 64});
  }
  SUBCASE("two takers at the source's last step") {
    // a [0,5]; b [5,5] takes a over; c [5,7] asks for a too. b and c are both live at step 5 and
    // neither took the other's memory, so c must get its own: 64.
    const MemoryPlan plan = checked_plan({req(64, 0, 5), req(64, 5, 5, 0), req(64, 5, 7, 0)});
    CHECK(plan.home == Homes{0, 0, 2});
    CHECK(plan.offsets == Offsets{0, 0, 64});
  }
  SUBCASE("taking over the taker is a chain, and fine") {
    const MemoryPlan plan = checked_plan({req(64, 0, 5), req(64, 5, 6, 0), req(64, 6, 8, 1)});
    CHECK(plan.home == Homes{0, 0, 0});
    CHECK(plan.offsets == Offsets{0, 0, 0});
    CHECK(plan.arena_bytes == 64);
  }
}

TEST_CASE("memory planner: 500 random request sets satisfy every invariant") {
  std::mt19937 rng(20240611);
  auto uniform = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  const int64_t alignments[] = {1, 8, 64, 256};
  int64_t grants = 0, placed = 0, shared_bytes = 0;
  for (int round = 0; round < 500; ++round) {
    const int64_t alignment = alignments[uniform(0, 3)];
    const size_t n = static_cast<size_t>(uniform(0, 24));
    std::vector<BufferRequest> requests;
    for (size_t i = 0; i < n; ++i) {
      BufferRequest r;
      r.bytes = uniform(0, 9) == 0 ? 0 : uniform(1, 4096);
      r.first = static_cast<size_t>(uniform(0, 50));
      r.last = static_cast<size_t>(std::min<int64_t>(50, static_cast<int64_t>(r.first) + uniform(0, 12)));
      r.escapes = uniform(0, 7) == 0;
      if (i > 0 && uniform(0, 1) == 0) {
        r.reuse = uniform(0, static_cast<int64_t>(i) - 1);
        const BufferRequest& src = requests[static_cast<size_t>(r.reuse)];
        // Most reuse requests are shaped to qualify, so grants, chains and double takers all occur.
        if (uniform(0, 3) != 0) {
          r.first = src.last;
          r.last = std::min<size_t>(50, r.first + static_cast<size_t>(uniform(0, 6)));
          if (uniform(0, 3) != 0) r.bytes = src.bytes;
        }
      }
      requests.push_back(r);
    }
    INFO("round ", round, ", alignment ", alignment, ", ", n, " requests");
    const MemoryPlan plan = plan_memory(requests, alignment);
    check_plan(requests, plan, alignment);
    placed += plan.placed;
    shared_bytes += plan.unshared_bytes - plan.arena_bytes;
    for (size_t i = 0; i < n; ++i) grants += plan.home[i] != i;
  }
  // The generator does exercise the interesting paths.
  CHECK(grants > 500);
  CHECK(placed > 3000);
  CHECK(shared_bytes > 0);
}

TEST_CASE("memory planner: bad input throws tl::Error naming the values and changes nothing") {
  const std::vector<BufferRequest> good = {req(64, 0, 1), req(64, 1, 2, 0)};
  CHECK_THROWS_WITH_AS(plan_memory(good, 0), doctest::Contains("alignment must be a power of two, got 0"), Error);
  CHECK_THROWS_WITH_AS(plan_memory(good, 48), doctest::Contains("alignment must be a power of two, got 48"), Error);
  CHECK_THROWS_WITH_AS(plan_memory(good, -64), doctest::Contains("got -64"), Error);

  std::vector<BufferRequest> bad = {req(64, 0, 1), req(-5, 1, 2)};
  std::vector<BufferRequest> before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad), doctest::Contains("buffer 1 has size -5"), Error);
  CHECK(same_requests(bad, before));

  bad = {req(64, 0, 0), req(INT64_MAX, 0, 0)};
  before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad),
                       doctest::Contains("buffer 1 has size 9223372036854775807, which aligned up to 64 does not "
                                         "fit in int64"),
                       Error);
  CHECK(same_requests(bad, before));
  // The largest size that still aligns: 2^63 - 64 is a multiple of 64; one byte more is not.
  CHECK(checked_plan({req(INT64_MAX - 63, 0, 0)}).arena_bytes == INT64_MAX - 63);
  CHECK_THROWS_WITH_AS(plan_memory({req(INT64_MAX - 62, 0, 0)}),
                       doctest::Contains("buffer 0 has size 9223372036854775745, which aligned up to 64"), Error);
  CHECK(checked_plan({req(INT64_MAX, 0, 0)}, 1).arena_bytes == INT64_MAX);

  bad = {req(64, 4, 3)};
  before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad), doctest::Contains("buffer 0 lives from step 4 to step 3"), Error);
  CHECK(same_requests(bad, before));

  bad = {req(64, 0, 1), req(64, 1, 2, 1)};
  before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad), doctest::Contains("buffer 1 would reuse buffer 1"), Error);
  CHECK(same_requests(bad, before));

  bad = {req(64, 0, 1, 3), req(64, 1, 2), req(64, 1, 2), req(64, 1, 2)};
  CHECK_THROWS_WITH_AS(plan_memory(bad), doctest::Contains("buffer 0 would reuse buffer 3"), Error);

  bad = {req(64, 0, 1), req(64, 1, 2, -2)};
  before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad), doctest::Contains("buffer 1 would reuse buffer -2"), Error);
  CHECK(same_requests(bad, before));

  // The good requests still plan after all that.
  const MemoryPlan plan = checked_plan(good);
  CHECK(plan.offsets == Offsets{0, 0});
}

TEST_CASE("memory planner: an arena or a sum past int64 throws naming the buffer and its size") {
  constexpr int64_t k2p62 = int64_t{1} << 62;
  constexpr int64_t k2p57 = int64_t{1} << 57;
  // Three live-together 2^62 buffers: the second ends at 2^63, past INT64_MAX (unchecked, the sum
  // wrapped and two live buffers got the same offset).
  std::vector<BufferRequest> bad = {req(k2p62, 0, 1), req(k2p62, 0, 1), req(k2p62, 0, 1)};
  std::vector<BufferRequest> before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad),
                       doctest::Contains("plan_memory: the arena does not fit in int64: buffer 1 of aligned size "
                                         "4611686018427387904 would start at offset 4611686018427387904"),
                       Error);
  CHECK(same_requests(bad, before));

  // 100 live-together 2^57 buffers: the 64th (index 63) would start at 63 * 2^57 and end at 2^63.
  bad.assign(100, req(k2p57, 0, 0));
  before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad),
                       doctest::Contains("buffer 63 of aligned size 144115188075855872 would start at offset "
                                         "9079256848778919936"),
                       Error);
  CHECK(same_requests(bad, before));

  // 100 2^57 buffers one step each share one slot: the arena fits, but their unshared sum does not
  // (the 64th would bring it to 2^63).
  bad.clear();
  for (size_t i = 0; i < 100; ++i) bad.push_back(req(k2p57, i, i));
  before = bad;
  CHECK_THROWS_WITH_AS(plan_memory(bad),
                       doctest::Contains("plan_memory: unshared_bytes does not fit in int64: buffer 63 of aligned "
                                         "size 144115188075855872 added to the 9079256848778919936 bytes of the "
                                         "buffers before it"),
                       Error);
  CHECK(same_requests(bad, before));

  // Just below the limits the plans are exact: 63 live-together buffers end at 63 * 2^57, and the
  // largest arena, INT64_MAX with alignment 1, is counted.
  const MemoryPlan plan = checked_plan(std::vector<BufferRequest>(63, req(k2p57, 0, 0)));
  CHECK(plan.arena_bytes == 63 * k2p57);
  CHECK(plan.offsets[62] == 62 * k2p57);
  CHECK(checked_plan({req(k2p62, 0, 0), req(k2p62 - 1, 0, 0)}, 1).arena_bytes == INT64_MAX);
}

}  // namespace
}  // namespace tl
