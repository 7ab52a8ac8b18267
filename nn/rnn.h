// nn/rnn.h — the recurrent layers of torch/nn/modules/rnn.py: RNN (tanh / relu), LSTM and GRU over a
// sequence (multi-layer, bidirectional, batch_first), and their one-step cells. Built from tensor ops
// (linear, sigmoid, tanh, mul, add, chunk, stack, cat), so autograd, tracing and the profiler see them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "nn/module.h"

namespace tl::nn {

/// The options every recurrent layer has, with PyTorch's defaults, chained as LibTorch's:
/// LSTMOptions(4, 8).num_layers(2).batch_first(true).dropout(0.1).bidirectional(true).
template <class Self>
class RecurrentOptions {
 public:
  RecurrentOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}

  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }
  Self& num_layers(int64_t value) { return set(num_layers_, value); }
  int64_t num_layers() const { return num_layers_; }
  /// False: no bias_ih / bias_hh parameters.
  Self& bias(bool value) { return set(bias_, value); }
  bool bias() const { return bias_; }
  /// True: input and output are (N, L, H) instead of (L, N, H); the states stay (layers * D, N, H).
  Self& batch_first(bool value) { return set(batch_first_, value); }
  bool batch_first() const { return batch_first_; }
  /// Dropout on the output of every layer but the last, in training mode.
  Self& dropout(double value) { return set(dropout_, value); }
  double dropout() const { return dropout_; }
  Self& bidirectional(bool value) { return set(bidirectional_, value); }
  bool bidirectional() const { return bidirectional_; }

 private:
  template <class T>
  Self& set(T& field, T value) {
    field = value;
    return static_cast<Self&>(*this);
  }

  int64_t input_size_;
  int64_t hidden_size_;
  int64_t num_layers_ = 1;
  bool bias_ = true;
  bool batch_first_ = false;
  double dropout_ = 0.0;
  bool bidirectional_ = false;
};

struct LSTMOptions : RecurrentOptions<LSTMOptions> {
  using RecurrentOptions::RecurrentOptions;
};
struct GRUOptions : RecurrentOptions<GRUOptions> {
  using RecurrentOptions::RecurrentOptions;
};
/// nonlinearity "tanh" (default) or "relu".
struct RNNOptions : RecurrentOptions<RNNOptions> {
  using RecurrentOptions::RecurrentOptions;
  RNNOptions& nonlinearity(std::string value) {
    nonlinearity_ = std::move(value);
    return *this;
  }
  const std::string& nonlinearity() const { return nonlinearity_; }

 private:
  std::string nonlinearity_ = "tanh";
};

/// PyTorch's nn.RNNBase: the parameters of every layer and direction, registered in PyTorch's order
/// (weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, then the same with _reverse, then layer 1 ...),
/// weight_ih_l<k> (gates * hidden_size, input size of layer k), weight_hh_l<k> (gates * hidden_size,
/// hidden_size), all drawn U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) in that order, as PyTorch draws
/// them. Gates are stacked in PyTorch's order (LSTM i, f, g, o; GRU r, z, n). Not a leaf for symbolic
/// tracing: it returns several tensors, which a call_module node cannot yet, so tracing (with example
/// inputs) records its ops.
class RNNBase : public Module {
 public:
  enum class Mode { LSTM, GRU, RNNTanh, RNNRelu };
  /// The options of all three layers; RNNOptions' nonlinearity is the Mode.
  struct Config {
    int64_t input_size;
    int64_t hidden_size;
    int64_t num_layers;
    bool bias;
    bool batch_first;
    double dropout;
    bool bidirectional;
  };

  std::string extra_repr() const override;
  /// Re-draws every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
  void reset_parameters();

 protected:
  /// Throws tl::Error (changing nothing) for sizes below 1 (hidden_size, num_layers; input_size below 0)
  /// or a dropout outside [0, 1].
  RNNBase(Mode mode, const Config& config);
  /// The whole forward of PyTorch's RNN/LSTM/GRU.forward for a plain (not packed) input: input (L, N, H_in)
  /// (batch_first: (N, L, H_in)) or unbatched (L, H_in); hx empty (zeros) or {h_0} / {h_0, c_0} each
  /// (layers * D, N, H) or unbatched (layers * D, H). Returns {output, h_n} or {output, h_n, c_n}.
  /// Throws PyTorch's RuntimeError texts for a wrong input dimension, input size or state shape.
  TensorList run(const Tensor& input, const TensorList& hx);

  Mode mode_;
  Config config_;

 private:
  /// One layer in one direction over the whole sequence x (L, N, H_in); state {h} or {h, c} (N, H) is
  /// replaced by the final state. Returns the outputs (L, N, H).
  Tensor run_direction(const Tensor& x, int64_t layer, bool reverse, TensorList& state) const;
};

// The typed forward of LSTM, GRU, RNN and LSTMCell (LibTorch's signature, PyTorch's tuples) hides
// Module::forward(const Tensor&) on purpose: they return several tensors; Module::operator() reaches them
// through forward(Inputs).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverloaded-virtual"

/// nn.LSTM. forward(input, (h_0, c_0)) -> (output, (h_n, c_n)); output (L, N, D * hidden_size) (N first
/// with batch_first), h_n and c_n (num_layers * D, N, hidden_size). Through Module::operator() (hooks,
/// tracing) it takes `input` alone and returns {output, h_n, c_n}.
class LSTM : public RNNBase {
 public:
  explicit LSTM(const LSTMOptions& options);
  /// nn.LSTM(input_size, hidden_size).
  LSTM(int64_t input_size, int64_t hidden_size) : LSTM(LSTMOptions(input_size, hidden_size)) {}

  TensorList forward(Inputs inputs) override;
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt);
  ForwardSignature forward_signature() const override { return {.arg_names = {"input"}}; }
  std::shared_ptr<Module> clone() const override { return clone_as<LSTM>(); }
};

/// nn.GRU. forward(input, h_0) -> (output, h_n), shapes as LSTM's; through Module::operator() it takes
/// `input` alone and returns {output, h_n}.
class GRU : public RNNBase {
 public:
  explicit GRU(const GRUOptions& options);
  GRU(int64_t input_size, int64_t hidden_size) : GRU(GRUOptions(input_size, hidden_size)) {}

  TensorList forward(Inputs inputs) override;
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
  ForwardSignature forward_signature() const override { return {.arg_names = {"input"}}; }
  std::shared_ptr<Module> clone() const override { return clone_as<GRU>(); }
};

/// nn.RNN, h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu). As GRU otherwise. Throws tl::Error
/// at construction for a nonlinearity other than "tanh" or "relu".
class RNN : public RNNBase {
 public:
  explicit RNN(const RNNOptions& options);
  RNN(int64_t input_size, int64_t hidden_size) : RNN(RNNOptions(input_size, hidden_size)) {}

  TensorList forward(Inputs inputs) override;
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {});
  ForwardSignature forward_signature() const override { return {.arg_names = {"input"}}; }
  std::shared_ptr<Module> clone() const override { return clone_as<RNN>(); }
};

#pragma GCC diagnostic pop

// ---- cells: one time step ----

/// LSTMCellOptions(4, 8).bias(false); RNNCellOptions adds nonlinearity.
template <class Self>
class CellOptions {
 public:
  CellOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}
  int64_t input_size() const { return input_size_; }
  int64_t hidden_size() const { return hidden_size_; }
  Self& bias(bool value) {
    bias_ = value;
    return static_cast<Self&>(*this);
  }
  bool bias() const { return bias_; }

 private:
  int64_t input_size_;
  int64_t hidden_size_;
  bool bias_ = true;
};

struct LSTMCellOptions : CellOptions<LSTMCellOptions> {
  using CellOptions::CellOptions;
};
struct GRUCellOptions : CellOptions<GRUCellOptions> {
  using CellOptions::CellOptions;
};
struct RNNCellOptions : CellOptions<RNNCellOptions> {
  using CellOptions::CellOptions;
  RNNCellOptions& nonlinearity(std::string value) {
    nonlinearity_ = std::move(value);
    return *this;
  }
  const std::string& nonlinearity() const { return nonlinearity_; }

 private:
  std::string nonlinearity_ = "tanh";
};

/// nn.RNNCellBase: parameters weight_ih (gates * hidden_size, input_size), weight_hh (gates * hidden_size,
/// hidden_size), bias_ih, bias_hh (None without bias), drawn U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))
/// in that order. Input (N, input_size) or unbatched (input_size); states (N, hidden_size) or (hidden_size).
class RNNCellBase : public Module {
 public:
  std::string extra_repr() const override;
  void reset_parameters();

 protected:
  /// Throws tl::Error for a hidden_size below 1 or an input_size below 0.
  RNNCellBase(RNNBase::Mode mode, int64_t input_size, int64_t hidden_size, bool bias);
  /// PyTorch's cell forward: hx empty (zeros) or one state per slot (h, or h and c). Returns the new
  /// states. Throws PyTorch's texts for a wrong input dimension, input size or state shape.
  TensorList step(const Tensor& input, const TensorList& hx) const;

  RNNBase::Mode mode_;
  int64_t input_size_;
  int64_t hidden_size_;
  bool bias_;
};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverloaded-virtual"  // as for LSTM above
/// nn.LSTMCell: forward(input, (h, c)) -> (h', c').
class LSTMCell : public RNNCellBase {
 public:
  explicit LSTMCell(const LSTMCellOptions& options);
  LSTMCell(int64_t input_size, int64_t hidden_size) : LSTMCell(LSTMCellOptions(input_size, hidden_size)) {}

  TensorList forward(Inputs inputs) override;
  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     const std::optional<std::tuple<Tensor, Tensor>>& hx = std::nullopt);
  ForwardSignature forward_signature() const override { return {.arg_names = {"input"}}; }
  std::shared_ptr<Module> clone() const override { return clone_as<LSTMCell>(); }
};

#pragma GCC diagnostic pop

/// nn.GRUCell: forward(input, h) -> h'.
class GRUCell : public RNNCellBase {
 public:
  explicit GRUCell(const GRUCellOptions& options);
  GRUCell(int64_t input_size, int64_t hidden_size) : GRUCell(GRUCellOptions(input_size, hidden_size)) {}

  using RNNCellBase::forward;
  Tensor forward(const Tensor& input) override { return forward(input, Tensor()); }
  Tensor forward(const Tensor& input, const Tensor& hx);
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<GRUCell>(); }
};

/// nn.RNNCell: forward(input, h) -> h' (tanh or relu).
class RNNCell : public RNNCellBase {
 public:
  explicit RNNCell(const RNNCellOptions& options);
  RNNCell(int64_t input_size, int64_t hidden_size) : RNNCell(RNNCellOptions(input_size, hidden_size)) {}

  using RNNCellBase::forward;
  Tensor forward(const Tensor& input) override { return forward(input, Tensor()); }
  Tensor forward(const Tensor& input, const Tensor& hx);
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<RNNCell>(); }
};

}  // namespace tl::nn
