// nn/functional.cpp — F.* wrappers: argument conversion and PyTorch's argument checks, then the op.
#include "nn/functional.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/grad_mode.h"
#include "core/py_repr.h"
#include "core/record_function.h"
#include "core/warning.h"
#include "nn/repr.h"

namespace tl::nn {

std::string IntPair::repr() const { return single_ ? std::to_string(h_) : tuple_repr(); }
std::string IntPair::tuple_repr() const { return py_tuple(h_, w_); }

namespace functional {

SamePadding same_padding(const Shape& kernel, const Shape& dilation) {
  SamePadding p;
  for (int64_t d = 0; d < kernel.size(); ++d) {
    const int64_t total = dilation[d] * (kernel[d] - 1);
    p.left.push_back(total / 2);
    p.extra.push_back(total - 2 * (total / 2));
  }
  return p;
}

void check_padding_string(const char* op, const std::string& mode, bool unit_stride) {
  TL_CHECK(mode == "valid" || mode == "same", op, ": invalid padding string '", mode,
           "', should be one of {'valid', 'same'}");
  TL_CHECK(mode != "same" || unit_stride, op, ": padding='same' is not supported for strided convolutions");
}

namespace {

// The input padded on the right of each spatial dim by padding.extra (the odd zero of "same"), as ATen's
// _convolution_mode pads it before the convolution.
Tensor pad_extra(const Tensor& input, const SamePadding& padding) {
  std::vector<int64_t> pad;
  bool any = false;
  for (auto d = padding.extra.size(); d-- > 0;) {
    pad.insert(pad.end(), {0, padding.extra[d]});
    any = any || padding.extra[d] != 0;
  }
  return any ? tl::constant_pad_nd(input, Shape(pad), 0) : input;
}

// The weight's spatial sizes (its last `spatial` dims), or ones for a weight of another rank (the kernel
// then refuses it with its own message).
Shape kernel_of(const Tensor& weight, int64_t spatial) {
  Shape k;
  for (int64_t d = 0; d < spatial; ++d) k.push_back(weight.dim() == spatial + 2 ? weight.size(d + 2) : 1);
  return k;
}

}  // namespace

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, const Padding2d& padding,
              IntPair dilation, int64_t groups) {
  if (const IntPair* zeros = padding.zeros())
    return tl::conv2d(input, weight, bias, stride.shape(), zeros->shape(), dilation.shape(), groups);
  check_padding_string("conv2d", *padding.mode(), stride.all_equal(1));
  if (*padding.mode() == "valid") return tl::conv2d(input, weight, bias, stride.shape(), {0, 0}, dilation.shape(), groups);
  const SamePadding same = same_padding(kernel_of(weight, 2), dilation.shape());
  return tl::conv2d(pad_extra(input, same), weight, bias, stride.shape(), same.left, dilation.shape(), groups);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, const Padding1d& padding,
              int64_t dilation, int64_t groups) {
  if (const int64_t* zeros = std::get_if<int64_t>(&padding))
    return tl::conv1d(input, weight, bias, {stride}, {*zeros}, {dilation}, groups);
  const std::string& mode = std::get<std::string>(padding);
  check_padding_string("conv1d", mode, stride == 1);
  if (mode == "valid") return tl::conv1d(input, weight, bias, {stride}, {0}, {dilation}, groups);
  const SamePadding same = same_padding(kernel_of(weight, 1), {dilation});
  return tl::conv1d(pad_extra(input, same), weight, bias, {stride}, same.left, {dilation}, groups);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, int64_t stride, int64_t padding,
                        int64_t output_padding, int64_t groups, int64_t dilation) {
  return tl::conv_transpose1d(input, weight, bias, {stride}, {padding}, {output_padding}, groups, {dilation});
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntPair stride, IntPair padding,
                        IntPair output_padding, int64_t groups, IntPair dilation) {
  return tl::conv_transpose2d(input, weight, bias, stride.shape(), padding.shape(), output_padding.shape(), groups,
                              dilation.shape());
}

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  return tl::batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, true);
}

Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  TL_CHECK(input.is_proxy() || input.dim() >= 2,
           "group_norm: expected at least 2 dimensions for input tensor but received ", input.dim());
  return tl::group_norm(input, num_groups, weight, bias, eps);
}

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  return tl::instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, true);
}

namespace {

/// PyTorch's _no_grad_embedding_renorm_: the rows `input` names scaled to max_norm in place, unrecorded.
void no_grad_embedding_renorm_(const Tensor& weight, const Tensor& input, double max_norm, double norm_type) {
  NoGradGuard no_grad;
  tl::embedding_renorm_(weight.detach(), input, max_norm, norm_type);
}

}  // namespace

Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  const EmbeddingFuncOptions& o = options;
  int64_t padding = -1;
  if (o.padding_idx) {
    const int64_t n = weight.size(0);
    TL_CHECK(*o.padding_idx < n && *o.padding_idx >= -n, "embedding: padding_idx must be within num_embeddings (",
             n, "), got ", *o.padding_idx);
    padding = *o.padding_idx < 0 ? *o.padding_idx + n : *o.padding_idx;
  }
  if (o.max_norm) no_grad_embedding_renorm_(weight, input, *o.max_norm, o.norm_type);
  return tl::embedding(weight, input, padding, o.scale_grad_by_freq);
}

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options) {
  const EmbeddingBagFuncOptions& o = options;
  TL_CHECK(!o.per_sample_weights.defined() || o.per_sample_weights.shape() == input.shape(),
           "embedding_bag: If per_sample_weights (", py_size(o.per_sample_weights.shape().vec()),
           ") is not None, then it must have the same shape as the input (", py_size(input.shape().vec()), ")");
  Tensor indices = input, offsets = o.offsets, per_sample_weights = o.per_sample_weights;
  if (input.dim() == 2) {
    TL_CHECK(!offsets.defined(), "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
             "fixed length sequences. However, found offsets of type <class 'torch.Tensor'>");
    offsets = arange(0, input.numel(), input.size(1), input.dtype());
    indices = input.reshape({-1});
    if (per_sample_weights.defined()) per_sample_weights = per_sample_weights.reshape({-1});
  } else if (input.dim() == 1) {
    TL_CHECK(offsets.defined(), "offsets has to be a 1D Tensor but got None");
    TL_CHECK(offsets.dim() == 1, "offsets has to be a 1D Tensor");
  } else {
    TL_CHECK(false, "input has to be 1D or 2D Tensor, but got Tensor of dimension ", input.dim());
  }
  int64_t mode = 0;
  if (o.mode == "mean") {
    mode = 1;
  } else if (o.mode == "max") {
    mode = 2;
    TL_CHECK(!o.scale_grad_by_freq, "max mode does not support scaling the gradient by the frequency");
    TL_CHECK(!o.sparse, "max mode does not support sparse weights");
  } else {
    TL_CHECK(o.mode == "sum", "mode has to be one of sum, mean or max");
  }
  TL_CHECK(!per_sample_weights.defined() || mode == 0,
           "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' (got "
           "mode='", o.mode, "'). Please open a feature request on GitHub.");
  int64_t padding = -1;
  if (o.padding_idx) {
    const int64_t n = weight.size(0);
    TL_CHECK(*o.padding_idx >= -n && *o.padding_idx < n, "padding_idx must be within the number of embeddings, -", n,
             " through ", n - 1, ", but got ", *o.padding_idx);
    padding = *o.padding_idx < 0 ? *o.padding_idx + n : *o.padding_idx;
  }
  if (o.max_norm) no_grad_embedding_renorm_(weight, indices, *o.max_norm, o.norm_type);
  return std::get<0>(tl::_embedding_bag(weight, indices, offsets, o.scale_grad_by_freq, mode, o.sparse,
                                        per_sample_weights, o.include_last_offset, padding));
}

Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  return tl::bilinear(input1, input2, weight, bias);
}

Tensor hardswish(const Tensor& input, bool inplace) {
  return inplace ? tl::hardswish_(input) : tl::hardswish(input);
}

Tensor silu(const Tensor& input, bool inplace) { return inplace ? tl::silu_(input) : tl::silu(input); }

Tensor gelu(const Tensor& input, const std::string& approximate) { return tl::gelu(input, approximate); }

Tensor mish(const Tensor& input, bool inplace) { return inplace ? tl::mish_(input) : tl::mish(input); }

Tensor leaky_relu(const Tensor& input, double negative_slope, bool inplace) {
  return inplace ? tl::leaky_relu_(input, negative_slope) : tl::leaky_relu(input, negative_slope);
}

Tensor elu(const Tensor& input, double alpha, bool inplace) {
  return inplace ? tl::elu_(input, alpha) : tl::elu(input, alpha);
}

Tensor softplus(const Tensor& input, const Scalar& beta, const Scalar& threshold) {
  return tl::softplus(input, beta, threshold);
}

Tensor hardsigmoid(const Tensor& input, bool inplace) {
  return inplace ? tl::hardsigmoid_(input) : tl::hardsigmoid(input);
}

Tensor hardtanh(const Tensor& input, const Scalar& min_val, const Scalar& max_val, bool inplace) {
  return inplace ? tl::hardtanh_(input, min_val, max_val) : tl::hardtanh(input, min_val, max_val);
}

Tensor relu6(const Tensor& input, bool inplace) { return inplace ? tl::relu6_(input) : tl::relu6(input); }

Tensor prelu(const Tensor& input, const Tensor& weight) { return tl::prelu(input, weight); }

Tensor max_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride, int64_t padding,
                  int64_t dilation, bool ceil_mode) {
  return tl::max_pool1d(input, {kernel_size}, stride ? Shape{*stride} : Shape{}, {padding}, {dilation}, ceil_mode);
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, int64_t kernel_size,
                                                   std::optional<int64_t> stride, int64_t padding, int64_t dilation,
                                                   bool ceil_mode) {
  return tl::max_pool1d_with_indices(input, {kernel_size}, stride ? Shape{*stride} : Shape{}, {padding}, {dilation},
                                     ceil_mode);
}

Tensor avg_pool1d(const Tensor& input, int64_t kernel_size, std::optional<int64_t> stride, int64_t padding,
                  bool ceil_mode, bool count_include_pad) {
  return tl::avg_pool1d(input, {kernel_size}, stride ? Shape{*stride} : Shape{}, {padding}, ceil_mode,
                        count_include_pad);
}

Tensor adaptive_avg_pool1d(const Tensor& input, int64_t output_size) {
  return tl::adaptive_avg_pool1d(input, {output_size});
}

Tensor adaptive_max_pool1d(const Tensor& input, int64_t output_size) {
  return std::get<0>(tl::adaptive_max_pool1d(input, {output_size}));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input, int64_t output_size) {
  return tl::adaptive_max_pool1d(input, {output_size});
}

Tensor adaptive_max_pool2d(const Tensor& input, IntPair output_size) {
  return std::get<0>(tl::adaptive_max_pool2d(input, output_size.shape()));
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input, IntPair output_size) {
  return tl::adaptive_max_pool2d(input, output_size.shape());
}

namespace {

/// ATen's _pad_circular through views and cat (autograd records those): each padded dim of the (N, C, ...)
/// input, cropped by its negative pads, gets its last `before` and first `after` elements wrapped around.
Tensor pad_circular(const Tensor& input, const Shape& pad) {
  const int64_t dims = static_cast<int64_t>(pad.size()) / 2;
  TL_CHECK(input.dim() == dims + 2, "pad: invalid padding size, expected ", 2 * (input.dim() - 2), " but got ",
           pad.size(), " for circular padding of input ", input.shape());
  Tensor out = input;
  for (int64_t i = 0; i < dims; ++i) {
    const int64_t d = input.dim() - 1 - i, before = pad[2 * i], after = pad[2 * i + 1], size = input.size(d);
    TL_CHECK(before <= size && after <= size, "pad: padding value causes wrapping around more than once.");
    TL_CHECK(size + before + after >= 0, "pad: negative padding value is resulting in an empty dimension");
    const int64_t start = std::max<int64_t>(-before, 0);
    out = out.narrow(d, start, size - start - std::max<int64_t>(-after, 0));
    std::vector<Tensor> parts;
    if (before > 0) parts.push_back(out.narrow(d, out.size(d) - before, before));
    parts.push_back(out);
    if (after > 0) parts.push_back(out.narrow(d, 0, after));
    if (parts.size() > 1) out = tl::cat(parts, d);
  }
  return out.contiguous();
}

}  // namespace

Tensor pad(const Tensor& input, const Shape& pad, const std::string& mode, std::optional<double> value) {
  const int64_t dim = input.dim(), n = static_cast<int64_t>(pad.size());
  TL_CHECK(n % 2 == 0, "pad: padding length must be divisible by 2");
  TL_CHECK(n <= 2 * dim, "pad: padding length too large: ", n, " values for input ", input.shape());
  if (mode == "constant") return tl::constant_pad_nd(input, pad, value.value_or(0.0));
  TL_CHECK(mode == "reflect" || mode == "replicate" || mode == "circular", "pad: unrecognised padding mode ", mode);
  TL_CHECK(!value || *value == 0.0, "pad: padding mode \"", mode, "\" doesn't take in value argument");
  if (mode == "circular") return pad_circular(input, pad);
  const bool reflect = mode == "reflect";
  if (n == 2 && (dim == 2 || dim == 3))
    return reflect ? tl::reflection_pad1d(input, pad) : tl::replication_pad1d(input, pad);
  if (n == 4 && (dim == 3 || dim == 4))
    return reflect ? tl::reflection_pad2d(input, pad) : tl::replication_pad2d(input, pad);
  TL_CHECK(false, "pad: mode \"", mode, "\" pads the last dim of a 2-D or 3-D input (2 values) or the last two of a "
           "3-D or 4-D input (4 values), got ", n, " values for input ", input.shape());
  return {};
}

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& o) {
  const char* who = "interpolate";
  const bool bilinear = o.mode == "bilinear";
  TL_CHECK(bilinear || o.mode == "nearest", who, ": mode must be 'nearest' or 'bilinear', got '", o.mode, "'");
  TL_CHECK(bilinear || !o.align_corners, who, ": align_corners option can only be set with the interpolating modes: "
           "linear | bilinear | bicubic | trilinear");
  TL_CHECK(!(o.size && o.scale_factor), who, ": only one of size or scale_factor should be defined");
  TL_CHECK(o.size || o.scale_factor, who, ": either size or scale_factor should be defined");
  TL_CHECK(!(o.recompute_scale_factor.value_or(false) && o.size), who,
           ": recompute_scale_factor is not meaningful with an explicit size.");
  TL_CHECK(input.dim() == 4, who, ": mode '", o.mode, "' needs 4-D input (N, C, H, W), got ", input.dim(), "-D input ",
           input.shape());
  const Shape spatial{input.size(2), input.size(3)};
  Shape output_size(size_t{2});
  std::optional<double> scale_h, scale_w;
  if (o.size) {
    const std::vector<int64_t>& size = *o.size;
    TL_CHECK(size.size() == 1 || size.size() == 2, who, ": input and output must have the same number of spatial "
             "dimensions, but got input with spatial dimensions of ", spatial, " and output size of ",
             Shape(size), ".");
    output_size = Shape{size.front(), size.back()};
  } else {
    const std::vector<double>& scale = *o.scale_factor;
    TL_CHECK(scale.size() == 1 || scale.size() == 2, who, ": input and scale_factor must have the same number of "
             "spatial dimensions, but got input with spatial dimensions of ", spatial, " and scale_factor of ",
             scale.size(), " values.");
    for (int d = 0; d < 2; ++d) {
      const double factor = d == 0 ? scale.front() : scale.back();
      output_size[d] = static_cast<int64_t>(std::floor(static_cast<double>(spatial[d]) * factor));
    }
    if (!o.recompute_scale_factor.value_or(false)) scale_h = scale.front(), scale_w = scale.back();
  }
  if (bilinear) return tl::upsample_bilinear2d(input, output_size, o.align_corners.value_or(false), scale_h, scale_w);
  return tl::upsample_nearest2d(input, output_size, scale_h, scale_w);
}

Tensor unfold(const Tensor& input, IntPair kernel_size, IntPair dilation, IntPair padding, IntPair stride) {
  return tl::im2col(input, kernel_size.shape(), dilation.shape(), padding.shape(), stride.shape());
}

Tensor fold(const Tensor& input, IntPair output_size, IntPair kernel_size, IntPair dilation, IntPair padding,
            IntPair stride) {
  return tl::col2im(input, output_size.shape(), kernel_size.shape(), dilation.shape(), padding.shape(), stride.shape());
}

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout2d: dropout probability has to be between 0 and 1, but got ", p);
  if (!inplace) return tl::feature_dropout(input, p, training);
  Tensor out = input;
  if (training) out.copy_(tl::feature_dropout(input, p, training));
  return out;
}

int64_t reduction_enum(const std::string& reduction, const char* who) {
  if (reduction == "none") return Reduction::None;
  if (reduction == "mean") return Reduction::Mean;
  TL_CHECK(reduction == "sum", who, ": '", reduction,
           "' is not a valid value for reduction (expected 'none', 'mean' or 'sum')");
  return Reduction::Sum;
}

Tensor softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype) { return tl::softmax(input, dim, dtype); }
Tensor log_softmax(const Tensor& input, int64_t dim, std::optional<DType> dtype) {
  return tl::log_softmax(input, dim, dtype);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     const std::string& reduction, double label_smoothing) {
  return tl::cross_entropy_loss(input, target, weight, reduction_enum(reduction, "cross_entropy"), ignore_index,
                                label_smoothing);
}

namespace {

std::string size_repr(const Tensor& t) { return tl::detail::str_cat("torch.Size(", t.sizes(), ")"); }

}  // namespace

namespace detail {

// Of one shape, the op has no work (only its scope is recorded).
std::pair<Tensor, Tensor> broadcast_loss_operands(const Tensor& input, const Tensor& target, const char* who) {
  { RecordFunction broadcast("aten::broadcast_tensors", [] { return ScopeArgs{AttrValue{}}; }); }
  if (input.sizes() == target.sizes()) return {input, target};
  warn("Using a target size (", size_repr(target), ") that is different to the input size (", size_repr(input),
       "). This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.");
  const Shape shape = broadcast_shapes(input.sizes(), target.sizes(), who);
  return {input.expand(shape), target.expand(shape)};
}

}  // namespace detail

using detail::broadcast_loss_operands;

Tensor l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction) {
  const int64_t r = reduction_enum(reduction, "l1_loss");
  const auto [x, y] = broadcast_loss_operands(input, target, "l1_loss");
  return tl::l1_loss(x, y, r);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double beta) {
  const int64_t r = reduction_enum(reduction, "smooth_l1_loss");
  const auto [x, y] = broadcast_loss_operands(input, target, "smooth_l1_loss");
  return tl::smooth_l1_loss(x, y, r, beta);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, const std::string& reduction, double delta) {
  const int64_t r = reduction_enum(reduction, "huber_loss");
  const auto [x, y] = broadcast_loss_operands(input, target, "huber_loss");
  return tl::huber_loss(x, y, r, delta);
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            const std::string& reduction) {
  const int64_t r = reduction_enum(reduction, "binary_cross_entropy");
  TL_CHECK(target.sizes() == input.sizes(), "binary_cross_entropy: Using a target size (", size_repr(target),
           ") that is different to the input size (", size_repr(input),
           ") is deprecated. Please ensure they have the same size.");
  const Tensor w =
      weight.defined() ? weight.expand(broadcast_shapes(target.sizes(), weight.sizes(), "binary_cross_entropy")) : weight;
  return tl::binary_cross_entropy(input, target, w, r);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const std::string& reduction, const Tensor& pos_weight) {
  const int64_t r = reduction_enum(reduction, "binary_cross_entropy_with_logits");
  TL_CHECK(target.sizes() == input.sizes(), "binary_cross_entropy_with_logits: Target size (", size_repr(target),
           ") must be the same as input size (", size_repr(input), ")");
  return tl::binary_cross_entropy_with_logits(input, target, weight, pos_weight, r);
}

Tensor kl_div(const Tensor& input, const Tensor& target, const std::string& reduction, bool log_target) {
  if (reduction == "batchmean") {
    TL_CHECK(input.dim() != 0, "kl_div: reduction 'batchmean' needs a batch dim, got a 0-d input");
    return tl::kl_div(input, target, Reduction::Sum, log_target) / input.size(0);
  }
  if (reduction == "mean")
    warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
         "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
         "'mean' will be changed to behave the same as 'batchmean' in the next major release.");
  return tl::kl_div(input, target, reduction_enum(reduction, "kl_div"), log_target);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             const std::string& reduction) {
  return tl::cosine_embedding_loss(input1, input2, target, margin, reduction_enum(reduction, "cosine_embedding_loss"));
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           const std::string& reduction) {
  const int64_t r = reduction_enum(reduction, "margin_ranking_loss");
  TL_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(),
           "margin_ranking_loss : All input tensors should have same dimension but got sizes: input1: ",
           size_repr(input1), ", input2: ", size_repr(input2), ", target: ", size_repr(target), " ");
  return tl::margin_ranking_loss(input1, input2, target, margin, r);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, const std::string& reduction) {
  return tl::triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction_enum(reduction, "triplet_margin_loss"));
}

Tensor one_hot(const Tensor& tensor, int64_t num_classes) { return tl::one_hot(tensor, num_classes); }

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  const Tensor denom = input.norm(p, dim, true).clamp_min(eps).expand(input.sizes());
  return input / denom;
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  return tl::cosine_similarity(x1, x2, dim, eps);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  return tl::pairwise_distance(x1, x2, p, eps, keepdim);
}

}  // namespace functional
}  // namespace tl::nn
