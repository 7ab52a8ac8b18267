// tests/nn/test_init.cpp — torch.nn.init's fills: bounds and moments checked statistically on large
// samples (tolerances several standard errors wide), strides honoured, seeds reproducible, errors;
// the default initialisation of Conv2d, Linear and BatchNorm2d; and PyTorch's values bit for bit after a
// seed (rng_streams.txt).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <utility>

#include "core/generator.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/rng_streams.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

using testing::element_at;

struct Moments {
  double min = INFINITY, max = -INFINITY, mean = 0, std = 0;
};

Moments moments(const Tensor& t) {
  Moments m;
  double sum = 0, sum_sq = 0;
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    const double v = element_at(t, i);
    m.min = std::min(m.min, v);
    m.max = std::max(m.max, v);
    sum += v;
    sum_sq += v * v;
  }
  m.mean = sum / static_cast<double>(n);
  m.std = std::sqrt(sum_sq / static_cast<double>(n) - m.mean * m.mean);
  return m;
}

TEST_CASE("init: calculate_gain and fans") {
  CHECK(init::calculate_gain("linear") == 1.0);
  CHECK(init::calculate_gain("conv2d") == 1.0);
  CHECK(init::calculate_gain("sigmoid") == 1.0);
  CHECK(init::calculate_gain("tanh") == doctest::Approx(5.0 / 3.0));
  CHECK(init::calculate_gain("relu") == doctest::Approx(std::sqrt(2.0)));
  CHECK(init::calculate_gain("leaky_relu") == doctest::Approx(std::sqrt(2.0 / (1.0 + 0.01 * 0.01))));
  CHECK(init::calculate_gain("leaky_relu", 0.0) == doctest::Approx(std::sqrt(2.0)));
  CHECK(init::calculate_gain("leaky_relu", std::sqrt(5.0)) == doctest::Approx(std::sqrt(1.0 / 3.0)));
  CHECK(init::calculate_gain("selu") == 0.75);
  CHECK_THROWS_WITH_AS(init::calculate_gain("gelu"), "calculate_gain: unsupported nonlinearity 'gelu'", Error);

  const auto [fan_in, fan_out] = init::calculate_fan_in_and_fan_out(empty({6, 4, 3, 5}));
  CHECK(fan_in == 60);
  CHECK(fan_out == 90);
  CHECK(init::calculate_fan_in_and_fan_out(empty({7, 3})) == std::pair<int64_t, int64_t>{3, 7});
  CHECK_THROWS_WITH_AS(init::calculate_fan_in_and_fan_out(empty({5})),
                       doctest::Contains("can not be computed for tensor with fewer than 2 dimensions, got shape [5]"),
                       Error);
}

TEST_CASE("init: uniform_ and normal_ have the requested bounds and moments") {
  manual_seed(11);
  const Tensor u = empty({100000});
  init::uniform_(u, -2.0, 3.0);
  const Moments mu = moments(u);
  CHECK(mu.min >= -2.0);
  CHECK(mu.max < 3.0);
  CHECK(mu.min < -1.99);
  CHECK(mu.max > 2.99);
  CHECK(std::abs(mu.mean - 0.5) < 0.025);  // about 5 standard errors
  CHECK(std::abs(mu.std - 5.0 / std::sqrt(12.0)) < 0.02);

  const Tensor g = empty({100000}, DType::Float64);
  init::normal_(g, 1.5, 2.0);
  const Moments mg = moments(g);
  CHECK(std::abs(mg.mean - 1.5) < 0.035);
  CHECK(std::abs(mg.std - 2.0) < 0.025);
}

TEST_CASE("init: kaiming_uniform_ and kaiming_normal_ follow gain and fan") {
  manual_seed(12);
  const Tensor w = empty({64, 16, 3, 3});  // fan_in 144, fan_out 576
  init::kaiming_uniform_(w);
  const double bound = std::sqrt(3.0) * std::sqrt(2.0) / 12.0;
  Moments m = moments(w);
  CHECK(m.max <= bound);
  CHECK(m.min >= -bound);
  CHECK(m.max > 0.99 * bound);
  CHECK(std::abs(m.std - bound / std::sqrt(3.0)) < 0.03 * bound);

  init::kaiming_uniform_(w, std::sqrt(5.0));
  m = moments(w);
  CHECK(m.max <= 1.0 / 12.0);
  CHECK(m.max > 0.99 / 12.0);

  init::kaiming_normal_(w, 0.0, "fan_out", "relu");
  m = moments(w);
  const double std = std::sqrt(2.0 / 576.0);
  CHECK(std::abs(m.mean) < 0.05 * std);  // the standard errors are 1.0% and 0.74% here
  CHECK(std::abs(m.std - std) < 0.04 * std);

  init::xavier_uniform_(w, 2.0);
  m = moments(w);
  CHECK(m.max <= 2.0 * std::sqrt(6.0 / 720.0));
  init::xavier_normal_(w);
  CHECK(std::abs(moments(w).std - std::sqrt(2.0 / 720.0)) < 0.04 * std::sqrt(2.0 / 720.0));
}

TEST_CASE("init: fills honour strides, take any dtype for constants, and repeat with the seed") {
  const Tensor base = zeros({4, 8});
  init::constant_(base.slice(1, 1, 8, 2), 5.0);
  for (int64_t i = 0; i < base.numel(); ++i) CHECK(element_at(base, i) == (i % 2 == 1 ? 5.0 : 0.0));

  const Tensor transposed = zeros({3, 5}).t();
  manual_seed(9);
  init::uniform_(transposed);
  const Tensor contiguous = zeros({3, 5});
  manual_seed(9);
  init::uniform_(contiguous);
  CHECK_TENSOR_CLOSE(transposed, contiguous.t(), 0.0, 0.0);  // drawn in memory order, as PyTorch's uniform_

  const Tensor counts = empty({3}, DType::Int64);
  init::ones_(counts);
  CHECK(element_at(counts, 2) == 1.0);
  init::zeros_(counts);
  CHECK(element_at(counts, 0) == 0.0);
}

TEST_CASE("init: errors and no-op cases") {
  CHECK_THROWS_WITH_AS(init::uniform_(empty({2}, DType::Int64)),
                       doctest::Contains("uniform_: expected a floating point dtype"), Error);
  CHECK_THROWS_WITH_AS(init::kaiming_uniform_(empty({2, 2}), 0.0, "fan_avg"),
                       "kaiming_uniform_: mode 'fan_avg' not supported, please use one of 'fan_in', 'fan_out'", Error);
  CHECK_THROWS_WITH_AS(init::uniform_(empty({2}), 1.0, 0.0), "uniform_: expects a <= b, got a=1 and b=0", Error);
  CHECK_THROWS_WITH_AS(init::normal_(Tensor()), "normal_: the tensor is undefined (None)", Error);
  CHECK_NOTHROW(init::kaiming_normal_(empty({0, 3})));
}

TEST_CASE("init: PyTorch's default initialisation of Conv2d, Linear and BatchNorm2d") {
  manual_seed(13);
  Conv2d conv(Conv2dOptions{.in_channels = 8, .out_channels = 256, .kernel_size = 3});  // fan_in 72
  const double bound = 1.0 / std::sqrt(72.0);
  Moments w = moments(conv.parameter("weight")), b = moments(conv.parameter("bias"));
  CHECK(w.max <= bound);
  CHECK(w.min >= -bound);
  CHECK(w.max > 0.99 * bound);
  CHECK(b.max <= bound);
  CHECK(b.min >= -bound);
  CHECK(b.max > 0.8 * bound);

  Linear fc(400, 300);
  w = moments(fc.parameter("weight"));
  b = moments(fc.parameter("bias"));
  CHECK(w.max <= 0.05);
  CHECK(w.max > 0.0499);
  CHECK(b.max <= 0.05);
  CHECK(b.min >= -0.05);

  BatchNorm2d bn(5);
  CHECK_TENSOR_CLOSE(bn.parameter("weight"), ones({5}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(bn.parameter("bias"), zeros({5}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(bn.buffer("running_mean"), zeros({5}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(bn.buffer("running_var"), ones({5}), 0.0, 0.0);
  CHECK(bn.buffer("num_batches_tracked").item<int64_t>() == 0);
}

TEST_CASE("init: the random fills and Linear's reset_parameters are PyTorch's streams") {
  using Fill = std::function<void(const Tensor&)>;
  const std::pair<const char*, Fill> fills[] = {
      {"init.uniform_", [](const Tensor& t) { init::uniform_(t, -0.5, 2.0); }},
      {"init.normal_", [](const Tensor& t) { init::normal_(t, 0.5, 2.0); }},
      {"init.kaiming_uniform_", [](const Tensor& t) { init::kaiming_uniform_(t, std::sqrt(5.0)); }},
      {"init.kaiming_normal_", [](const Tensor& t) { init::kaiming_normal_(t, 0.0, "fan_out", "relu"); }},
      {"init.xavier_uniform_", [](const Tensor& t) { init::xavier_uniform_(t); }},
      {"init.xavier_normal_", [](const Tensor& t) { init::xavier_normal_(t); }}};
  for (uint64_t seed : testing::kStreamSeeds) {
    for (const auto& [name, fill] : fills)
      for (const Shape& shape : {Shape{6, 4, 3}, Shape{5, 7}, Shape{2, 3}})
        for (const auto& [dname, dtype] : {std::pair{"f32", DType::Float32}, std::pair{"f64", DType::Float64}}) {
          std::string dims;
          for (int64_t d : shape.vec()) dims += (dims.empty() ? "" : "x") + std::to_string(d);
          const std::string stream = testing::stream_name(seed, std::string(name) + "." + dname + "." + dims);
          manual_seed(seed);
          const Tensor t = empty(shape, dtype);
          fill(t);
          CHECK(testing::stream_mismatch(stream, t) == "");
        }
    manual_seed(seed);
    Linear fc(5, 3);
    CHECK(testing::stream_mismatch(testing::stream_name(seed, "linear.weight"), fc.parameter("weight")) == "");
    CHECK(testing::stream_mismatch(testing::stream_name(seed, "linear.bias"), fc.parameter("bias")) == "");
  }
}

}  // namespace
}  // namespace tl::nn
