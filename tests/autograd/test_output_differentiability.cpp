// tests/autograd/test_output_differentiability.cpp — which results of an op with several get a grad_fn:
// derivatives.yaml's output_differentiability, compared with what PyTorch 1.13 gives for the same calls
// (tests/reference/output_differentiability.json, made by make_output_differentiability.py).
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"

namespace tl {
namespace {

template <class... T>
TensorList list_of(std::tuple<T...> t) {
  return std::apply([](auto&&... r) { return TensorList{r...}; }, std::move(t));
}
template <class R>
TensorList pair_of(R r) {
  return {r.values, r.indices};
}

// The reference script's CALLS, spelt in C++, on x = randn(2, 4, 3) that requires grad.
const std::map<std::string, std::function<TensorList(const Tensor&)>>& calls() {
  static const std::map<std::string, std::function<TensorList(const Tensor&)>> table = {
      {"native_layer_norm", [](const Tensor& x) { return list_of(native_layer_norm(x, {3}, {}, {}, 1e-5)); }},
      {"native_group_norm", [](const Tensor& x) { return list_of(native_group_norm(x, {}, {}, 2, 4, 3, 2, 1e-5)); }},
      {"native_dropout", [](const Tensor& x) { return list_of(native_dropout(x, 0.5, true)); }},
      {"nll_loss_forward",
       [](const Tensor& x) {
         const Tensor logits = x.select(2, 0).log_softmax(1);
         return list_of(nll_loss_forward(logits, from_vector<int64_t>({0, 3}, {2}), {}, 1, -100));
       }},
      {"var_mean", [](const Tensor& x) { return list_of(var_mean(x, 1)); }},
      {"std_mean", [](const Tensor& x) { return list_of(std_mean(x, 1)); }},
      {"max.dim", [](const Tensor& x) { return pair_of(x.max(1)); }},
      {"min.dim", [](const Tensor& x) { return pair_of(x.min(1)); }},
      {"sort", [](const Tensor& x) { return pair_of(sort(x, 1)); }},
      {"topk", [](const Tensor& x) { return pair_of(topk(x, 2, 1)); }},
      {"kthvalue", [](const Tensor& x) { return pair_of(kthvalue(x, 2, 1)); }},
      {"max_pool2d_with_indices", [](const Tensor& x) { return list_of(max_pool2d_with_indices(x, {2, 2})); }},
      {"adaptive_max_pool2d", [](const Tensor& x) { return list_of(adaptive_max_pool2d(x, {2, 2})); }},
  };
  return table;
}

TEST_CASE("the results of an op that get a grad_fn are PyTorch's (output_differentiability)") {
  const nlohmann::json ref = nlohmann::json::parse(testing::read_reference("output_differentiability.json"));
  REQUIRE(ref.size() == calls().size());
  for (const auto& entry : calls()) {
    const std::string name = entry.first;  // a named copy: clang 14 cannot capture a structured binding
    const auto& call = entry.second;
    const nlohmann::json& expected = ref.at(name);
    manual_seed(0);
    const Tensor x = randn({2, 4, 3}).requires_grad_();
    const TensorList results = call(x);
    REQUIRE(results.size() == expected.at("requires_grad").size());
    for (size_t k = 0; k < results.size(); ++k) {
      CHECK_MESSAGE(results[k].requires_grad() == expected.at("requires_grad")[k].get<bool>(), name, " result ", k);
      CHECK_MESSAGE(results[k].grad_fn_name() == expected.at("grad_fn")[k].get<std::string>(), name, " result ", k);
    }
  }
}

}  // namespace
}  // namespace tl
