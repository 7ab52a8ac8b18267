// nn/functional.h — torch.nn.functional for the layers: PyTorch's F.* argument order and defaults,
// and IntPair, the "int or (h, w)" argument of 2-D layers. Everything calls the ops of ops/ops.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

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
  /// True when given as one int (3), false for a pair ((3, 3)).
  bool is_single() const { return single_; }
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

/// A 2-d convolution's padding as nn.Conv2d and F.conv2d take it: zeros on each side of (h, w) (`1`,
/// `{1, 2}`), or "valid" (none) or "same" (for stride 1: an output as large as the input).
class Padding2d {
 public:
  Padding2d(int64_t both) : value_(IntPair(both)) {}  // NOLINT: 1 reads as (1, 1)
  Padding2d(int64_t h, int64_t w) : value_(IntPair(h, w)) {}
  Padding2d(IntPair zeros) : value_(zeros) {}  // NOLINT
  Padding2d(std::string mode) : value_(std::move(mode)) {}  // NOLINT
  template <size_t N>
  Padding2d(const char (&mode)[N]) : value_(std::string(mode)) {}  // NOLINT: "same"

  /// The zeros per side, or null for "valid" / "same".
  const IntPair* zeros() const { return std::get_if<IntPair>(&value_); }
  /// "valid" or "same", or null for numbers.
  const std::string* mode() const { return std::get_if<std::string>(&value_); }

 private:
  std::variant<IntPair, std::string> value_;
};

/// ATen's _convolution_mode for padding="same": each spatial dim gets dilation * (k - 1) zeros in all,
/// `left` of them on each side by the convolution and the odd one (`extra`, 0 or 1) on the right of the
/// input first.
struct SamePadding {
  Shape left, extra;
};
SamePadding same_padding(const Shape& kernel, const Shape& dilation);
/// A convolution's padding string as PyTorch checks it: "valid" or "same", and "same" only with stride 1;
/// tl::Error naming `op` and the string otherwise.
void check_padding_string(const char* op, const std::string& mode, bool unit_stride);

/// input (N, C_in, H, W) or (C_in, H, W), weight (C_out, C_in / groups, kH, kW), bias (C_out) or undefined.
/// Throws for a padding string other than "valid" and "same", and for "same" with a stride other than 1.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntPair stride = 1,
              const Padding2d& padding = 0, IntPair dilation = 1, int64_t groups = 1);
/// A 1-d convolution's padding as F.conv1d takes it: zeros on both sides, or "valid" (none) or "same"
/// (an output as long as the input, for stride 1; an odd total pads one more on the right).
using Padding1d = std::variant<int64_t, std::string>;
/// input (N, C_in, L) or (C_in, L), weight (C_out, C_in / groups, k), bias (C_out) or undefined. Throws
/// for a padding string other than "valid" and "same", and for "same" with a stride other than 1.
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, int64_t stride = 1,
              const Padding1d& padding = int64_t{0}, int64_t dilation = 1, int64_t groups = 1);
/// input (N, C_in, L) or (C_in, L), weight (C_in, C_out / groups, k), bias (C_out) or undefined
/// -> (N, C_out, (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1).
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, int64_t stride = 1,
                        int64_t padding = 0, int64_t output_padding = 0, int64_t groups = 1, int64_t dilation = 1);
/// input (N, C_in, H, W) or (C_in, H, W), weight (C_in, C_out / groups, kH, kW), bias (C_out) or undefined.
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntPair stride = 1,
                        IntPair padding = 0, IntPair output_padding = 0, int64_t groups = 1, IntPair dilation = 1);
/// F.batch_norm's argument order (running stats first). Training normalises with batch statistics
/// and updates the running stats in place; otherwise the running stats normalise.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false, double momentum = 0.1,
                  double eps = 1e-5);
/// input (*, normalized_shape); weight, bias: normalized_shape or undefined. Each sample normalised over its
/// last normalized_shape.size() dims by their mean and biased variance. Traced as
/// torch.nn.functional.layer_norm(input, normalized_shape, weight = .., bias = .., eps = ..), the shape a tuple.
Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
/// input (N, C, *); weight, bias: C elements or undefined. Each sample's channels split into num_groups groups,
/// each normalised by its own mean and biased variance, then scaled and shifted per channel.
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);
/// input (N, C, *); every (sample, channel) normalised alone when use_input_stats (updating the running
/// statistics given by the mean over the samples), by the running statistics otherwise.
Tensor instance_norm(const Tensor& input, const Tensor& running_mean = {}, const Tensor& running_var = {},
                     const Tensor& weight = {}, const Tensor& bias = {}, bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);
/// F.embedding's keyword arguments, with its defaults (no sparse gradients).
struct EmbeddingFuncOptions {
  std::optional<int64_t> padding_idx;  ///< the row that gets no gradient; negative counts from the end
  /// Each row input names whose norm_type-norm exceeds max_norm is first scaled down to it, in place and
  /// without autograd (embedding_renorm_), as PyTorch's F.embedding.
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
};
/// input (*) int64 / int32 indices into weight (num_embeddings, embedding_dim) -> (*, embedding_dim).
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});
/// F.embedding_bag's keyword arguments, with its defaults.
struct EmbeddingBagFuncOptions {
  Tensor offsets;  ///< (B) or (B + 1) with include_last_offset: where each bag of a 1-D input starts
  std::optional<double> max_norm;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";  ///< "sum", "mean" or "max"
  bool sparse = false;        ///< true is refused: no sparse gradients
  Tensor per_sample_weights;  ///< as input, mode "sum" only: each row scaled before the sum
  bool include_last_offset = false;
  std::optional<int64_t> padding_idx;  ///< rows skipped (not counted by mean); negative counts from the end
};
/// input (B, L) (bags of L indices) or (n) with options.offsets -> (B, embedding_dim): per bag the sum, mean or
/// elementwise max of its rows of weight (num_embeddings, embedding_dim); an empty bag gives zeros. One
/// _embedding_bag op (EmbeddingBagBackward0). Throws PyTorch's texts for inconsistent arguments.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});
/// input1 (*, in1), input2 (*, in2), weight (out, in1, in2), bias (out) or undefined -> (*, out).
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});
/// With inplace the input is overwritten and returned (same tensor). Traced as one call_function node,
/// torch.nn.functional.relu(input, inplace = False), as torch.fx records F.relu (core/named_call.h); the other
/// F.* traced so say so below, the rest trace as the ops they run.
Tensor relu(const Tensor& input, bool inplace = false);
/// x * relu6(x + 3) / 6. With inplace the input is overwritten and returned (the same holds below).
Tensor hardswish(const Tensor& input, bool inplace = false);
/// x * sigmoid(x).
Tensor silu(const Tensor& input, bool inplace = false);
/// x * Phi(x), or its tanh approximation for approximate "tanh"; throws tl::Error for another string.
Tensor gelu(const Tensor& input, const std::string& approximate = "none");
/// x * tanh(softplus(x)).
Tensor mish(const Tensor& input, bool inplace = false);
/// x for x > 0, negative_slope * x otherwise. With inplace the input is overwritten and returned.
Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01, bool inplace = false);
/// x for x > 0, alpha * (exp(x) - 1) otherwise. With inplace the input is overwritten and returned.
Tensor elu(const Tensor& input, double alpha = 1.0, bool inplace = false);
/// log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold.
Tensor softplus(const Tensor& input, const Scalar& beta = 1, const Scalar& threshold = 20);
/// relu6(x + 3) / 6.
Tensor hardsigmoid(const Tensor& input, bool inplace = false);
/// x clamped to [min_val, max_val]; an integral input keeps its dtype.
Tensor hardtanh(const Tensor& input, const Scalar& min_val = -1.0, const Scalar& max_val = 1.0, bool inplace = false);
/// hardtanh(x, 0, 6), as PyTorch's relu6 (aten::relu6 over aten::hardtanh in a profile).
Tensor relu6(const Tensor& input, bool inplace = false);
/// x for x > 0, weight * x otherwise; weight holds one value or one per channel (input's dim 1).
Tensor prelu(const Tensor& input, const Tensor& weight);
/// stride defaults to kernel_size. Traced as one call_function node: torch.nn.functional.max_pool2d(input,
/// kernel_size, stride=..., padding=..., dilation=..., ceil_mode=..., return_indices=False), the form F.max_pool2d
/// passes to torch.fx whatever the caller wrote.
Tensor max_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride = std::nullopt,
                  IntPair padding = 0, IntPair dilation = 1, bool ceil_mode = false);
/// F.avg_pool2d with its arguments positional: traced as torch._C._nn.avg_pool2d(input, kernel_size, ...) with
/// the arguments up to the last one not at its default, as a Python caller writes them (F.avg_pool2d is a C
/// builtin, so torch.fx records the call as written).
Tensor avg_pool2d(const Tensor& input, IntPair kernel_size, std::optional<IntPair> stride = std::nullopt,
                  IntPair padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
/// F.avg_pool2d's arguments by keyword, each field set one keyword argument as a Python caller names it:
/// `F::avg_pool2d(x, {.kernel_size = 3, .stride = 1, .padding = 1})` is F.avg_pool2d(x, kernel_size=3,
/// stride=1, padding=1) and traces as torch._C._nn.avg_pool2d(x, kernel_size = 3, stride = 1, padding = 1).
struct AvgPool2dKwargs {
  IntPair kernel_size;
  std::optional<IntPair> stride = std::nullopt;  ///< none given: kernel_size
  std::optional<IntPair> padding = std::nullopt;
  std::optional<bool> ceil_mode = std::nullopt;
  std::optional<bool> count_include_pad = std::nullopt;
  std::optional<int64_t> divisor_override = std::nullopt;
};
Tensor avg_pool2d(const Tensor& input, const AvgPool2dKwargs& kwargs);
/// Traced as torch.nn.functional.adaptive_avg_pool2d(input, output_size), output_size as given (1 or (1, 1)).
Tensor adaptive_avg_pool2d(const Tensor& input, IntPair output_size);
/// The 1-d pools over input (N, C, L) or (C, L); stride = nullopt (None) means stride = kernel_size. The
/// _with_indices forms also return the maxima's positions along L (int64).
Tensor max_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride = std::nullopt,
                  int64_t padding = 0, int64_t dilation = 1, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, int64_t kernel_size,
                                                   std::optional<int64_t> stride = std::nullopt, int64_t padding = 0,
                                                   int64_t dilation = 1, bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride = std::nullopt,
                  int64_t padding = 0, bool ceil_mode = false, bool count_include_pad = true);
Tensor adaptive_avg_pool1d(const Tensor& input, int64_t output_size);
Tensor adaptive_max_pool1d(const Tensor& input, int64_t output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, int64_t output_size);
/// F.adaptive_max_pool2d: the maxima only, and with return_indices their flat h * W + w within each plane.
Tensor adaptive_max_pool2d(const Tensor& input, IntPair output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, IntPair output_size);
/// Throws tl::Error unless 0 <= p <= 1. Identity when not training. With inplace the result is
/// written into `input`. Traced as torch.nn.functional.dropout(input, p = .., training = .., inplace = ..).
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
/// Zeroes whole channels of input (N, C, *): one draw per (sample, channel). Checks p as dropout does.
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);

// ---- padding, resizing and sliding blocks ----
/// F.pad: `pad` holds (before, after) pairs from the last dim backwards. mode "constant" pads any dims
/// with `value` (default 0; negative pads crop); "reflect" and "replicate" pad the last dim of a 2-D or
/// 3-D input (2 values) or the last two of a 3-D or 4-D input (4 values); "circular" wraps the last one
/// or two dims of a 3-D or 4-D (N, C, ...) input around. Throws tl::Error with PyTorch's messages.
Tensor pad(const Tensor& input, const Shape& pad, const std::string& mode = "constant",
           std::optional<double> value = std::nullopt);

/// F.interpolate's arguments: exactly one of size and scale_factor (one value for both H and W, or one
/// each), mode "nearest" or "bilinear"; align_corners only for "bilinear" (false when not given);
/// recompute_scale_factor computes the output size from scale_factor and then interpolates by sizes alone.
struct InterpolateFuncOptions {
  std::optional<std::vector<int64_t>> size = std::nullopt;
  std::optional<std::vector<double>> scale_factor = std::nullopt;
  std::string mode = "nearest";
  std::optional<bool> align_corners = std::nullopt;
  std::optional<bool> recompute_scale_factor = std::nullopt;
};
/// input (N, C, H, W) -> (N, C, H_out, W_out), H_out = size or floor(H * scale_factor).
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options);

/// F.unfold: input (N, C, H, W) -> (N, C * kH * kW, L), each column one sliding block.
Tensor unfold(const Tensor& input, IntPair kernel_size, IntPair dilation = 1, IntPair padding = 0, IntPair stride = 1);
/// F.fold: input (N, C * kH * kW, L) -> (N, C, output_size), overlapping blocks summed.
Tensor fold(const Tensor& input, IntPair output_size, IntPair kernel_size, IntPair dilation = 1, IntPair padding = 0,
            IntPair stride = 1);

// ---- softmax and losses (reduction "mean", "sum" or "none", as PyTorch's F.* take it) ----
/// Reduction::None / Mean / Sum for "none" / "mean" / "sum"; throws tl::Error naming `who` otherwise.
int64_t reduction_enum(const std::string& reduction, const char* who);
/// Along `dim`, `input` converted to `dtype` first when given.
Tensor softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype = std::nullopt);
/// input (N, C), (C) or (N, C, d1, ...) log-probabilities; target (N), () or (N, d1, ...) int64 classes.
/// Traced as torch.nn.functional.nll_loss(input, target, weight = .., size_average = None,
/// ignore_index = .., reduce = None, reduction = ..), as torch.fx records F.nll_loss.
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                const std::string& reduction = "mean");
/// input logits as for nll_loss; target class indices or, of input's shape and dtype, class probabilities.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                     const std::string& reduction = "mean", double label_smoothing = 0.0);
/// input and target of one shape; a target of another shape is broadcast against the input, with
/// PyTorch's warning (as F.mse_loss, F.l1_loss, F.smooth_l1_loss and F.huber_loss do). mse_loss is traced as
/// torch.nn.functional.mse_loss(input, target, size_average = None, reduce = None, reduction = ..).
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
/// Throws tl::Error for beta < 0.
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                      double beta = 1.0);
/// Throws tl::Error for delta <= 0.
Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
                  double delta = 1.0);
/// input probabilities in [0, 1] and target of one shape (else tl::Error, as PyTorch's ValueError);
/// weight broadcasts to target's shape.
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            const std::string& reduction = "mean");
/// input logits and target of one shape; weight and pos_weight (the positives' weight, per class along
/// the last dim) broadcast to it.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                        const std::string& reduction = "mean", const Tensor& pos_weight = {});
/// input log-probabilities; target probabilities (log-probabilities with log_target). reduction also
/// "batchmean": the sum divided by input.size(0); "mean" warns as PyTorch's does.
Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction = "mean",
              bool log_target = false);
/// input1, input2 (N, D) with target (N) of 1 / -1, or (D) with a 0-d target.
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             const std::string& reduction = "mean");
/// input1, input2 and target (1 / -1) of one rank.
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           const std::string& reduction = "mean");
/// anchor, positive, negative (N, D) or (D); distances by pairwise_distance(p, eps).
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin = 1.0,
                           double p = 2.0, double eps = 1e-6, bool swap = false, const std::string& reduction = "mean");

namespace detail {
/// The losses' torch.broadcast_tensors(input, target) (F.mse_loss, l1_loss, smooth_l1_loss, huber_loss): a
/// target of another shape is broadcast against the input, with PyTorch's warning; `who` names the loss.
std::pair<Tensor, Tensor> broadcast_loss_operands(const Tensor& input, const Tensor& target, const char* who);
}  // namespace detail

// ---- distances and encodings ----
/// int64 classes -> int64 one-hot rows along a new last dim of num_classes (-1: the largest class + 1).
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
/// input / max(||input||_p along dim, eps).
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);
/// The cosine of the angle between x1 and x2 (broadcast) along dim.
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);
/// ||x1 - x2 + eps||_p along the last dim.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6, bool keepdim = false);

}  // namespace functional
}  // namespace tl::nn
