// tests/nn/test_attention.cpp — MultiheadAttention against PyTorch 1.13 (tests/reference/make_rnn_references.py):
// the parameters a seed draws, values and weights with every mask kind, batch_first, kdim/vdim, unbatched
// input, training with dropout, gradients, empty sequences and batches, uint8 masks, repr and the error texts of
// misuse.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "core/grad_mode.h"
#include "nn/attention.h"
#include "nn/repr.h"
#include "tests/nn/rnn_reference.h"
#include "tests/support/captured_warnings.h"

namespace tl::nn {
namespace {

using rnn_reference::data;
using rnn_reference::Json;

std::shared_ptr<MultiheadAttention> make_attention(const Json& c) {
  manual_seed(c.at("seed").get<uint64_t>());
  return std::make_shared<MultiheadAttention>(
      MultiheadAttentionOptions(c.at("embed_dim").get<int64_t>(), c.at("num_heads").get<int64_t>())
          .dropout(c.at("dropout").get<double>())
          .bias(c.at("bias").get<bool>())
          .batch_first(c.at("batch_first").get<bool>())
          .kdim(c.at("kdim").get<int64_t>())
          .vdim(c.at("vdim").get<int64_t>()));
}

TEST_CASE("MultiheadAttention: PyTorch's parameters for a seed, values, weights and gradients, repr") {
  for (const Json& c : data().at("mha")) {
    INFO("seed ", c.at("seed").get<uint64_t>());
    const auto mha = make_attention(c);
    CHECK(repr(*mha) == c.at("repr").get<std::string>());
    rnn_reference::check_case(*mha, c, [&](const TensorList& in) -> TensorList {
      const Tensor& key = in[1].defined() ? in[1] : in[0];
      const Tensor& value = in[2].defined() ? in[2] : in[0];
      const auto [output, weights] = mha->forward(in[0], key, value, in[3], c.at("need_weights").get<bool>(), in[4],
                                                  c.at("average_attn_weights").get<bool>());
      CHECK(weights.defined() == c.at("need_weights").get<bool>());
      return {output, weights};
    });
  }
}

TEST_CASE("MultiheadAttention: state_dict keys, separate projections, module calls") {
  MultiheadAttention mha(8, 2);
  std::vector<std::string> keys;
  for (const auto& [name, t] : mha.state_dict()) keys.push_back(name);
  CHECK(keys == std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"});
  const Tensor x = randn({4, 3, 8});
  const TensorList out = mha({x, x, x});
  REQUIRE(out.size() == 2);
  CHECK(out[0].shape() == Shape{4, 3, 8});
  CHECK(out[1].shape() == Shape{3, 4, 4});

  MultiheadAttention cross(MultiheadAttentionOptions(8, 2).kdim(5).vdim(3).bias(false));
  keys.clear();
  for (const auto& [name, t] : cross.state_dict()) keys.push_back(name);
  CHECK(keys == std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj.weight"});
  CHECK(cross.parameter("k_proj_weight").shape() == Shape{8, 5});
  CHECK(repr(*cross.clone()) ==
        "MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=8, out_features=8, bias=False)\n)");
}

TEST_CASE("MultiheadAttention: an empty key sequence, query sequence or batch gives PyTorch's shapes and values") {
  for (const Json& c : data().at("empty_mha")) {
    const auto sizes = c.at("sizes").get<std::vector<int64_t>>();
    INFO("(L, N, S) = (", sizes[0], ", ", sizes[1], ", ", sizes[2], ")");
    manual_seed(5);
    MultiheadAttention mha(4, 2);
    {
      NoGradGuard no_grad;
      mha.parameter("in_proj_bias").copy_(rnn_reference::tensor(c.at("in_proj_bias")));
      mha.child("out_proj")->parameter("bias").copy_(rnn_reference::tensor(c.at("out_proj_bias")));
    }
    const Tensor key = rnn_reference::tensor(c.at("key"));
    const Tensor padding = c.at("key_padding_mask").get<bool>() ? zeros({sizes[1], sizes[2]}, DType::Bool) : Tensor();
    const auto [output, weights] = mha.forward(rnn_reference::tensor(c.at("query")), key, key, padding);
    CHECK_TENSOR_CLOSE(output, rnn_reference::tensor(c.at("output")), 1e-6, 1e-6);
    CHECK_TENSOR_CLOSE(weights, rnn_reference::tensor(c.at("weights")), 0.0, 0.0);
  }
}

TEST_CASE("MultiheadAttention: a uint8 attn_mask is a bool one, with PyTorch's deprecation warning") {
  MultiheadAttention mha(4, 2);
  const Tensor q = randn({3, 2, 4}), kv = randn({5, 2, 4});
  const Tensor mask = triu(ones({3, 5}, DType::Bool), 1);
  testing::CapturedWarnings warnings;
  const auto [from_bytes, byte_weights] = mha.forward(q, kv, kv, Tensor(), true, mask.to(DType::UInt8));
  REQUIRE(warnings.messages.size() == 1);
  CHECK(warnings.messages[0] == "Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.");
  const auto [from_bools, bool_weights] = mha.forward(q, kv, kv, Tensor(), true, mask);
  CHECK_TENSOR_CLOSE(from_bytes, from_bools, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(byte_weights, bool_weights, 0.0, 0.0);
}

TEST_CASE("MultiheadAttention: misuse throws PyTorch's texts and changes nothing") {
  const Json& e = data().at("errors");
  auto text = [&](const char* key) { return e.at(key).get<std::string>(); };
  MultiheadAttention mha(8, 2);
  const Tensor before = mha.parameter("in_proj_weight").clone();
  const Tensor q = randn({4, 3, 8}), kv = randn({5, 3, 8});
  CHECK_THROWS_WITH_AS(mha.forward(randn({4}), randn({4}), randn({4})), text("mha_query_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(mha.forward(q, randn({4, 8}), randn({4, 8})), text("mha_key_dim").c_str(), Error);
  const Tensor six = randn({4, 3, 6});
  CHECK_THROWS_WITH_AS(mha.forward(six, six, six), text("mha_embed_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(mha.forward(q, q, kv), text("mha_key_value_shape").c_str(), Error);
  CHECK_THROWS_WITH_AS(mha.forward(q, kv, kv, {}, true, zeros({4, 4})), text("mha_attn_mask_2d").c_str(), Error);
  CHECK_THROWS_WITH_AS(mha.forward(q, kv, kv, {}, true, zeros({3, 4, 5})), text("mha_attn_mask_3d").c_str(), Error);
  CHECK_THROWS_WITH_AS(mha.forward(q, kv, kv, {}, true, zeros({4, 5}, DType::Int64)),
                       text("mha_attn_mask_dtype").c_str(), Error);
  CHECK_THROWS_WITH_AS(mha.forward(q, kv, kv, zeros({3, 4}, DType::Bool)), text("mha_key_padding_mask").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(MultiheadAttention(8, 3), text("mha_divisible").c_str(), Error);
  CHECK_TENSOR_CLOSE(mha.parameter("in_proj_weight"), before, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::nn
