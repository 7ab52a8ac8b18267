// ops/loss_composite.cpp — nll_loss, nll_loss_nd, cross_entropy_loss, l1_loss, kl_div and the embedding and
// margin losses, composed only of other ops (no loops of their own), so autograd records each part; the
// arithmetic and the calls follow PyTorch 1.13's LossNLL.cpp and Loss.cpp (cross_entropy -> log_softmax with
// the input's dtype, nll_loss_nd -> nll_loss, triplet_margin_loss -> pairwise_distance).
#include <cmath>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/record_function.h"
#include "ops/loss.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

// (N, C, d1, ...) -> (N * d1 * ..., C) and its target (N, d1, ...) -> (N * d1 * ...): nll_loss_forward's shapes.
Tensor nll_loss_rows(const Tensor& self, const Tensor& target, const Tensor& weight, int64_t reduction,
                   int64_t ignore_index) {
  TL_CHECK(self.dim() >= 1, "nll_loss: expected input of at least 1 dimension, (C), (N, C) or (N, C, d1, ...), got ",
           self.sizes());
  if (self.dim() <= 2) return std::get<0>(tl::nll_loss_forward(self, target, weight, reduction, ignore_index));
  Shape expected{self.size(0)};
  for (int64_t d = 2; d < self.dim(); ++d) expected.push_back(self.size(d));
  TL_CHECK(target.sizes() == expected, "nll_loss: expected target of size (N, d1, ...) = ", expected, " for input ",
           self.sizes(), ", got ", target.sizes());
  Shape to_last{0};
  for (int64_t d = 2; d < self.dim(); ++d) to_last.push_back(d);
  to_last.push_back(1);
  const int64_t rows = target.numel();
  const Tensor flat = self.permute(to_last).reshape({rows, self.size(1)});
  const Tensor out = std::get<0>(tl::nll_loss_forward(flat, target.reshape({rows}), weight, reduction, ignore_index));
  return reduction == Reduction::None ? out.reshape(target.sizes()) : out;
}

// `weight` (C) shaped to broadcast along class_dim of a rank-`rank` tensor.
Tensor class_weight(const Tensor& weight, int64_t rank, int64_t class_dim) {
  Shape shape(static_cast<size_t>(rank), 1);
  shape[class_dim] = weight.numel();
  return weight.view(shape);
}

Tensor reduce(const Tensor& loss, int64_t reduction, const Tensor& mean_denominator) {
  if (reduction == Reduction::None) return loss;
  return reduction == Reduction::Sum ? loss.sum() : loss.sum() / mean_denominator;
}

// Class-probability targets: -sum_c lp * target (* weight), the mean taken over the N * d1 * ... rows (a number, as
// ATen divides: DivBackward1); an empty input's mean is NaN (ATen's sum().fill_(NAN): no row, no class either).
Tensor cross_entropy_prob(const Tensor& lp, const Tensor& target, const Tensor& weight, int64_t reduction,
                          int64_t class_dim, double label_smoothing) {
  const int64_t n_classes = lp.size(class_dim);
  const Tensor smoothed =
      label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / static_cast<double>(n_classes) : target;
  Tensor prod = lp * smoothed;
  if (weight.defined()) prod = prod * class_weight(weight, lp.dim(), class_dim);
  if (reduction == Reduction::None) return -prod.sum(Shape{class_dim});
  if (reduction == Reduction::Sum) return -prod.sum();
  if (lp.numel() == 0) return -prod.sum().masked_fill(ones({}, DType::Bool), Scalar(std::nan("")));
  return -prod.sum() / Scalar(lp.numel() / n_classes);
}

// Class-index targets with label smoothing: (1 - eps) nll + eps / C * (the loss against a uniform target).
Tensor cross_entropy_smoothed(const Tensor& lp, const Tensor& target, const Tensor& weight, int64_t reduction,
                              int64_t ignore_index, int64_t class_dim, double label_smoothing) {
  const Tensor nll = tl::nll_loss_nd(lp, target, weight, reduction, ignore_index);
  const Tensor kept = target.ne(Scalar(ignore_index));
  const Tensor weighted = weight.defined() ? lp * class_weight(weight, lp.dim(), class_dim) : lp;
  const Tensor smooth = where(kept, -weighted.sum(Shape{class_dim}), zeros({}, lp.dtype()));
  // PyTorch normalises a weighted mean by the kept targets' weights, as nll_loss does.
  const Tensor denominator = reduction != Reduction::Mean ? Tensor()
                             : weight.defined()          ? index_select(weight, 0, masked_select(target, kept)).sum()
                                                         : kept.sum();
  const Tensor ret = reduce(smooth, reduction, denominator);
  return nll * (1 - label_smoothing) + ret * (label_smoothing / static_cast<double>(lp.size(class_dim)));
}

}  // namespace

Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight, const NllLossArgs& args) {
  return nll_loss_rows(self, target, weight, args.reduction, args.ignore_index);
}

Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight,
                          const CrossEntropyLossArgs& args) {
  const int64_t reduction = args.reduction, ignore_index = args.ignore_index;
  const double label_smoothing = args.label_smoothing;
  TL_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
           "cross_entropy_loss: label_smoothing must be between 0.0 and 1.0, got ", label_smoothing);
  detail::checked_reduction(reduction, "cross_entropy_loss");
  TL_CHECK(self.dim() >= 1, "cross_entropy_loss: expected input of at least 1 dimension, got ", self.sizes());
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  if (is_floating_point(target.dtype())) {
    TL_CHECK(target.sizes() == self.sizes() && target.dtype() == self.dtype(),
             "cross_entropy_loss: class-probability target must have the input's shape ", self.sizes(), " and dtype ",
             self.dtype(), ", got ", target.sizes(), " ", target.dtype());
    TL_CHECK(ignore_index < 0, "cross_entropy_loss: ignore_index is not supported for floating point target, got ",
             ignore_index);
    if (weight.defined())
      TL_CHECK(weight.dim() == 1 && weight.numel() == self.size(class_dim), "cross_entropy_loss: expected weight with "
               "one element per class (", self.size(class_dim), "), got shape ", weight.sizes());
    return cross_entropy_prob(tl::log_softmax(self, class_dim, self.dtype()), target, weight, reduction, class_dim,
                              label_smoothing);
  }
  const Tensor lp = tl::log_softmax(self, class_dim, self.dtype());
  if (label_smoothing == 0.0) return tl::nll_loss_nd(lp, target, weight, reduction, ignore_index);
  return cross_entropy_smoothed(lp, target, weight, reduction, ignore_index, class_dim, label_smoothing);
}

// |self - target|, reduced.
Tensor l1_loss(const Tensor& self, const Tensor& target, const L1LossArgs& args) {
  const int64_t reduction = detail::checked_reduction(args.reduction, "l1_loss");
  return detail::apply_loss_reduction((self - target).abs(), reduction);
}

// target (log target - input), with 0 log 0 = 0 (xlogy); log_target: exp(target) (target - input).
Tensor kl_div(const Tensor& self, const Tensor& target, const KlDivArgs& args) {
  const int64_t reduction = detail::checked_reduction(args.reduction, "kl_div");
  TL_CHECK(is_floating_point(self.dtype()) && is_floating_point(target.dtype()),
           "kl_div: Integral inputs not supported, got input ", self.dtype(), " and target ", target.dtype());
  if (args.log_target) {
    const Tensor difference = target - self;  // ATen computes it before exp(target)
    return detail::apply_loss_reduction(exp(target) * difference, reduction);
  }
  const Tensor product = target * self;
  return detail::apply_loss_reduction(xlogy(target, target) - product, reduction);
}

// 1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, 0 elsewhere; cos along the
// last dim, each squared magnitude + 1e-12 (ATen's EPSILON).
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossArgs& args) {
  const int64_t reduction = detail::checked_reduction(args.reduction, "cosine_embedding_loss");
  const int64_t dim = target.dim();
  TL_CHECK(dim == 0 || dim == 1, "cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not "
           "supported, got target of shape ", target.sizes());
  constexpr double kEpsilon = 1e-12;
  const Tensor prod_sum = (input1 * input2).sum(dim);
  const Tensor mag_square1 = (input1 * input1).sum(dim) + kEpsilon;
  const Tensor mag_square2 = (input2 * input2).sum(dim) + kEpsilon;
  const Tensor cos = prod_sum / (mag_square1 * mag_square2).sqrt_();
  const Tensor zeros = zeros_like(cos);
  const Tensor pos = 1 - cos;
  const Tensor neg = (cos - args.margin).clamp_min_(0);
  const Tensor output_pos = where(target.eq(1), pos, zeros);
  const Tensor output_neg = where(target.eq(-1), neg, zeros);
  return detail::apply_loss_reduction(output_pos + output_neg, reduction);
}

// max(0, -target (input1 - input2) + margin).
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossArgs& args) {
  const int64_t reduction = detail::checked_reduction(args.reduction, "margin_ranking_loss");
  const Tensor difference = input1 - input2;
  return detail::apply_loss_reduction((-target * difference + args.margin).clamp_min_(0), reduction);
}

// max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm pairwise_distance; with swap the
// negative distance is the smaller of d(anchor, negative) and d(positive, negative) (NaN wins, as at::min).
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossArgs& args) {
  const int64_t reduction = detail::checked_reduction(args.reduction, "triplet_margin_loss");
  TL_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(),
           "triplet_margin_loss: All inputs should have same dimension but got ", anchor.dim(), "D, ", positive.dim(),
           "D and ", negative.dim(), "D inputs.");
  const Tensor dist_pos = pairwise_distance(anchor, positive, args.p, args.eps);
  Tensor dist_neg = pairwise_distance(anchor, negative, args.p, args.eps);
  if (args.swap) {
    const Tensor dist_swap = pairwise_distance(positive, negative, args.p, args.eps);
    dist_neg = where(logical_or(dist_swap.lt(dist_neg), dist_swap.isnan()), dist_swap, dist_neg);
  }
  return detail::apply_loss_reduction(clamp_min(args.margin + dist_pos - dist_neg, 0), reduction);
}

}  // namespace tl::kernels

namespace tl {

Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const Tensor& weight, int64_t reduction,
                   int64_t ignore_index) {
  RecordFunction scope("aten::nll_loss_nd", [&] {
    return ScopeArgs{self, target, weight, AttrValue(reduction), AttrValue(ignore_index)};
  });
  return nll_loss(self, target, weight, reduction, ignore_index);
}

}  // namespace tl
