// tests/ops/test_quantized_pool_norm.cpp — avg_pool2d, mean and quantized::batch_norm2d(_relu) of quint8 tensors
// against PyTorch 1.13 (tests/ops/data/quantized_pool_norm_cases.json, written by
// tests/ops/gen_quantized_pool_norm_cases.py): the same integers and qparams in, the result's qparams and layout
// PyTorch's and >= 99% of its integers equal, the rest within one quantum (#33); then the misuse messages and the
// state they leave.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/support/json_cases.h"

namespace tl {
namespace {

using Json = nlohmann::json;

const Json& cases() { return testing::json_cases("tests/ops/data/quantized_pool_norm_cases.json"); }

bool is_channels_last(const Tensor& t) {
  return t.dim() == 4 && t.stride(1) == 1 && t.stride(3) == t.size(1) && !t.is_contiguous();
}

Tensor floats(const Json& values) {
  std::vector<float> v;
  for (const Json& x : values) v.push_back(static_cast<float>(testing::json_number(x)));
  return from_vector<float>(v, {static_cast<int64_t>(v.size())});
}

// Our result for a case (the op by its name in the generator).
Tensor run(const Json& c) {
  const std::string op = c["op"];
  const Json& a = c["args"];
  const Tensor x = testing::quint8_case_tensor(c["input"]);
  if (op == "avg_pool2d") {
    const int64_t k = a["kernel_size"], s = a["stride"], p = a["padding"], divisor = a["divisor_override"];
    return avg_pool2d(x, {k, k}, Shape{s, s}, {p, p}, a["ceil_mode"].get<bool>(), a["count_include_pad"].get<bool>(),
                      divisor != 0 ? std::optional<int64_t>(divisor) : std::nullopt);
  }
  if (op == "mean") {
    const auto dims = a["dim"].get<std::vector<int64_t>>();
    return dims.empty() ? x.mean() : x.mean(Shape(dims), a["keepdim"].get<bool>());
  }
  const Json& p = c["params"];
  const double eps = testing::json_number(a["eps"]), scale = testing::json_number(a["output_scale"]);
  const int64_t zero_point = a["output_zero_point"];
  if (op == "batch_norm2d")
    return quantized_batch_norm2d(x, floats(p["weight"]), floats(p["bias"]), floats(p["mean"]), floats(p["var"]), eps,
                                  scale, zero_point);
  REQUIRE(op == "batch_norm2d_relu");
  return quantized_batch_norm2d_relu(x, floats(p["weight"]), floats(p["bias"]), floats(p["mean"]), floats(p["var"]),
                                     eps, scale, zero_point);
}

}  // namespace

TEST_CASE("quantized avg_pool2d, mean and batch_norm2d(_relu): PyTorch's integers, qparams and layouts") {
  const auto layout = [](const Tensor& y, const Json& c) {
    CHECK(is_channels_last(y) == c["out_channels_last"].get<bool>());
  };
  testing::check_quantized_cases(cases(), {"avg_pool2d", "mean", "batch_norm2d"}, run, layout);
}

TEST_CASE("quantized avg_pool2d, mean and batch_norm2d refuse bad input, leaving the input as it was") {
  manual_seed(0);
  const Tensor x = quantize_per_tensor(randn({2, 4, 5, 5}), 0.05, 100, kQUInt8);
  const std::vector<int64_t> before = testing::integers(x);
  const Tensor signed_x = quantize_per_tensor(randn({2, 4, 5, 5}), 0.05, 0, kQInt8);
  CHECK_THROWS_WITH_AS(avg_pool2d(signed_x, {2, 2}), "avg_pool2d: expected input to be a torch.quint8 tensor quantized "
                       "per tensor, got torch.qint8 torch.per_tensor_affine", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d(x, {2, 2}, Shape{1, 1}, {0, 0}, false, true, 0),
                       "avg_pool2d: divisor must be not zero", Error);
  CHECK_THROWS_WITH_AS(avg_pool2d(x, {7, 7}), doctest::Contains("avg_pool2d: input [2, 4, 5, 5] is too small"), Error);
  CHECK_THROWS_WITH_AS(x.mean(Shape{2, 3}, false, DType::Float32),
                       "mean: the mean of a torch.quint8 tensor is torch.quint8, got dtype=torch.float32", Error);
  CHECK_THROWS_WITH_AS(signed_x.mean(), doctest::Contains("mean: expected input to be a torch.quint8 tensor"), Error);

  const Tensor w = ones({4}), b = zeros({4}), m = zeros({4}), v = ones({4});
  CHECK_THROWS_WITH_AS(quantized_batch_norm2d(randn({2, 4, 5, 5}), w, b, m, v, 1e-5, 0.1, 10),
                       "quantized::batch_norm2d: expected input to be a torch.quint8 tensor quantized per tensor, got "
                       "torch.float32",
                       Error);
  CHECK_THROWS_WITH_AS(quantized_batch_norm2d_relu(signed_x, w, b, m, v, 1e-5, 0.1, 10),
                       doctest::Contains("quantized::batch_norm2d_relu: expected input to be a torch.quint8 tensor"),
                       Error);
  CHECK_THROWS_WITH_AS(quantized_batch_norm2d(x.flatten(2), w, b, m, v, 1e-5, 0.1, 10),
                       "quantized::batch_norm2d: expected a 4-D input (N, C, H, W), got [2, 4, 25]", Error);
  CHECK_THROWS_WITH_AS(quantized_batch_norm2d(x, ones({3}), b, m, v, 1e-5, 0.1, 10),
                       "quantized::batch_norm2d: expected weight of 4 elements (the input's channels), got [3]", Error);
  CHECK_THROWS_WITH_AS(quantized_batch_norm2d(x, w, b, m, v.to(DType::Float64), 1e-5, 0.1, 10),
                       "quantized::batch_norm2d: expected var to be a torch.float32 tensor, got torch.float64", Error);
  CHECK_THROWS_WITH_AS(quantized_batch_norm2d(x, Tensor(), b, m, v, 1e-5, 0.1, 10),
                       "quantized::batch_norm2d: expected weight to be a tensor of 4 channels, got None", Error);
  CHECK(testing::integers(x) == before);
  CHECK(x.q_zero_point() == 100);
}

}  // namespace tl
