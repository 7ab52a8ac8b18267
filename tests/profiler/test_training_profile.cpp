// tests/profiler/test_training_profile.cpp — profiling training as PyTorch 1.13 does: forward ops carry
// the sequence number of the backward node they recorded.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "autograd/node.h"
#include "core/autograd_meta.h"
#include "core/grad_mode.h"
#include "core/record_function.h"
#include "ops/ops.h"
#include "profiler/profile.h"
#include "profiler_test_util.h"

namespace tl::profiler {
namespace {

using testing::find_one;

const autograd::Node& grad_fn(const Tensor& t) { return *TensorAccess::meta(t)->grad_fn; }

TEST_CASE("training profile: a forward op carries the sequence number of the node it recorded") {
  Tensor a = randn({3}).requires_grad_();
  Tensor b = randn({3});
  Profile prof;
  Tensor y, z, w;
  {
    auto running = prof.start();
    y = a.mul(b);
    z = b.add(b);  // nothing requires grad: no node
    NoGradGuard no_grad;
    w = a.neg();  // grad mode off: no node
  }
  const EventList& events = prof.events();
  const FunctionEvent& mul = events[find_one(events, "aten::mul")];
  CHECK(mul.sequence_nr == static_cast<int64_t>(grad_fn(y).sequence_nr));
  CHECK(mul.forward_thread == 0);
  CHECK(grad_fn(y).forward_thread == current_thread_id());
  CHECK(events[find_one(events, "aten::add")].sequence_nr == -1);
  CHECK(events[find_one(events, "aten::neg")].sequence_nr == -1);
}

}  // namespace
}  // namespace tl::profiler
