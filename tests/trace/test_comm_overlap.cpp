// tests/trace/test_comm_overlap.cpp — comm_comp_overlap: the gloo:* scopes against the aten ops of the other
// threads, each side merged first (touching intervals join, as HTA's merge_kernel_intervals), on small traces whose
// unions and intersections can be read off the interval lists below.
#include <doctest/doctest.h>

#include "tests/trace/trace_test_util.h"
#include "trace/comm_overlap.h"
#include "trace/trace.h"

namespace tl::trace {
namespace {

using testing::ChromeTraceBuilder;
using testing::TempDir;

CommOverlap overlap_of(const ChromeTraceBuilder& trace) {
  TempDir dir;
  return comm_comp_overlap(load_trace(dir.write("t.json", trace.str())));
}

}  // namespace

TEST_CASE("comm_comp_overlap: the communication's time that computation covered") {
  ChromeTraceBuilder t;
  // Computation on thread 1: [0, 15) and [12, 20) merge into [0, 20); [20, 25) touches it: [0, 25); [55, 70).
  t.op("aten::conv2d", 0, 15).op("aten::add", 12, 8).op("aten::relu", 20, 5).op("aten::mm", 55, 15);
  // Not computation: a user scope, a c10d op, and an aten op on the communicating thread 2.
  t.op("LINEAR PASS", 30, 20, 1, "user_annotation").op("c10d::allreduce_", 40, 5).op("aten::div_", 50, 5, 2);
  // Communication on thread 2: [10, 30) and [50, 60); a gloo scope that is not a user_annotation does not count.
  t.op("gloo:all_reduce", 10, 20, 2, "user_annotation").op("gloo:all_reduce", 50, 10, 2, "user_annotation");
  t.op("gloo:barrier", 80, 5, 3, "cpu_op");
  const CommOverlap o = overlap_of(t);
  CHECK(o.communication_ns == 30'000);
  CHECK(o.computation_ns == 40'000);                // [0, 25) and [55, 70)
  CHECK(o.overlap_ns == 20'000);                    // [10, 25) and [55, 60)
  CHECK(o.ratio() == doctest::Approx(2.0 / 3.0));
}

TEST_CASE("comm_comp_overlap: without communication the ratio is 0 (HTA's is NaN)") {
  ChromeTraceBuilder t;
  t.op("aten::mm", 0, 10);
  const CommOverlap o = overlap_of(t);
  CHECK(o.communication_ns == 0);
  CHECK(o.computation_ns == 10'000);
  CHECK(o.ratio() == 0.0);
}

TEST_CASE("comm_comp_overlap: communication that nothing overlaps, and communication inside one long op") {
  ChromeTraceBuilder apart;
  apart.op("aten::mm", 0, 10).op("gloo:broadcast", 10, 10, 2, "user_annotation");  // starts where mm ends
  CHECK(overlap_of(apart).overlap_ns == 0);
  ChromeTraceBuilder inside;
  inside.op("aten::mm", 0, 100).op("gloo:all_gather", 10, 10, 2, "user_annotation").op("gloo:all_gather", 30, 10, 3,
                                                                                     "user_annotation");
  const CommOverlap o = overlap_of(inside);
  CHECK(o.communication_ns == 20'000);
  CHECK(o.overlap_ns == 20'000);
  CHECK(o.ratio() == 1.0);
}

}  // namespace tl::trace
