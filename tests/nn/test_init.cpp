// tests/nn/test_init.cpp — torch.nn.init's fills: bounds and moments checked statistically on large
// samples (tolerances several standard errors wide), strides honoured, seeds reproducible, errors;
// and the default initialisation of Conv2d, Linear and BatchNorm2d. Against PyTorch 1.13
// (tests/reference/make_nn_utils_references.py): gains, fans, the bounds each fill draws with, eye_, dirac_;
// and PyTorch's values bit for bit after a seed (rng_streams.txt).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generator.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/rng_streams.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

using testing::element_at;
using Json = nlohmann::json;

struct Moments {
  double min = INFINITY, max = -INFINITY, mean = 0, std = 0;
};

/// The float64 identity matrix of size n.
Tensor eye_like(int64_t n) {
  Tensor out = zeros({n, n}, DType::Float64);
  for (int64_t i = 0; i < n; ++i) out.data<double>()[i * n + i] = 1.0;
  return out;
}

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


Shape shape_of(const Json& f) { return Shape(f.at("shape").get<std::vector<int64_t>>()); }

/// erf^-1(y) by bisection on std::erf: a reference independent of the rational approximation and
/// Newton steps trunc_normal_ uses (PyTorch's calc_erfinv).
double erfinv_by_bisection(double y) {
  double lo = -7.0, hi = 7.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (std::erf(mid) < y ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST_CASE("init: calculate_gain and the fans are PyTorch's, exactly") {
  const Json data = Json::parse(testing::read_reference("nn_utils_init.json"));
  for (const Json& g : data.at("gains")) {
    const std::string name = g.at("nonlinearity");
    CAPTURE(name);
    const std::optional<double> param = g.at("param").is_null() ? std::nullopt : std::optional(g.at("param").get<double>());
    CHECK(init::calculate_gain(name, param) == g.at("gain").get<double>());
  }
  for (const Json& f : data.at("fills"))
    if (f.at("fill") == "fans")
      CHECK(init::calculate_fan_in_and_fan_out(empty(shape_of(f))) ==
            std::pair<int64_t, int64_t>{f.at("fan_in"), f.at("fan_out")});
}

TEST_CASE("init: kaiming, xavier and trunc_normal_ make one uniform_ or normal_ draw with PyTorch's bounds") {
  // Reseeding and drawing uniform_ / normal_ with the bounds PyTorch computes must give the fill's values bit
  // for bit (float64, so a bound one ulp off shows): the formulas and the order of draws are PyTorch's, and
  // once the generator is PyTorch's the fills are too.
  const Json data = Json::parse(testing::read_reference("nn_utils_init.json"));
  for (const Json& f : data.at("fills")) {
    const std::string fill = f.at("fill");
    if (fill == "fans") continue;
    CAPTURE(fill);
    CAPTURE(f.dump());
    for (const DType dtype : {DType::Float64, DType::Float32}) {
      const Tensor expected = empty(shape_of(f), dtype), actual = empty(shape_of(f), dtype);
      manual_seed(21);
      if (f.contains("low"))
        init::uniform_(expected, f.at("low"), f.at("high"));
      else
        init::normal_(expected, f.at("mean"), f.at("std"));
      manual_seed(21);
      if (fill == "kaiming_uniform_") {
        init::kaiming_uniform_(actual, f.at("a"), f.at("mode").get<std::string>(), f.at("nonlinearity").get<std::string>());
      } else if (fill == "kaiming_normal_") {
        init::kaiming_normal_(actual, f.at("a"), f.at("mode").get<std::string>(), f.at("nonlinearity").get<std::string>());
      } else if (fill == "xavier_uniform_") {
        init::xavier_uniform_(actual, f.at("gain"));
      } else if (fill == "xavier_normal_") {
        init::xavier_normal_(actual, f.at("gain"));
      } else {
        const double mean = f.at("mean"), std = f.at("std"), a = f.at("a"), b = f.at("b");
        init::trunc_normal_(actual, mean, std, a, b);
        for (int64_t i = 0; i < expected.numel(); ++i) {
          const double want = std::clamp(mean + std * std::sqrt(2.0) * erfinv_by_bisection(element_at(expected, i)), a, b);
          CHECK(element_at(actual, i) == doctest::Approx(want).epsilon(dtype == DType::Float32 ? 2e-6 : 1e-12).scale(std));
          CHECK(element_at(actual, i) >= a);
          CHECK(element_at(actual, i) <= b);
        }
        continue;
      }
      CHECK_TENSOR_CLOSE(actual, expected, 0.0, 0.0);
    }
  }
}

TEST_CASE("init: eye_ and dirac_ are PyTorch's") {
  const Json data = Json::parse(testing::read_reference("nn_utils_init.json"));
  for (const Json& f : data.at("deterministic_fills")) {
    CAPTURE(f.dump());
    const Tensor t = full(shape_of(f), 7.0);
    const Tensor& out = f.at("fill") == "eye_" ? init::eye_(t) : init::dirac_(t, f.at("groups"));
    CHECK(out.is_same(t));
    CHECK_TENSOR_CLOSE(t, from_vector(f.at("values").get<std::vector<float>>(), shape_of(f)), 0.0, 0.0);
  }
  const Tensor strided = full({4, 6}, 3.0, DType::Float64).slice(1, 0, 6, 2);
  init::eye_(strided);
  CHECK_TENSOR_CLOSE(strided, from_vector<double>({1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0}, {4, 3}), 0.0, 0.0);
}

TEST_CASE("init: eye_, dirac_ and orthogonal_ refuse a wrong rank or group count, changing nothing") {
  const Tensor t = full({2, 3, 4}, 7.0);
  CHECK_THROWS_WITH_AS(init::eye_(t), "eye_: only tensors with 2 dimensions are supported, got shape [2, 3, 4]", Error);
  CHECK_THROWS_WITH_AS(init::dirac_(full({2, 3}, 7.0)),
                       "dirac_: only tensors with 3, 4, or 5 dimensions are supported, got shape [2, 3]", Error);
  CHECK_THROWS_WITH_AS(init::dirac_(t, 3), "dirac_: dim 0 must be divisible by groups, got size 2 and groups=3", Error);
  CHECK_THROWS_WITH_AS(init::dirac_(t, 0), "dirac_: groups must be positive, got 0", Error);
  CHECK_THROWS_WITH_AS(init::orthogonal_(full({3}, 7.0)),
                       "orthogonal_: only tensors with 2 or more dimensions are supported, got shape [3]", Error);
  CHECK(t.min().item<float>() == 7.0f);
  CHECK_NOTHROW(init::orthogonal_(empty({0, 3})));
}

TEST_CASE("init: orthogonal_ is Q of the QR of one normal_ draw, with R's diagonal made positive") {
  // Q R = A with Q orthonormal and diag(R) > 0 has one solution for a full-rank A, so these checks pin
  // PyTorch's result for the same draw (linalg.qr, then q *= sign(diag(r))).
  for (const DType dtype : {DType::Float64, DType::Float32}) {
    for (const std::vector<int64_t>& sizes : std::vector<std::vector<int64_t>>{{5, 3}, {3, 5}, {4, 2, 3}, {6, 6}, {1, 4}}) {
      CAPTURE(dtype);
      CAPTURE(Shape(sizes));
      const double tol = dtype == DType::Float64 ? 1e-12 : 2e-6;
      const int64_t rows = sizes[0], cols = empty(Shape(sizes)).numel() / rows;
      manual_seed(5);
      Tensor a = init::normal_(empty({rows, cols}, dtype)).to(DType::Float64);
      manual_seed(5);
      const Tensor t = empty(Shape(sizes), dtype);
      init::orthogonal_(t, 1.5);
      Tensor q = t.reshape({rows, cols}).to(DType::Float64).div(1.5);
      if (rows < cols) {
        a = a.t();
        q = q.t();
      }
      const int64_t n = q.size(1);
      CHECK_TENSOR_CLOSE(q.t().mm(q), eye_like(n), tol * 4, tol * 4);
      const Tensor r = q.t().mm(a);  // (n, n): upper triangular with a positive diagonal
      for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const double v = element_at(r, i * n + j);
          if (i > j) CHECK(std::abs(v) <= tol * 20);
          if (i == j) CHECK(v > 0.0);
        }
      CHECK_TENSOR_CLOSE(q.mm(r), a, tol * 20, tol * 20);
    }
  }
}

TEST_CASE("init: the random fills and Linear's reset_parameters are PyTorch's streams") {
  using Fill = std::function<void(const Tensor&)>;
  const std::pair<const char*, Fill> fills[] = {
      {"init.uniform_", [](const Tensor& t) { init::uniform_(t, -0.5, 2.0); }},
      {"init.normal_", [](const Tensor& t) { init::normal_(t, 0.5, 2.0); }},
      {"init.kaiming_uniform_", [](const Tensor& t) { init::kaiming_uniform_(t, std::sqrt(5.0)); }},
      {"init.kaiming_normal_", [](const Tensor& t) { init::kaiming_normal_(t, 0.0, "fan_out", "relu"); }},
      {"init.xavier_uniform_", [](const Tensor& t) { init::xavier_uniform_(t); }},
      {"init.xavier_normal_", [](const Tensor& t) { init::xavier_normal_(t); }},
      {"init.trunc_normal_", [](const Tensor& t) { init::trunc_normal_(t, 0.5, 2.0, -1.0, 4.0); }}};
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

TEST_CASE("init: sparse_ is PyTorch's normal_ then one randperm per column, and refuses bad input unchanged") {
  for (uint64_t seed : testing::kStreamSeeds)
    for (const Shape& shape : {Shape{6, 4}, Shape{5, 7}})
      for (const auto& [dname, dtype] : {std::pair{"f32", DType::Float32}, std::pair{"f64", DType::Float64}}) {
        const std::string dims = std::to_string(shape[0]) + "x" + std::to_string(shape[1]);
        manual_seed(seed);
        const Tensor t = empty(shape, dtype);
        init::sparse_(t, 0.5, 0.1);
        CHECK(testing::stream_mismatch(testing::stream_name(seed, std::string("init.sparse_.") + dname + "." + dims), t) ==
              "");
      }
  const Tensor t = full({4, 3}, 7.0);
  CHECK_THROWS_WITH_AS(init::sparse_(full({2, 3, 4}, 7.0), 0.5),
                       "sparse_: only tensors with 2 dimensions are supported, got shape [2, 3, 4]", Error);
  CHECK_THROWS_WITH_AS(init::sparse_(t, 1.5), "sparse_: expected a sparsity in [0, 1], got 1.5", Error);
  CHECK_THROWS_WITH_AS(init::sparse_(t, 0.5, -1.0), "normal_: expects std >= 0.0, got std=-1", Error);
  CHECK(t.min().item<float>() == 7.0f);
  CHECK(t.max().item<float>() == 7.0f);
}

}  // namespace
}  // namespace tl::nn
