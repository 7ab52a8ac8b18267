// ops/loss_composite.cpp — nll_loss, nll_loss_nd and cross_entropy_loss, composed only of other ops (no
// loops of their own), so autograd records each part; the arithmetic and the calls follow PyTorch 1.13's
// LossNLL.cpp (cross_entropy -> log_softmax with the input's dtype, nll_loss_nd -> nll_loss).
#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/record_function.h"
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

// Class-probability targets: -sum_c lp * target (* weight), the mean taken over the N * d1 * ... rows.
Tensor cross_entropy_prob(const Tensor& lp, const Tensor& target, const Tensor& weight, int64_t reduction,
                          int64_t class_dim, double label_smoothing) {
  const int64_t n_classes = lp.size(class_dim);
  const Tensor smoothed =
      label_smoothing > 0 ? target * (1 - label_smoothing) + label_smoothing / static_cast<double>(n_classes) : target;
  Tensor prod = lp * smoothed;
  if (weight.defined()) prod = prod * class_weight(weight, lp.dim(), class_dim);
  const Tensor loss = -prod.sum(Shape{class_dim});
  return reduce(loss, reduction, scalar_tensor(lp.numel() / n_classes, DType::Int64));
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
  TL_CHECK(reduction >= 0 && reduction <= 2, "cross_entropy_loss: reduction must be 0 (none), 1 (mean) or 2 (sum), got ",
           reduction);
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
