// ops/bilinear.cpp — bilinear (torch.nn.functional.bilinear), composite as ATen's: y = x1^T A x2 + b for each
// output feature, here as one matrix product of x1 with A's (in1, out * in2) view, then a product-sum with x2.
#include <cstdint>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/ops.h"

namespace tl::kernels {

// input1 (*, in1), input2 (*, in2) with the same leading dims; weight (out, in1, in2); bias (out) or None ->
// (*, out).
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias) {
  TL_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ", input1.dim(), " and ",
           input2.dim());
  TL_CHECK(input1.dim() >= 1, "bilinear(): expected inputs with at least one dimension, got ", input1.shape());
  for (int64_t d = 0; d + 1 < input1.dim(); ++d)
    TL_CHECK(input1.size(d) == input2.size(d), "bilinear(): input batch dimensions do not match at dim ", d, ": got ",
             input1.size(d), " and ", input2.size(d));
  TL_CHECK(weight.dim() == 3, "bilinear(): expected a 3-D weight (out, in1, in2), got ", weight.shape());
  TL_CHECK(input1.size(-1) == weight.size(1), "bilinear(): input1 size does not match weight size: got ",
           input1.size(-1), " but expected ", weight.size(1));
  TL_CHECK(input2.size(-1) == weight.size(2), "bilinear(): input2 size does not match weight size: got ",
           input2.size(-1), " but expected ", weight.size(2));
  TL_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)),
           "bilinear(): bias size does not match weight size: got ", bias.defined() ? bias.size(0) : 0,
           " but expected ", weight.size(0));
  const int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  const Tensor x1 = input1.reshape({-1, in1}), x2 = input2.reshape({-1, in2});
  // t[n, o, j] = sum_i x1[n, i] * A[o, i, j]
  const Tensor t = x1.matmul(weight.permute({1, 0, 2}).reshape({in1, out * in2})).view({-1, out, in2});
  Tensor y = (t * x2.unsqueeze(1)).sum(2);
  if (bias.defined()) y = y + bias;
  Shape shape = input1.shape();
  shape[input1.dim() - 1] = out;
  return y.view(shape);
}

}  // namespace tl::kernels
