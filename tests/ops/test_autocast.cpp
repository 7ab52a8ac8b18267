// tests/ops/test_autocast.cpp — tl::autocast: the result dtype of each listed op as PyTorch 1.13's CPU
// autocast gives it (tests/reference/make_autocast_references.py), the casts it runs, the bfloat16
// products against a float64 reference, and the scope's errors and the state they leave.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "core/autocast.h"
#include "core/dtype.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

Tensor f32(const Shape& s) { return randn(s); }
Tensor bf(const Shape& s) { return randn(s).to(DType::BFloat16); }
Tensor labels() { return from_vector<int64_t>({0, 1, 2, 3}, {4}); }

// The calls of make_autocast_references.py, by the same names, with inputs of the same dtypes.
const std::map<std::string, std::function<Tensor()>>& calls() {
  static const std::map<std::string, std::function<Tensor()>> table = {
      {"conv2d", [] { return conv2d(f32({2, 3, 5, 5}), f32({4, 3, 3, 3}), f32({4}), {1, 1}, {1, 1}); }},
      {"conv2d_float64",
       [] { return conv2d(randn({1, 3, 5, 5}, DType::Float64), randn({2, 3, 3, 3}, DType::Float64)); }},
      {"conv2d_mixed", [] { return conv2d(f32({1, 3, 5, 5}), bf({2, 3, 3, 3})); }},
      {"linear", [] { return linear(f32({3, 4}), f32({5, 4}), f32({5})); }},
      {"linear_no_bias", [] { return linear(f32({3, 4}), f32({5, 4})); }},
      {"mm", [] { return mm(f32({3, 4}), f32({4, 5})); }},
      {"bmm", [] { return bmm(f32({2, 3, 4}), f32({2, 4, 5})); }},
      {"addmm", [] { return addmm(f32({5}), f32({3, 4}), f32({4, 5})); }},
      {"matmul", [] { return matmul(f32({3, 4}), f32({4})); }},
      {"cross_entropy", [] { return cross_entropy_loss(bf({4, 5}), labels()); }},
      {"nll_loss", [] { return nll_loss(bf({4, 5}), labels()); }},
      {"mse_loss", [] { return mse_loss(bf({4, 5}), bf({4, 5})); }},
      {"l1_loss", [] { return l1_loss(bf({4, 5}), bf({4, 5})); }},
      {"smooth_l1_loss", [] { return smooth_l1_loss(bf({4, 5}), bf({4, 5})); }},
      {"huber_loss", [] { return huber_loss(bf({4, 5}), bf({4, 5})); }},
      {"binary_cross_entropy", [] { return binary_cross_entropy(bf({4, 5}).sigmoid(), bf({4, 5}).sigmoid()); }},
      {"binary_cross_entropy_with_logits",
       [] { return binary_cross_entropy_with_logits(bf({4, 5}), bf({4, 5}).sigmoid()); }},
      {"kl_div", [] { return kl_div(bf({4, 5}), bf({4, 5}), Reduction::Sum); }},
      {"cosine_embedding_loss", [] { return cosine_embedding_loss(bf({4, 5}), bf({4, 5}), bf({4})); }},
      {"margin_ranking_loss", [] { return margin_ranking_loss(bf({4}), bf({4}), bf({4})); }},
      {"triplet_margin_loss", [] { return triplet_margin_loss(bf({4, 5}), bf({4, 5}), bf({4, 5})); }},
      {"pairwise_distance", [] { return pairwise_distance(bf({4, 5}), bf({4, 5})); }},
      {"cosine_similarity", [] { return cosine_similarity(bf({4, 5}), bf({4, 5})); }},
      {"xlogy", [] { return xlogy(bf({4, 5}), bf({4, 5})); }},
      {"relu", [] { return relu(bf({4, 5})); }},
      {"add_mixed", [] { return add(bf({4, 5}), f32({4, 5})); }},
      {"log_softmax", [] { return log_softmax(bf({4, 5}), 1); }},
      {"sum", [] { return sum(bf({4, 5})); }},
      {"batch_norm_float32",
       [] { return batch_norm(f32({2, 3, 4, 4}), {}, {}, zeros({3}), ones({3}), true, 0.1, 1e-5, true); }},
      // not on PyTorch 1.13's CPU float32 list: layer_norm keeps its input's dtype
      {"layer_norm_bfloat16", [] { return layer_norm(bf({4, 5}), {5}); }},
      {"layer_norm_float32", [] { return layer_norm(f32({4, 5}), {5}, f32({5}), f32({5})); }},
      {"conv2d_in_disabled_scope",
       [] {
         autocast off({.enabled = false});
         return conv2d(f32({1, 3, 5, 5}), f32({2, 3, 3, 3}));
       }},
  };
  return table;
}

}  // namespace

TEST_CASE("autocast gives each listed op PyTorch 1.13's result dtype") {
  const nlohmann::json ref = nlohmann::json::parse(testing::read_reference("autocast.json")).at("dtypes");
  REQUIRE(ref.size() == calls().size());
  for (const auto& item : ref.items()) {
    const std::string name = item.key();
    const nlohmann::json& expected = item.value();
    CAPTURE(name);
    REQUIRE(calls().count(name) == 1);
    autocast scope;
    CHECK(std::string(dtype_name(calls().at(name)().dtype())) == "torch." + expected.get<std::string>());
  }
}

TEST_CASE("autocast runs a convolution on its inputs cast to bfloat16, and nothing outside the scope") {
  const Tensor x = randn({2, 3, 6, 6}), w = randn({4, 3, 3, 3}), b = randn({4});
  const Tensor expected = conv2d(x.to(DType::BFloat16), w.to(DType::BFloat16), b.to(DType::BFloat16));
  Tensor inside;
  {
    autocast scope;
    CHECK(is_autocast_enabled());
    inside = conv2d(x, w, b);
  }
  CHECK_FALSE(is_autocast_enabled());
  CHECK(inside.dtype() == DType::BFloat16);
  CHECK_TENSOR_CLOSE(inside.to(DType::Float32), expected.to(DType::Float32), 0, 0);
  CHECK(conv2d(x, w, b).dtype() == DType::Float32);
}

TEST_CASE("bfloat16 products are the float64 product of their inputs, rounded once") {
  const Tensor a = randn({7, 33}).to(DType::BFloat16), b = randn({33, 5}).to(DType::BFloat16);
  const Tensor c = randn({5}).to(DType::BFloat16);
  const Tensor ref_mm = mm(a.to(DType::Float64), b.to(DType::Float64));
  // float32 accumulation differs from float64 by far less than half a bfloat16 step (2^-9 relative),
  // so at most one rounding step in the result: 2^-8 relative.
  const double bf16_step = std::ldexp(1.0, -8);
  CHECK_TENSOR_CLOSE(mm(a, b).to(DType::Float64), ref_mm, bf16_step, 1e-6);
  CHECK_TENSOR_CLOSE(addmm(c, a, b, 0.5, 2.0).to(DType::Float64),
                     addmm(c.to(DType::Float64), a.to(DType::Float64), b.to(DType::Float64), 0.5, 2.0), bf16_step,
                     1e-6);
  const Tensor a3 = randn({2, 7, 33}).to(DType::BFloat16);
  CHECK_TENSOR_CLOSE(matmul(a3, b).to(DType::Float64), matmul(a3.to(DType::Float64), b.to(DType::Float64)),
                     bf16_step, 1e-6);
  CHECK(mm(a, b).dtype() == DType::BFloat16);
}

TEST_CASE("autocast scopes nest and each restores the state it found") {
  CHECK_FALSE(is_autocast_enabled());
  {
    autocast outer;
    {
      autocast off({.enabled = false});
      CHECK_FALSE(is_autocast_enabled());
      CHECK(mm(randn({2, 3}), randn({3, 2})).dtype() == DType::Float32);
    }
    CHECK(is_autocast_enabled());
    CHECK(get_autocast_dtype() == DType::BFloat16);
  }
  CHECK_FALSE(is_autocast_enabled());
}

TEST_CASE("autocast refuses a dtype other than bfloat16, naming it, and leaves autocast as it was") {
  CHECK_THROWS_WITH_AS(autocast({.dtype = DType::Float64}),
                       doctest::Contains("CPU autocast supports bfloat16 only, got dtype torch.float64"), Error);
  CHECK_FALSE(is_autocast_enabled());
  autocast scope;
  CHECK_THROWS_AS(autocast({.dtype = DType::Float32}), Error);
  CHECK(is_autocast_enabled());
  CHECK(get_autocast_dtype() == DType::BFloat16);
}

}  // namespace tl
