// ops/group_norm.cpp — group_norm (composite, as ATen's) over native_group_norm and its backward: the channels
// of each sample split into `group` groups, each normalised by its own mean and biased variance, then scaled and
// shifted per channel. A group is a contiguous row of (C / group) * HxW elements: ops/norm_rows.h's kernels.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/norm_rows.h"
#include "ops/onednn/memory.h"
#include "ops/ops.h"
#include "ops/reduction.h"

namespace tl::kernels {
namespace {

detail::RowLayout check_group_norm(const char* op, const Tensor& x, const Tensor& weight, const Tensor& bias, int64_t N,
                                   int64_t C, int64_t HxW, int64_t group) {
  TL_CHECK(is_floating_point(x.dtype()), op, ": expected a floating point input, got ", x.dtype());
  TL_CHECK(x.dim() >= 2 && x.size(0) == N && x.size(1) == C && HxW >= 0 && x.numel() == N * C * HxW, op,
           ": expected input (N, C, *) of N * C * HxW = ", N, " * ", C, " * ", HxW, " elements, got input of size ",
           x.shape());
  TL_CHECK(group > 0 && C % group == 0, op, ": expected number of channels in input to be divisible by num_groups, but "
           "got input of shape ", x.shape(), " and num_groups=", group);
  const std::pair<const char*, const Tensor*> params[] = {{"weight", &weight}, {"bias", &bias}};
  for (const auto& [name, t] : params) {
    if (!t->defined()) continue;
    TL_CHECK(t->numel() == C, op, ": expected ", name, " to be a vector of size equal to the number of channels in "
             "input, but got ", name, " of shape ", t->shape(), " and input of shape ", x.shape());
    TL_CHECK(t->dtype() == x.dtype(), op, ": ", name, " dtype ", t->dtype(), " differs from input dtype ", x.dtype());
  }
  return {.rows = N * group, .len = C / group * HxW, .inner = HxW, .groups = group};
}

}  // namespace

// input: N * C * HxW elements, (N, C, *); weight, bias: C elements or None -> (out like input, mean (N, group),
// rstd (N, group)), mean and rstd in input's dtype.
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                                                     const NativeGroupNormArgs& args) {
  const char* op = "native_group_norm";
  const detail::RowLayout r = check_group_norm(op, input, weight, bias, args.N, args.C, args.HxW, args.group);
  TL_CHECK(args.eps >= 0, op, ": eps must be non-negative, got ", args.eps);
  Tensor out = Tensor::allocate(input.sizes(), input.dtype());
  Tensor mean = Tensor::allocate({args.N, args.group}, input.dtype());
  Tensor rstd = Tensor::allocate({args.N, args.group}, input.dtype());
  if (r.rows == 0) return {out, mean, rstd};
  const Tensor x = onednn::to_contiguous(input, op);
  const Tensor w = weight.defined() ? onednn::to_contiguous(weight, op) : weight;
  const Tensor b = bias.defined() ? onednn::to_contiguous(bias, op) : bias;
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] {
    const bool any = r.len > 0;
    detail::normalize_rows<scalar_t>(any ? x.data<scalar_t>() : nullptr, w.defined() ? w.data<scalar_t>() : nullptr,
                                     b.defined() ? b.data<scalar_t>() : nullptr, any ? out.data<scalar_t>() : nullptr,
                                     mean.data<scalar_t>(), rstd.data<scalar_t>(), r, args.eps);
  });
  return {out, mean, rstd};
}

// grad_out, input: (N, C, *); mean, rstd: (N, group) as native_group_norm returns them; weight: C or None ->
// (grad_input, grad_weight (C), grad_bias (C)), each undefined where output_mask is false.
std::tuple<Tensor, Tensor, Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              const Tensor& mean, const Tensor& rstd,
                                                              const Tensor& weight,
                                                              const NativeGroupNormBackwardArgs& args) {
  const char* op = "native_group_norm_backward";
  const int64_t N = args.N, C = args.C, HxW = args.HxW;
  const detail::RowLayout r = check_group_norm(op, input, weight, Tensor(), N, C, HxW, args.group);
  TL_CHECK(grad_out.shape() == input.shape() && grad_out.dtype() == input.dtype(), op, ": grad_out ",
           grad_out.shape(), " ", grad_out.dtype(), " differs from input ", input.shape(), " ", input.dtype());
  TL_CHECK(mean.numel() == r.rows && rstd.numel() == r.rows && mean.dtype() == input.dtype() &&
               rstd.dtype() == input.dtype(),
           op, ": expected mean and rstd of ", r.rows, " elements of ", input.dtype(), " for input ", input.shape(),
           ", got ", mean.shape(), " ", mean.dtype(), " and ", rstd.shape(), " ", rstd.dtype());
  const std::array<bool, 3>& mask = args.output_mask;
  const DType param_dtype = weight.defined() ? weight.dtype() : input.dtype();
  Tensor dx, dw, db;
  if (mask[0]) dx = Tensor::allocate(input.sizes(), input.dtype());
  if (N * C * HxW == 0) {
    if (mask[1]) dw = tl::zeros({C}, param_dtype);
    if (mask[2]) db = tl::zeros({C}, param_dtype);
    return {dx, dw, db};
  }
  const Tensor x = onednn::to_contiguous(input, op), dy = onednn::to_contiguous(grad_out, op);
  const Tensor mu = onednn::to_contiguous(mean, op), rs = onednn::to_contiguous(rstd, op);
  const Tensor w = weight.defined() ? onednn::to_contiguous(weight, op) : weight;
  const DType acc_dtype = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  Tensor prod = mask[1] ? Tensor::allocate({N, C}, acc_dtype) : Tensor();
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] {
    detail::normalize_rows_backward<scalar_t>(dy.data<scalar_t>(), x.data<scalar_t>(), mu.data<scalar_t>(),
                                              rs.data<scalar_t>(), w.defined() ? w.data<scalar_t>() : nullptr,
                                              dx.defined() ? dx.data<scalar_t>() : nullptr,
                                              mask[1] ? prod.data<detail::acc_t<scalar_t>>() : nullptr, r);
  });
  // Per-channel sums over the samples (and, for grad_bias, the positions).
  if (mask[1]) dw = detail::to_dtype(detail::sum_over(prod, {true, false}), param_dtype);
  std::vector<bool> all_but_channels(static_cast<size_t>(dy.dim()), true);
  all_but_channels[1] = false;
  if (mask[2]) db = detail::to_dtype(detail::sum_over(dy, all_but_channels), param_dtype);
  return {dx, dw, db};
}

// As ATen's group_norm: N, C and HxW from input (N, C, *), then native_group_norm's output.
Tensor group_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const GroupNormArgs& args) {
  TL_CHECK(input.dim() >= 2, "group_norm: expected at least 2 dimensions for input tensor but received ", input.dim());
  const int64_t N = input.size(0), C = input.size(1), G = args.num_groups;
  TL_CHECK(G > 0 && C % G == 0, "group_norm: expected number of channels in input to be divisible by num_groups, but "
           "got input of shape ", input.shape(), " and num_groups=", G);
  for (const Tensor* t : {&weight, &bias})
    TL_CHECK(!t->defined() || (t->dim() == 1 && t->numel() == C), "group_norm: expected ",
             t == &weight ? "weight" : "bias", " to be a vector of size equal to the number of channels in input, but "
             "got ", t == &weight ? "weight" : "bias", " of shape ", t->shape(), " and input of shape ", input.shape());
  int64_t HxW = 1;
  for (int64_t d = 2; d < input.dim(); ++d) HxW *= input.size(d);
  return std::get<0>(tl::native_group_norm(input, weight, bias, N, C, HxW, G, args.eps));
}

}  // namespace tl::kernels
