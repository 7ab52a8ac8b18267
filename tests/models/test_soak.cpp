// tests/models/test_soak.cpp — a short soak of the optimized ResNet18: the allocator's counters are
// flat across iterations and return to their baseline once the model and the optimized module are
// gone. Counters are deterministic; resident memory is bench/soak's business, never asserted here.
#include <doctest/doctest.h>

#include <cstring>
#include <memory>
#include <thread>

#include "core/generator.h"
#include "core/parallel.h"
#include "core/storage.h"
#include "fx/passes/optimize_for_inference.h"
#include "models/resnet.h"
#include "ops/ops.h"

namespace tl::models {
namespace {

constexpr int kSampleEvery = 20;
const Shape kInputShape{1, 3, 64, 64};

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.contiguous().raw_data(), b.contiguous().raw_data(), static_cast<size_t>(a.nbytes())) == 0;
}

// Runs `iterations` inferences on fresh copies of one input after a warm-up; every logit must equal the
// first call's, and every window of kSampleEvery calls must leave the same bytes in use, reach the same
// peak and make the same number of allocations.
void soak(fx::InferenceGraphModule& fast, int iterations) {
  const Tensor input = randn(kInputShape);
  const Tensor first = fast(input.clone());
  auto infer = [&] {
    const Tensor logits = fast(input.clone());
    CHECK(same_bits(logits, first));
  };
  infer();
  reset_peak_bytes();
  const AllocatorStats warm = allocator_stats();
  infer();
  const AllocatorStats one = allocator_stats();
  const int64_t per_call = one.allocations - warm.allocations, peak = one.peak_bytes;
  CHECK(one.bytes_in_use == warm.bytes_in_use);
  AllocatorStats last = one;
  for (int i = 1; i <= iterations; ++i) {
    reset_peak_bytes();
    infer();
    if (i % kSampleEvery != 0) continue;
    const AllocatorStats now = allocator_stats();
    INFO("iteration ", i);
    CHECK(now.bytes_in_use == warm.bytes_in_use);
    CHECK(now.peak_bytes == peak);
    CHECK(now.allocations - last.allocations == kSampleEvery * per_call);
    last = now;
  }
}

TEST_CASE("soak: optimized ResNet18 keeps the allocator's counters flat and returns them to the baseline") {
  manual_seed(0);
  empty_cache();
  const AllocatorStats baseline = allocator_stats();
  {
    auto model = resnet18();
    model->eval();
    // On a pinned thread count: unpinned, a change in the machine's load mid-soak would give the module a plan
    // (and packed weights) for another count, which is new memory rather than a leak.
    std::thread([&] {
      set_num_threads(get_num_threads());
      {
        auto fast = fx::optimize_for_inference(model, {.example_input_shape = kInputShape});
        soak(*fast, 200);
      }
      {
        auto fast = fx::optimize_for_inference(
            model, {.precision = fx::InferencePrecision::BFloat16, .example_input_shape = kInputShape});
        soak(*fast, 100);
      }
    }).join();
    CHECK(allocator_stats().bytes_in_use > baseline.bytes_in_use);  // the model's own weights
  }
  // Freed large blocks wait in the cache, which never counts as in use.
  CHECK(allocator_stats().bytes_in_use == baseline.bytes_in_use);
  CHECK(allocator_stats().cached_bytes > 0);
  empty_cache();
  CHECK(allocator_stats().bytes_in_use == baseline.bytes_in_use);
  CHECK(allocator_stats().cached_bytes == 0);
}

}  // namespace
}  // namespace tl::models
