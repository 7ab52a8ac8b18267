// ops/distance.cpp — pairwise_distance, cosine_similarity and one_hot, composed of other ops as ATen 1.13's
// Distance.cpp and Onehot.cpp (CompositeImplicit): autograd and the profiler see their parts.
#include <algorithm>

#include "core/dispatch.h"
#include "core/grad_mode.h"
#include "core/op_args.h"
#include "ops/ops.h"

namespace tl::kernels {

// ||x1 - x2 + eps||_p along the last dim of the broadcast.
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceArgs& args) {
  const int64_t innermost = std::max(x1.dim(), x2.dim()) - 1;
  return norm(x1 - x2 + args.eps, args.p, innermost, args.keepdim);
}

// <x1, x2> / (max(||x1||, eps) max(||x2||, eps)) along dim, each operand divided by its norm first (ATen's
// order: the squared norms clamped at eps^2 without recording, then their square roots in place).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityArgs& args) {
  const DType common = promote_types(x1.dtype(), x2.dtype());
  TL_CHECK(is_floating_point(common), "cosine_similarity: expected common dtype to be floating point, yet common "
           "dtype is ", common);
  const Shape shape = broadcast_shapes(x1.sizes(), x2.sizes(), "cosine_similarity");
  const Tensor a = x1.to(common).expand(shape), b = x2.to(common).expand(shape);
  Tensor a_squared_norm = pow(a, 2).sum(args.dim, true);
  Tensor b_squared_norm = pow(b, 2).sum(args.dim, true);
  {
    NoGradGuard no_grad;
    a_squared_norm.clamp_min_(args.eps * args.eps);
    b_squared_norm.clamp_min_(args.eps * args.eps);
  }
  const Tensor a_norm = a_squared_norm.sqrt_(), b_norm = b_squared_norm.sqrt_();
  return (a / a_norm * (b / b_norm)).sum(args.dim);
}

// self's int64 classes as one-hot rows: a last dim of num_classes (-1: max + 1) holding one 1 each.
Tensor one_hot(const Tensor& self, const OneHotArgs& args) {
  TL_CHECK(self.dtype() == DType::Int64, "one_hot: one_hot is only applicable to index tensor, got ", self.dtype());
  Shape shape = self.sizes();
  int64_t num_classes = args.num_classes;
  if (self.numel() == 0) {
    TL_CHECK(num_classes > 0, "one_hot: Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return empty(shape, DType::Int64);
  }
  const int64_t lowest = self.min().item<int64_t>();
  TL_CHECK(lowest >= 0, "one_hot: Class values must be non-negative, got ", lowest);
  const int64_t highest = self.max().item<int64_t>();
  if (num_classes == -1) num_classes = highest + 1;
  TL_CHECK(num_classes > highest, "one_hot: Class values must be smaller than num_classes (", num_classes, "), got ",
           highest);
  shape.push_back(num_classes);
  Tensor ret = zeros(shape, DType::Int64);
  const Tensor index = self.unsqueeze(-1);
  ret.scatter_(-1, index, ones_like(index));
  return ret;
}

}  // namespace tl::kernels
