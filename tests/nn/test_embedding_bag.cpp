// tests/nn/test_embedding_bag.cpp — EmbeddingBag, F::embedding_bag and Embedding's max_norm against PyTorch 1.13
// (tests/reference/make_embedding_bag_references.py): the weight a seed draws, values, the in-place renorm of
// max_norm, gradients of the weight and the per-sample weights, repr, from_pretrained, and the error texts of
// misuse, which leave the weight as it was.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "nn/embedding.h"
#include "nn/functional.h"
#include "nn/repr.h"
#include "tests/nn/rnn_reference.h"

namespace tl::nn {
namespace {

using rnn_reference::Json;
using rnn_reference::tensor;
namespace F = functional;

const Json& data() {
  static const Json parsed = Json::parse(testing::read_reference("embedding_bag.json"));
  return parsed;
}

/// A reference tensor of integer indices (the file stores every value as a number).
Tensor indices(const Json& t) { return tensor(t).to(DType::Int64); }

template <class T>
std::optional<T> optional_field(const Json& options, const char* key) {
  if (!options.contains(key)) return std::nullopt;
  return options.at(key).get<T>();
}

EmbeddingBagOptions bag_options(const Json& c) {
  const Json& o = c.at("options");
  return {.num_embeddings = c.at("num_embeddings").get<int64_t>(),
          .embedding_dim = c.at("embedding_dim").get<int64_t>(),
          .max_norm = optional_field<double>(o, "max_norm"),
          .norm_type = optional_field<double>(o, "norm_type").value_or(2.0),
          .scale_grad_by_freq = optional_field<bool>(o, "scale_grad_by_freq").value_or(false),
          .mode = optional_field<std::string>(o, "mode").value_or("mean"),
          .include_last_offset = optional_field<bool>(o, "include_last_offset").value_or(false),
          .padding_idx = optional_field<int64_t>(o, "padding_idx")};
}

std::shared_ptr<Module> make_module(const Json& c) {
  if (c.at("kind") == "Embedding") {
    manual_seed(c.at("seed").get<uint64_t>());
    const Json& o = c.at("options");
    return std::make_shared<Embedding>(EmbeddingOptions{.num_embeddings = c.at("num_embeddings").get<int64_t>(),
                                                        .embedding_dim = c.at("embedding_dim").get<int64_t>(),
                                                        .padding_idx = optional_field<int64_t>(o, "padding_idx"),
                                                        .max_norm = optional_field<double>(o, "max_norm"),
                                                        .norm_type = optional_field<double>(o, "norm_type").value_or(2.0)});
  }
  if (c.at("pretrained").get<bool>()) return EmbeddingBag::from_pretrained(tensor(c.at("weight")), false, bag_options(c));
  manual_seed(c.at("seed").get<uint64_t>());
  return std::make_shared<EmbeddingBag>(bag_options(c));
}

TEST_CASE("EmbeddingBag and Embedding(max_norm): PyTorch's weights, values, renorm and gradients, repr") {
  for (const Json& c : data().at("cases")) {
    INFO("seed ", c.at("seed").get<uint64_t>(), " (", c.at("kind").get<std::string>(), ")");
    const auto module = make_module(c);
    CHECK(repr(*module) == c.at("repr").get<std::string>());
    const Tensor& weight = module->parameter("weight");
    CHECK_TENSOR_CLOSE(weight, tensor(c.at("weight")), 0.0, 0.0);
    const Tensor input = indices(c.at("input"));
    Tensor psw = tensor(c.at("per_sample_weights"));
    if (psw.defined()) psw.requires_grad_();
    Tensor out;
    if (auto* bag = dynamic_cast<EmbeddingBag*>(module.get())) {
      const Tensor offsets = c.at("offsets").is_null() ? Tensor() : indices(c.at("offsets"));
      out = bag->forward(input, offsets, psw);
    } else {
      out = (*module)(input);
    }
    CHECK(out.grad_fn_name() == (c.at("kind") == "Embedding" ? "EmbeddingBackward0" : "EmbeddingBagBackward0"));
    CHECK_TENSOR_CLOSE(out, tensor(c.at("output")), 1e-5, 1e-5);
    CHECK_TENSOR_CLOSE(weight, tensor(c.at("weight_after")), 1e-6, 1e-6);
    (out * tensor(c.at("grad_output"))).sum().backward();
    CHECK_TENSOR_CLOSE(weight.grad(), tensor(c.at("weight_grad")), 1e-5, 1e-5);
    if (psw.defined()) CHECK_TENSOR_CLOSE(psw.grad(), tensor(c.at("per_sample_weights_grad")), 1e-5, 1e-5);
  }
}

TEST_CASE("EmbeddingBag: from_pretrained freezes, module calls take a 2-D input, clone is deep") {
  const Tensor table = randn({5, 3});
  auto frozen = EmbeddingBag::from_pretrained(table, true, {.mode = "sum"});
  CHECK_FALSE(frozen->parameter("weight").requires_grad());
  CHECK(repr(*frozen) == "EmbeddingBag(5, 3, mode=sum)");
  const Tensor bags = from_vector<int64_t>({0, 1, 4, 4}, {2, 2});
  CHECK_TENSOR_CLOSE((*frozen)(bags), F::embedding_bag(bags, table, {.mode = "sum"}), 0.0, 0.0);
  auto copy = std::static_pointer_cast<EmbeddingBag>(frozen->clone());
  CHECK_FALSE(copy->parameter("weight").is_same(frozen->parameter("weight")));
  CHECK(copy->options().mode == "sum");
}

TEST_CASE("F::embedding_bag: misuse throws PyTorch's texts and leaves the weight as it was") {
  const Json& e = data().at("errors");
  auto text = [&](const char* key) { return e.at(key).get<std::string>(); };
  const Tensor w = randn({10, 3});
  const Tensor before = w.clone();
  const Tensor x = from_vector<int64_t>({1, 2, 4, 5}, {4});
  const Tensor off = from_vector<int64_t>({0, 2}, {2});
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = from_vector<int64_t>({1, 2}, {2})}),
                       text("offsets_start").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = from_vector<int64_t>({0, 5}, {2})}),
                       text("offsets_end").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(from_vector<int64_t>({1, 10}, {2}), w, {.offsets = off, .mode = "max"}),
                       text("index_range").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = off, .mode = "mean", .per_sample_weights = ones({4})}),
                       text("weights_mode").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = off, .mode = "sum", .per_sample_weights = ones({3})}),
                       text("weights_shape").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x.view({2, 2}), w, {.offsets = off}), text("offsets_2d").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w), text("offsets_none").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = off.view({1, 2})}), text("offsets_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x.view({1, 2, 2}), w), text("input_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = off, .mode = "median"}), text("mode").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = off, .scale_grad_by_freq = true, .mode = "max"}),
                       text("max_scale").c_str(), Error);
  CHECK_THROWS_WITH_AS(F::embedding_bag(x, w, {.offsets = off, .padding_idx = 10}), text("padding_range").c_str(),
                       Error);
  // max_norm renormalises before the op checks the indices, as PyTorch: an index out of range is refused by the
  // renorm itself, before any row changes
  CHECK_THROWS_WITH_AS(F::embedding_bag(from_vector<int64_t>({1, 10}, {2}), w, {.offsets = off, .max_norm = 0.1}),
                       text("renorm_range").c_str(), Error);
  CHECK_TENSOR_CLOSE(w, before, 0.0, 0.0);
  // int32 offsets with int64 indices: ATen promotes them
  CHECK_TENSOR_CLOSE(F::embedding_bag(x, w, {.offsets = off.to(DType::Int32)}), F::embedding_bag(x, w, {.offsets = off}),
                     0.0, 0.0);
  CHECK_THROWS_WITH_AS(EmbeddingBag(EmbeddingBagOptions{.num_embeddings = 4, .embedding_dim = 2, .mode = "median"}),
                       "mode has to be one of sum, mean or max", Error);
}

}  // namespace
}  // namespace tl::nn
