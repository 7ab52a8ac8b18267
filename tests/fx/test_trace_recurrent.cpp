// tests/fx/test_trace_recurrent.cpp — symbolic tracing of the recurrent layers and attention: the
// one-output cells are leaves (call_module, as torch.fx records them); LSTM, GRU, RNN and
// MultiheadAttention return several tensors, so tracing with example inputs records their ops.
#include <doctest/doctest.h>

#include "core/generator.h"
#include "fx/tracer.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::fx {
namespace {

// h = cell(x); y = linear(h)
class CellNet : public nn::Module {
 public:
  CellNet() {
    register_module("cell", std::make_shared<nn::GRUCell>(4, 6));
    register_module("head", std::make_shared<nn::Linear>(6, 2));
  }
  Tensor forward(const Tensor& x) override { return submodule("head")(submodule("cell")(x)); }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<CellNet>(); }
};

// (output, h_n, c_n) = lstm(x); attention over the output; y = output + attended
class SequenceNet : public nn::Module {
 public:
  SequenceNet() {
    register_module("lstm", std::make_shared<nn::LSTM>(nn::LSTMOptions(4, 8).num_layers(2)));
    register_module("attn", std::make_shared<nn::MultiheadAttention>(8, 2));
  }
  Tensor forward(const Tensor& x) override {
    const Tensor h = submodule("lstm")(TensorList{x})[0];
    return h + submodule("attn")({h, h, h})[0];
  }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<SequenceNet>(); }
};

TEST_CASE("symbolic_trace: GRUCell is a leaf module") {
  manual_seed(0);
  auto net = std::make_shared<CellNet>();
  auto traced = symbolic_trace(net);
  CHECK(traced->code().find("self.cell(x)") != std::string::npos);
  const Tensor x = randn({3, 4});
  CHECK_TENSOR_CLOSE((*traced)(x), (*net)(x), 0.0, 0.0);
}

TEST_CASE("symbolic_trace with example inputs: LSTM and MultiheadAttention trace through their ops") {
  manual_seed(0);
  auto net = std::make_shared<SequenceNet>();
  net->eval();
  auto traced = symbolic_trace(net, {randn({5, 3, 4})});
  CHECK(traced->code().find("lstm.weight_hh_l1") != std::string::npos);
  CHECK(traced->code().find("_tensor_constant") == std::string::npos);  // the zero states follow the input
  const Tensor x = randn({5, 2, 4});  // another batch size
  CHECK_TENSOR_CLOSE((*traced)(x), (*net)(x), 1e-6, 1e-6);
}

}  // namespace
}  // namespace tl::fx
