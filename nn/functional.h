// nn/functional.h — torch.nn.functional for the layers: PyTorch's F.* argument order and defaults,
// and IntPair, the "int or (h, w)" argument of 2-D layers. Everything calls the ops of ops/ops.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/tensor.h"
#include "ops/ops.h"

namespace tl::nn {

/// An int or a pair of ints, like PyTorch's 2-D layer arguments: `3` means (3, 3). It remembers
/// which form it was given in, because pooling layers print it back as given ("kernel_size=3").
class IntPair {
 public:
  IntPair(int64_t both) : h_(both), w_(both), single_(true) {}  // NOLINT: 3 reads as (3, 3)
  IntPair(int64_t h, int64_t w) : h_(h), w_(w), single_(false) {}

  int64_t h() const { return h_; }
  int64_t w() const { return w_; }
  Shape shape() const { return {h_, w_}; }
  bool all_equal(int64_t v) const { return h_ == v && w_ == v; }
  /// "3" when given as one int, "(3, 5)" otherwise.
  std::string repr() const;
  /// Always "(3, 3)" (Conv2d stores its arguments as tuples).
  std::string tuple_repr() const;

  friend bool operator==(const IntPair& a, const IntPair& b) { return a.h_ == b.h_ && a.w_ == b.w_; }

 private:
  int64_t h_, w_;
  bool single_;
};

namespace functional {

using tl::linear;

/// input (N, C_in, H, W), weight (C_out, C_in / groups, kH, kW), bias (C_out) or undefined.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntPair stride = 1,
              IntPair padding = 0, IntPair dilation = 1, int64_t groups = 1);
/// F.batch_norm's argument order (running stats first). Training normalises with batch statistics
/// and updates the running stats in place; otherwise the running stats normalise.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false, double momentum = 0.1,
                  double eps = 1e-5);
/// With inplace the input is overwritten and returned (same tensor).
Tensor relu(const Tensor& input, bool inplace = false);
/// x * relu6(x + 3) / 6 (F.hardswish without its inplace form).
Tensor hardswish(const Tensor& input);
/// x * sigmoid(x) (F.silu without its inplace form).
Tensor silu(const Tensor& input);
/// x * Phi(x), or its tanh approximation for approximate "tanh"; throws tl::Error for another string.
Tensor gelu(const Tensor& input, const std::string& approximate = "none");
/// x * tanh(softplus(x)) (F.mish without its inplace form).
Tensor mish(const Tensor& input);
/// x for x > 0, negative_slope * x otherwise. With inplace the input is overwritten and returned.
Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01, bool inplace = false);
/// x for x > 0, alpha * (exp(x) - 1) otherwise. With inplace the input is overwritten and returned.
Tensor elu(const Tensor& input, double alpha = 1.0, bool inplace = false);
/// log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold.
Tensor softplus(const Tensor& input, const Scalar& beta = 1, const Scalar& threshold = 20);
/// relu6(x + 3) / 6 (F.hardsigmoid without its inplace form).
Tensor hardsigmoid(const Tensor& input);
/// x clamped to [min_val, max_val]; an integral input keeps its dtype (F.hardtanh without its inplace form).
Tensor hardtanh(const Tensor& input, const Scalar& min_val = -1.0, const Scalar& max_val = 1.0);
/// hardtanh(x, 0, 6), as PyTorch's relu6 (F.relu6 without its inplace form).
Tensor relu6(const Tensor& input);
/// x for x > 0, weight * x otherwise; weight holds one value or one per channel (input's dim 1).
Tensor prelu(const Tensor& input, const Tensor& weight);
/// stride defaults to kernel_size.
Tensor max_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride = std::nullopt,
                  IntPair padding = 0, IntPair dilation = 1, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride = std::nullopt,
                  IntPair padding = 0, bool ceil_mode = false, bool count_include_pad = true);
Tensor adaptive_avg_pool2d(const Tensor& input, IntPair output_size);
/// Throws tl::Error unless 0 <= p <= 1. Identity when not training. With inplace the result is
/// written into `input`.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);


// ---- softmax and losses (reduction "mean", "sum" or "none", as PyTorch's F.* take it) ----
/// Reduction::None / Mean / Sum for "none" / "mean" / "sum"; throws tl::Error naming `who` otherwise.
int64_t reduction_enum(const std::string& reduction, const char* who);
/// Along `dim`, `input` converted to `dtype` first when given.
Tensor softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
/// input (N, C), (C) or (N, C, d1, ...) log-probabilities; target (N), () or (N, d1, ...) int64 classes.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                const std::string& reduction = "mean");
/// input logits as for nll_loss; target class indices or, of input's shape and dtype, class probabilities.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                     const std::string& reduction = "mean", double label_smoothing = 0.0);
/// input and target of one shape.
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");

}  // namespace functional
}  // namespace tl::nn
