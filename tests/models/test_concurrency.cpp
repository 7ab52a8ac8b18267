// tests/models/test_concurrency.cpp — one ResNet18 (eager, traced, optimized) called from several
// threads at once: every call's logits must have exactly the bytes a single call gives for the same
// input at the same thread count, while the threads share the module, the primitive cache and the
// arena pool. Every call here runs on a pinned count: unpinned, an optimized module adapts its count
// to the load and to the calls beside it (core/adaptive_threads.h), and kernels may sum in another
// order on another count.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <latch>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/generator.h"
#include "core/parallel.h"
#include "fx/passes/optimize_for_inference.h"
#include "fx/tracer.h"
#include "models/resnet.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/ops.h"
#include "tests/support/bn_calibration.h"

namespace tl::models {
namespace {

constexpr int kThreads = 4;
// A ResNet18 call reads its 45 MB of conv weights (eager also reorders them), so it costs milliseconds
// whatever the input size: the suite makes 100 calls per thread and variant, a few seconds on 2 cores;
// TL_CONCURRENCY_ITERATIONS=1000 runs the full check.
int iterations() {
  const char* env = std::getenv("TL_CONCURRENCY_ITERATIONS");
  return env != nullptr ? std::max(1, std::atoi(env)) : 100;
}
// 32x32 is the smallest input every stage still halves (layer4 runs at 1x1): ~60 ops on small
// activations, so the run stresses what the threads share (primitive cache, staging buffers, arena
// pool, hook stacks) more than convolution arithmetic.
const Shape kInputShape{1, 3, 32, 32};

std::shared_ptr<nn::Module> resnet18_model() {
  static const std::shared_ptr<nn::Module> model = [] {
    manual_seed(20);
    std::shared_ptr<nn::Module> m = resnet18();
    testing::calibrate_batch_norms(*m, {2, 3, 32, 32});  // logits O(1), not growing block by block
    m->eval();
    return m;
  }();
  return model;
}

bool same_bytes(const Tensor& actual, const Tensor& expected) {
  return actual.dtype() == expected.dtype() && actual.shape() == expected.shape() && actual.is_contiguous() &&
         expected.is_contiguous() && std::memcmp(actual.raw_data(), expected.raw_data(), expected.nbytes()) == 0;
}

/// One input per thread, different values (and `shapes[t]` when given).
std::vector<Tensor> thread_inputs(const std::vector<Shape>& shapes) {
  std::vector<Tensor> inputs;
  for (const Shape& shape : shapes) inputs.push_back(randn(shape));
  return inputs;
}

// The count every call in these tests runs on: the cores, as a thread that never pinned one starts with.
int pinned_threads() {
  static const int threads = omp_get_num_procs();
  return threads;
}

/// Runs f on a new thread pinned to pinned_threads(), as the concurrent callers are.
template <typename F>
void on_pinned_thread(F&& f) {
  std::exception_ptr error;
  std::thread([&] {
    set_num_threads(pinned_threads());
    try {
      f();
    } catch (...) {
      error = std::current_exception();
    }
  }).join();
  if (error) std::rethrow_exception(error);
}

struct ConcurrentRun {
  int64_t calls = 0;
  int64_t mismatches = 0;
  double seconds = 0;
  std::vector<std::string> errors;
};

/// Starts one thread per input, each pinned to pinned_threads(), all released at once; thread t calls
/// `model(inputs[t])` `iterations` times and compares every result with `expected[t]` byte for byte.
/// Errors are collected, not thrown.
ConcurrentRun run_concurrently(const std::function<Tensor(const Tensor&)>& model, const std::vector<Tensor>& inputs,
                               const std::vector<Tensor>& expected, int iterations) {
  ConcurrentRun run;
  std::mutex mutex;
  std::latch start(static_cast<std::ptrdiff_t>(inputs.size()) + 1);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < inputs.size(); ++t) {
    threads.emplace_back([&, t] {
      int64_t calls = 0, mismatches = 0;
      set_num_threads(pinned_threads());
      start.arrive_and_wait();
      try {
        for (int i = 0; i < iterations; ++i, ++calls) mismatches += !same_bytes(model(inputs[t]), expected[t]);
      } catch (const std::exception& e) {
        std::lock_guard lock(mutex);
        run.errors.push_back("thread " + std::to_string(t) + ": " + e.what());
      }
      std::lock_guard lock(mutex);
      run.calls += calls;
      run.mismatches += mismatches;
    });
  }
  const auto begin = std::chrono::steady_clock::now();
  start.arrive_and_wait();
  for (std::thread& t : threads) t.join();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return run;
}

/// The results of one caller, then the concurrent run checked against them.
void check_concurrent_calls(const char* variant, const std::function<Tensor(const Tensor&)>& model) {
  manual_seed(21);
  const std::vector<Tensor> inputs = thread_inputs(std::vector<Shape>(kThreads, kInputShape));
  std::vector<Tensor> expected;
  on_pinned_thread([&] {
    for (const Tensor& x : inputs) expected.push_back(model(x));
  });
  for (size_t t = 1; t < expected.size(); ++t) REQUIRE_FALSE(same_bytes(expected[t], expected[0]));
  const ConcurrentRun run = run_concurrently(model, inputs, expected, iterations());
  MESSAGE(std::string(variant), ": ", kThreads, " threads x ", iterations(), " calls in ", run.seconds, " s, ",
          run.mismatches, " not bit-identical");
  CHECK(run.errors.empty());
  for (const std::string& e : run.errors) MESSAGE(e);
  CHECK(run.calls == int64_t{kThreads} * iterations());
  CHECK(run.mismatches == 0);
}

TEST_CASE("concurrency: one eager ResNet18 called from 4 threads gives bit-identical logits") {
  auto model = resnet18_model();
  check_concurrent_calls("eager", [&](const Tensor& x) { return (*model)(x); });
}

TEST_CASE("concurrency: one traced GraphModule called from 4 threads gives bit-identical logits") {
  auto traced = fx::symbolic_trace(resnet18_model());
  check_concurrent_calls("symbolic_trace", [&](const Tensor& x) { return (*traced)(x); });
}

TEST_CASE("concurrency: one optimized module called from 4 threads gives bit-identical logits") {
  auto optimized = fx::optimize_for_inference(resnet18_model(), {.example_input_shape = kInputShape});
  check_concurrent_calls("optimize_for_inference", [&](const Tensor& x) { return (*optimized)(x); });
  // Each concurrent caller needed an arena of its own; the pool never grows past the callers. The plan is
  // the callers' (one per thread count): asked from a thread at their count.
  int64_t arenas = 0;
  on_pinned_thread([&] { arenas = optimized->arena_stats(kInputShape).arenas; });
  CHECK(arenas >= 1);
  CHECK(arenas <= kThreads);
}

TEST_CASE("concurrency: an optimized module compiles plans for new shapes on several threads at once") {
  // Two threads share a shape (both may compile its plan; one is kept), two bring shapes of their
  // own; the primitive cache starts empty, so primitives and packed weights are created concurrently.
  const std::vector<Shape> shapes{{1, 3, 40, 40}, {1, 3, 40, 40}, {2, 3, 32, 48}, {1, 3, 56, 24}};
  manual_seed(22);
  const std::vector<Tensor> inputs = thread_inputs(shapes);
  std::vector<Tensor> expected;
  on_pinned_thread([&] {
    auto reference = fx::optimize_for_inference(resnet18_model(), {.example_input_shape = {}});
    for (const Tensor& x : inputs) expected.push_back((*reference)(x));
  });
  onednn::primitive_cache().clear();
  auto optimized = fx::optimize_for_inference(resnet18_model(), {.example_input_shape = {}});
  constexpr int kCalls = 20;  // the first call per shape is the one that matters
  auto model = [&](const Tensor& x) { return (*optimized)(x); };
  const ConcurrentRun run = run_concurrently(model, inputs, expected, kCalls);
  CHECK(run.errors.empty());
  for (const std::string& e : run.errors) MESSAGE(e);
  CHECK(run.calls == int64_t{kThreads} * kCalls);
  CHECK(run.mismatches == 0);
  for (const Shape& shape : shapes) {
    int64_t activations = 0;
    on_pinned_thread([&] { activations = optimized->arena_stats(shape).activations; });
    CHECK(activations > 20);
  }
}

TEST_CASE("concurrency: each thread's set_num_threads holds for the primitives it runs") {
  // oneDNN fixes a primitive's thread count at creation: a thread asking for another count than the
  // creator's must get primitives of its own, and logits identical to the creator's.
  onednn::primitive_cache().clear();  // no primitive left by an earlier test for either count
  manual_seed(23);
  const Tensor x = randn(kInputShape);
  const int own = get_num_threads(), other = own == 1 ? 2 : 1;
  // Made and run on a pinned count: unpinned, the module would take the cores other processes leave, which
  // the test cannot know.
  std::shared_ptr<fx::InferenceGraphModule> optimized;
  Tensor expected;
  std::thread([&] {
    set_num_threads(own);
    optimized = fx::optimize_for_inference(resnet18_model(), {.example_input_shape = kInputShape});
    expected = (*optimized)(x);
  }).join();
  for (const int threads : {own, other}) {
    CAPTURE(threads);
    int64_t first_misses = -1, second_misses = -1;
    bool first_equal = false, second_equal = false;
    std::string error;
    std::thread([&] {
      set_num_threads(threads);
      try {
        int64_t misses = onednn::primitive_cache().stats().misses;
        first_equal = same_bytes((*optimized)(x), expected);
        first_misses = onednn::primitive_cache().stats().misses - misses;
        misses = onednn::primitive_cache().stats().misses;
        second_equal = same_bytes((*optimized)(x), expected);
        second_misses = onednn::primitive_cache().stats().misses - misses;
      } catch (const std::exception& e) {
        error = e.what();
      }
    }).join();
    CHECK(error.empty());
    CHECK(first_equal);
    CHECK(second_equal);
    CHECK((first_misses > 0) == (threads != own));
    CHECK(second_misses == 0);
  }
  CHECK(get_num_threads() == own);  // OpenMP's thread count belongs to the thread that set it
}

}  // namespace
}  // namespace tl::models
