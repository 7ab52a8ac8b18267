// tests/nn/test_normalization.cpp — LayerNorm, GroupNorm, InstanceNorm2d, BatchNorm1d, Embedding, Bilinear,
// Dropout2d and Unflatten against PyTorch 1.13 (tests/reference/make_norm_references.py): forward, gradients,
// running statistics, seeded initial parameters and masks, repr, state_dict keys; and misuse.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "nn/functional.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

using Json = nlohmann::json;

Shape shape_of(const Json& v) { return Shape(v.get<std::vector<int64_t>>()); }

Tensor tensor_of(const Json& values, const Shape& shape, DType dtype) {
  return from_vector(values.get<std::vector<double>>(), shape).to(dtype);
}

std::vector<std::string> keys(const StateDict& dict) {
  std::vector<std::string> out;
  for (const auto& entry : dict) out.push_back(entry.first);
  return out;
}

TEST_CASE("LayerNorm: forward and the gradients of input, weight and bias equal PyTorch's") {
  const Json data = Json::parse(testing::read_reference("norm_layers.json"));
  for (const Json& c : data.at("layer_norm")) {
    const std::string repr_text = c.at("repr");
    CAPTURE(repr_text);
    const DType dtype = c.at("dtype") == "float64" ? DType::Float64 : DType::Float32;
    const double tol = dtype == DType::Float64 ? 1e-12 : 2e-5;
    const Shape shape = shape_of(c.at("shape")), normalized = shape_of(c.at("normalized_shape"));
    LayerNorm ln(LayerNormOptions{.normalized_shape = normalized, .eps = c.at("eps"), .elementwise_affine = c.at("affine")});
    CHECK(repr(ln) == repr_text);
    ln.to(dtype);
    if (c.at("affine")) {
      NoGradGuard no_grad;
      ln.parameter("weight").copy_(tensor_of(c.at("weight"), normalized, dtype));
      ln.parameter("bias").copy_(tensor_of(c.at("bias"), normalized, dtype));
    }
    const Tensor x = tensor_of(c.at("x"), shape, dtype).requires_grad_();
    const Tensor out = ln(x);
    CHECK(out.grad_fn_name() == "NativeLayerNormBackward0");
    CHECK_TENSOR_CLOSE(out, tensor_of(c.at("out"), shape, dtype), tol, tol);
    out.backward(tensor_of(c.at("grad"), shape, dtype));
    CHECK_TENSOR_CLOSE(x.grad(), tensor_of(c.at("grad_x"), shape, dtype), tol, tol);
    if (!c.at("affine")) continue;
    CHECK_TENSOR_CLOSE(ln.parameter("weight").grad(), tensor_of(c.at("grad_weight"), normalized, dtype), tol, tol);
    CHECK_TENSOR_CLOSE(ln.parameter("bias").grad(), tensor_of(c.at("grad_bias"), normalized, dtype), tol, tol);
  }
}

TEST_CASE("LayerNorm: parameters, state_dict keys, init, repr; train and eval agree; F::layer_norm is the op") {
  LayerNorm ln(4);
  CHECK(repr(ln) == "LayerNorm((4,), eps=1e-05, elementwise_affine=True)");
  CHECK(keys(ln.state_dict()) == std::vector<std::string>{"weight", "bias"});
  CHECK_TENSOR_CLOSE(ln.parameter("weight"), ones({4}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(ln.parameter("bias"), zeros({4}), 0.0, 0.0);
  LayerNorm plain(LayerNormOptions{.normalized_shape = {3, 4}, .eps = 1e-3, .elementwise_affine = false});
  CHECK(repr(plain) == "LayerNorm((3, 4), eps=0.001, elementwise_affine=False)");
  CHECK(keys(plain.state_dict()).empty());
  CHECK(LayerNorm(Shape{2, 4}).parameter("weight").shape() == Shape{2, 4});

  const Tensor x = randn({2, 3, 4});
  const Tensor train_out = plain(x);
  plain.eval();
  CHECK_TENSOR_CLOSE(plain(x), train_out, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional::layer_norm(x, {3, 4}, {}, {}, 1e-3), train_out, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(std::get<0>(native_layer_norm(x, {3, 4}, Tensor(), Tensor(), 1e-3)), train_out, 0.0, 0.0);
}

TEST_CASE("LayerNorm: misuse throws PyTorch's messages and leaves the module as it was") {
  LayerNorm ln(4);
  const StateDict before = ln.state_dict();
  CHECK_THROWS_WITH_AS(ln(randn({2, 3})),
                       "native_layer_norm: given normalized_shape=[4], expected input with shape [*, normalized_shape], "
                       "but got input of size [2, 3]",
                       Error);
  CHECK_THROWS_WITH_AS(ln(randn({2, 4}).to(DType::Float64)),
                       "native_layer_norm: weight dtype torch.float32 differs from input dtype torch.float64", Error);
  CHECK_TENSOR_CLOSE(ln.parameter("weight"), before[0].second, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(layer_norm(randn({2, 3}), Shape{}),
                       "native_layer_norm: expected normalized_shape to be at least 1-dimensional, i.e., containing "
                       "at least one element, but got normalized_shape = []",
                       Error);
  CHECK_THROWS_WITH_AS(layer_norm(randn({2, 3}), {3}, ones({2})),
                       "native_layer_norm: expected weight to be of same shape as normalized_shape, but got weight of "
                       "shape [2] and normalized_shape = [3]",
                       Error);
  CHECK_THROWS_WITH_AS(layer_norm(arange(0, 4), {4}), "native_layer_norm: expected a floating point input, got torch.int64",
                       Error);
  CHECK_THROWS_WITH_AS(LayerNorm(LayerNormOptions{.normalized_shape = {4}, .eps = -1.0}),
                       "LayerNorm: eps must be non-negative, got -1", Error);
}

TEST_CASE("layer_norm: empty rows give mean 0 and rstd NaN, no rows give empty statistics, as PyTorch") {
  const auto [out, mean, rstd] = native_layer_norm(zeros({2, 0}), {0}, Tensor(), Tensor(), 1e-5);
  CHECK(out.shape() == Shape{2, 0});
  CHECK(mean.shape() == Shape{2, 1});
  CHECK(testing::element_at(mean, 1) == 0.0);
  CHECK(std::isnan(testing::element_at(rstd, 0)));
  const auto [out0, mean0, rstd0] = native_layer_norm(zeros({0, 3}), {3}, ones({3}), zeros({3}), 1e-5);
  CHECK(out0.shape() == Shape{0, 3});
  CHECK(mean0.shape() == Shape{0, 1});
  const auto [gx, gw, gb] = native_layer_norm_backward(zeros({0, 3}), zeros({0, 3}), {3}, mean0, rstd0, ones({3}),
                                                       zeros({3}), {true, true, true});
  CHECK(gx.shape() == Shape{0, 3});
  CHECK_TENSOR_CLOSE(gw, zeros({3}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(gb, zeros({3}), 0.0, 0.0);
}

/// The module of a "layers" case, built as the generator built it; `seeded` says its initial parameters come
/// from manual_seed (and are compared), otherwise the generator copied them in (and the test copies them too).
std::shared_ptr<Module> make_layer(const std::string& name, bool& seeded) {
  seeded = false;
  if (name == "group_norm") return std::make_shared<GroupNorm>(2, 4);
  if (name == "group_norm_plain")
    return std::make_shared<GroupNorm>(GroupNormOptions{.num_groups = 3, .num_channels = 6, .eps = 1e-3, .affine = false});
  if (name == "instance_norm_running")
    return std::make_shared<InstanceNorm2d>(
        InstanceNormOptions{.num_features = 3, .affine = true, .track_running_stats = true});
  if (name == "instance_norm" || name == "instance_norm_unbatched") return std::make_shared<InstanceNorm2d>(3);
  if (name == "batch_norm_1d") return std::make_shared<BatchNorm1d>(4);
  if (name == "batch_norm_1d_3d")
    return std::make_shared<BatchNorm1d>(BatchNormOptions{.num_features = 3, .momentum = std::nullopt});
  seeded = true;
  if (name == "embedding") {
    manual_seed(11);
    return std::make_shared<Embedding>(EmbeddingOptions{.num_embeddings = 10, .embedding_dim = 4, .padding_idx = 0});
  }
  if (name == "embedding_scaled") {
    manual_seed(12);
    return std::make_shared<Embedding>(
        EmbeddingOptions{.num_embeddings = 6, .embedding_dim = 3, .padding_idx = -2, .scale_grad_by_freq = true});
  }
  if (name == "bilinear") {
    manual_seed(13);
    return std::make_shared<Bilinear>(3, 4, 5);
  }
  REQUIRE(name == "bilinear_no_bias");
  manual_seed(14);
  return std::make_shared<Bilinear>(2, 3, 4, false);
}

TEST_CASE("GroupNorm, InstanceNorm2d, BatchNorm1d, Embedding, Bilinear: values, gradients, state and init as PyTorch's") {
  const Json data = Json::parse(testing::read_reference("norm_layers.json"));
  for (const auto& item : data.at("layers").items()) {
    const std::string case_name = item.key();
    const Json& c = item.value();
    CAPTURE(case_name);
    bool seeded = false;
    const std::shared_ptr<Module> m = make_layer(case_name, seeded);
    CHECK(repr(*m) == c.at("repr").get<std::string>());
    // Parameters: drawn after the seed as PyTorch's, or copied in as the generator did.
    for (auto& [key, t] : m->named_parameters()) {
      const Tensor expected = tensor_of(c.at("state").at(key), t.shape(), DType::Float32);
      if (seeded) {
        CHECK_TENSOR_CLOSE(t, expected, 0.0, 0.0);
      } else {
        NoGradGuard no_grad;
        Tensor(t).copy_(expected);
      }
    }
    std::vector<std::string> state_keys;
    for (const auto& entry : c.at("state").items()) state_keys.push_back(entry.key());
    std::vector<std::string> our_keys = keys(m->state_dict());
    std::sort(our_keys.begin(), our_keys.end());
    std::sort(state_keys.begin(), state_keys.end());
    CHECK(our_keys == state_keys);

    TensorList inputs;
    for (size_t i = 0; i < c.at("inputs").size(); ++i) {
      const Shape shape = shape_of(c.at("shapes")[i]);
      const bool indices = c.at("input_grads")[i].empty();
      inputs.push_back(indices ? tensor_of(c.at("inputs")[i], shape, DType::Float64).to(DType::Int64)
                               : tensor_of(c.at("inputs")[i], shape, DType::Float32).requires_grad_());
    }
    const TensorList outs = (*m)(inputs);
    REQUIRE(outs.size() == 1);
    const Shape out_shape = shape_of(c.at("out_shape"));
    CHECK_TENSOR_CLOSE(outs[0], tensor_of(c.at("out"), out_shape, DType::Float32), 1e-5, 1e-5);
    outs[0].backward(tensor_of(c.at("grad"), out_shape, DType::Float32));
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!c.at("input_grads")[i].empty())
        CHECK_TENSOR_CLOSE(inputs[i].grad(), tensor_of(c.at("input_grads")[i], inputs[i].shape(), DType::Float32), 1e-5,
                           1e-5);
    for (const auto& [key, t] : m->named_parameters())
      CHECK_TENSOR_CLOSE(t.grad(), tensor_of(c.at("param_grads").at(key), t.shape(), DType::Float32), 1e-5, 1e-5);
    for (const auto& [key, t] : m->named_buffers())
      CHECK_TENSOR_CLOSE(t.to(DType::Float64), tensor_of(c.at("state").at(key), t.shape(), DType::Float64), 1e-6, 1e-6);
  }
}

TEST_CASE("Dropout2d: masks equal PyTorch's for the same seed; eval is the identity; p is checked") {
  const Json data = Json::parse(testing::read_reference("norm_layers.json"));
  for (const Json& c : data.at("dropout2d")) {
    const double p = c.at("p");
    CAPTURE(p);
    Dropout2d dropout(p);
    CHECK(repr(dropout) == c.at("repr").get<std::string>());
    const Shape shape = shape_of(c.at("shape"));
    manual_seed(c.at("seed").get<uint64_t>());
    CHECK_TENSOR_CLOSE(dropout(ones(shape)), tensor_of(c.at("out"), shape, DType::Float32), 0.0, 0.0);
  }
  Dropout2d dropout(0.5);
  const Tensor x = randn({2, 3, 4, 4});
  dropout.eval();
  CHECK(dropout(x).is_same(x));
  CHECK_THROWS_WITH_AS(Dropout2d(1.5), "Dropout2d: dropout probability has to be between 0 and 1, but got 1.5", Error);
  CHECK_THROWS_WITH_AS(functional::dropout2d(randn({3}), 0.5), "Feature dropout requires at least 2 dimensions in the input",
                       Error);
}

TEST_CASE("Unflatten: splits one dim as a view; repr and errors as PyTorch's") {
  Unflatten unflatten(1, {2, 3});
  CHECK(repr(unflatten) == "Unflatten(dim=1, unflattened_size=(2, 3))");
  const Tensor x = randn({4, 6});
  const Tensor y = unflatten(x);
  CHECK(y.shape() == Shape{4, 2, 3});
  CHECK(y.storage() == x.storage());
  CHECK(Unflatten(-1, {-1, 2})(x).shape() == Shape{4, 3, 2});
  CHECK_THROWS_WITH_AS(Unflatten(1, {4, 2})(x),
                       "unflatten: Provided sizes [4, 2] don't multiply up to the size of dim 1 (6) in the input tensor",
                       Error);
  CHECK_THROWS_WITH_AS(x.unflatten(1, Shape{}), "unflatten: sizes must be non-empty", Error);
}

TEST_CASE("Embedding: from_pretrained holds the tensor, frozen by default; padding_idx row gets no gradient") {
  const Tensor table = from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  auto frozen = Embedding::from_pretrained(table);
  CHECK(repr(*frozen) == "Embedding(3, 2)");
  CHECK_FALSE(frozen->parameter("weight").requires_grad());
  const Tensor idx = from_vector<int64_t>({2, 0, 2}, {3});
  CHECK_TENSOR_CLOSE((*frozen)(idx), from_vector<float>({5, 6, 1, 2, 5, 6}, {3, 2}), 0.0, 0.0);
  auto trained = Embedding::from_pretrained(table.clone(), false, 2);
  CHECK(trained->parameter("weight").requires_grad());
  (*trained)(idx).sum().backward();
  CHECK_TENSOR_CLOSE(trained->parameter("weight").grad(), from_vector<float>({1, 1, 0, 0, 0, 0}, {3, 2}), 0.0, 0.0);
  CHECK_THROWS_WITH_AS(Embedding(EmbeddingOptions{.num_embeddings = 3, .embedding_dim = 2, .padding_idx = 3}),
                       "Embedding: padding_idx must be within num_embeddings (3), got 3", Error);
  CHECK_THROWS_WITH_AS(Embedding::from_pretrained(ones({3})),
                       "Embedding.from_pretrained: embeddings parameter is expected to be 2-dimensional, got [3]", Error);
  Embedding emb(3, 2);
  CHECK_THROWS_AS(emb(from_vector<int64_t>({3}, {1})), Error);
  CHECK_THROWS_WITH_AS(emb(ones({2})), "embedding: expected indices of dtype Int64 or Int32, got torch.float32", Error);
}

TEST_CASE("GroupNorm, InstanceNorm2d, BatchNorm1d, Bilinear: misuse throws and changes nothing") {
  CHECK_THROWS_WITH_AS(GroupNorm(3, 4), "GroupNorm: num_channels must be divisible by num_groups, got num_channels=4 "
                                        "and num_groups=3", Error);
  GroupNorm gn(2, 4);
  CHECK_THROWS_AS(gn(randn({2, 6, 3})), Error);
  CHECK_THROWS_WITH_AS(gn(randn({4})), "group_norm: expected at least 2 dimensions for input tensor but received 1",
                       Error);
  BatchNorm1d bn(3);
  CHECK_THROWS_WITH_AS(bn(randn({2, 3, 4, 5})), "BatchNorm1d: expected 2D or 3D input (got 4D input)", Error);
  CHECK(bn.buffer("num_batches_tracked").item<int64_t>() == 0);
  InstanceNorm2d in(InstanceNormOptions{.num_features = 3, .affine = true});
  CHECK_THROWS_WITH_AS(in(randn({2, 4, 3, 3})),
                       "InstanceNorm2d: expected input's size at dim=1 to match num_features (3), but got: 4.", Error);
  CHECK_THROWS_WITH_AS(in(randn({3, 3})), "InstanceNorm2d: expected 3D or 4D input (got 2D input)", Error);
  Bilinear bil(3, 4, 5);
  CHECK_THROWS_WITH_AS(bil(randn({2, 3}), randn({2, 5})),
                       "bilinear(): input2 size does not match weight size: got 5 but expected 4", Error);
  CHECK_THROWS_WITH_AS(bil(randn({2, 3}), randn({3, 4})),
                       "bilinear(): input batch dimensions do not match at dim 0: got 2 and 3", Error);
}

}  // namespace
}  // namespace tl::nn
