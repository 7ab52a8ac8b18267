// tests/ops/test_conv.cpp — conv2d against a naive double-precision reference over groups
// (depthwise included), strides, padding, dilation, non-square kernels and input layouts; its errors;
// and the oneDNN primitive cache it runs through (reuse, LRU bound, use from several threads).
#include <doctest/doctest.h>

#include <thread>

#include "core/generator.h"
#include "ops/onednn/primitive_cache.h"
#include "ops/ops.h"
#include "tests/ops/nn_references.h"
#include "tests/ops/nn_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::ConvCase;
using testing::reference_conv2d;
using testing::weight_shape;
constexpr const auto& kCases = testing::kConvCases;

TEST_CASE("conv2d: matches the naive reference over groups, strides, padding, dilation and layouts") {
  manual_seed(1);
  for (const ConvCase& c : kCases)
    for (testing::NchwLayout layout : testing::kNchwLayouts) {
      INFO("input ", c.input, " ", testing::layout_name(layout), ", weight ", weight_shape(c), ", stride ", c.stride,
           ", padding ", c.padding, ", dilation ", c.dilation, ", groups ", c.groups, ", bias ", c.bias);
      const Tensor x = testing::random_nchw(c.input, layout);
      const Tensor w = randn(weight_shape(c));
      const Tensor b = c.bias ? randn({c.out_channels}) : Tensor();
      const Tensor out = conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
      // As ATen lays it out: channels-last for a channels-last input, else contiguous (test_memory_format.cpp).
      CHECK(out.strides() == (layout == testing::NchwLayout::ChannelsLast ? testing::channels_last_strides(out.shape())
                                                                          : out.contiguous().strides()));
      CHECK_TENSOR_CLOSE(out, reference_conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups), 1e-4, 1e-4);
    }
}

TEST_CASE("conv2d: strided weight and bias, broadcast input, single-value attributes") {
  manual_seed(2);
  const Tensor x = randn({2, 4, 6, 7});
  const Tensor w = randn({3, 3, 4, 6}).permute({3, 2, 0, 1});  // (6, 4, 3, 3), not contiguous
  const Tensor b = randn({12}).slice(0, 0, 12, 2);
  CHECK_TENSOR_CLOSE(conv2d(x, w, b, {2}, {1}, {1}, 1), reference_conv2d(x, w, b, {2, 2}, {1, 1}, {1, 1}, 1), 1e-4, 1e-4);
  const Tensor broadcast = randn({1, 4, 1, 7}).expand({3, 4, 5, 7});  // stride 0 along N and H
  CHECK_TENSOR_CLOSE(conv2d(broadcast, w, b, {1}, {1}), reference_conv2d(broadcast, w, b, {1, 1}, {1, 1}, {1, 1}, 1), 1e-4,
                     1e-4);
}

TEST_CASE("conv2d: bfloat16 inputs") {
  manual_seed(3);
  for (const ConvCase& c : {kCases[1], kCases[3], kCases[9]}) {
    INFO("input ", c.input, ", weight ", weight_shape(c), ", groups ", c.groups);
    const Tensor x = randn(c.input, DType::BFloat16), w = randn(weight_shape(c), DType::BFloat16);
    const Tensor b = c.bias ? randn({c.out_channels}, DType::BFloat16) : Tensor();
    const Tensor out = conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups);
    CHECK(out.dtype() == DType::BFloat16);
    CHECK_TENSOR_CLOSE(out, reference_conv2d(x, w, b, c.stride, c.padding, c.dilation, c.groups), 1e-2, 5e-2);
  }
}

TEST_CASE("conv2d: unbatched input, empty batch, empty input channels") {
  manual_seed(4);
  const Tensor x = randn({3, 6, 5}), w = randn({4, 3, 3, 3}), b = randn({4});
  const Tensor out = conv2d(x, w, b, {1, 1}, {1, 1});
  CHECK(out.shape() == Shape{4, 6, 5});
  CHECK_TENSOR_CLOSE(out, reference_conv2d(x.unsqueeze(0), w, b, {1, 1}, {1, 1}, {1, 1}, 1).squeeze(0), 1e-4, 1e-4);

  CHECK(conv2d(randn({0, 3, 6, 5}), w, b).shape() == Shape{0, 4, 4, 3});
  CHECK_THROWS_AS(conv2d(randn({2, 3, 6, 5}), randn({0, 3, 3, 3})), Error);  // no output channels: PyTorch refuses too
  const Tensor no_channels = randn({2, 0, 6, 5}), empty_weight = randn({4, 0, 3, 3});
  CHECK_TENSOR_CLOSE(conv2d(no_channels, empty_weight, b), reference_conv2d(no_channels, empty_weight, b, {1, 1}, {0, 0}, {1, 1}, 1),
                     0, 0);
}

TEST_CASE("conv2d: rejects bad input with the values involved") {
  const Tensor x = randn({1, 4, 5, 5}), w = randn({8, 4, 3, 3});
  CHECK_THROWS_WITH_AS(conv2d(x, randn({8, 3, 3, 3})),
                       "conv2d: input [1, 4, 5, 5] has 4 channels but weight [8, 3, 3, 3] with groups=1 expects 3", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, randn({6, 2, 3, 3}), {}, {1, 1}, {0, 0}, {1, 1}, 4),
                       "conv2d: weight [6, 2, 3, 3] has 6 output channels, not divisible by groups=4", Error);
  // No output channels: PyTorch's words (nn::Conv2d(4, 0, 3) constructs, as torch.nn.Conv2d does; its forward refuses).
  CHECK_THROWS_WITH_AS(conv2d(x, randn({0, 4, 3, 3})),
                       "conv2d: Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size "
                       "[0, 4, 3, 3] instead",
                       Error);
  CHECK_THROWS_WITH_AS(conv2d(x, randn({2, 1, 3, 3}), {}, {1, 1}, {0, 0}, {1, 1}, 4),
                       "conv2d: Given groups=4, expected weight to be at least 4 at dimension 0, but got weight of size "
                       "[2, 1, 3, 3] instead",
                       Error);
  CHECK_THROWS_WITH_AS(conv2d(x, randn({8, 2, 3, 3}), {}, {1, 1}, {0, 0}, {1, 1}, 4),
                       "conv2d: input [1, 4, 5, 5] has 4 channels but weight [8, 2, 3, 3] with groups=4 expects 8", Error);
  CHECK_THROWS_WITH_AS(conv2d(randn({4, 5}), w), "conv2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got [4, 5]",
                       Error);
  CHECK_THROWS_WITH_AS(conv2d(x, randn({8, 4, 3})),
                       "conv2d: expected 4-D weight (C_out, C_in / groups, kH, kW), got [8, 4, 3]", Error);
  CHECK_THROWS_WITH_AS(conv2d(randn({1, 4, 4, 4}), randn({8, 4, 5, 5})),
                       "conv2d: input [1, 4, 4, 4] is too small for kernel_size [5, 5] (stride [1, 1], padding [0, 0], "
                       "dilation [1, 1]): output size would be [0, 0]",
                       Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, {}, {1, 1}, {0, 0}, {3, 3}),
                       doctest::Contains("dilation [3, 3]): output size would be [-1, -1]"), Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, {}, {0, 1}), "conv2d: stride must be positive, got [0, 1]", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, {}, {1, 1}, {-1, 0}), "conv2d: padding must be non-negative, got [-1, 0]", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, {}, {1, 1}, {0, 0}, {1, 0}), "conv2d: dilation must be positive, got [1, 0]", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, {}, {1, 1, 1}), "conv2d: expected stride to have 1 or 2 values, got [1, 1, 1]", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, {}, {1, 1}, {0, 0}, {1, 1}, 0), "conv2d: groups must be positive, got 0", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, randn({7})), "conv2d: expected bias of shape [8], got [7]", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, randn({8, 4, 0, 3})), "conv2d: weight [8, 4, 0, 3] has an empty kernel", Error);
  CHECK_THROWS_WITH_AS(conv2d(x.to(DType::Int64), w.to(DType::Int64)),
                       "conv2d: expected input to be float32, float64 or bfloat16, got torch.int64", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w.to(DType::BFloat16)),
                       "conv2d: weight dtype torch.bfloat16 differs from input dtype torch.float32", Error);
  CHECK_THROWS_WITH_AS(conv2d(x, w, randn({8}, DType::BFloat16)),
                       "conv2d: bias dtype torch.bfloat16 differs from input dtype torch.float32", Error);
}

TEST_CASE("conv2d: a repeated call reuses the cached primitive") {
  onednn::PrimitiveCache& cache = onednn::primitive_cache();
  const Tensor x = randn({1, 5, 11, 13}), w = randn({3, 5, 3, 3});
  const Tensor first = conv2d(x, w);
  const onednn::PrimitiveCacheStats before = cache.stats();
  const Tensor second = conv2d(x, w);
  const onednn::PrimitiveCacheStats after = cache.stats();
  CHECK(after.misses == before.misses);
  CHECK(after.hits > before.hits);
  CHECK(equal(first, second));
}

TEST_CASE("conv2d: concurrent calls from several threads share primitives safely") {
  manual_seed(5);
  const Tensor x = randn({2, 8, 12, 12}), w = randn({16, 8, 3, 3}), b = randn({16});
  const Tensor expected = reference_conv2d(x, w, b, {1, 1}, {1, 1}, {1, 1}, 1);
  std::vector<std::string> failures(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < failures.size(); ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5 && failures[t].empty(); ++i)
        failures[t] = testing::compare_tensors(conv2d(x, w, b, {1, 1}, {1, 1}), expected, 1e-4, 1e-4);
    });
  for (std::thread& t : threads) t.join();
  for (const std::string& f : failures) CHECK_MESSAGE(f.empty(), f);
}

struct CountedPlan : onednn::CachedPlan {
  int value = 0;
};

TEST_CASE("onednn primitive cache: least recently used plans are evicted beyond the capacity") {
  onednn::PrimitiveCache cache(2);
  int created = 0;
  auto get = [&](int64_t id) {
    onednn::PrimitiveKey key("test");
    key.add(id);
    return cache.get_or_create<CountedPlan>(key, [&] {
      CountedPlan p;
      p.value = ++created;
      return p;
    });
  };
  CHECK(get(1)->value == 1);
  CHECK(get(2)->value == 2);
  CHECK(get(1)->value == 1);  // hit; 2 is now the least recently used
  CHECK(get(3)->value == 3);  // evicts 2
  CHECK(get(1)->value == 1);
  CHECK(get(2)->value == 4);  // created again
  const onednn::PrimitiveCacheStats s = cache.stats();
  CHECK(s.size == 2);
  CHECK(s.capacity == 2);
  CHECK(s.hits == 2);
  CHECK(s.misses == 4);
  CHECK(s.evictions == 2);
  cache.set_capacity(1);
  CHECK(cache.stats().size == 1);
}

TEST_CASE("onednn primitive cache: keys differ by every component") {
  const Tensor a = randn({2, 3}), b = randn({3, 2}).t();
  auto key = [](auto&&... parts) {
    onednn::PrimitiveKey k("op");
    (k.add(parts), ...);
    return k;
  };
  CHECK(key(a) == key(randn({2, 3})));
  CHECK_FALSE(key(a) == key(b));  // same sizes, other strides
  CHECK_FALSE(key(a) == key(a.to(DType::BFloat16)));
  CHECK_FALSE(key(a) == key(Tensor()));
  CHECK_FALSE(key(0.1) == key(0.1000001));
  CHECK_FALSE(key(Shape{1, 2}) == key(Shape{1}, int64_t{2}));
  CHECK_FALSE(onednn::PrimitiveKey("conv2d") == onednn::PrimitiveKey("pool2d"));
}

}  // namespace
}  // namespace tl
