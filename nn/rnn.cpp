// nn/rnn.cpp — RNN / LSTM / GRU and their cells as ATen's CPU path computes them (aten/src/ATen/native/
// RNN.cpp): the input projection of a whole layer first, then one cell step per time step.
#include "nn/rnn.h"

#include <cmath>

#include "core/py_repr.h"
#include "nn/init.h"
#include "ops/ops.h"

namespace tl::nn {
namespace {

int64_t gate_count(RNNBase::Mode mode) {
  switch (mode) {
    case RNNBase::Mode::LSTM: return 4;
    case RNNBase::Mode::GRU: return 3;
    default: return 1;
  }
}

/// RNN's and RNNCell's nonlinearity; `cell` picks RNNCell's wording of the error.
RNNBase::Mode simple_mode(const std::string& nonlinearity, bool cell) {
  if (nonlinearity == "tanh") return RNNBase::Mode::RNNTanh;
  if (nonlinearity == "relu") return RNNBase::Mode::RNNRelu;
  tl::detail::throw_error(cell ? "Unknown nonlinearity: " + nonlinearity : "Unknown nonlinearity '" + nonlinearity + "'");
}

template <class Options>
RNNBase::Config config_of(const Options& o) {
  return {.input_size = o.input_size(), .hidden_size = o.hidden_size(), .num_layers = o.num_layers(),
          .bias = o.bias(), .batch_first = o.batch_first(), .dropout = o.dropout(),
          .bidirectional = o.bidirectional()};
}

/// One time step of ATen's cells. gates_x = x W_ih^T + b_ih (N, gates * H), computed before (a whole
/// sequence at once in a layer); state {h} or {h, c} (N, H). Returns the new state.
TensorList cell_step(RNNBase::Mode mode, const Tensor& gates_x, const TensorList& state, const Tensor& w_hh,
                     const Tensor& b_hh) {
  const Tensor gates_h = linear(state[0], w_hh, b_hh);
  switch (mode) {
    case RNNBase::Mode::LSTM: {
      const std::vector<Tensor> g = (gates_h + gates_x).chunk(4, 1);
      const Tensor c = g[1].sigmoid() * state[1] + g[0].sigmoid() * g[2].tanh();
      return {g[3].sigmoid() * c.tanh(), c};
    }
    case RNNBase::Mode::GRU: {
      const std::vector<Tensor> gx = gates_x.chunk(3, 1);
      const std::vector<Tensor> gh = gates_h.chunk(3, 1);
      const Tensor reset = (gh[0] + gx[0]).sigmoid();
      const Tensor update = (gh[1] + gx[1]).sigmoid();
      const Tensor candidate = (gx[2] + gh[2] * reset).tanh();
      return {(state[0] - candidate) * update + candidate};
    }
    case RNNBase::Mode::RNNTanh: return {(gates_h + gates_x).tanh()};
    case RNNBase::Mode::RNNRelu: return {relu(gates_h + gates_x)};
  }
  TL_INTERNAL_ASSERT(false, "cell_step: unknown mode");
}

/// Zeros (N, hidden) made from `rows` (N, *) by ops: a graph traced with example inputs then holds no
/// constant state (nor the example's batch size) where the default initial state is used.
Tensor zero_state(const Tensor& rows, int64_t hidden) {
  return zeros_like(rows.sum(-1, true)).expand({-1, hidden});
}

void check_hidden_size(const char* what, const std::vector<int64_t>& expected, const Tensor& h) {
  TL_CHECK(h.shape().vec() == expected, "Expected ", what, " size ", py_int_tuple(expected), ", got ", h.shape());
}

}  // namespace

// ---- RNNBase ----

RNNBase::RNNBase(Mode mode, const Config& config) : mode_(mode), config_(config) {
  TL_CHECK(config.hidden_size > 0, "hidden_size must be greater than zero, got ", config.hidden_size);
  TL_CHECK(config.num_layers > 0, "num_layers must be greater than zero, got ", config.num_layers);
  TL_CHECK(config.input_size >= 0, "input_size must be non-negative, got ", config.input_size);
  TL_CHECK(config.dropout >= 0.0 && config.dropout <= 1.0,
           "dropout should be a number in range [0, 1] representing the probability of an element being zeroed");
  const int64_t directions = config.bidirectional ? 2 : 1;
  const int64_t gates = gate_count(mode) * config.hidden_size;
  for (int64_t layer = 0; layer < config.num_layers; ++layer) {
    const int64_t layer_input = layer == 0 ? config.input_size : config.hidden_size * directions;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const std::string suffix = "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      register_parameter("weight_ih" + suffix, empty({gates, layer_input}));
      register_parameter("weight_hh" + suffix, empty({gates, config.hidden_size}));
      if (config.bias) {
        register_parameter("bias_ih" + suffix, empty({gates}));
        register_parameter("bias_hh" + suffix, empty({gates}));
      }
    }
  }
  reset_parameters();
}

void RNNBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(config_.hidden_size));
  for (const Tensor& p : parameters()) init::uniform_(p, -bound, bound);
}

std::string RNNBase::extra_repr() const {
  std::string s = std::to_string(config_.input_size) + ", " + std::to_string(config_.hidden_size);
  if (config_.num_layers != 1) s += ", num_layers=" + std::to_string(config_.num_layers);
  if (!config_.bias) s += ", bias=False";
  if (config_.batch_first) s += ", batch_first=True";
  if (config_.dropout != 0.0) s += ", dropout=" + py_float(config_.dropout);
  if (config_.bidirectional) s += ", bidirectional=True";
  return s;
}

TensorList RNNBase::run(const Tensor& input, const TensorList& hx) {
  const bool lstm = mode_ == Mode::LSTM;
  const int64_t batch_dim = config_.batch_first ? 0 : 1;
  const bool batched = input.dim() == 3;
  const Tensor x = batched ? input : input.unsqueeze(batch_dim);
  TensorList state = hx;
  if (!state.empty()) {
    const int64_t want = batched ? 3 : 2;
    const char* which = batched ? "For batched 3-D input" : "For unbatched 2-D input";
    if (lstm)
      TL_CHECK(state[0].dim() == want && state[1].dim() == want, which, ", hx and cx should also be ", want,
               "-D but got (", state[0].dim(), "-D, ", state[1].dim(), "-D) tensors");
    else
      TL_CHECK(state[0].dim() == want, which, ", hx should also be ", want, "-D but got ", state[0].dim(),
               "-D tensor");
    if (!batched)
      for (Tensor& s : state) s = s.unsqueeze(1);
  }
  TL_CHECK(x.dim() == 3, "input must have 3 dimensions, got ", x.dim());
  TL_CHECK(x.size(-1) == config_.input_size, "input.size(-1) must be equal to input_size. Expected ",
           config_.input_size, ", got ", x.size(-1));
  const int64_t directions = config_.bidirectional ? 2 : 1;
  const std::vector<int64_t> expected{config_.num_layers * directions, x.size(batch_dim), config_.hidden_size};
  if (!state.empty()) {
    check_hidden_size(lstm ? "hidden[0]" : "hidden", expected, state[0]);
    if (lstm) check_hidden_size("hidden[1]", expected, state[1]);
  }
  TL_CHECK(x.size(config_.batch_first ? 1 : 0) > 0, "Expected sequence length to be larger than 0 in RNN");
  if (state.empty()) {
    const Tensor zero = zero_state(x.select(config_.batch_first ? 1 : 0, 0), config_.hidden_size);
    state.assign(lstm ? 2 : 1, zero.unsqueeze(0).expand({expected[0], -1, -1}));
  }

  Tensor layer_input = config_.batch_first ? x.transpose(0, 1) : x;  // (L, N, H_in)
  std::vector<TensorList> final_states(state.size());  // per state slot, per layer and direction
  for (int64_t layer = 0; layer < config_.num_layers; ++layer) {
    TensorList outputs;
    for (int64_t direction = 0; direction < directions; ++direction) {
      TensorList s;
      for (const Tensor& st : state) s.push_back(st[layer * directions + direction]);
      outputs.push_back(run_direction(layer_input, layer, direction == 1, s));
      for (size_t k = 0; k < s.size(); ++k) final_states[k].push_back(s[k]);
    }
    layer_input = directions == 2 ? cat(outputs, 2) : outputs[0];
    if (config_.dropout != 0.0 && is_training() && layer + 1 < config_.num_layers)
      layer_input = tl::dropout(layer_input, config_.dropout, true);
  }
  Tensor output = config_.batch_first ? layer_input.transpose(0, 1) : layer_input;
  TensorList result{batched ? output : output.squeeze(batch_dim)};
  for (const TensorList& f : final_states) {
    const Tensor stacked = stack(f, 0);
    result.push_back(batched ? stacked : stacked.squeeze(1));
  }
  return result;
}

Tensor RNNBase::run_direction(const Tensor& x, int64_t layer, bool reverse, TensorList& state) const {
  const std::string suffix = "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
  const Tensor& w_hh = parameter("weight_hh" + suffix);
  const Tensor b_ih = config_.bias ? parameter("bias_ih" + suffix) : Tensor();
  const Tensor b_hh = config_.bias ? parameter("bias_hh" + suffix) : Tensor();
  const std::vector<Tensor> gates_x = linear(x, parameter("weight_ih" + suffix), b_ih).unbind(0);
  const auto steps = static_cast<int64_t>(gates_x.size());
  TensorList outputs(steps);
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t t = reverse ? steps - 1 - k : k;
    state = cell_step(mode_, gates_x[t], state, w_hh, b_hh);
    outputs[t] = state[0];
  }
  return stack(outputs, 0);
}

// ---- LSTM, GRU, RNN ----

LSTM::LSTM(const LSTMOptions& options) : RNNBase(Mode::LSTM, config_of(options)) {}

TensorList LSTM::forward(Inputs inputs) { return run(inputs[0], {}); }

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTM::forward(const Tensor& input,
                                                             const std::optional<std::tuple<Tensor, Tensor>>& hx) {
  const TensorList out = run(input, hx ? TensorList{std::get<0>(*hx), std::get<1>(*hx)} : TensorList{});
  return {out[0], {out[1], out[2]}};
}

GRU::GRU(const GRUOptions& options) : RNNBase(Mode::GRU, config_of(options)) {}

TensorList GRU::forward(Inputs inputs) { return run(inputs[0], {}); }

std::tuple<Tensor, Tensor> GRU::forward(const Tensor& input, const Tensor& hx) {
  const TensorList out = run(input, hx.defined() ? TensorList{hx} : TensorList{});
  return {out[0], out[1]};
}

RNN::RNN(const RNNOptions& options) : RNNBase(simple_mode(options.nonlinearity(), false), config_of(options)) {}

TensorList RNN::forward(Inputs inputs) { return run(inputs[0], {}); }

std::tuple<Tensor, Tensor> RNN::forward(const Tensor& input, const Tensor& hx) {
  const TensorList out = run(input, hx.defined() ? TensorList{hx} : TensorList{});
  return {out[0], out[1]};
}

// ---- cells ----

RNNCellBase::RNNCellBase(RNNBase::Mode mode, int64_t input_size, int64_t hidden_size, bool bias)
    : mode_(mode), input_size_(input_size), hidden_size_(hidden_size), bias_(bias) {
  TL_CHECK(hidden_size > 0, "hidden_size must be greater than zero, got ", hidden_size);
  TL_CHECK(input_size >= 0, "input_size must be non-negative, got ", input_size);
  const int64_t gates = gate_count(mode) * hidden_size;
  register_parameter("weight_ih", empty({gates, input_size}));
  register_parameter("weight_hh", empty({gates, hidden_size}));
  register_parameter("bias_ih", bias ? empty({gates}) : Tensor());
  register_parameter("bias_hh", bias ? empty({gates}) : Tensor());
  reset_parameters();
}

void RNNCellBase::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size_));
  for (const Tensor& p : parameters()) init::uniform_(p, -bound, bound);
}

std::string RNNCellBase::extra_repr() const {
  std::string s = std::to_string(input_size_) + ", " + std::to_string(hidden_size_);
  if (!bias_) s += ", bias=False";
  if (mode_ == RNNBase::Mode::RNNRelu) s += ", nonlinearity=relu";
  return s;
}

TensorList RNNCellBase::step(const Tensor& input, const TensorList& hx) const {
  TL_CHECK(input.dim() == 1 || input.dim() == 2, type_name(), ": Expected input to be 1-D or 2-D but received ",
           input.dim(), "-D tensor");
  const bool batched = input.dim() == 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  TensorList state = hx;
  if (state.empty())
    state.assign(mode_ == RNNBase::Mode::LSTM ? 2 : 1, zero_state(x, hidden_size_));
  else if (!batched)
    for (Tensor& s : state) s = s.unsqueeze(0);
  TL_CHECK(x.size(1) == input_size_, "input has inconsistent input_size: got ", x.size(1), " expected ", input_size_);
  for (const Tensor& s : state) {
    TL_CHECK(x.size(0) == s.size(0), "Input batch size ", x.size(0), " doesn't match hidden0 batch size ", s.size(0));
    TL_CHECK(s.size(1) == hidden_size_, "hidden0 has inconsistent hidden_size: got ", s.size(1), ", expected ",
             hidden_size_);
  }
  const Tensor gates_x = linear(x, parameter("weight_ih"), parameter("bias_ih"));
  TensorList out = cell_step(mode_, gates_x, state, parameter("weight_hh"), parameter("bias_hh"));
  if (!batched)
    for (Tensor& s : out) s = s.squeeze(0);
  return out;
}

LSTMCell::LSTMCell(const LSTMCellOptions& options)
    : RNNCellBase(RNNBase::Mode::LSTM, options.input_size(), options.hidden_size(), options.bias()) {}

TensorList LSTMCell::forward(Inputs inputs) { return step(inputs[0], {}); }

std::tuple<Tensor, Tensor> LSTMCell::forward(const Tensor& input,
                                             const std::optional<std::tuple<Tensor, Tensor>>& hx) {
  const TensorList out = step(input, hx ? TensorList{std::get<0>(*hx), std::get<1>(*hx)} : TensorList{});
  return {out[0], out[1]};
}

GRUCell::GRUCell(const GRUCellOptions& options)
    : RNNCellBase(RNNBase::Mode::GRU, options.input_size(), options.hidden_size(), options.bias()) {}

Tensor GRUCell::forward(const Tensor& input, const Tensor& hx) {
  return step(input, hx.defined() ? TensorList{hx} : TensorList{})[0];
}

RNNCell::RNNCell(const RNNCellOptions& options)
    : RNNCellBase(simple_mode(options.nonlinearity(), true), options.input_size(), options.hidden_size(),
                  options.bias()) {}

Tensor RNNCell::forward(const Tensor& input, const Tensor& hx) {
  return step(input, hx.defined() ? TensorList{hx} : TensorList{})[0];
}

}  // namespace tl::nn
