// tests/nn/test_rnn.cpp — RNN / LSTM / GRU and their cells against PyTorch 1.13
// (tests/reference/make_rnn_references.py): parameters a seed draws, values and gradients in eval and
// training (dropout's stream included), reprs, and the error texts of misuse.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>

#include "nn/repr.h"
#include "nn/rnn.h"
#include "tests/nn/rnn_reference.h"

namespace tl::nn {
namespace {

using rnn_reference::data;
using rnn_reference::Json;

template <class Options>
Options recurrent_options(const Json& c) {
  return Options(c.at("input_size").get<int64_t>(), c.at("hidden_size").get<int64_t>())
      .num_layers(c.at("num_layers").get<int64_t>())
      .bias(c.at("bias").get<bool>())
      .batch_first(c.at("batch_first").get<bool>())
      .dropout(c.at("dropout").get<double>())
      .bidirectional(c.at("bidirectional").get<bool>());
}

std::shared_ptr<RNNBase> make_recurrent(const Json& c) {
  manual_seed(c.at("seed").get<uint64_t>());
  const std::string mode = c.at("mode");
  if (mode == "LSTM") return std::make_shared<LSTM>(recurrent_options<LSTMOptions>(c));
  if (mode == "GRU") return std::make_shared<GRU>(recurrent_options<GRUOptions>(c));
  return std::make_shared<RNN>(recurrent_options<RNNOptions>(c).nonlinearity(c.at("nonlinearity")));
}

TEST_CASE("RNN, LSTM and GRU: PyTorch's parameters for a seed, values and gradients, repr") {
  for (const Json& c : data().at("rnn")) {
    INFO(c.at("repr").get<std::string>(), " seed ", c.at("seed").get<uint64_t>());
    const auto module = make_recurrent(c);
    CHECK(repr(*module) == c.at("repr").get<std::string>());
    rnn_reference::check_case(*module, c, [&](const TensorList& in) -> TensorList {
      if (auto* lstm = dynamic_cast<LSTM*>(module.get())) {
        const auto [output, state] =
            in.size() == 3 ? lstm->forward(in[0], std::make_tuple(in[1], in[2])) : lstm->forward(in[0]);
        return {output, std::get<0>(state), std::get<1>(state)};
      }
      const Tensor hx = in.size() == 2 ? in[1] : Tensor();
      const auto [output, h_n] =
          dynamic_cast<GRU*>(module.get()) ? static_cast<GRU&>(*module).forward(in[0], hx)
                                           : static_cast<RNN&>(*module).forward(in[0], hx);
      return {output, h_n};
    });
  }
}

std::shared_ptr<RNNCellBase> make_cell(const Json& c) {
  manual_seed(c.at("seed").get<uint64_t>());
  const std::string mode = c.at("mode");
  const int64_t in = c.at("input_size"), hidden = c.at("hidden_size");
  const bool bias = c.at("bias");
  if (mode == "LSTMCell") return std::make_shared<LSTMCell>(LSTMCellOptions(in, hidden).bias(bias));
  if (mode == "GRUCell") return std::make_shared<GRUCell>(GRUCellOptions(in, hidden).bias(bias));
  return std::make_shared<RNNCell>(RNNCellOptions(in, hidden).bias(bias).nonlinearity(c.at("nonlinearity")));
}

TEST_CASE("LSTMCell, GRUCell and RNNCell: PyTorch's parameters, values and gradients, repr") {
  for (Json c : data().at("cells")) {
    INFO(c.at("repr").get<std::string>());
    c["training"] = false;
    c["dropout_seed"] = nullptr;
    const auto cell = make_cell(c);
    CHECK(repr(*cell) == c.at("repr").get<std::string>());
    rnn_reference::check_case(*cell, c, [&](const TensorList& in) -> TensorList {
      if (auto* lstm = dynamic_cast<LSTMCell*>(cell.get())) {
        const auto [h, c1] = in.size() == 3 ? lstm->forward(in[0], std::make_tuple(in[1], in[2])) : lstm->forward(in[0]);
        return {h, c1};
      }
      const Tensor hx = in.size() == 2 ? in[1] : Tensor();
      if (auto* gru = dynamic_cast<GRUCell*>(cell.get())) return {gru->forward(in[0], hx)};
      return {static_cast<RNNCell&>(*cell).forward(in[0], hx)};
    });
  }
}

TEST_CASE("LSTM: the LibTorch spelling, state_dict keys, module calls and a reset") {
  LSTM lstm(LSTMOptions(4, 8).num_layers(2).bidirectional(true));
  std::vector<std::string> keys;
  for (const auto& [name, t] : lstm.state_dict()) keys.push_back(name);
  CHECK(keys == std::vector<std::string>{"weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                                         "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse",
                                         "bias_hh_l0_reverse", "weight_ih_l1", "weight_hh_l1", "bias_ih_l1",
                                         "bias_hh_l1", "weight_ih_l1_reverse", "weight_hh_l1_reverse",
                                         "bias_ih_l1_reverse", "bias_hh_l1_reverse"});
  CHECK(lstm.parameter("weight_ih_l1").shape() == Shape{32, 16});
  const Tensor x = randn({5, 3, 4});
  const TensorList out = lstm(TensorList{x});  // through Module::operator(): {output, h_n, c_n}
  REQUIRE(out.size() == 3);
  CHECK(out[0].shape() == Shape{5, 3, 16});
  CHECK(out[1].shape() == Shape{4, 3, 8});
  const auto [output, state] = lstm.forward(x);
  CHECK_TENSOR_CLOSE(output, out[0], 0.0, 0.0);
  CHECK_TENSOR_CLOSE(std::get<1>(state), out[2], 0.0, 0.0);
  CHECK_THROWS_WITH_AS(lstm(x), "LSTM: forward returned 3 outputs, but a single-tensor call expects one", Error);

  auto copy = lstm.clone();
  CHECK_TENSOR_CLOSE(copy->parameter("bias_hh_l1_reverse"), lstm.parameter("bias_hh_l1_reverse"), 0.0, 0.0);
  lstm.reset_parameters();  // the copy is deep: it keeps the old draw
  CHECK((lstm.parameter("weight_hh_l0").abs() <= 1.0 / std::sqrt(8.0)).all().item<bool>());
  CHECK_FALSE(testing::compare_tensors(copy->parameter("weight_hh_l0"), lstm.parameter("weight_hh_l0"), 0.0, 0.0).empty());
}

TEST_CASE("recurrent layers: misuse throws PyTorch's texts and changes nothing") {
  const Json& e = data().at("errors");
  auto text = [&](const char* key) { return e.at(key).get<std::string>(); };
  LSTM lstm(LSTMOptions(4, 8).num_layers(2));
  const Tensor before = lstm.parameter("weight_ih_l0").clone();
  const Tensor z2 = zeros({2, 8}), z3 = zeros({2, 3, 8});
  CHECK_THROWS_WITH_AS(lstm.forward(randn({5, 3, 5})), text("lstm_input_size").c_str(), Error);
  CHECK_THROWS_WITH_AS(lstm.forward(randn({5, 3, 4, 1})), text("lstm_input_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(lstm.forward(randn({5, 3, 4}), std::make_tuple(zeros({1, 3, 8}), z3)),
                       text("lstm_hidden0").c_str(), Error);
  CHECK_THROWS_WITH_AS(lstm.forward(randn({5, 3, 4}), std::make_tuple(z3, zeros({2, 2, 8}))),
                       text("lstm_hidden1").c_str(), Error);
  CHECK_THROWS_WITH_AS(lstm.forward(randn({5, 3, 4}), std::make_tuple(z2, z2)), text("lstm_batched_hx_dim").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(lstm.forward(randn({5, 4}), std::make_tuple(z3, z3)), text("lstm_unbatched_hx_dim").c_str(),
                       Error);
  CHECK_THROWS_WITH_AS(lstm.forward(randn({0, 3, 4})), text("lstm_empty_sequence").c_str(), Error);
  CHECK_TENSOR_CLOSE(lstm.parameter("weight_ih_l0"), before, 0.0, 0.0);

  GRU gru(4, 8);
  CHECK_THROWS_WITH_AS(gru.forward(randn({5, 3, 4}), zeros({1, 8})), text("gru_batched_hx_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(gru.forward(randn({5, 3, 4}), zeros({1, 2, 8})), text("gru_hidden").c_str(), Error);
  CHECK_THROWS_WITH_AS(RNN(RNNOptions(4, 8).nonlinearity("sigmoid")), text("rnn_nonlinearity").c_str(), Error);
  CHECK_THROWS_WITH_AS(LSTM(LSTMOptions(4, 8).dropout(1.5)), text("dropout_range").c_str(), Error);
  CHECK_THROWS_WITH_AS(LSTM(LSTMOptions(4, 0)), "hidden_size must be greater than zero, got 0", Error);
  CHECK_THROWS_WITH_AS(GRU(GRUOptions(4, 8).num_layers(0)), "num_layers must be greater than zero, got 0", Error);

  LSTMCell cell(4, 8);
  CHECK_THROWS_WITH_AS(cell.forward(randn({3, 5})), text("cell_input_size").c_str(), Error);
  CHECK_THROWS_WITH_AS(cell.forward(randn({3, 4, 1})), text("cell_input_dim").c_str(), Error);
  CHECK_THROWS_WITH_AS(cell.forward(randn({3, 4}), std::make_tuple(z2, z2)), text("cell_batch").c_str(), Error);
  CHECK_THROWS_WITH_AS(cell.forward(randn({3, 4}), std::make_tuple(zeros({3, 8}), zeros({3, 7}))),
                       text("cell_hidden_size").c_str(), Error);
  CHECK_THROWS_WITH_AS(RNNCell(RNNCellOptions(4, 8).nonlinearity("x")), text("rnn_cell_nonlinearity").c_str(), Error);
}

}  // namespace
}  // namespace tl::nn
