// tests/nn/test_transformer.cpp — the transformer encoder and decoder layers, their stacks and Transformer against
// PyTorch 1.13 (tests/reference/make_transformer_references.py): the parameters a seed draws, values and gradients
// with masks, batch_first, norm_first, relu/gelu/a function, in eval and in training (dropout masks from the same
// stream), the encoder's nested-tensor path in eval mode, repr and state_dict keys, deep-copied layers, and the
// error texts of misuse.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/grad_mode.h"
#include "nn/init.h"
#include "nn/repr.h"
#include "nn/transformer.h"
#include "tests/nn/rnn_reference.h"

namespace tl::nn {
namespace {

using rnn_reference::Json;

const Json& data() {
  static const Json parsed = Json::parse(testing::read_reference("transformer.json"));
  return parsed;
}

TransformerEncoderLayerOptions layer_options(const Json& c) {
  TransformerEncoderLayerOptions options(c.at("d_model").get<int64_t>(), c.at("nhead").get<int64_t>());
  options.dim_feedforward(c.at("dim_feedforward").get<int64_t>())
      .dropout(c.at("dropout").get<double>())
      .batch_first(c.at("batch_first").get<bool>())
      .norm_first(c.at("norm_first").get<bool>());
  const std::string activation = c.at("activation").get<std::string>();
  if (activation == "tanh")  // the callable form: torch.tanh
    options.activation([](const Tensor& x) { return x.tanh(); });
  else
    options.activation(activation);
  return options;
}

/// The case's module, made after manual_seed(seed) as the generator makes PyTorch's.
std::shared_ptr<Module> make_module(const Json& c) {
  manual_seed(c.at("seed").get<uint64_t>());
  auto layer = std::make_shared<TransformerEncoderLayer>(layer_options(c));
  if (c.at("kind") == "layer") return layer;
  const int64_t d = c.at("d_model").get<int64_t>();
  return std::make_shared<TransformerEncoder>(layer, c.at("num_layers").get<int64_t>(),
                                              c.at("final_norm").get<bool>() ? std::make_shared<LayerNorm>(d) : nullptr);
}

TEST_CASE("Transformer encoder: PyTorch's parameters for a seed, values and gradients, repr and state_dict keys") {
  for (const Json& c : data().at("cases")) {
    INFO("seed ", c.at("seed").get<uint64_t>(), " (", c.at("kind").get<std::string>(), ")");
    const auto module = make_module(c);
    CHECK(repr(*module) == c.at("repr").get<std::string>());
    std::vector<std::string> keys;
    for (const auto& [name, t] : module->state_dict()) keys.push_back(name);
    CHECK(keys == c.at("state_dict_keys").get<std::vector<std::string>>());
    rnn_reference::check_case(*module, c, [&](const TensorList& in) -> TensorList {
      if (auto* layer = dynamic_cast<TransformerEncoderLayer*>(module.get())) return {layer->forward(in[0], in[1], in[2])};
      return {dynamic_cast<TransformerEncoder&>(*module).forward(in[0], in[1], in[2])};
    });
  }
}

/// A decoder case's module, made after manual_seed(seed) as the generator makes PyTorch's.
std::shared_ptr<Module> make_decoder_module(const Json& c) {
  manual_seed(c.at("seed").get<uint64_t>());
  const std::string kind = c.at("kind").get<std::string>();
  if (kind == "transformer") {
    const auto layers = c.at("layers").get<std::vector<int64_t>>();
    return std::make_shared<Transformer>(layer_options(c), layers[0], layers[1]);
  }
  auto layer = std::make_shared<TransformerDecoderLayer>(layer_options(c));
  if (kind == "decoder_layer") return layer;
  return std::make_shared<TransformerDecoder>(layer, c.at("layers").get<int64_t>(),
                                              std::make_shared<LayerNorm>(c.at("d_model").get<int64_t>()));
}

TEST_CASE("Transformer decoder and Transformer: PyTorch's parameters, values and gradients, repr, state_dict keys") {
  for (const Json& c : data().at("decoder_cases")) {
    INFO("seed ", c.at("seed").get<uint64_t>(), " (", c.at("kind").get<std::string>(), ")");
    const auto module = make_decoder_module(c);
    CHECK(repr(*module) == c.at("repr").get<std::string>());
    std::vector<std::string> keys;
    for (const auto& [name, t] : module->state_dict()) keys.push_back(name);
    CHECK(keys == c.at("state_dict_keys").get<std::vector<std::string>>());
    // inputs: tgt, memory (Transformer: src), tgt_mask, memory_mask, src_mask, and the key padding masks of
    // tgt, memory and src
    rnn_reference::check_case(*module, c, [&](const TensorList& in) -> TensorList {
      if (auto* layer = dynamic_cast<TransformerDecoderLayer*>(module.get()))
        return {layer->forward(in[0], in[1], in[2], in[3], in[5], in[6])};
      if (auto* decoder = dynamic_cast<TransformerDecoder*>(module.get()))
        return {decoder->forward(in[0], in[1], in[2], in[3], in[5], in[6])};
      return {dynamic_cast<Transformer&>(*module).forward(in[1], in[0], in[4], in[2], in[3], in[7], in[5], in[6])};
    });
  }
}

TEST_CASE("Transformer: module calls take {src, tgt}; the square subsequent mask is PyTorch's") {
  Transformer model(TransformerLayerOptions(8, 2).dim_feedforward(16).dropout(0.0), 1, 1);
  const Tensor src = randn({5, 2, 8}), tgt = randn({4, 2, 8});
  const TensorList out = model({src, tgt});
  REQUIRE(out.size() == 1);
  CHECK_TENSOR_CLOSE(out[0], model.forward(src, tgt, Tensor()), 0.0, 0.0);
  const Tensor mask = Transformer::generate_square_subsequent_mask(3);
  CHECK(mask.select(0, 0).select(0, 1).item<float>() == -INFINITY);
  CHECK(mask.select(0, 1).select(0, 0).item<float>() == 0.0f);
  CHECK(mask.select(0, 1).select(0, 1).item<float>() == 0.0f);
  const Json& e = data().at("errors");
  CHECK_THROWS_WITH_AS(model.forward(src, randn({4, 3, 8}), Tensor()), e.at("transformer_batch").get<std::string>().c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(model.forward(src, randn({4, 2, 6}), Tensor()),
                       e.at("transformer_features").get<std::string>().c_str(), Error);
  CHECK_THROWS_WITH_AS(TransformerDecoder(nullptr, 2), "TransformerDecoder: decoder_layer is null", Error);
}

TEST_CASE("Transformer encoder: module calls take src alone; the layers are deep copies") {
  auto layer = std::make_shared<TransformerEncoderLayer>(TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  TransformerEncoder encoder(layer, 2);
  encoder.eval();
  const Tensor src = randn({5, 3, 8});
  CHECK_TENSOR_CLOSE(encoder(src), encoder.forward(src, Tensor()), 0.0, 0.0);
  CHECK(encoder.num_layers() == 2);
  CHECK(encoder.norm.is_empty());
  const auto first = std::static_pointer_cast<TransformerEncoderLayer>((*encoder.layers)[0]);
  const auto second = std::static_pointer_cast<TransformerEncoderLayer>((*encoder.layers)[1]);
  CHECK(first.get() != layer.get());
  CHECK_TENSOR_CLOSE(first->self_attn->parameter("in_proj_weight"), layer->self_attn->parameter("in_proj_weight"), 0.0,
                     0.0);
  init::zeros_(first->linear1->parameter("weight"));  // through the copy's handle: only that copy changes
  CHECK(second->linear1->parameter("weight").abs().sum().item<float>() > 0.0f);
  CHECK(layer->linear1->parameter("weight").abs().sum().item<float>() > 0.0f);
  CHECK(first->linear1.get() == encoder.get_submodule("layers.0.linear1").get());
}

TEST_CASE("Transformer encoder: in eval mode with a key padding mask, PyTorch's nested-tensor path") {
  for (const Json& c : data().at("nested_cases")) {
    INFO(c.at("label").get<std::string>());
    manual_seed(40);
    auto layer = std::make_shared<TransformerEncoderLayer>(
        TransformerEncoderLayerOptions(8, c.at("nhead").get<int64_t>()).dim_feedforward(16).dropout(0.0).batch_first(true));
    TransformerEncoder encoder(layer, 2, c.at("final_norm").get<bool>() ? std::make_shared<LayerNorm>(8) : nullptr,
                               c.at("enable_nested_tensor").get<bool>(), c.at("mask_check").get<bool>());
    encoder.eval();
    AutoGradMode grad_mode(c.at("grad_enabled").get<bool>());
    const Tensor output = encoder.forward(rnn_reference::tensor(c.at("src")), Tensor(),
                                          rnn_reference::tensor(c.at("src_key_padding_mask")));
    CHECK_TENSOR_CLOSE(output, rnn_reference::tensor(c.at("output")), 1e-5, 1e-5);
  }
}

TEST_CASE("Transformer encoder: misuse throws PyTorch's texts and changes nothing") {
  const Json& e = data().at("errors");
  auto text = [&](const char* key) { return e.at(key).get<std::string>(); };
  CHECK_THROWS_WITH_AS(TransformerEncoderLayer(TransformerEncoderLayerOptions(8, 2).activation("tanh")),
                       text("activation").c_str(), Error);
  CHECK_THROWS_WITH_AS(TransformerEncoderLayer(8, 3), text("divisible").c_str(), Error);
  auto layer = std::make_shared<TransformerEncoderLayer>(TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  TransformerEncoder encoder(layer, 2);
  const Tensor before = encoder.get_parameter("layers.0.norm2.weight").clone();
  const Tensor src = randn({5, 3, 8});
  CHECK_THROWS_WITH_AS(layer->forward(src, Tensor(), zeros({3, 5}, DType::Int64)), text("layer_kpm_dtype").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(encoder.forward(src, Tensor(), zeros({3, 5}, DType::Int64)), text("encoder_kpm_dtype").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(layer->forward(src, Tensor(), zeros({3, 4}, DType::Bool)), text("kpm_shape").c_str(), Error);
  CHECK_THROWS_WITH_AS(layer->forward(src, zeros({4, 4})), text("mask_shape").c_str(), Error);
  CHECK_THROWS_WITH_AS((*layer)(randn({5, 3, 6})), text("embed_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(TransformerEncoder(layer, 0), "TransformerEncoder: num_layers must be positive, got 0", Error);
  CHECK_THROWS_WITH_AS(TransformerEncoder(nullptr, 2), "TransformerEncoder: encoder_layer is null", Error);

  encoder.set_submodule("layers.1", std::make_shared<Linear>(8, 8));
  CHECK_THROWS_WITH_AS(encoder(src), "TransformerEncoder: layers.1 is a Linear, not a TransformerEncoderLayer", Error);
  CHECK_TENSOR_CLOSE(encoder.get_parameter("layers.0.norm2.weight"), before, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::nn
